pragma solidvm 12.0;

// One deployment per Describe_ contract: the tests see each other's writes, in source order.
contract Describe_SharedState {
    uint public value;
    mapping(string => uint) public seen;

    constructor() {
        value = 10;
    }

    function it_starts_from_the_constructor() public returns (bool) {
        value += 1;
        seen["first"] = value;
        return value == 11;
    }

    function it_sees_the_previous_test() public {
        require(seen["first"] == 11, "the first test's write is missing");
        value *= 2;
    }

    function it_sees_both() public returns (bool) {
        return value == 22;
    }
}

// A second contract of the same file starts from its own fresh state.
contract Describe_FreshState {
    uint public value;

    function it_is_not_shared_with_other_contracts() public returns (bool) {
        return value == 0;
    }
}
