pragma solidvm 12.0;

import {Counter} from "../lib/Counter.sol";

contract Describe_BracedImport {
    function it_deploys_the_imported_contract() public returns (bool) {
        Counter c = new Counter();
        c.add(7);
        return c.count() == 7;
    }
}
