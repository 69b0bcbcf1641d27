pragma solidvm 11.4;

contract Describe_Other {
    uint seen;

    constructor() {}

    function it_passes() public {
        seen = 1;
    }

    function it_sees_shared_state() public returns (bool) {
        return seen == 1;
    }
}
