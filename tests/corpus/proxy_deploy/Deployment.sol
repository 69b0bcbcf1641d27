import "./Ownable.sol";
import "./Proxy.sol";
import "./Managers.sol";

// One transaction builds the whole protocol: 21 logic contracts, 21 proxies in front of them
// (43 contracts with this one), each initialized through its proxy, a few wired to each other,
// then every proxy handed over to the council.
contract Deployment {
    Council public council;
    FeeVault public feeVault;
    TokenFactory public tokenFactory;
    PoolFactory public poolFactory;
    LendingRegistry public lendingRegistry;
    CollateralVault public collateralVault;
    LiquidityPool public liquidityPool;
    RateStrategy public rateStrategy;
    PriceOracle public priceOracle;
    PoolConfigurator public poolConfigurator;
    SafetyModule public safetyModule;
    LendingPool public lendingPool;
    Bridge public bridge;
    Rewards public rewards;
    SavingsVault public savingsVault;
    CDPRegistry public cdpRegistry;
    CDPVault public cdpVault;
    CDPEngine public cdpEngine;
    CDPReserve public cdpReserve;
    Escrow public escrow;
    MetalForge public metalForge;

    uint public firstPool;
    uint public quotedValue;
    uint public quotedFee;

    function proxy(address logic) internal returns (address) {
        return address(new Proxy(logic, address(this)));
    }

    constructor() {
        address ignored = address(0xdead); // a logic contract's own owner does not matter

        council = Council(proxy(address(new Council(ignored))));
        address[] memory members = new address[](2);
        members[0] = address(this);
        members[1] = msg.sender;
        council.initialize(members);

        feeVault = FeeVault(proxy(address(new FeeVault(ignored))));
        feeVault.initialize(30);

        tokenFactory = TokenFactory(proxy(address(new TokenFactory(ignored))));
        tokenFactory.initialize(address(council));

        poolFactory = PoolFactory(proxy(address(new PoolFactory(ignored))));
        poolFactory.initialize(address(tokenFactory), address(feeVault));

        lendingRegistry = LendingRegistry(proxy(address(new LendingRegistry(ignored))));

        collateralVault = CollateralVault(proxy(address(new CollateralVault(ignored))));
        collateralVault.initialize(address(lendingRegistry));

        liquidityPool = LiquidityPool(proxy(address(new LiquidityPool(ignored))));
        liquidityPool.initialize(address(lendingRegistry));

        rateStrategy = RateStrategy(proxy(address(new RateStrategy(ignored))));
        rateStrategy.initialize(250);

        priceOracle = PriceOracle(proxy(address(new PriceOracle(ignored))));
        priceOracle.initialize();
        priceOracle.setPrice("GOLD", 2000);

        poolConfigurator = PoolConfigurator(proxy(address(new PoolConfigurator(ignored))));
        poolConfigurator.initialize(address(lendingRegistry));

        safetyModule = SafetyModule(proxy(address(new SafetyModule(ignored))));
        safetyModule.initialize(address(lendingRegistry), address(tokenFactory));

        lendingPool = LendingPool(proxy(address(new LendingPool(ignored))));
        lendingPool.initialize(
            address(lendingRegistry), address(poolConfigurator), address(feeVault)
        );

        // the configurator writes the registry's components through the registry's proxy
        poolConfigurator.configure(
            address(lendingPool),
            address(liquidityPool),
            address(collateralVault),
            address(rateStrategy),
            address(priceOracle)
        );

        bridge = Bridge(proxy(address(new Bridge(ignored))));
        bridge.initialize(1001);

        rewards = Rewards(proxy(address(new Rewards(ignored))));
        rewards.initialize(address(tokenFactory));

        savingsVault = SavingsVault(proxy(address(new SavingsVault(ignored))));
        savingsVault.initialize(address(feeVault), "Savings", "SAVE");

        cdpRegistry = CDPRegistry(proxy(address(new CDPRegistry(ignored))));

        cdpVault = CDPVault(proxy(address(new CDPVault(ignored))));
        cdpVault.initialize(address(cdpRegistry));

        cdpEngine = CDPEngine(proxy(address(new CDPEngine(ignored))));
        cdpEngine.initialize(address(cdpRegistry));

        cdpReserve = CDPReserve(proxy(address(new CDPReserve(ignored))));
        cdpReserve.initialize(address(cdpRegistry));

        // onlyOwner through a proxy: the proxy's owner (this contract) is the caller
        cdpRegistry.setAllComponents(
            address(cdpVault), address(cdpEngine), address(cdpReserve), address(priceOracle)
        );

        escrow = Escrow(proxy(address(new Escrow(ignored))));
        escrow.initialize(address(council));

        metalForge = MetalForge(proxy(address(new MetalForge(ignored))));
        metalForge.initialize(address(tokenFactory), address(priceOracle));

        // typed results through proxies, managers calling each other's proxies
        firstPool = poolFactory.createPool("GOLD-USD");
        (quotedValue, quotedFee) = lendingPool.quote("GOLD", 3);
        require(quotedValue == 6000, "quote through the registry and the oracle");
        require(poolFactory.swapFee() == 30, "fee through the fee vault's proxy");
        require(council.memberCount() == 2, "council members");

        // hand every manager over to the council
        address c = address(council);
        Ownable(address(feeVault)).transferOwnership(c);
        Ownable(address(tokenFactory)).transferOwnership(c);
        Ownable(address(poolFactory)).transferOwnership(c);
        Ownable(address(lendingRegistry)).transferOwnership(c);
        Ownable(address(collateralVault)).transferOwnership(c);
        Ownable(address(liquidityPool)).transferOwnership(c);
        Ownable(address(rateStrategy)).transferOwnership(c);
        Ownable(address(priceOracle)).transferOwnership(c);
        Ownable(address(poolConfigurator)).transferOwnership(c);
        Ownable(address(safetyModule)).transferOwnership(c);
        Ownable(address(lendingPool)).transferOwnership(c);
        Ownable(address(bridge)).transferOwnership(c);
        Ownable(address(rewards)).transferOwnership(c);
        Ownable(address(savingsVault)).transferOwnership(c);
        Ownable(address(cdpRegistry)).transferOwnership(c);
        Ownable(address(cdpVault)).transferOwnership(c);
        Ownable(address(cdpEngine)).transferOwnership(c);
        Ownable(address(cdpReserve)).transferOwnership(c);
        Ownable(address(escrow)).transferOwnership(c);
        Ownable(address(metalForge)).transferOwnership(c);
        Ownable(c).transferOwnership(c);
    }
}
