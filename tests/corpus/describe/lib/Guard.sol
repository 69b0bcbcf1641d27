pragma solidvm 12.0;

// A library and a contract whose requires fail, for the position tests: a failure in here
// must be reported at its line in this file.
library Guard {
    function atLeast(uint value, uint floor) internal returns (uint) {
        uint twice = value * 2;
        require(value >= floor, "below the floor");
        return twice;
    }
}

contract Safe {
    uint public held;

    function take(uint n) public {
        held += 1;
        require(n <= held, "not enough held");
        held -= n;
    }
}
