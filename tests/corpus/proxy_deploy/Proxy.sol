import "./Ownable.sol";

// Keeps the storage, forwards every call it has no function for to the logic contract's code.
contract Proxy is Ownable {
    address logicContract;

    constructor(address logic, address initialOwner) Ownable(initialOwner) {
        logicContract = logic;
    }

    function setLogicContract(address logic) onlyOwner {
        logicContract = logic;
    }

    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
