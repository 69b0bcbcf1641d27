pragma solidvm 11.4;

import "./lib/Counter.sol";

// The Tests view's corpus: passes, a revert with a message, a false result, a property test.
contract Describe_Counter {
    Counter counter;

    constructor() {}

    function beforeAll() public {
        counter = new Counter();
    }

    function it_increments() public returns (bool) {
        counter.inc();
        return counter.count() == 1;
    }

    function it_cannot_go_below_zero() public {
        counter.dec();
        counter.dec();
    }

    function it_returns_false() public returns (bool) {
        return false;
    }

    function property_adds_up(uint a) public returns (bool) {
        return a + 1 > a;
    }
}
