"""The Cirrus request shapes the platform's backend (mercata) sends, on STRATO 16's names
(reference strato16-cirrus.md §10, one test per row), against fixture contracts of our own in
the shapes the backend expects: a Token with ``_balances``, a Pool with contract-typed
``tokenA``/``tokenB``, its events, registries of contract-typed fields, a bridge with a
struct-valued mapping. The answers' shapes are checked: objects vs arrays, strings vs numbers.
One node for the module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

SEARCH = "/cirrus/search"
PROXY_DIR = Path(__file__).resolve().parents[1] / "corpus" / "proxy_deploy"
# the corpus's Proxy (fallback delegatecalls the logic) with its Ownable, as one source
PROXY_SRC = (PROXY_DIR / "Ownable.sol").read_text() + (PROXY_DIR / "Proxy.sol").read_text().replace(
    'import "./Ownable.sol";', ""
)

SRC = """
contract Token {
    string public _name;
    string public _symbol;
    address public _owner;
    uint public _totalSupply;
    uint public customDecimals;
    string public description;
    uint public status;
    bool public _paused;
    string[] public images;
    mapping(string => string) public attributes;
    mapping(address => uint) public _balances;
    event Transfer(address from, address to, uint value);

    constructor(string name_, string symbol_, uint supply) public {
        _name = name_;
        _symbol = symbol_;
        _owner = msg.sender;
        _totalSupply = supply;
        customDecimals = 18;
        description = "a token";
        status = 2;
        _balances[msg.sender] = supply;
        images.push("img-" + symbol_);
        attributes["color"] = "red";
    }
    function transfer(address to, uint v) public {
        _balances[msg.sender] -= v;
        _balances[to] += v;
        emit Transfer(msg.sender, to, v);
    }
}
contract Pool {
    Token public tokenA;
    Token public tokenB;
    Token public lpToken;
    address public poolFactory;
    uint public swapFeeRate;
    uint public aToBRatio;
    uint public tokenABalance;
    bool public isStable;
    event Swap(address sender, Token tokenIn, Token tokenOut, uint amountIn, uint amountOut);
    event AddLiquidity(address provider, uint amount);

    constructor(address a, address b, address lp, address f) public {
        tokenA = Token(a);
        tokenB = Token(b);
        lpToken = Token(lp);
        poolFactory = f;
        swapFeeRate = 30;
        aToBRatio = 123456789012345678901234567890;
        tokenABalance = 500;
    }
    function swap(uint amountIn) public {
        emit Swap(msg.sender, tokenA, tokenB, amountIn, amountIn * 2);
    }
    function addLiquidity(uint amount) public { emit AddLiquidity(msg.sender, amount); }
}
contract PoolFactory {
    address[] public allPools;
    function add(address p) public { allPools.push(p); }
}
contract Oracle {
    mapping(address => uint) public prices;
    event RewardsClaimed(address user, uint amount);
    function setPrice(address asset, uint p) public { prices[asset] = p; }
    function claim(uint amount) public { emit RewardsClaimed(msg.sender, amount); }
}
contract Registry {
    Pool public pool;
    Oracle public priceOracle;
    Token public usdst;
    address public feeCollector;
    mapping(address => Token) public tokenOf;
    constructor(address p, address o, address u) public {
        pool = Pool(p);
        priceOracle = Oracle(o);
        usdst = Token(u);
        feeCollector = msg.sender;
        tokenOf[msg.sender] = Token(u);
    }
}
contract Bridge {
    enum Status { None, Pending, Done }
    struct WithdrawalInfo {
        address stratoSender;
        address stratoToken;
        uint stratoTokenAmount;
        Status bridgeStatus;
        uint requestedAt;
    }
    mapping(uint => WithdrawalInfo) public withdrawals;
    mapping(address => mapping(uint => mapping(address => bool))) public assetRouteEnabled;
    mapping(address => mapping(address => uint)) public userCollaterals;
    event AutoSaved(string externalTxHash, address user);
    event AutoForged(string externalTxHash, address user);

    function withdraw(uint id, address token, uint amount, Status s, uint at) public {
        withdrawals[id] = WithdrawalInfo(msg.sender, token, amount, s, at);
    }
    function route(address ext, uint chain, address strato) public {
        assetRouteEnabled[ext][chain][strato] = true;
    }
    function collateral(address user, address asset, uint amount) public {
        userCollaterals[user][asset] = amount;
    }
    function save(string h) public { emit AutoSaved(h, msg.sender); }
    function forge(string h) public { emit AutoForged(h, msg.sender); }
}
"""


@dataclass
class World:
    me: str
    other: str
    tok_a: str
    tok_b: str
    lp: str
    factory: str
    pool: str
    oracle: str
    registry: str
    bridge: str
    stamp: str  # a block_timestamp between the pool's deployment and its swaps (text form)
    proxy: str  # a Proxy in front of the oracle's code


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def call(client: httpx.Client, address: str, method: str, **args: Any) -> None:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def w(node: RunningNode, alice: httpx.Client) -> World:
    me = node.address("alice")
    other = "00000000000000000000000000000000000000b0"
    tok_a = deploy(alice, "Token", SRC, {"name_": "Alpha", "symbol_": "A", "supply": 1000})
    tok_b = deploy(alice, "Token", SRC, {"name_": "Beta", "symbol_": "B", "supply": 2000})
    lp = deploy(alice, "Token", SRC, {"name_": "LP", "symbol_": "LP", "supply": 10})
    call(alice, tok_a, "transfer", to=other, v=7)
    factory = deploy(alice, "PoolFactory", SRC)
    args = {"a": tok_a, "b": tok_b, "lp": lp, "f": factory}
    pool = deploy(alice, "Pool", SRC, args)
    call(alice, factory, "add", p=pool)
    (row,) = search(alice, "BlockApps-Pool", {"address": f"eq.{pool}", "select": "block_timestamp"})
    call(alice, pool, "swap", amountIn=5)
    call(alice, pool, "swap", amountIn=6)
    call(alice, pool, "addLiquidity", amount=9)
    oracle = deploy(alice, "Oracle", SRC)
    call(alice, oracle, "setPrice", asset=tok_a, p=42)
    call(alice, oracle, "claim", amount=3)
    registry = deploy(alice, "Registry", SRC, {"p": pool, "o": oracle, "u": tok_b})
    bridge = deploy(alice, "Bridge", SRC)
    call(alice, bridge, "withdraw", id=1, token=tok_a, amount=50, s=1, at=100)
    call(alice, bridge, "withdraw", id=2, token=tok_b, amount=60, s=2, at=200)
    call(alice, bridge, "route", ext=other, chain=8, strato=tok_a)
    call(alice, bridge, "collateral", user=me, asset=tok_a, amount=11)
    call(alice, bridge, "save", h="0xabc")
    call(alice, bridge, "forge", h="0xdef")
    proxy = deploy(alice, "Proxy", PROXY_SRC, {"logic": oracle, "initialOwner": me})
    call(alice, proxy, "claim", amount=4)
    stamp = row["block_timestamp"]
    return World(me, other, tok_a, tok_b, lp, factory, pool, oracle, registry, bridge, stamp, proxy)


TOKEN_SELECT = (
    "address,_name,_symbol,_owner,_totalSupply::text,customDecimals,description,status,_paused,"
    "images:BlockApps-Token-images(value),attributes:BlockApps-Token-attributes(key,value),"
    "balances:BlockApps-Token-_balances(user:key,balance:value::text)"
)


def test_01_index_view_in_filter(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Token",
        {"address": f"in.({w.tok_a},{w.tok_b})", "select": "address,_symbol,_name"},
    )
    assert sorted(rows, key=lambda r: r["_symbol"]) == [
        {"address": w.tok_a, "_symbol": "A", "_name": "Alpha"},
        {"address": w.tok_b, "_symbol": "B", "_name": "Beta"},
    ]


def test_02_token_with_collection_embeds(alice: httpx.Client, w: World) -> None:
    (row,) = search(alice, "BlockApps-Token", {"address": f"eq.{w.tok_a}", "select": TOKEN_SELECT})
    assert row["_totalSupply"] == "1000" and row["customDecimals"] == 18
    assert row["_paused"] is False and row["status"] == 2
    assert row["images"] == [{"value": "img-A"}]
    assert row["attributes"] == [{"key": "color", "value": "red"}]
    assert sorted(row["balances"], key=lambda b: b["user"]) == sorted(
        [{"user": w.me, "balance": "993"}, {"user": w.other, "balance": "7"}],
        key=lambda b: b["user"],
    )


def test_03_filter_on_embedded_and_inner(alice: httpx.Client, w: World) -> None:
    params = {"address": f"in.({w.tok_a},{w.tok_b})", "select": TOKEN_SELECT}
    rows = search(alice, "BlockApps-Token", {**params, "balances.key": f"eq.{w.other}"})
    got = {r["address"]: r["balances"] for r in rows}
    assert got == {w.tok_a: [{"user": w.other, "balance": "7"}], w.tok_b: []}
    inner = params["select"].replace("-_balances(", "-_balances!inner(")
    rows = search(
        alice, "BlockApps-Token", {**params, "select": inner, "balances.key": f"eq.{w.other}"}
    )
    assert [r["address"] for r in rows] == [w.tok_a]
    images = params["select"].replace("-images(", "-images!inner(")
    rows = search(
        alice, "BlockApps-Token", {**params, "select": images, "images.value": 'eq."img-B"'}
    )
    assert [(r["address"], r["images"]) for r in rows] == [(w.tok_b, [{"value": "img-B"}])]


def test_04_balance_as_text(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Token-_balances",
        {"address": f"eq.{w.tok_a}", "key": f"eq.{w.me}", "select": "value::text"},
    )
    assert rows == [{"value": "993"}]


def test_05_collection_embeds_its_index_view_as_object(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Token-_balances",
        {
            "key": f"eq.{w.other}",
            "select": "address,user:key,balance:value::text,token:BlockApps-Token("
            "address,_name,images:BlockApps-Token-images(value))",
        },
    )
    assert rows == [
        {
            "address": w.tok_a,
            "user": w.other,
            "balance": "7",
            "token": {"address": w.tok_a, "_name": "Alpha", "images": [{"value": "img-A"}]},
        }
    ]


def test_06_two_key_mapping(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Bridge-userCollaterals",
        {"key": f"eq.{w.me}", "value": "gt.0", "select": "user:key,asset:key2,amount:value::text"},
    )
    assert rows == [{"user": w.me, "asset": w.tok_a, "amount": "11"}]


def test_07_json_path_and_cast_on_struct_value(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Bridge-withdrawals",
        {"key": "eq.1", "select": "id:key,amount:value->>stratoTokenAmount::text"},
    )
    assert rows == [{"id": 1, "amount": "50"}]


def test_08_fkey_embeds_with_collections(alice: httpx.Client, w: World) -> None:
    (row,) = search(
        alice,
        "BlockApps-Registry",
        {
            "address": f"eq.{w.registry}",
            "select": "address,pool:pool_fkey(address,swapFeeRate,aToBRatio::text),"
            "oracle:priceOracle_fkey(address,prices:BlockApps-Oracle-prices(asset:key,"
            "price:value::text)),usdst:usdst_fkey(address,_symbol)",
        },
    )
    assert row["address"] == w.registry
    assert row["pool"] == {
        "address": w.pool,
        "swapFeeRate": 30,
        "aToBRatio": "123456789012345678901234567890",
    }
    assert row["oracle"] == {"address": w.oracle, "prices": [{"asset": w.tok_a, "price": "42"}]}
    assert row["usdst"] == {"address": w.tok_b, "_symbol": "B"}


def test_09_inner_inside_fkey_embed(alice: httpx.Client, w: World) -> None:
    (row,) = search(
        alice,
        "BlockApps-Registry",
        {
            "address": f"eq.{w.registry}",
            "select": "address,feeCollector,usdst:usdst_fkey(address,"
            "balances:BlockApps-Token-_balances!inner(user:key,balance:value::text)),"
            "tokens:BlockApps-Registry-tokenOf(user:key,token:value_fkey(_symbol))",
        },
    )
    assert row["feeCollector"] == w.me
    assert row["usdst"] == {
        "address": w.tok_b,
        "balances": [{"user": w.me, "balance": "2000"}],
    }
    assert row["tokens"] == [{"user": w.me, "token": {"_symbol": "B"}}]
    rows = search(
        alice,
        "BlockApps-Registry",
        {
            "address": f"eq.{w.registry}",
            "select": "usdst:usdst_fkey(balances:BlockApps-Token-_balances!inner(key))",
            "usdst.balances.key": f"eq.{w.other}",
        },
    )
    assert rows == [{"usdst": None}]  # the inner embed empties the fkey embed, not the parent


def test_10_filters_two_levels_deep(alice: httpx.Client, w: World) -> None:
    token = "address,_symbol,balances:BlockApps-Token-_balances(key,value::text)"
    rows = search(
        alice,
        "BlockApps-Pool",
        {
            "poolFactory": f"eq.{w.factory}",
            "select": f"address,swapFeeRate,aToBRatio::text,tokenA:tokenA_fkey({token}),"
            f"tokenB:tokenB_fkey({token}),tokenABalance::text",
            "tokenA.balances.key": f"eq.{w.other}",
            "tokenA.balances.value": "gt.0",
            "tokenB.balances.key": f"eq.{w.other}",
        },
    )
    assert rows == [
        {
            "address": w.pool,
            "swapFeeRate": 30,
            "aToBRatio": "123456789012345678901234567890",
            "tokenA": {
                "address": w.tok_a,
                "_symbol": "A",
                "balances": [{"key": w.other, "value": "7"}],
            },
            "tokenB": {"address": w.tok_b, "_symbol": "B", "balances": []},
            "tokenABalance": "500",
        }
    ]


def test_11_event_view_embeds_index_view(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Pool-Swap",
        {
            "address": f"in.({w.pool})",
            "pool.poolFactory": f"eq.{w.factory}",
            "block_timestamp": f"gte.{w.stamp}",
            "order": "amountIn.asc",
            "select": "address,id,block_timestamp,sender,tokenIn,tokenOut,amountIn::text,"
            "amountOut::text,into:tokenOut_fkey(_symbol),"
            "pool:BlockApps-Pool(tokenA:tokenA_fkey(address,symbol:_symbol),"
            "tokenB:tokenB_fkey(address,symbol:_symbol),isStable)",
        },
    )
    assert [(r["amountIn"], r["amountOut"]) for r in rows] == [("5", "10"), ("6", "12")]
    assert rows[0]["tokenIn"] == w.tok_a and isinstance(rows[0]["id"], int)
    assert rows[0]["into"] == {"_symbol": "B"}  # an event's contract-typed argument
    assert rows[0]["pool"] == {
        "tokenA": {"address": w.tok_a, "symbol": "A"},
        "tokenB": {"address": w.tok_b, "symbol": "B"},
        "isStable": False,
    }


def test_12_event_count_and_page(alice: httpx.Client, w: World) -> None:
    assert search(
        alice, "BlockApps-Pool-Swap", {"address": f"eq.{w.pool}", "select": "count()"}
    ) == [{"count": 2}]
    rows = search(
        alice,
        "BlockApps-Pool-Swap",
        {
            "address": f"eq.{w.pool}",
            "order": "block_timestamp.desc,id.desc",
            "limit": "1",
            "offset": "1",
            "select": "amountIn",
        },
    )
    assert rows == [{"amountIn": 5}]


def test_13_latest_event_value(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Pool-Swap",
        {"select": "amountIn::text,block_timestamp", "order": "id.desc", "limit": "1"},
    )
    assert [r["amountIn"] for r in rows] == ["6"]
    assert isinstance(rows[0]["block_timestamp"], str)


def test_14_event_attributes(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "event",
        {"address": f"eq.{w.oracle}", "event_name": "eq.RewardsClaimed", "select": "attributes"},
    )
    assert rows == [{"attributes": {"user": w.me, "amount": "3"}}]


def test_15_event_or_and_json_path_in(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "event",
        {
            "select": "event_name,attributes",
            "address": f"eq.{w.bridge}",
            "or": "(event_name.eq.AutoForged,event_name.eq.AutoSaved)",
            "attributes->>externalTxHash": "in.(0xabc,0xzzz)",
        },
    )
    assert rows == [
        {"event_name": "AutoSaved", "attributes": {"externalTxHash": "0xabc", "user": w.me}}
    ]


EVENT_EMBED = "storage!inner(contract!inner(contract_name))"


def test_16_event_storage_contract(alice: httpx.Client, w: World) -> None:
    params = {
        "storage.contract.contract_name": "eq.Pool",
        "event_name": "in.(Swap,AddLiquidity)",
        "or": f"(attributes->>sender.eq.{w.me},attributes->>provider.eq.{w.me})",
        "transaction_sender": f"not.in.({w.other})",
        "order": "block_timestamp.desc,id.desc",
        "limit": "10",
        "offset": "0",
    }
    rows = search(alice, "event", {**params, "select": f"*,{EVENT_EMBED}"})
    assert [r["event_name"] for r in rows] == ["AddLiquidity", "Swap", "Swap"]
    assert rows[0]["storage"] == {"contract": [{"contract_name": "Pool"}]}
    assert rows[0]["address"] == w.pool and isinstance(rows[0]["block_number"], str)
    assert [r["attributes"].get("amountIn") for r in rows] == [None, "6", "5"]
    paging = ("order", "limit", "offset")
    count_params = {k: v for k, v in params.items() if k not in paging}
    counted = search(alice, "event", {**count_params, "select": f"{EVENT_EMBED},count()"})
    assert sum(r["count"] for r in counted) == 3
    assert (
        search(
            alice,
            "event",
            {**params, "storage.contract.contract_name": "eq.Token", "select": f"id,{EVENT_EMBED}"},
        )
        == []
    )


def test_17_event_name_count_grouped_with_embed(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "event",
        {
            "select": f"event_name,event_name.count(),{EVENT_EMBED}",
            "storage.contract.contract_name": "eq.Pool",
        },
    )
    assert sorted((r["event_name"], r["count"]) for r in rows) == [("AddLiquidity", 1), ("Swap", 2)]
    assert all(r["storage"] == {"contract": [{"contract_name": "Pool"}]} for r in rows)
    # the platform's activity feed: events of every contract but a Proxy's own rows; the
    # oracle's event emitted through the proxy carries the proxy's address and its stamps
    rows = search(
        alice,
        "event",
        {
            "select": f"event_name,event_name.count(),{EVENT_EMBED}",
            "storage.contract.contract_name": "neq.Proxy",
            "event_name": "eq.RewardsClaimed",
        },
    )
    assert sum(r["count"] for r in rows) == 2
    names = sorted(c["contract_name"] for r in rows for c in r["storage"]["contract"])
    assert "Proxy" not in names and "Oracle" in names and "Ownable" in names
    (row,) = search(
        alice,
        "BlockApps-Oracle-RewardsClaimed",
        {"address": f"eq.{w.proxy}", "select": "amount,oracle:BlockApps-Oracle(address)"},
    )
    assert row == {"amount": 4, "oracle": {"address": w.proxy}}


def test_18_events_in_order(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "event",
        {
            "address": f"in.({w.pool})",
            "event_name": "in.(AddLiquidity,RemoveLiquidity)",
            "select": "address,event_name,attributes,block_timestamp,transaction_sender",
            "order": "block_timestamp.asc",
            "limit": "10000",
        },
    )
    assert [(r["event_name"], r["attributes"]) for r in rows] == [
        ("AddLiquidity", {"provider": w.me, "amount": "9"})
    ]
    assert rows[0]["transaction_sender"] == w.me


def test_19_mapping_key_path_and_text_value(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "mapping",
        {
            "select": "collection_name,key->>key,value::text",
            "or": f"(and(address.eq.{w.bridge},collection_name.in.(withdrawals)),"
            f"and(address.eq.{w.oracle},collection_name.eq.prices))",
            "order": "collection_name.asc,key->>key.asc",
        },
    )
    assert [(r["collection_name"], r["key"]) for r in rows] == [
        ("prices", w.tok_a),
        ("withdrawals", "1"),
        ("withdrawals", "2"),
    ]
    assert rows[0]["value"] == "42"
    assert isinstance(rows[1]["value"], str)
    assert rows[1]["value"].startswith("{")


def test_20_mapping_three_keys(alice: httpx.Client, w: World) -> None:
    params = {
        "select": "collection_name,externalToken:key->>key,externalChainId:key->>key2,"
        "targetStratoToken:key->>key3,mappingValue:value",
        "collection_name": "in.(assets,assetRouteEnabled)",
        "address": f"eq.{w.bridge}",
    }
    want = [
        {
            "collection_name": "assetRouteEnabled",
            "externalToken": w.other,
            "externalChainId": "8",
            "targetStratoToken": w.tok_a,
            "mappingValue": True,
        }
    ]
    assert search(alice, "mapping", params) == want
    assert search(alice, "mapping", {**params, "key->>key2": "eq.8"}) == want
    assert search(alice, "mapping", {**params, "key->>key2": "eq.9"}) == []


def test_21_struct_valued_collection(alice: httpx.Client, w: World) -> None:
    base = {"address": f"eq.{w.bridge}"}
    rows = search(
        alice,
        "BlockApps-Bridge-withdrawals",
        {
            **base,
            "select": "withdrawalId:key,WithdrawalInfo:value,block_timestamp",
            "value->>stratoSender": f"eq.{w.me}",
            "order": "value->>requestedAt.desc",
        },
    )
    assert [r["withdrawalId"] for r in rows] == [2, 1]
    info = rows[1]["WithdrawalInfo"]
    assert info == {
        "stratoSender": w.me,
        "stratoToken": w.tok_a,
        "stratoTokenAmount": "50",
        "bridgeStatus": "1",
        "requestedAt": "100",
    }
    counted = search(
        alice,
        "BlockApps-Bridge-withdrawals",
        {**base, "select": "count()", "value->>stratoSender": f"eq.{w.me}"},
    )
    assert counted == [{"count": 2}]
    rows = search(
        alice,
        "BlockApps-Bridge-withdrawals",
        {**base, "or": "(value->>bridgeStatus.eq.1,value->>bridgeStatus.eq.7)"},
    )
    assert [r["key"] for r in rows] == [1]
    rows = search(
        alice,
        "BlockApps-Bridge-withdrawals",
        {
            **base,
            "select": "value->>stratoToken,value->>stratoTokenAmount",
            "value->>bridgeStatus": "in.(2)",
        },
    )
    assert rows == [{"stratoToken": w.tok_b, "stratoTokenAmount": "60"}]


def test_22_history_of_storage(alice: httpx.Client, w: World) -> None:
    # a time at which both tokens' current versions are valid (the later of their starts: the
    # timestamps have whole seconds, and on a busy machine the set-up spans several)
    at = max(
        search(alice, "history@storage", {"address": f"eq.{a}", "valid_to": "eq.infinity"})[0][
            "valid_from"
        ]
        for a in (w.tok_a, w.tok_b)
    )
    rows = search(
        alice,
        "history@storage",
        {
            "or": f"(address.eq.{w.tok_a},address.eq.{w.tok_b})",
            "valid_from": f"lte.{at}",
            "valid_to": f"gte.{at}",
            "select": "address,data,valid_from,valid_to",
        },
    )
    assert {r["address"] for r in rows} == {w.tok_a, w.tok_b}
    data = next(r["data"] for r in rows if r["address"] == w.tok_a)
    assert data["_symbol"] == "A" and data["_totalSupply"] == "1000"


def test_23_history_of_mapping(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "history@mapping",
        {
            "select": "value::text,valid_from,valid_to",
            "address": f"eq.{w.tok_a}",
            "collection_name": "eq._balances",
            "key->>key": f"eq.{w.me}",
            "order": "valid_from.asc",
        },
    )
    assert [r["value"] for r in rows] == ["1000", "993"]
    at = rows[0]["valid_from"]
    rows = search(
        alice,
        "history@mapping",
        {
            "select": "value::text",
            "address": f"eq.{w.tok_a}",
            "collection_name": "eq._balances",
            "key->>key": f"eq.{w.me}",
            "valid_from": f"lte.{at}",
            "valid_to": f"gte.{at}",
            "order": "valid_from.desc",
            "limit": "1",
        },
    )
    assert rows == [{"value": "1000"}]


def test_24_contract_rows(alice: httpx.Client, w: World) -> None:
    rows = search(alice, "contract", {"address": f"eq.{w.pool}"})
    assert rows == [{"address": w.pool, "creator": "BlockApps", "contract_name": "Pool"}]


def test_25_array_of_addresses(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice, "BlockApps-PoolFactory-allPools", {"address": f"eq.{w.factory}", "select": "value"}
    )
    assert rows == [{"value": w.pool}]


def test_26_count_with_columns(alice: httpx.Client, w: World) -> None:
    rows = search(
        alice,
        "BlockApps-Token",
        {"address": f"in.({w.tok_a},{w.tok_b},{w.lp})", "select": "count(),_paused"},
    )
    assert rows == [{"count": 3, "_paused": False}]
