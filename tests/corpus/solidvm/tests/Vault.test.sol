import "../concrete/Token.sol";
import "../concrete/Vault.sol";
import "./support/Actor.sol";

contract Describe_Vault {
    Token asset;
    Vault vault;
    Actor alice;
    Actor bob;

    function beforeAll() public {
        alice = new Actor();
        bob = new Actor();
    }

    function beforeEach() public {
        asset = new Token("Vault Asset", "VAS", 1000000, address(this));
        vault = new Vault(address(asset), 25, 10, address(this));
        asset.mint(address(alice), 10000);
        asset.mint(address(bob), 10000);
        alice.act(address(asset), "approve", address(vault), 10000);
        bob.act(address(asset), "approve", address(vault), 10000);
    }

    function it_prices_a_share_at_one_when_empty() public {
        require(vault.pricePerShare() == 1.0, "an empty vault prices a share at 1");
        require(vault.exitFee() == 0.0025, "25 basis points");
    }

    function it_mints_shares_at_the_current_price() public {
        uint minted = alice.act(address(vault), "deposit", 1000);
        require(minted == 1000, "1000 shares at a price of 1");
        asset.mint(address(vault), 250);
        require(vault.pricePerShare() == 1.25, "1250 assets over 1000 shares");
        uint second = bob.act(address(vault), "deposit", 500);
        require(second == 400, "500 assets buy 400 shares at 1.25");
    }

    function it_keeps_the_exit_fee() public {
        alice.act(address(vault), "deposit", 1000);
        uint paid = alice.act(address(vault), "redeem", 400);
        require(paid == 399, "400 assets less 0.25% is 399");
        require(vault.feesRetained() == 1, "the fee stays in the vault");
        require(vault.sharesOf(address(alice)) == 600, "600 shares are left");
    }

    function it_refuses_to_redeem_more_than_held() public {
        alice.act(address(vault), "deposit", 100);
        bool refused = false;
        try {
            alice.act(address(vault), "redeem", 101);
        } catch NotEnoughShares(holder, held, wanted) {
            refused = holder == address(alice) && held == 100 && wanted == 101;
        }
        require(refused, "redeeming 101 of 100 shares fails with NotEnoughShares");
    }

    function it_refuses_empty_and_small_deposits() public {
        bool refusedEmpty = false;
        try {
            alice.act(address(vault), "deposit", 0);
        } catch {
            refusedEmpty = true;
        }
        require(refusedEmpty, "a deposit of nothing fails");
        bool refusedSmall = false;
        try {
            alice.act(address(vault), "deposit", 9);
        } catch {
            refusedSmall = true;
        }
        require(refusedSmall, "a deposit under the minimum fails");
        require(vault.totalShares() == 0, "no shares were issued");
    }

    function it_reports_a_snapshot() public {
        alice.act(address(vault), "deposit", 300);
        (uint assets, uint shares, decimal price) = address(vault).call("snapshot");
        require(assets == 300 && shares == 300, "300 assets, 300 shares");
        require(price == 1.0, "at a price of 1");
    }

    function property_previews_match_deposits(uint amount) public {
        uint assets = 10 + amount % 40;
        uint expected = vault.previewDeposit(assets);
        uint minted = alice.act(address(vault), "deposit", assets);
        require(minted == expected, "a deposit mints what previewDeposit said");
    }
}
