// An owner and an owner-only modifier: the access control every manager and proxy shares.
abstract contract Ownable {
    address private _owner;

    event OwnerChanged(address previous, address next);

    constructor(address initialOwner) {
        require(initialOwner != address(0), "owner cannot be zero");
        _owner = initialOwner;
    }

    modifier onlyOwner() {
        require(msg.sender == _owner, "caller is not the owner");
        _;
    }

    function owner() public view returns (address) {
        return _owner;
    }

    function transferOwnership(address next) public onlyOwner {
        require(next != address(0), "owner cannot be zero");
        emit OwnerChanged(_owner, next);
        _owner = next;
    }
}
