// Single-owner access control, the base of every other access rule in the corpus.
//
// The errors are declared at file level, not inside the contract: SolidVM does not inherit the
// errors a contract declares, and it type-checks a modifier again inside every contract that
// inherits it, so an error raised by shared code has to be visible from all of them. Shared
// code raises errors with `throw`, which (unlike `revert`) needs no declaration in the contract
// that happens to be running.

error NotOwner(address caller, address currentOwner);
error InvalidOwner(address candidate);

abstract contract Ownable {
    address public owner;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    constructor(address initialOwner) {
        if (initialOwner == address(0)) {
            throw InvalidOwner(initialOwner);
        }
        _setOwner(initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) {
            throw NotOwner(msg.sender, owner);
        }
        _;
    }

    function transferOwnership(address newOwner) public virtual onlyOwner {
        if (newOwner == address(0)) {
            throw InvalidOwner(newOwner);
        }
        _setOwner(newOwner);
    }

    function _setOwner(address newOwner) internal {
        address previous = owner;
        owner = newOwner;
        emit OwnershipTransferred(previous, newOwner);
    }
}
