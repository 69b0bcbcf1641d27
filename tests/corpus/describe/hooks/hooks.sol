pragma solidvm 12.0;

// Every hook and test appends its name to `trail`; the tests assert the order so far, and the
// runner's own test reads the final trail (with afterAll) from the contract's state.
contract Describe_Hooks {
    string public trail;
    uint public tests;

    function note(string name) internal {
        trail = string.concat(trail, name, ",");
    }

    function beforeAll() public {
        note("beforeAll");
    }

    function beforeEach() public {
        note("beforeEach");
    }

    function afterEach() public {
        note("afterEach");
    }

    function afterAll() public {
        note("afterAll");
    }

    function it_runs_first() public returns (bool) {
        note("it_runs_first");
        tests += 1;
        return keccak256(trail) == keccak256("beforeAll,beforeEach,it_runs_first,");
    }

    function it_runs_second() public returns (bool) {
        note("it_runs_second");
        tests += 1;
        return keccak256(trail) == keccak256(
            "beforeAll,beforeEach,it_runs_first,afterEach,beforeEach,it_runs_second,"
        );
    }

    // declared after the tests: hooks are found by name, wherever they are
    function helper_not_a_test() public returns (bool) {
        return false;
    }
}
