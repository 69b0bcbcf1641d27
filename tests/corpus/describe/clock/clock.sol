pragma solidvm 12.0;

// The clock of the platform's `solid-vm-cli test` (the runner's sandbox starts the node with
// --test-clock): each Describe_ contract starts at block time 0 (block number 0), and
// fastForward(seconds) moves it for the rest of that contract's hooks and tests.
contract Describe_Clock {
    function beforeEach() public {
        fastForward(10);
    }

    function it_reads_the_move_of_before_each() public {
        require(block.timestamp == 10, "want 10, got " + string(block.timestamp));
        require(block.number == 0, "want block 0, got " + string(block.number));
    }

    function it_keeps_the_earlier_moves() public {
        fastForward(10);
        require(block.timestamp == 30, "want 30, got " + string(block.timestamp));
        require(now == 30, "now is block.timestamp");
    }
}

contract Describe_NextClock {
    function it_starts_again_at_zero() public {
        require(block.timestamp == 0, "want 0, got " + string(block.timestamp));
    }
}
