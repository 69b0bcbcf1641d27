import "../concrete/Token.sol";
import "./support/Actor.sol";

// Run with `python -m app test` (or the platform's `solid-vm-cli test`): beforeAll once, then
// beforeEach before every it_/property_ function, in source order, on one instance.
contract Describe_Token {
    Token token;
    Actor alice;
    Actor bob;

    function beforeAll() public {
        alice = new Actor();
        bob = new Actor();
    }

    function beforeEach() public {
        token = new Token("Spec Coin", "SPEC", 10000, address(this));
        token.mint(address(alice), 1000);
    }

    function it_mints_to_the_holder_and_counts_the_supply() public {
        require(token.balanceOf(address(alice)) == 1000, "alice should hold 1000");
        require(token.totalSupply() == 1000, "the supply should be 1000");
    }

    function it_moves_tokens_between_holders() public {
        alice.act(address(token), "transfer", address(bob), 250);
        require(token.balanceOf(address(alice)) == 750, "alice keeps 750");
        require(token.balanceOf(address(bob)) == 250, "bob receives 250");
    }

    function it_refuses_to_move_more_than_the_balance() public {
        bool refused = false;
        try {
            bob.act(address(token), "transfer", address(alice), 1);
        } catch InsufficientBalance(holder, available, needed) {
            refused = holder == address(bob) && available == 0 && needed == 1;
        }
        require(refused, "bob holds nothing, so his transfer fails with InsufficientBalance");
    }

    function it_spends_an_allowance_once() public {
        alice.act(address(token), "approve", address(bob), 300);
        bob.act(address(token), "transferFrom", address(alice), address(bob), 200);
        require(token.allowance(address(alice), address(bob)) == 100, "100 of the allowance is left");
        bool refused = false;
        try {
            bob.act(address(token), "transferFrom", address(alice), address(bob), 200);
        } catch InsufficientAllowance(spender, available, needed) {
            refused = spender == address(bob) && available == 100 && needed == 200;
        }
        require(refused, "a second 200 exceeds what is left of the allowance");
        require(token.balanceOf(address(bob)) == 200, "the refused transferFrom moved nothing");
    }

    function it_stops_minting_at_the_cap() public {
        bool refused = false;
        try {
            token.mint(address(bob), 9001);
        } catch CapExceeded(cap, wouldBe) {
            refused = cap == 10000 && wouldBe == 10001;
        }
        require(refused, "minting past the cap fails with CapExceeded");
        require(token.totalSupply() == 1000, "the refused mint changed nothing");
    }

    function it_blocks_transfers_while_paused() public {
        token.pause();
        bool refused = false;
        try {
            alice.act(address(token), "transfer", address(bob), 1);
        } catch TokenPaused() {
            refused = true;
        }
        require(refused, "a paused token refuses transfers");
        token.unpause();
        alice.act(address(token), "transfer", address(bob), 1);
        require(token.balanceOf(address(bob)) == 1, "transfers work again after unpause");
    }

    function it_lets_only_role_holders_mint() public {
        bool refused = false;
        try {
            bob.act(address(token), "mint", address(bob), 5);
        } catch MissingRole(member, role) {
            refused = member == address(bob) && role == MINTER_ROLE;
        }
        require(refused, "bob has no minter role yet");
        token.grantRole(address(bob), MINTER_ROLE);
        bob.act(address(token), "mint", address(bob), 5);
        require(token.balanceOf(address(bob)) == 5, "bob mints once he holds the role");
    }

    function it_burns_from_the_holder() public {
        alice.act(address(token), "burn", 400);
        require(token.totalSupply() == 600, "burning lowers the supply");
        require(token.balanceOf(address(alice)) == 600, "and the holder's balance");
    }

    function property_round_trips_conserve_the_supply(uint amount) public {
        uint moved = amount % 1001;
        alice.act(address(token), "transfer", address(bob), moved);
        bob.act(address(token), "transfer", address(alice), moved);
        require(token.balanceOf(address(alice)) == 1000, "alice gets everything back");
        require(token.totalSupply() == 1000, "the supply never changes");
    }
}
