pragma solidvm 12.0;

contract Broken {
    function value() public returns (uint) {
        return notDeclaredAnywhere;
    }
}
