pragma solidvm 11.4;

contract Counter {
    uint public count;

    function inc() public {
        count += 1;
    }

    function dec() public {
        require(count > 0, "count is zero");
        count -= 1;
    }
}
