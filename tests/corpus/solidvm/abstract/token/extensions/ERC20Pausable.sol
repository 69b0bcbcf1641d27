import "../ERC20.sol";

// An emergency stop for transfers; minting and burning are not affected.
abstract contract ERC20Pausable is ERC20 {
    bool public paused;

    event Paused(address by);
    event Unpaused(address by);

    function _setPaused(bool value) internal {
        paused = value;
        if (value) {
            emit Paused(msg.sender);
        } else {
            emit Unpaused(msg.sender);
        }
    }

    function _checkTransfer(address from, address to, uint amount) internal virtual override {
        if (paused) {
            throw TokenPaused();
        }
        super._checkTransfer(from, to, amount);
    }
}
