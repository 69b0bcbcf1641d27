pragma solidvm 12.0;

contract Describe_Reverts {
    uint public balance = 5;

    function it_passes() public {
        require(balance == 5, "balance is 5");
    }

    function it_fails_a_require() public {
        require(balance > 100, "balance too low");
    }

    function it_reverts_with_a_message() public {
        revert("nothing to see here");
    }

    function it_returns_false() public returns (bool) {
        return balance == 6;
    }

    function it_returns_true() public returns (bool) {
        return balance == 5;
    }

    function it_divides_by_zero() public {
        uint zero = 0;
        balance = balance / zero;
    }

    function it_returns_a_number() public returns (uint) {
        return balance;
    }

    function it_has_an_argument(uint x) public {}

    function it_is_internal() internal {}
}

// beforeAll fails: none of its tests runs, each fails with the hook's message.
contract Describe_FailingBeforeAll {
    function beforeAll() public {
        require(false, "setup refused");
    }

    function it_never_runs() public {}

    function it_never_runs_either() public {}
}

// A contract whose constructor takes arguments is not a test contract.
contract Describe_NeedsArguments {
    constructor(uint x) {}

    function it_is_skipped() public {}
}
