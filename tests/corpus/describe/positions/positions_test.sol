pragma solidvm 12.0;

import "../lib/Guard.sol";

// Failures reported where they happened, not at the test's declaration.
contract Describe_Positions {
    uint floor = 10;

    function it_fails_on_a_later_line() public {
        uint n = 3;
        n += 1;
        require(n == 5, "n is not five");
    }

    function it_fails_in_an_imported_library() public {
        uint n = 3;
        Guard.atLeast(n, floor);
    }

    function it_fails_in_an_imported_contract() public {
        Safe safe = new Safe();
        safe.take(5);
    }
}
