pragma solidvm 12.0;

// A plain contract the tests import from another folder.
contract Counter {
    uint public count;

    function increment() public {
        count += 1;
    }

    function add(uint n) public returns (uint) {
        count += n;
        return count;
    }
}
