"""Asset applications on the client side: the update scheme in both bit orders, typed values,
application URLs and fields, the filter evaluator's PostgREST semantics, and the timeline."""

from __future__ import annotations

from typing import Any

import pytest

from app.client.assets import (
    AssetApp,
    AssetError,
    AssetField,
    AssetRecord,
    AssetType,
    FilterError,
    asset_timeline,
    compile_filter,
    infer_fields,
    parse_app_url,
    parse_field_spec,
    parse_filter,
    parse_value,
    scheme_binary,
    scheme_bit,
    scheme_fields,
    scheme_value,
    search_group,
)

FIELDS = ["vin", "color", "model", "weight"]
CAR = AssetType(
    "car",
    (
        AssetField("vin", "string"),
        AssetField("color", "string"),
        AssetField("model", "string"),
        AssetField("weight", "int"),
    ),
)


# ---------------------------------------------------------------------------- scheme


def test_seed_example_second_and_third_of_four_is_0110_in_both_orders() -> None:
    # seed 001: "For four fields, updating the second and third gives 0110, which is 6."
    for order in ("seed", "platform"):
        value = scheme_value(FIELDS, ["color", "model"], order)
        assert value == 6
        assert scheme_binary(value, 4) == "0110"


def test_seed_order_leftmost_bit_is_the_first_field() -> None:
    assert scheme_value(FIELDS, ["vin"], "seed") == 0b1000
    assert scheme_value(FIELDS, ["weight"], "seed") == 0b0001
    assert scheme_value(FIELDS, ["color", "weight"], "seed") == 0b0101 == 5
    assert [scheme_bit(i, 4, "seed") for i in range(4)] == [8, 4, 2, 1]


def test_platform_order_first_field_is_the_least_significant_bit() -> None:
    assert scheme_value(FIELDS, ["vin"], "platform") == 0b0001
    assert scheme_value(FIELDS, ["weight"], "platform") == 0b1000
    assert scheme_value(FIELDS, ["color", "weight"], "platform") == 0b1010 == 10
    assert [scheme_bit(i, 4, "platform") for i in range(4)] == [1, 2, 4, 8]


def test_scheme_round_trips_and_refuses_nonsense() -> None:
    for order in ("seed", "platform"):
        for n in range(16):
            chosen = scheme_fields(FIELDS, n, order)
            assert scheme_value(FIELDS, chosen, order) == n
    assert scheme_value(FIELDS, [], "seed") == 0
    assert scheme_value(FIELDS, FIELDS, "seed") == 15
    with pytest.raises(AssetError, match="no such field: wheels"):
        scheme_value(FIELDS, ["wheels"], "seed")
    with pytest.raises(AssetError, match="between 0 and 15"):
        scheme_fields(FIELDS, 16, "seed")


# ---------------------------------------------------------------------------- values and urls


def test_typed_values_from_the_form() -> None:
    weight = AssetField("weight", "int")
    assert parse_value(weight, " 1_400 ") == 1400
    assert parse_value(weight, "-5") == -5
    with pytest.raises(AssetError, match="weight must be a whole number, not 'heavy'"):
        parse_value(weight, "heavy")
    with pytest.raises(AssetError, match="enter weight"):
        parse_value(weight, "  ")
    with pytest.raises(AssetError, match="cannot be negative"):
        parse_value(AssetField("gears", "uint"), "-1")
    assert parse_value(AssetField("vin", "string"), " x ") == " x "
    assert parse_value(AssetField("electric", "bool"), True) is True
    assert parse_value(AssetField("electric", "bool"), "no") is False


def test_application_urls() -> None:
    assert parse_app_url("https://h:3030/api/v1/car") == ("https://h:3030/api/v1", "car")
    assert parse_app_url("/apps/CarDemo/car/") == ("/apps/CarDemo", "car")
    assert parse_app_url("http://127.0.0.1:9/apps/CarDemo/car", "http://127.0.0.1:9") == (
        "/apps/CarDemo",
        "car",
    )
    for bad in ("", "car", "ftp://h/car", "https://h/api/v1/car?x=1", "https://h/"):
        with pytest.raises(AssetError):
            parse_app_url(bad)


def test_field_specs_and_inferred_fields() -> None:
    assert parse_field_spec("vin, weight:int, ok:boolean") == (
        AssetField("vin", "string"),
        AssetField("weight", "int"),
        AssetField("ok", "bool"),
    )
    with pytest.raises(AssetError, match="unknown type"):
        parse_field_spec("a:float")
    with pytest.raises(AssetError, match="twice"):
        parse_field_spec("a, a")
    rows: list[dict[str, Any]] = [
        {
            "address": "0" * 40,
            "chainId": "c" * 64,
            "owner": "a" * 40,
            "ownerCommonName": "alice",
            "vin": "V",
            "weight": 3,
            "electric": True,
            "note": None,
        },
        {"note": "later a string"},
    ]
    assert infer_fields(rows) == (
        AssetField("vin", "string"),
        AssetField("weight", "int"),
        AssetField("electric", "bool"),
        AssetField("note", "string"),
    )


def test_app_from_the_node_listing() -> None:
    app = AssetApp.from_json(
        {
            "name": "CarDemo",
            "assets": [{"name": "car", "fields": {"vin": "string", "weight": "int"}}],
            "organization": "Acme",
            "realmChainId": "r" * 64,
        }
    )
    (car,) = app.assets
    assert car.fields == (AssetField("vin", "string"), AssetField("weight", "int"))
    assert app.table(car) == "Acme-CarDemo-Car"
    assert app.url(car, "update") == "/apps/CarDemo/car/update"
    assert app.key == "CarDemo" and not app.foreign


# ---------------------------------------------------------------------------- filters


def row(**kw: Any) -> dict[str, Any]:
    base = {"vin": "V", "color": "red", "model": "Accord", "weight": 1000, "ownerCommonName": "a"}
    return {**base, **kw}


ROWS = [
    row(vin="A1", color="red", weight=900),
    row(vin="B2", color="Blue", weight=1500),
    row(vin="C3", color="blue", weight=2000, model=None),
    row(vin="D_4", color="green", weight=1200),
]


def keep(text: str) -> list[str]:
    where = parse_filter(text)
    match = compile_filter(where, CAR.column_types())
    return [r["vin"] for r in ROWS if match(r)]


def test_filters_follow_postgrest() -> None:
    assert keep("") == ["A1", "B2", "C3", "D_4"]
    assert keep("color=eq.blue") == ["C3"]
    assert keep("color=ilike.blue") == ["B2", "C3"]
    assert keep("color=like.*l*") == ["B2", "C3"]
    assert keep("weight=gt.1000&weight=lte.2000") == ["B2", "C3", "D_4"]
    assert keep("weight=in.(900,2000)") == ["A1", "C3"]
    assert keep("or=(color.eq.red,weight.gte.2000)") == ["A1", "C3"]
    assert keep("not.or=(color.eq.red,weight.gte.2000)") == ["B2", "D_4"]
    assert keep("color=not.eq.red") == ["B2", "C3", "D_4"]
    assert keep("vin=like.D_4") == ["D_4"]  # _ is one character
    assert keep("vin=like.D?4") == []  # ? is not a wildcard
    # NULL: unknown under comparisons and their negations, matched by is.null
    assert keep("model=eq.Accord") == ["A1", "B2", "D_4"]
    assert keep("model=not.eq.Accord") == []
    assert keep("model=is.null") == ["C3"]
    assert keep("or=(model.eq.x,weight.eq.2000)") == ["C3"]


def test_bad_filters_are_explained() -> None:
    with pytest.raises(FilterError, match="weight is a number: 'heavy' is not one"):
        keep("weight=gt.heavy")
    with pytest.raises(FilterError, match="no column 'wheels'"):
        keep("wheels=eq.4")
    with pytest.raises(FilterError, match="like compares text; weight is a number"):
        keep("weight=like.1*")
    with pytest.raises(FilterError, match="only conditions"):
        keep("color=eq.red&order=weight")


def test_search_looks_in_string_fields_and_owner() -> None:
    match = compile_filter(search_group("ACC", CAR), CAR.column_types())
    assert [r["vin"] for r in ROWS if match(r)] == ["A1", "B2", "D_4"]
    owner = compile_filter(search_group("a", CAR), CAR.column_types())
    assert all(owner(r) for r in ROWS)  # every owner's name is "a"


# ---------------------------------------------------------------------------- timeline


def test_timeline_of_creation_update_and_transfer() -> None:
    alice, bob = "a" * 40, "b" * 40
    chain = "c" * 64

    def h(block: int, owner: str, name: str, org: str, color: str) -> dict[str, Any]:
        return {
            **row(color=color),
            "chainId": chain,
            "block_number": block,
            "transaction_hash": f"{block:064x}",
            "owner": owner,
            "ownerCommonName": name,
            "ownerOrganization": org,
        }

    rows = [
        h(9, bob, "bob", "Globex", "blue"),
        h(5, alice, "alice", "Acme", "red"),
        h(7, alice, "alice", "Acme", "blue"),
    ]
    tl = asset_timeline(rows, CAR, {bob: "Bob B."})
    assert [(e.kind, e.values["color"], e.owner_name) for e in tl] == [
        ("created", "red", "alice"),
        ("updated", "blue", "alice"),
        ("transferred", "blue", "Bob B."),
    ]
    assert tl[1].changes == (("color", "red", "blue"),)
    assert tl[1].describe() == "color: red → blue"
    assert tl[2].describe() == "owner alice → Bob B.; the shard moves from Acme to Globex"
    assert tl[0].describe().startswith("created by alice (Acme): vin = V, color = red")
    assert tl[0].lines()[:2] == ["created by alice (Acme)", "vin = V"]
    assert tl[2].lines() == ["owner alice → Bob B.", "the shard moves from Acme to Globex"]
    rec = AssetRecord.from_row(rows[0], CAR, {})
    assert (rec.chain_id, rec.owner_label, rec.title(CAR)) == (chain, "bob", "V")
