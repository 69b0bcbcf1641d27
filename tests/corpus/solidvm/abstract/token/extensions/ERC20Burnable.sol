import "../ERC20.sol";

// Holders destroy their own tokens, or tokens they were allowed to spend.
abstract contract ERC20Burnable is ERC20 {
    function burn(uint amount) public virtual {
        _burn(msg.sender, amount);
    }

    function burnFrom(address holder, uint amount) public virtual {
        _spendAllowance(holder, msg.sender, amount);
        _burn(holder, amount);
    }
}
