import "../ERC20.sol";

// A hard ceiling on the supply, checked on every mint.
abstract contract ERC20Capped is ERC20 {
    uint public cap;

    constructor(uint cap_) {
        if (cap_ == 0) {
            throw InvalidCap(cap_);
        }
        cap = cap_;
    }

    function _mint(address to, uint amount) internal virtual override {
        uint wouldBe = supply + amount;
        if (wouldBe > cap) {
            throw CapExceeded(cap, wouldBe);
        }
        super._mint(to, amount);
    }
}
