import "../abstract/access/Authorizable.sol";
import "../abstract/token/extensions/ERC20Burnable.sol";
import "../abstract/token/extensions/ERC20Capped.sol";
import "../abstract/token/extensions/ERC20Pausable.sol";

string constant MINTER_ROLE = "minter";
string constant PAUSER_ROLE = "pauser";

// A capped, pausable, burnable token whose admin (the owner) hands out minter and pauser roles.
contract record Token is ERC20Capped, ERC20Pausable, ERC20Burnable, Authorizable {
    constructor(string name_, string symbol_, uint cap_, address admin_)
        ERC20Capped(cap_)
        Authorizable(admin_)
    {
        _initMetadata(name_, symbol_, 18);
    }

    function mint(address to, uint amount) public onlyRole(MINTER_ROLE) {
        _mint(to, amount);
    }

    function pause() public onlyRole(PAUSER_ROLE) {
        _setPaused(true);
    }

    function unpause() public onlyRole(PAUSER_ROLE) {
        _setPaused(false);
    }

    // SolidVM picks an inherited function depth-first along the `is` list (the first base that
    // has one wins, its own bases included) rather than by C3 linearization, and a `super` call
    // resolves from the contract that is running. So the token sends each hook that an extension
    // overrides to that extension by name; the extension's `super` then reaches ERC20.
    function _mint(address to, uint amount) internal override {
        ERC20Capped._mint(to, amount);
    }

    function _checkTransfer(address from, address to, uint amount) internal override {
        ERC20Pausable._checkTransfer(from, to, amount);
    }
}
