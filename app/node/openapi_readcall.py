"""The OpenAPI description of ``POST /stratoscope/call`` (:mod:`app.node.routes.read_call`)."""

from __future__ import annotations

from .openapi_shapes import (
    AMOUNT,
    CHAIN_IN,
    DEMO_ADDRESS,
    HEX40_IN,
    NOT_MEMBER,
    PROBLEM,
    STR,
    S,
    body,
    json_of,
    nullable,
    obj,
)

READ_RESULT: S = obj(
    ["status", "readOnly", "txResult"],
    status={"type": "string", "enum": ["Success", "Failure"]},
    readOnly={"type": "boolean", "enum": [True]},
    txResult=obj(
        ["status", "message"],
        status={"type": "string", "enum": ["success", "failure"]},
        message=STR,
        gasUsed=STR,
        chainId=nullable(STR),
        time={"type": "number"},
        trace=STR,
    ),
    data=nullable(obj(["tag", "contents"], tag={"type": "string", "enum": ["Call"]}, contents={})),
)

READ_CALL_OPERATIONS: S = {
    "NodeApi.read_call": {
        "description": (
            "A sandbox extension (no STRATO node serves it; a client falls back to a "
            "transaction on a 404): runs a contract function read-only on a throwaway copy of "
            "the committed state, on a worker thread, under the node's step budget and "
            "--tx-time-limit. Nothing is written: no transaction, no block, no nonce, no gas; "
            "a state-changing function runs on the copy and its changes are dropped. The body "
            "is a bloc FUNCTION payload; the answer has the shape of a resolved function "
            "call's result (data.contents: the returned values), without a hash. A function "
            "that fails (require, revert, out of steps, time limit) answers 200 with status "
            "Failure and txResult.message. A private chain: members only."
        ),
        "requestBody": body(
            obj(
                ["contractAddress", "method"],
                contractName=STR,
                contractAddress=HEX40_IN,
                method=STR,
                args={"type": "object"},
                value=AMOUNT,
                chainid=CHAIN_IN,
            ),
            {"contractAddress": DEMO_ADDRESS, "method": "get", "args": {}},
        ),
        "responses": {
            "200": json_of(READ_RESULT, "what the function returned, or why it failed"),
            "400": json_of(
                PROBLEM,
                "no contract at contractAddress, no such method, bad args or a non-zero value "
                "(the message names the field)",
            ),
            "403": NOT_MEMBER,
        },
    },
}
