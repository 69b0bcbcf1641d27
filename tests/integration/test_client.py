"""The async client (app/client) against a real sandbox node over loopback."""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
import pytest

from app.client.auth import OidcSession, OidcSettings, Token, jwt_claims
from app.client.errors import AuthError, NetworkError, RequestError, TransactionFailed
from app.client.http import StratoClient
from app.client.models import TxRequest
from tests.integration.node_fixture import RunningNode

T = TypeVar("T")

COUNTER = """
contract Counter {
    uint public n;
    event Added(uint by, uint total);
    function add(uint by) public returns (uint) {
        require(by > 0, "by must be positive");
        n += by;
        emit Added(by, n);
        return n;
    }
}
"""


def run(coro_fn: Callable[[], Awaitable[T]]) -> T:
    async def wrapped() -> T:
        return await coro_fn()

    return asyncio.run(wrapped())


def settings(
    node: RunningNode, secret: str | None = None, client: str = "stratoscope-desktop"
) -> OidcSettings:
    return OidcSettings(f"{node.url}/auth/.well-known/openid-configuration", client, secret)


def token_of(node: RunningNode, user: str) -> Callable[[], Awaitable[str]]:
    tok = node.token(user)

    async def provide() -> str:
        return tok

    return provide


def test_password_grant_and_calls(node: RunningNode) -> None:
    async def body() -> None:
        oidc = OidcSession(settings(node))
        try:
            tok = await oidc.password("alice", "alice")
            assert jwt_claims(tok.access_token)["preferred_username"] == "alice"
            client = StratoClient(node.url, oidc.access_token)
            async with client:
                health = await client.health()
                assert health.healthy and health.last_block is not None
                account = await client.ensure_key()
                assert len(account.address) == 40
                up = await client.run(TxRequest.upload("Counter", COUNTER))
                assert up.ok and up.address
                res = await client.run(TxRequest.call(up.address, "add", {"by": 2}))
                assert res.values == ["2"]
                state = await client.state("Counter", up.address)
                assert state["n"] == "2"
                rows, total = await client.cirrus(
                    "Counter", [("address", f"eq.{up.address}")], count=True
                )
                assert total == 1 and rows[0]["n"] == 2
                events, _ = await client.cirrus("Counter.Added")
                assert {"by": "2", "total": "2"}.items() <= events[-1].items()
                with pytest.raises(TransactionFailed) as info:
                    await client.run(TxRequest.call(up.address, "add", {"by": 0}))
                assert "by must be positive" in str(info.value)
                txs = await client.transactions(address=up.address)
                assert any(t.kind == "FunctionCall" for t in txs)
                blocks = await client.last_blocks(3)
                assert blocks and blocks[0].number >= blocks[-1].number
                acct = await client.account(account.address)
                assert acct is not None and acct.address == account.address
        finally:
            await oidc.aclose()

    run(body)


def test_async_submission_and_results(node: RunningNode) -> None:
    async def body() -> None:
        async with StratoClient(node.url, token_of(node, "bob")) as client:
            results = await client.submit(
                [TxRequest.upload("Counter", COUNTER), TxRequest.upload("Counter", COUNTER)],
                resolve=False,
            )
            assert [r.status for r in results] == ["Pending", "Pending"]
            hashes = [r.hash for r in results]
            for _ in range(100):
                done = await client.results(hashes)
                if not any(r.pending for r in done):
                    break
                await asyncio.sleep(0.05)
            assert [r.status for r in done] == ["Success", "Success"]
            assert (await client.result(hashes[0])).address == done[0].address

    run(body)


def test_new_user_has_no_key_until_created(node: RunningNode) -> None:
    node.add_user("gina", "Hooli", password="pw-gina")

    async def body() -> None:
        async with StratoClient(node.url, token_of(node, "gina")) as client:
            assert await client.get_key() is None
            created = await client.create_key()
            assert (await client.get_key()) == created
            with pytest.raises(RequestError) as info:
                await client.create_key()
            assert info.value.status == 400 and "already exists" in info.value.message

    run(body)


def test_client_credentials_and_refresh(node: RunningNode) -> None:
    cid, secret = node.oauth_client()

    async def body() -> None:
        oidc = OidcSession(settings(node, secret, cid))
        try:
            tok = await oidc.client_credentials()
            assert jwt_claims(tok.access_token)["preferred_username"] == "admin"
            assert tok.refresh_token
            tok.expires_at = time.time()  # pretend it is about to expire
            fresh = await oidc.access_token()
            assert fresh != tok.access_token
            assert oidc.token is not None and not oidc.token.expiring()
        finally:
            await oidc.aclose()

    run(body)


def test_wrong_password_is_an_auth_error(node: RunningNode) -> None:
    async def body() -> None:
        oidc = OidcSession(settings(node))
        try:
            with pytest.raises(AuthError) as info:
                await oidc.password("alice", "wrong")
            assert info.value.status in (400, 401)
        finally:
            await oidc.aclose()

    run(body)


def test_authorization_code_with_pkce(node: RunningNode) -> None:
    async def body() -> None:
        oidc = OidcSession(settings(node))
        browser = httpx.AsyncClient(follow_redirects=False, timeout=10)
        done: list[asyncio.Task[None]] = []

        async def sign_in(url: str) -> None:
            page = await browser.get(url)
            assert page.status_code == 200 and "<form" in page.text
            hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
            form = {k: html.unescape(v) for k, v in hidden.items()}
            post = await browser.post(url, data={**form, "username": "carol", "password": "carol"})
            assert post.status_code == 302, post.text
            callback = await browser.get(post.headers["location"])
            assert "Signed in" in callback.text

        try:
            tok = await oidc.authorization_code(
                lambda url: done.append(asyncio.get_running_loop().create_task(sign_in(url))),
                timeout=20,
            )
            await asyncio.gather(*done)
            assert jwt_claims(tok.access_token)["preferred_username"] == "carol"
        finally:
            await browser.aclose()
            await oidc.aclose()

    run(body)


def test_bad_and_pasted_tokens(node: RunningNode) -> None:
    async def bad() -> str:
        return "not-a-token"

    async def body() -> None:
        async with StratoClient(node.url, bad) as client:
            with pytest.raises(AuthError) as info:
                await client.get_key()
            assert info.value.status == 403 and "invalid jwt" in info.value.message
        pasted = Token.pasted(node.token("alice"))
        assert not pasted.expiring()
        oidc = OidcSession(settings(node))
        oidc.use_token(pasted.access_token)
        async with StratoClient(node.url, oidc.access_token) as client:
            assert (await client.get_key()) is not None
        await oidc.aclose()

    run(body)


def test_platform_spelling_is_used_when_set(node: RunningNode) -> None:
    async def body() -> None:
        async with StratoClient(node.url, token_of(node, "alice")) as client:
            client._prefix["svc"] = 1  # as if the seed spelling had answered 404 before
            assert (await client.get_key()) is not None
            assert client._prefix["svc"] == 1

    run(body)


def test_unreachable_node_is_a_network_error() -> None:
    async def body() -> None:
        async with StratoClient("http://127.0.0.1:9", None, timeout=2) as client:
            with pytest.raises(NetworkError) as info:
                await client.health()
            assert "cannot reach the node" in str(info.value)

    run(body)
