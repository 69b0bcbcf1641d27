pragma solidvm 12.0;

contract Describe_Properties {
    function property_addition_commutes(uint a, uint b) public returns (bool) {
        return a + b == b + a;
    }

    // fails for x >= 50: the failing vector shrinks to exactly (50)
    function property_small_numbers(uint x) public returns (bool) {
        return x < 50;
    }

    // fails for strings of 5 characters or more: shrinks to "aaaaa"
    function property_short_strings(string s) public {
        require(bytes(s).length < 5, "string too long");
    }

    function property_bools_and_addresses(bool b, address a) public returns (bool) {
        return b || !b;
    }
}
