pragma solidvm 12.0;

import "../lib/Broken.sol";

contract Describe_UsesBroken {
    function it_cannot_run() public returns (bool) {
        return new Broken().value() == 0;
    }
}
