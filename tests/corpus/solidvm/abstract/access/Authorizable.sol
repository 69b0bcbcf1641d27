import "./Ownable.sol";

// Named roles on top of Ownable: the owner holds every role, other accounts hold the roles the
// owner grants them. The role table is a `record` mapping, so Cirrus lists who holds what.

error MissingRole(address account, string role);

abstract contract Authorizable is Ownable {
    mapping(address => mapping(string => bool)) public record roles;

    event RoleGranted(address indexed account, string role, address indexed grantedBy);
    event RoleRevoked(address indexed account, string role, address indexed revokedBy);

    constructor(address admin) Ownable(admin) {
    }

    modifier onlyRole(string requiredRole) {
        if (!hasRole(msg.sender, requiredRole)) {
            throw MissingRole(msg.sender, requiredRole);
        }
        _;
    }

    function hasRole(address account, string role) public view returns (bool) {
        return account == owner || roles[account][role];
    }

    function grantRole(address account, string role) public onlyOwner {
        roles[account][role] = true;
        emit RoleGranted(account, role, msg.sender);
    }

    function revokeRole(address account, string role) public onlyOwner {
        roles[account][role] = false;
        emit RoleRevoked(account, role, msg.sender);
    }
}
