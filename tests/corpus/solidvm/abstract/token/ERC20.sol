pragma solidity ^0.8.0;

import "./IERC20.sol";
import "./TokenErrors.sol";

// The core of a fungible token: balances and allowances as `record` mappings (one Cirrus
// collection each), metadata set once by the concrete token, and internal hooks for the
// extensions. No state variable is private: a modifier or initializer that a child contract
// re-checks could not see it, and SolidVM merges the bases' state into the running contract
// anyway.
abstract contract record ERC20 is IERC20 {
    string public name;
    string public symbol;
    uint8 public decimals;

    uint internal supply;
    mapping(address => uint) internal record balances;
    mapping(address => mapping(address => uint)) internal record allowances;

    function totalSupply() public view override returns (uint) {
        return supply;
    }

    function balanceOf(address holder) public view override returns (uint) {
        return balances[holder];
    }

    function allowance(address holder, address spender) public view override returns (uint) {
        return allowances[holder][spender];
    }

    function transfer(address to, uint amount) public virtual override returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint amount) public virtual override returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint amount) public virtual override returns (bool) {
        _spendAllowance(from, msg.sender, amount);
        _transfer(from, to, amount);
        return true;
    }

    function _initMetadata(string name_, string symbol_, uint8 decimals_) internal {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function _transfer(address from, address to, uint amount) internal virtual {
        if (to == address(0)) {
            throw InvalidReceiver(to);
        }
        _checkTransfer(from, to, amount);
        uint held = balances[from];
        if (held < amount) {
            throw InsufficientBalance(from, held, amount);
        }
        balances[from] = held - amount;
        balances[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint amount) internal virtual {
        if (to == address(0)) {
            throw InvalidReceiver(to);
        }
        supply += amount;
        balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function _burn(address holder, uint amount) internal virtual {
        uint held = balances[holder];
        if (held < amount) {
            throw InsufficientBalance(holder, held, amount);
        }
        balances[holder] = held - amount;
        supply -= amount;
        emit Transfer(holder, address(0), amount);
    }

    function _approve(address holder, address spender, uint amount) internal virtual {
        require(spender != address(0), "ERC20: approve to the zero address");
        allowances[holder][spender] = amount;
        emit Approval(holder, spender, amount);
    }

    function _spendAllowance(address holder, address spender, uint amount) internal virtual {
        uint allowed = allowances[holder][spender];
        if (allowed < amount) {
            throw InsufficientAllowance(spender, allowed, amount);
        }
        allowances[holder][spender] = allowed - amount;
    }

    // Runs before every move between two holders (mints and burns do not move between holders).
    function _checkTransfer(address from, address to, uint amount) internal virtual {
    }
}
