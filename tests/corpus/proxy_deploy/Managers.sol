import "./Ownable.sol";

// 21 managers of a small protocol. Each is deployed once as logic and used through a Proxy:
// its constructor's owner is ignored (the proxy's owner counts), its state is set by initialize.

abstract contract Managed is Ownable {
    bool public initialized;

    // a constructor modifier names a direct base only (the platform's rule)
    constructor(address o) Ownable(o) {}

    modifier initializer() {
        require(!initialized, "already initialized");
        initialized = true;
        _;
    }
}

contract Council is Managed {
    address[] public members;
    mapping(address => bool) public isMember;

    constructor(address o) Managed(o) {}

    function initialize(address[] _members) external initializer {
        for (uint i = 0; i < _members.length; i++) {
            members.push(_members[i]);
            isMember[_members[i]] = true;
        }
    }

    function memberCount() external view returns (uint) {
        return members.length;
    }
}

contract FeeVault is Managed {
    uint public feeBps;
    uint public collected;

    constructor(address o) Managed(o) {}

    function initialize(uint _feeBps) external initializer {
        feeBps = _feeBps;
    }

    function collect(uint amount) external returns (uint) {
        uint fee = amount * feeBps / 10000;
        collected += fee;
        return fee;
    }
}

contract TokenFactory is Managed {
    address public council;
    uint public tokenCount;
    mapping(uint => string) public tokenNames;

    constructor(address o) Managed(o) {}

    function initialize(address _council) external initializer {
        council = _council;
    }

    function createToken(string name) external returns (uint) {
        tokenCount += 1;
        tokenNames[tokenCount] = name;
        return tokenCount;
    }
}

contract PoolFactory is Managed {
    TokenFactory public tokens;
    FeeVault public fees;
    uint public pools;

    constructor(address o) Managed(o) {}

    function initialize(address _tokens, address _fees) external initializer {
        tokens = TokenFactory(_tokens);
        fees = FeeVault(_fees);
    }

    // a call through another manager's proxy (a getter of its logic's variable)
    function swapFee() external view returns (uint) {
        return fees.feeBps();
    }

    function createPool(string name) external returns (uint) {
        pools += 1;
        return tokens.createToken(name);
    }
}

contract LendingRegistry is Managed {
    address public lendingPool;
    address public liquidityPool;
    address public collateralVault;
    address public rateStrategy;
    address public priceOracle;

    constructor(address o) Managed(o) {}

    function setComponents(
        address _lendingPool,
        address _liquidityPool,
        address _collateralVault,
        address _rateStrategy,
        address _priceOracle
    ) external {
        lendingPool = _lendingPool;
        liquidityPool = _liquidityPool;
        collateralVault = _collateralVault;
        rateStrategy = _rateStrategy;
        priceOracle = _priceOracle;
    }
}

contract CollateralVault is Managed {
    address public registry;
    mapping(address => uint) public collateral;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = _registry;
    }
}

contract LiquidityPool is Managed {
    address public registry;
    uint public liquidity;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = _registry;
    }
}

contract RateStrategy is Managed {
    uint public baseRateBps;

    constructor(address o) Managed(o) {}

    function initialize(uint _baseRateBps) external initializer {
        baseRateBps = _baseRateBps;
    }
}

contract PriceOracle is Managed {
    mapping(string => uint) public prices;

    constructor(address o) Managed(o) {}

    function initialize() external initializer {}

    function setPrice(string asset, uint price) external {
        prices[asset] = price;
    }

    function getPrice(string asset) external view returns (uint) {
        return prices[asset];
    }
}

contract PoolConfigurator is Managed {
    LendingRegistry public registry;
    uint public configured;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = LendingRegistry(_registry);
    }

    function configure(
        address _lendingPool,
        address _liquidityPool,
        address _collateralVault,
        address _rateStrategy,
        address _priceOracle
    ) external {
        registry.setComponents(
            _lendingPool, _liquidityPool, _collateralVault, _rateStrategy, _priceOracle
        );
        configured += 1;
    }
}

contract SafetyModule is Managed {
    address public registry;
    address public tokenFactory;

    constructor(address o) Managed(o) {}

    function initialize(address _registry, address _tokenFactory) external initializer {
        registry = _registry;
        tokenFactory = _tokenFactory;
    }
}

contract LendingPool is Managed {
    LendingRegistry public registry;
    address public configurator;
    FeeVault public fees;

    constructor(address o) Managed(o) {}

    function initialize(address _registry, address _configurator, address _fees)
        external
        initializer
    {
        registry = LendingRegistry(_registry);
        configurator = _configurator;
        fees = FeeVault(_fees);
    }

    // two managers away: the registry's oracle, then its price
    function quote(string asset, uint amount) external view returns (uint, uint) {
        PriceOracle oracle = PriceOracle(registry.priceOracle());
        uint value = oracle.getPrice(asset) * amount;
        return (value, value * fees.feeBps() / 10000);
    }
}

contract Bridge is Managed {
    uint public remoteChain;

    constructor(address o) Managed(o) {}

    function initialize(uint _remoteChain) external initializer {
        remoteChain = _remoteChain;
    }
}

contract Rewards is Managed {
    address public rewardToken;

    constructor(address o) Managed(o) {}

    function initialize(address _rewardToken) external initializer {
        rewardToken = _rewardToken;
    }
}

contract SavingsVault is Managed {
    address public asset;
    string public name;
    string public symbol;

    constructor(address o) Managed(o) {}

    function initialize(address _asset, string _name, string _symbol) external initializer {
        asset = _asset;
        name = _name;
        symbol = _symbol;
    }
}

contract CDPRegistry is Managed {
    address public vault;
    address public engine;
    address public reserve;
    address public oracle;

    constructor(address o) Managed(o) {}

    function setAllComponents(address _vault, address _engine, address _reserve, address _oracle)
        external
        onlyOwner
    {
        vault = _vault;
        engine = _engine;
        reserve = _reserve;
        oracle = _oracle;
    }
}

contract CDPVault is Managed {
    address public registry;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = _registry;
    }
}

contract CDPEngine is Managed {
    address public registry;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = _registry;
    }
}

contract CDPReserve is Managed {
    address public registry;

    constructor(address o) Managed(o) {}

    function initialize(address _registry) external initializer {
        registry = _registry;
    }
}

contract Escrow is Managed {
    address public council;

    constructor(address o) Managed(o) {}

    function initialize(address _council) external initializer {
        council = _council;
    }
}

contract MetalForge is Managed {
    address public tokenFactory;
    address public oracle;

    constructor(address o) Managed(o) {}

    function initialize(address _tokenFactory, address _oracle) external initializer {
        tokenFactory = _tokenFactory;
        oracle = _oracle;
    }
}
