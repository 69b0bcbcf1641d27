"""OpenAPI descriptions of the step debugger's routes (app/node/debug/routes.py).

A sandbox extension: ``/vm-debug/sessions`` starts and manages debug sessions; the platform's
debugger routes (its REST server's, which its nginx proxied under ``/vm-debug/``) are served per
session and, for the caller's latest session, at ``/vm-debug/`` itself.
"""

from __future__ import annotations

from .openapi_shapes import STR, UINT, S, array, body, json_of, obj, query, ref

FLAG: S = {"type": "boolean"}
ERR = ref("Error")
POS: S = obj(["name", "line", "column"], name=STR, line=UINT, column=UINT)
EVAL_RESP: S = {"oneOf": [obj(["Right"], Right=STR), obj(["Left"], Left=STR)]}
BP: S = obj(
    ["tag"],
    tag={
        "type": "string",
        "enum": ["UnconditionalBP", "ConditionalBP", "DataBP", "FunctionBP", "HitcountBP"],
    },
    contents={},
)
STATUS: S = obj(
    ["tag"],
    tag={"type": "string", "enum": ["Running", "Stepping", "Paused"]},
    contents={"description": "Stepping: the frame-count threshold; Paused: the DebugState"},
)
SESSION: S = obj(
    ["id", "state"],
    id=STR,
    state={"type": "string", "enum": ["new", "running", "paused", "finished"]},
    reason={"type": "string", "description": "entry, breakpoint, step, pause or exception"},
    description=STR,
    result={"type": "object", "nullable": True, "description": "status, message, values"},
    files=array(STR),
    created={"type": "number"},
)
LAUNCH: S = obj(
    [],
    source={"description": "SolidVM source text, or {file: text}"},
    name={"type": "string", "description": "the file name of a one-text source (main.sol)"},
    files=array(obj(["name", "firstLine", "lines"], name=STR, firstLine=UINT, lines=UINT)),
    contract=STR,
    address={"type": "string", "description": "a deployed contract to call (40 hex)"},
    function=STR,
    args={"type": "object"},
    constructorArgs={"type": "object"},
    test={"type": "string", "pattern": r"^Describe_\w+\.\w+$"},
    stopOnEntry=FLAG,
    pauseOnFailure={
        "type": "boolean",
        "description": "stop where a failure fires that no try/catch up the stack catches, "
        "before its frame unwinds (default true)",
    },
    breakpoints=array(obj(["file", "line"], file=STR, line=UINT, condition=STR)),
    transaction={
        "type": "string",
        "pattern": "^(0x)?[0-9a-fA-F]{64}$",
        "description": "re-run this transaction (its contract, function, arguments, sender, "
        "value, block number and time) on the state just before it; the other fields but "
        "stopOnEntry, pauseOnFailure and breakpoints are ignored, the source is the code's own "
        "(<Contract>.sol)",
    },
)
VARIABLE: S = obj(
    ["name", "value", "type", "variablesReference"],
    name=STR,
    value=STR,
    type=STR,
    variablesReference=UINT,
)
BAD = json_of(
    ref("Problem"), "the body is not the shape required (the message and 'field' name it)"
)
GONE = json_of(ERR, "no such debug session of the caller (or none at all)")
NOT_PAUSED = json_of(ERR, "the run is not paused")


def _status_op(summary: str) -> S:
    return {
        "summary": summary,
        "responses": {"200": json_of(STATUS, "DebuggerStatus"), "404": GONE},
    }


DEBUG_OPERATIONS: dict[str, S] = {
    "DebugRoutes.start": {
        "summary": "Start a debug session: a call on a fresh deployment, a deploy, or a test",
        "requestBody": body(
            LAUNCH,
            {
                "source": "contract C { uint x; function f() public { x = 1; } }",
                "contract": "C",
                "function": "f",
                "stopOnEntry": True,
            },
        ),
        "responses": {
            "200": json_of(SESSION, "started; answered once it first stops (or after 2 s)"),
            "400": BAD,
            "404": json_of(
                ERR,
                "transaction: no such transaction (or one of a private chain the caller is "
                "not a member of: answered as an unknown hash)",
            ),
            "409": json_of(
                ERR,
                "transaction: not in a block yet, a transfer or a chain's creation (no contract "
                "code), or not SolidVM code",
            ),
            "410": json_of(
                ERR,
                "transaction: the state before it is no longer reconstructible (from before "
                "the node's start, or older than the last 5000 transactions)",
            ),
            "429": json_of(ERR, "the caller (2) or the node (16) has as many sessions as allowed"),
        },
    },
    "DebugRoutes.transaction": {
        "summary": "What a re-run of a transaction in the debugger runs, and its source",
        "description": "The contract, function, address and chain of the transaction and the "
        "source a re-run shows (file name and text): POST /vm-debug/sessions with "
        "{transaction} starts the re-run; the same refusals as there.",
        "parameters": [query("hash", STR, "the transaction's hash (64 hex digits)")],
        "responses": {
            "200": json_of(
                obj(
                    ["transaction", "kind", "contract", "address", "file", "source"],
                    transaction=STR,
                    kind={"type": "string", "enum": ["FUNCTION", "CONTRACT"]},
                    contract=STR,
                    function=STR,
                    address=STR,
                    chainId={"type": "string", "nullable": True},
                    sender=STR,
                    blockNumber=UINT,
                    file=STR,
                    source=STR,
                ),
                "the re-run's call and source",
            ),
            "400": BAD,
            "404": json_of(ERR, "no such transaction (or a private chain's, to a non-member)"),
            "409": json_of(ERR, "not in a block yet, a transfer, a chain's creation, not SolidVM"),
            "410": json_of(ERR, "the state before it is no longer reconstructible"),
        },
    },
    "DebugRoutes.sessions_of": {
        "summary": "The caller's debug sessions",
        "responses": {"200": json_of(array(SESSION), "sessions")},
    },
    "DebugRoutes.show": {
        "summary": "One session",
        "responses": {"200": json_of(SESSION, "it"), "404": GONE},
    },
    "DebugRoutes.delete": {
        "summary": "Stop and forget a session",
        "responses": {"200": json_of(obj(["id"], id=STR, state=STR), "stopped"), "404": GONE},
    },
    "DebugRoutes.events": {
        "summary": "Events after a sequence number (stopped, continued, output, terminated)",
        "parameters": [
            query("after", UINT, "the last sequence number seen"),
            query("wait", UINT, "seconds to wait for one (at most 25)"),
        ],
        "responses": {
            "200": json_of(array(obj(["seq", "event"], seq=UINT, event=STR, body={})), "events"),
            "404": GONE,
        },
    },
    "DebugRoutes.control": {
        "summary": "continue, next, stepIn, stepOut, pause, stop; or pauseOnFailure with a value",
        "requestBody": body(obj(["action"], action=STR, value=FLAG), {"action": "next"}),
        "responses": {"200": json_of(SESSION, "taken"), "400": BAD, "404": GONE, "409": NOT_PAUSED},
    },
    "DebugRoutes.frames": {
        "summary": "The paused call stack, innermost first (name, contract, address, file, line)",
        "responses": {
            "200": json_of(array({"type": "object"}), "frames"),
            "404": GONE,
            "409": NOT_PAUSED,
        },
    },
    "DebugRoutes.scopes": {
        "summary": "A frame's scopes: Locals, Contract state, msg / block / tx",
        "parameters": [query("frame", UINT, "frame id (1: innermost)")],
        "responses": {
            "200": json_of(array({"type": "object"}), "scopes"),
            "404": GONE,
            "409": NOT_PAUSED,
        },
    },
    "DebugRoutes.variables": {
        "summary": "The variables behind a reference (a scope, a struct, array or mapping)",
        "responses": {"200": json_of(array(VARIABLE), "variables"), "404": GONE, "409": NOT_PAUSED},
    },
    "DebugRoutes.evaluate": {
        "summary": "Evaluate a SolidVM expression in a frame, read-only",
        "requestBody": body(
            obj(["expression"], expression=STR, frame=UINT), {"expression": "x + 1"}
        ),
        "responses": {
            "200": json_of({"type": "object"}, "{result, type, variablesReference} or {error}"),
            "400": BAD,
            "404": GONE,
            "409": NOT_PAUSED,
        },
    },
    "DebugRoutes.source_breakpoints": {
        "summary": "Replace one file's line breakpoints (with optional conditions)",
        "requestBody": body(
            obj(["file"], file=STR, breakpoints=array(obj(["line"], line=UINT, condition=STR))),
            {"file": "main.sol", "breakpoints": [{"line": 12, "condition": "i > 2"}]},
        ),
        "responses": {
            "200": json_of(array({"type": "object"}), "line, verified"),
            "400": BAD,
            "404": GONE,
        },
    },
    "DebugRoutes.p_status": _status_op("The platform's GET /status"),
    "DebugRoutes.p_pause": _status_op("The platform's PUT /pause"),
    "DebugRoutes.p_resume": _status_op("The platform's PUT /resume"),
    "DebugRoutes.p_step_in": _status_op("The platform's POST /step-in"),
    "DebugRoutes.p_step_over": _status_op("The platform's POST /step-over"),
    "DebugRoutes.p_step_out": _status_op("The platform's POST /step-out"),
    "DebugRoutes.p_breakpoints_file": _status_op(
        "Remove the unconditional and conditional breakpoints of a file"
    ),
    "DebugRoutes.p_breakpoints:GET": {
        "summary": "The platform's breakpoint set",
        "responses": {"200": json_of(array(BP), "breakpoints"), "404": GONE},
    },
    "DebugRoutes.p_breakpoints:PUT": {
        **_status_op("Add breakpoints to the set"),
        "requestBody": body(array(BP)),
    },
    "DebugRoutes.p_breakpoints:DELETE": {
        **_status_op("Remove breakpoints (an empty list clears all)"),
        "requestBody": body(array(BP)),
    },
    "DebugRoutes.p_stack": {
        "summary": "The platform's stack trace: one SourcePosition per frame, innermost first",
        "responses": {"200": json_of(array(POS), "[] when not paused"), "404": GONE},
    },
    "DebugRoutes.p_variables": {
        "summary": "The platform's variables: {scope: {name: EvaluationResponse}}",
        "responses": {"200": json_of({"type": "object"}, "{} when not paused"), "404": GONE},
    },
    "DebugRoutes.p_watches:GET": {
        "summary": "Watch expressions and their values in the paused frame",
        "responses": {
            "200": json_of({"type": "object", "additionalProperties": EVAL_RESP}, "watches"),
            "404": GONE,
        },
    },
    "DebugRoutes.p_watches:PUT": {
        **_status_op("Add watch expressions"),
        "requestBody": body(array(STR)),
    },
    "DebugRoutes.p_watches:DELETE": {
        **_status_op("Remove watch expressions (an empty list clears all)"),
        "requestBody": body(array(STR)),
    },
    "DebugRoutes.p_eval": {
        "summary": 'Evaluate expressions in the paused frame ({"Left":""} each when not paused)',
        "requestBody": body(array(STR), ["x + 1"]),
        "responses": {"200": json_of(array(EVAL_RESP), "in the order given"), "404": GONE},
    },
}
