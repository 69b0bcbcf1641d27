import "./Ownable.sol";

// Named roles on top of Ownable: the owner holds every role, other accounts hold the roles the
// owner grants them. The role table is a `record` mapping, so Cirrus lists who holds what.

error MissingRole(address member, string role);

abstract contract Authorizable is Ownable {
    mapping(address => mapping(string => bool)) public record roles;

    event RoleGranted(address indexed member, string role, address indexed grantedBy);
    event RoleRevoked(address indexed member, string role, address indexed revokedBy);

    constructor(address admin) Ownable(admin) {
    }

    modifier onlyRole(string requiredRole) {
        if (!hasRole(msg.sender, requiredRole)) {
            throw MissingRole(msg.sender, requiredRole);
        }
        _;
    }

    function hasRole(address member, string role) public view returns (bool) {
        return member == owner || roles[member][role];
    }

    function grantRole(address member, string role) public onlyOwner {
        roles[member][role] = true;
        emit RoleGranted(member, role, msg.sender);
    }

    function revokeRole(address member, string role) public onlyOwner {
        roles[member][role] = false;
        emit RoleRevoked(member, role, msg.sender);
    }
}
