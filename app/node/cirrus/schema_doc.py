"""The schema document Cirrus serves at its root (PostgREST 9's OpenAPI description)."""

from __future__ import annotations

from typing import Any

from .backend import Table

# column kind -> (OpenAPI type, PostgreSQL format) as PostgREST describes such columns
_OPENAPI_TYPES = {
    "text": ("string", "text"),
    "int": ("number", "numeric"),
    "decimal": ("number", "numeric"),
    "bool": ("boolean", "boolean"),
    "serial": ("integer", "integer"),
}


def collection_description(t: Table) -> str:
    """What a collection table holds, for the OpenAPI document (PostgREST shows a table's
    comment as its definition's description)."""
    contract, _, var = t.name.rpartition("-")
    keys = ", ".join(f"`{k}`" for k in t.key_columns)
    return (
        f"Collection `{var}` of the contracts in table `{contract}`: one row per entry of the "
        f"mapping or array (`collection_type` says which), its keys in {keys} (numbers for "
        "integer keys and array indexes, text otherwise) and the entry in `value` (jsonb: "
        "integers and enums as numbers, booleans, text, addresses and decimals as strings, a "
        "struct as an object of its fields with integers as strings). Entries holding a zero "
        'value (0, "", false, the zero address, an all-zero struct) are not listed.'
    )


def schema_document(schema: dict[str, Table]) -> dict[str, Any]:
    """The schema document PostgREST 9 serves at its root (Swagger 2.0): one definition per
    table with each column's type and format, primary and foreign keys noted in the
    column's description as PostgREST writes them. Clients read table names, column types
    and join targets from it; rows stay private, table shapes are not."""
    definitions: dict[str, Any] = {}
    paths: dict[str, Any] = {"/": {"get": {"summary": "OpenAPI description (this document)"}}}
    for name in sorted(schema):
        t = schema[name]
        props: dict[str, Any] = {}
        for c in list(t.columns.values()):
            typ, fmt = _OPENAPI_TYPES.get(c.kind, ("string", "text"))
            # jsonb columns have no type (PostgREST 9.0.1 on): they hold any JSON value
            prop: dict[str, Any] = (
                {"format": "jsonb"} if c.kind == "json" else {"type": typ, "format": fmt}
            )
            if c.ref:
                prop["description"] = (
                    f"Note:\nThis is a Foreign Key to `{c.ref}.record_id`."
                    f"<fk table='{c.ref}' column='record_id'/>"
                )
            elif (c.name == "record_id" and t.kind == "contract") or c.kind == "serial":
                prop["description"] = "Note:\nThis is a Primary Key.<pk/>"
            props[c.name] = prop
        definitions[name] = {"type": "object", "properties": props}
        if t.kind == "collection":
            definitions[name]["description"] = collection_description(t)
        paths["/" + name] = {"get": {"tags": [name]}}
    return {
        "swagger": "2.0",
        "info": {"title": "Cirrus (stratoscope sandbox)", "version": "9.0.0"},
        "basePath": "/",
        "schemes": ["http"],
        "consumes": ["application/json"],
        "produces": ["application/json", "application/openapi+json"],
        "paths": paths,
        "definitions": definitions,
    }
