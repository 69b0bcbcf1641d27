pragma solidvm 12.0;

// fastForward(seconds) exists on a node started with --test-clock (the runner's sandbox).
contract Describe_Clock {
    uint start;

    function beforeAll() public {
        start = block.timestamp;
    }

    function it_moves_time_forward() public returns (bool) {
        fastForward(3600);
        return block.timestamp >= start + 3600;
    }

    function it_keeps_the_offset() public returns (bool) {
        return block.timestamp >= start + 3600;
    }
}
