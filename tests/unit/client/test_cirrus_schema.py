"""Reading PostgREST's root document and guessing column types from rows (the filter
builder's knowledge of a table)."""

from __future__ import annotations

from typing import Any

from app.client.cirrus_schema import (
    ColumnInfo,
    TableInfo,
    infer_columns,
    operators_for,
    parse_openapi,
    table_kind,
)

FK = (
    "Note:\nThis is a Foreign Key to `Org-Shop-Part.record_id`."
    "<fk table='Org-Shop-Part' column='record_id'/>"
)

# the shape PostgREST 9 serves (types and formats as it writes them for PostgreSQL columns)
DOC: dict[str, Any] = {
    "swagger": "2.0",
    "definitions": {
        "Org-Shop": {
            "required": ["record_id"],
            "properties": {
                "record_id": {
                    "description": "Note:\nThis is a Primary Key.<pk/>",
                    "format": "text",
                    "type": "string",
                },
                "block_number": {"format": "text", "type": "string"},
                "count": {"format": "numeric", "type": "number"},
                "delta": {"format": "bigint", "type": "integer"},
                "active": {"format": "boolean", "type": "boolean"},
                "pt": {"format": "jsonb"},
                "part": {"description": FK, "format": "text", "type": "string"},
                "odd": {"format": "tsvector", "type": "string"},
                "weird": {"format": "money"},
            },
            "type": "object",
        },
        "Org-Shop.Made": {"properties": {"id": {"format": "integer", "type": "integer"}}},
        "broken": "not an object",
    },
}


def test_parse_openapi_types_and_joins() -> None:
    tables = parse_openapi(DOC)
    assert set(tables) == {"Org-Shop", "Org-Shop.Made"}
    shop = tables["Org-Shop"]
    kinds = {c.name: c.type for c in shop.columns}
    assert kinds == {
        "record_id": "text",
        "block_number": "text",
        "count": "number",
        "delta": "number",
        "active": "boolean",
        "pt": "json",
        "part": "text",
        "odd": "text",
        "weird": "unknown",
    }
    assert shop.joins == [ColumnInfo("part", "text", "text", "Org-Shop-Part")]
    assert shop.column("count") == ColumnInfo("count", "number", "numeric")
    assert shop.column("missing") is None
    assert tables["Org-Shop.Made"].kind == "event" and shop.kind == "contract"


def test_parse_openapi_ignores_what_is_not_a_schema() -> None:
    assert parse_openapi(None) == {}
    assert parse_openapi([]) == {}
    assert parse_openapi({"definitions": "x"}) == {}
    assert parse_openapi({"definitions": {"T": {"properties": "x"}}}) == {"T": TableInfo("T")}


def test_table_kinds() -> None:
    assert table_kind("history@Car") == "history"
    assert table_kind("Car.Sold") == "event"
    assert table_kind("Acme-CarDemo-car") == "contract"


def test_infer_columns_from_rows() -> None:
    rows = [
        {"a": "x", "n": 1, "b": None, "flag": True, "Owner": {"k": 1}, "mix": 1, "j": [1]},
        {"a": "y", "n": 2.5, "b": "later", "flag": False, "mix": "one"},
    ]
    assert infer_columns(rows) == [
        ColumnInfo("a", "text"),
        ColumnInfo("n", "number"),
        ColumnInfo("b", "text"),
        ColumnInfo("flag", "boolean"),
        ColumnInfo("mix", "unknown"),
        ColumnInfo("j", "json"),
    ]
    assert infer_columns([{"only_null": None}]) == [ColumnInfo("only_null", "unknown")]


def test_operators_follow_the_type() -> None:
    assert operators_for("text")[0] == "ilike"
    assert "like" not in operators_for("number") and "gte" in operators_for("number")
    assert operators_for("boolean") == ("is", "eq", "neq")
    assert operators_for("json") == ("is",)
