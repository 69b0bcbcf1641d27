"""tools/run_platform_backend.py: the backend's env, the recording proxy and how a failing endpoint
is traced to the node's answer that broke it.

Both the "node" and the "backend" here are tiny HTTP servers of our own shaped like the real ones
(PostgREST error bodies, an Express-style error answer); the tool's run against the platform's
checkouts is not part of the test suite.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from run_platform_backend import Recorder, backend_env, backend_error, call, node_message

A, B = "a" * 40, "b" * 40
EMBED_ERROR = {
    "code": "PGRST200",
    "details": None,
    "hint": None,
    "message": "Could not find a relationship between X and y_fkey in the schema cache",
}
MISSING = {"code": "42P01", "message": 'relation "public.Z" does not exist'}


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class Quiet(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return

    def answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Node(Quiet):
    """/ok answers rows, /missing a 404, /embed a PGRST200; POST echoes its body."""

    def do_GET(self) -> None:
        if self.path.startswith("/ok"):
            self.answer(200, [{"address": A}])
        elif self.path.startswith("/missing"):
            self.answer(404, MISSING)
        else:
            self.answer(400, EMBED_ERROR)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.answer(200, {"echo": body.decode(), "auth": self.headers.get("Authorization")})


@pytest.fixture
def node() -> Iterator[str]:
    server, url = serve(Node)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def recorder(node: str) -> Iterator[Recorder]:
    rec = Recorder(node)
    yield rec
    rec.stop()


def backend_for(recorder: Recorder) -> tuple[ThreadingHTTPServer, str]:
    """A backend that, per call, first sends a background request that fails (404), then its own
    request, and answers with the node's message when that fails, as the platform's does."""

    class Backend(Quiet):
        def do_GET(self) -> None:
            httpx.get(f"{recorder.url}/missing")
            own = httpx.get(f"{recorder.url}{self.path.removeprefix('/api')}")
            if own.status_code == 200:
                self.answer(200, {"pool": A, "rows": own.json()})
            else:
                self.answer(own.status_code, {"error": {"message": own.json()["message"]}})

    return serve(Backend)


def test_backend_env_points_at_the_proxy_and_maps_escrow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LENDING_POOL", "stale")  # a stale address of ours must not reach it
    env = backend_env("http://n", "http://p", "cid", "sec", 4000, {"ESCROW": A, "CDP_ENGINE": B})
    assert env["NODE_URL"] == "http://p"
    assert env["OAUTH_DISCOVERY_URL"] == "http://n/auth/.well-known/openid-configuration"
    assert (env["OAUTH_CLIENT_ID"], env["OAUTH_CLIENT_SECRET"]) == ("cid", "sec")
    assert (env["NODE_ENV"], env["PORT"]) == ("development", "4000")
    assert env["ESCROW_ADDRESS"] == A and env["CDP_ENGINE"] == B
    assert "LENDING_POOL" not in env


def test_node_message_reads_postgrest_errors() -> None:
    assert node_message(json.dumps(EMBED_ERROR)) == f"PGRST200: {EMBED_ERROR['message']}"
    assert node_message("not json") == "not json"


def test_recorder_forwards_requests_and_keeps_answers(recorder: Recorder) -> None:
    got = httpx.post(
        f"{recorder.url}/bloc/x?resolve=true", content=b"body", headers={"Authorization": "t"}
    )
    assert got.json() == {"echo": "body", "auth": "t"}
    assert httpx.get(f"{recorder.url}/embed").status_code == 400
    seen = recorder.since(0)
    assert [(u.method, u.path, u.status) for u in seen] == [
        ("POST", "/bloc/x?resolve=true", 200),
        ("GET", "/embed", 400),
    ]


def test_call_names_the_failing_request_whose_message_the_answer_repeats(
    recorder: Recorder,
) -> None:
    server, url = backend_for(recorder)
    try:
        row = call(url, "embed?select=y:y_fkey(a)", "tok", recorder, {A})
        assert row.status == 400
        # the background 404 came first; the answer repeats the embed's message
        assert row.failed.startswith("GET /embed?select=y:y_fkey(a) -> 400 PGRST200")
        assert row.named == 0  # an error answer names no deployed data
        ok = call(url, "ok", "tok", recorder, {A, B})
        assert (ok.status, ok.named) == (200, 1)
        assert ok.failed.startswith("GET /missing -> 404 42P01")  # what the call swallowed
    finally:
        server.shutdown()
        server.server_close()


def test_backend_error_is_the_first_error_it_logged_not_the_sanitized_one() -> None:
    lines = [
        "Server running at http://localhost:1",
        "ServerError: Failed to fetch aggregated protocol revenue (500)",
        "Error: Lending pool, borrowable asset, or mToken not found",
        "    at getPool (dist/api/services/lending.service.js:201:35)",
        "TypeError: later",
    ]
    assert backend_error(lines) == "Error: Lending pool, borrowable asset, or mToken not found"
    assert backend_error(["all fine"]) == ""


def test_call_reports_the_backend_error_for_a_5xx_no_node_answer_explains(
    recorder: Recorder,
) -> None:
    log: list[str] = ["Server running at http://localhost:1"]

    class Backend(Quiet):
        def do_GET(self) -> None:
            httpx.get(f"{recorder.url}/ok")  # the node answers; the backend fails on the data
            log.append("TypeError: Cannot read properties of null (reading 'x')")
            self.answer(500, {"error": {"message": "Something went wrong."}})

    server, url = serve(Backend)
    try:
        row = call(url, "cdp/assets", "tok", recorder, {A}, log)
        assert row.status == 500
        assert row.failed == "backend: TypeError: Cannot read properties of null (reading 'x')"
    finally:
        server.shutdown()
        server.server_close()
