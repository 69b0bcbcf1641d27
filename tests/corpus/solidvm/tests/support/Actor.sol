// A stand-in account for the Describe_ tests: whatever it forwards reaches the target with this
// contract as msg.sender, and the target's result (or failure) comes back unchanged.
contract Actor {
    function act(address target, string fn, variadic args) public returns (variadic) {
        return address(target).call(fn, args);
    }
}
