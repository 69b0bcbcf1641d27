import "../abstract/access/Ownable.sol";
import "../abstract/token/IERC20.sol";
import "../abstract/token/TokenErrors.sol";
import "../libraries/Text.sol";
import "./Vault.sol";

enum Outcome { Pending, Done, Refunded, Failed }

struct Attempt {
    address token;
    address counterparty;
    uint amount;
    Outcome outcome;
}

// Moves tokens on behalf of its users and keeps going when a step fails: every attempt is
// logged (a `record` mapping of structs) before the risky call, and a failure inside the call is
// caught, so the log entry and everything else written before the call stay.
//
// SolidVM has two forms of try/catch:
// - Solidity's `try expr returns (...) { } catch Error(string reason) { } catch Panic(uint code) { }
//   catch (bytes) { }`: `Error` receives require() messages, `Panic` a numeric code for the other
//   failures (12 for a division by zero), and the bytes/bare clause whatever is left, custom
//   errors included.
// - SolidVM's own `try { statements } catch ErrorName(a, b) { }`, which catches a custom error by
//   name and binds its arguments (the error must be declared in this contract or at file level).
// Either way the failed call's own writes are rolled back and the caller's are kept.
contract record Router is Ownable {
    using Text for string;

    error UnknownTarget(address target);

    uint public attempts;
    uint public completed;
    uint public lastShortfall;
    uint public lastPanicCode;
    string public lastReason;
    mapping(uint => Attempt) public record attemptLog;
    mapping(uint => string) public record notes;

    event Routed(uint indexed attemptId, Outcome outcome, string note);

    constructor(address admin) Ownable(admin) {
    }

    // Pulls `amount` of `token` from `from` (who approved this router); false if the token refuses.
    function collect(address token, address from, uint amount) public returns (bool) {
        uint id = _open(token, from, amount);
        try IERC20(token).transferFrom(from, address(this), amount) returns (bool moved) {
            _close(id, Outcome.Done, string.concat("collected ", string(amount), " from ", string(from)));
            return moved;
        } catch Error(string memory reason) {
            lastReason = reason;
            _close(id, Outcome.Failed, reason);
        } catch (bytes memory) {
            _close(id, Outcome.Failed, "refused by the token");
        }
        return false;
    }

    // Takes `amount` of the vault's asset from the caller and deposits it in the vault for them;
    // if the vault refuses, the tokens go back to the caller. Returns the shares minted (0 if refused).
    function depositVia(address vault, uint amount) public returns (uint) {
        Vault target = Vault(vault);
        IERC20 token = target.asset();
        uint id = _open(address(token), msg.sender, amount);
        token.transferFrom(msg.sender, address(this), amount);
        token.approve(vault, amount);
        try target.depositFor(msg.sender, amount) returns (uint minted) {
            _close(id, Outcome.Done, string.concat("minted ", string(minted), " shares"));
            return minted;
        } catch Error(string memory reason) {
            _refund(address(token), vault, amount);
            lastReason = reason;
            _close(id, Outcome.Refunded, reason);
        } catch {
            _refund(address(token), vault, amount);
            _close(id, Outcome.Refunded, "the vault refused the deposit");
        }
        return 0;
    }

    // Pays `amount` of `token` out of the router's own balance; returns how much was missing
    // (0 when paid).
    function payOut(address token, address to, uint amount) public onlyOwner returns (uint) {
        uint id = _open(token, to, amount);
        uint shortfall = 0;
        try {
            IERC20(token).transfer(to, amount);
            _close(id, Outcome.Done, string.concat("paid ", string(amount), " to ", string(to)));
        } catch InsufficientBalance(holder, available, needed) {
            shortfall = needed - available;
            lastShortfall = shortfall;
            _close(id, Outcome.Failed, "router balance too low");
        }
        return shortfall;
    }

    // An isolated computation: called through this contract's address so that a failure can be
    // caught by the caller.
    function share(uint total, uint parts) external pure returns (uint) {
        return total / parts;
    }

    // `total` split in `parts`; 0 (with the panic code kept) when it cannot be split.
    function splitEvenly(uint total, uint parts) public returns (uint) {
        try Router(address(this)).share(total, parts) returns (uint each) {
            return each;
        } catch Panic(uint code) {
            lastPanicCode = code;
        }
        return 0;
    }

    // Calls `fn` on `target` with the remaining arguments; the callee's result comes back as is.
    function relay(address target, string fn, variadic args) public onlyOwner returns (variadic) {
        if (target == address(0)) {
            revert UnknownTarget(target);
        }
        return address(target).call(fn, args);
    }

    function balanceThroughRelay(address token, address holder) public returns (uint) {
        uint held = relay(token, "balanceOf", holder);
        return held;
    }

    // A vault's (assets, shares, price per share), read through a low-level call.
    function vaultSnapshot(address vault) public returns (uint, uint, decimal) {
        (uint assets, uint shares, decimal price) = address(vault).call("snapshot");
        return (assets, shares, price);
    }

    // A receipt identifier: keccak256 of the ABI encoding of (payer, nonce).
    function receiptId(address payer, uint nonce) public pure returns (bytes32) {
        return keccak256(abi.encode(payer, nonce));
    }

    function attemptInfo(uint id) public view returns (address, address, uint, Outcome) {
        return (attemptLog[id].token, attemptLog[id].counterparty, attemptLog[id].amount, attemptLog[id].outcome);
    }

    function _open(address token, address counterparty, uint amount) internal returns (uint) {
        attempts += 1;
        attemptLog[attempts] = Attempt(token, counterparty, amount, Outcome.Pending);
        return attempts;
    }

    function _close(uint id, Outcome outcome, string note) internal {
        attemptLog[id].outcome = outcome;
        if (outcome == Outcome.Done) {
            completed += 1;
        }
        notes[id] = note.orDefault("(no reason given)");
        emit Routed(id, outcome, notes[id]);
    }

    function _refund(address token, address vault, uint amount) internal {
        IERC20(token).approve(vault, 0);
        IERC20(token).transfer(msg.sender, amount);
    }
}
