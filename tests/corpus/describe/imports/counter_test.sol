pragma solidvm 12.0;

import "../lib/Counter.sol";

contract Describe_ImportedCounter {
    Counter counter;

    constructor() {
        counter = new Counter();
    }

    function it_increments() public returns (bool) {
        counter.increment();
        return counter.count() == 1;
    }

    function it_adds() public returns (bool) {
        return counter.add(2) == 3;
    }
}
