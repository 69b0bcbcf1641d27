import "../abstract/access/Ownable.sol";
import "../abstract/token/IERC20.sol";
import "../libraries/MathLib.sol";
import "../libraries/Units.sol";

// Share counts go through the vault's internal helpers as their own type, so that a share count
// is not passed where an asset amount is expected. The type checker enforces it; at run time
// `wrap` and `unwrap` are erased. (SolidVM knows a user-defined value type only in the file that
// declares it, and only over uint, int, string, bool or bytes.)
type Shares is uint;

// Thrown by the vault and caught by name by its callers, hence declared at file level.
error NotEnoughShares(address holder, uint held, uint wanted);

// A single-asset vault: depositors get shares at the current price per share (assets held over
// shares issued, a decimal with 18 places) and redeem them later at the then-current price, less
// an exit fee that stays in the vault.
contract record Vault is Ownable {
    using MathLib for uint;

    error ZeroAmount();
    error AssetTransferFailed(address from, uint amount);

    IERC20 public asset;
    uint public totalShares;
    uint public minDeposit;
    uint public exitFeeBps;
    decimal public exitFee;
    decimal public lastPrice;
    uint public feesRetained;
    mapping(address => uint) public record sharesOf;

    event Deposited(address indexed holder, uint assets, uint shares);
    event Redeemed(address indexed holder, uint shares, uint assets, uint fee);

    constructor(address asset_, uint exitFeeBps_, uint minDeposit_, address admin) Ownable(admin) {
        asset = IERC20(asset_);
        exitFeeBps = exitFeeBps_;
        exitFee = bpsToFraction(exitFeeBps_);
        minDeposit = minDeposit_;
        lastPrice = ONE;
    }

    function totalAssets() public view returns (uint) {
        return asset.balanceOf(address(this));
    }

    function pricePerShare() public view returns (decimal) {
        if (totalShares == 0) {
            return ONE;
        }
        return decimal(totalAssets()) * ONE / decimal(totalShares);
    }

    function previewDeposit(uint assets) public view returns (uint) {
        return Shares.unwrap(_sharesFor(assets, pricePerShare()));
    }

    function previewRedeem(uint shares) public view returns (uint) {
        (uint payout, uint fee) = _payoutFor(shares, pricePerShare());
        return payout;
    }

    // The exit fee on `assets`, rounded up: what a redemption of that value leaves behind.
    function previewFee(uint assets) public view returns (uint) {
        return assets.mulDivUp(exitFeeBps, BPS);
    }

    function snapshot() public view returns (uint, uint, decimal) {
        return (totalAssets(), totalShares, pricePerShare());
    }

    function deposit(uint assets) public returns (uint) {
        return _deposit(msg.sender, msg.sender, assets);
    }

    function depositFor(address receiver, uint assets) public returns (uint) {
        return _deposit(msg.sender, receiver, assets);
    }

    function redeem(uint shares) public returns (uint) {
        return _redeem(msg.sender, shares);
    }

    // Redeems `shares`, or everything the caller holds if that is less.
    function redeemUpTo(uint shares) public returns (uint) {
        return _redeem(msg.sender, shares.atMost(sharesOf[msg.sender]));
    }

    function _deposit(address payer, address receiver, uint assets) internal returns (uint) {
        if (assets == 0) {
            revert ZeroAmount();
        }
        require(assets >= minDeposit, "Vault: deposit below the minimum");
        decimal price = pricePerShare();
        uint minted = Shares.unwrap(_sharesFor(assets, price));
        bool pulled = asset.transferFrom(payer, address(this), assets);
        if (!pulled) {
            revert AssetTransferFailed(payer, assets);
        }
        sharesOf[receiver] += minted;
        totalShares += minted;
        lastPrice = price;
        emit Deposited(receiver, assets, minted);
        return minted;
    }

    function _redeem(address holder, uint shares) internal returns (uint) {
        if (shares == 0) {
            revert ZeroAmount();
        }
        uint held = sharesOf[holder];
        if (held < shares) {
            throw NotEnoughShares(holder, held, shares);
        }
        decimal price = pricePerShare();
        (uint payout, uint kept) = _payoutFor(shares, price);
        sharesOf[holder] = held - shares;
        totalShares -= shares;
        feesRetained += kept;
        lastPrice = price;
        bool sent = asset.transfer(holder, payout);
        if (!sent) {
            revert AssetTransferFailed(address(this), payout);
        }
        emit Redeemed(holder, shares, payout, kept);
        return payout;
    }

    // Whole shares that `assets` buy at `price`, rounded down.
    function _sharesFor(uint assets, decimal price) internal pure returns (Shares) {
        decimal exact = decimal(assets) * ONE / price;
        return Shares.wrap(uint(exact.truncate(0)));
    }

    // (paid out, kept as the fee) for redeeming `shares` at `price`: the gross value less the
    // exit fee, rounded down to whole assets; the fee is what the rounding-down leaves of it.
    function _payoutFor(uint shares, decimal price) internal view returns (uint, uint) {
        decimal gross = decimal(shares) * price;
        decimal fee = gross * exitFee;
        uint payout = uint((gross - fee).truncate(0));
        uint kept = uint(gross.truncate(0)) - payout;
        return (payout, kept);
    }
}
