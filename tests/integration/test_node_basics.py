"""The sandbox node over real HTTP: health, API description, the auth gate, keys and OIDC."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import jwt
import pytest

from app.node.oidc import OidcIssuer
from tests.integration.node_fixture import HEX40, HEX64, RunningNode, submit, upload_tx

PUBKEY = re.compile(r"^04[0-9a-f]{128}$")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

# Every route path of app/node/api.py (NodeApi.routes), as written there.
API_PATHS = {
    "/health",
    "/_ping",
    "/openapi.json",
    "/svc/v2.3/key",
    "/strato/v2.3/key",
    "/svc/v2.3/users",
    "/strato/v2.3/users",
    "/svc/v2.3/transaction",
    "/strato/v2.3/transaction",
    "/bloc/v2.2/transaction",
    "/svc/v2.3/transaction/parallel",
    "/strato/v2.3/transaction/parallel",
    "/bloc/v2.2/transaction/parallel",
    "/bloc/v2.2/transactions/{hash}/result",
    "/bloc/v2.2/transactions/results",
    "/bloc/v2.2/users/{name}/{address}/fill",
    "/svc-api/eth/v1.2/block",
    "/strato-api/eth/v1.2/block",
    "/svc-api/eth/v1.2/block/last/{n}",
    "/strato-api/eth/v1.2/block/last/{n}",
    "/svc-api/eth/v1.2/transaction",
    "/strato-api/eth/v1.2/transaction",
    "/svc-api/eth/v1.2/transaction/last/{n}",
    "/strato-api/eth/v1.2/transaction/last/{n}",
    "/svc-api/eth/v1.2/account",
    "/strato-api/eth/v1.2/account",
    "/bloc/v2.2/contracts",
    "/bloc/v2.2/contracts/xabi",
    "/bloc/v2.2/contracts/compile",
    "/bloc/v2.2/contracts/{name}/{address}",
    "/bloc/v2.2/contracts/{name}/{address}/state",
    "/bloc/v2.2/contracts/{name}/{address}/state/{mapping}/{key}",
    "/bloc/v2.2/chain",
    "/bloc/v2.2/chains",
    "/svc-api/eth/v1.2/chain",
    "/strato-api/eth/v1.2/chain",
    "/cirrus/search/{table}",
    "/bloc/v2.2/",
    "/bloc/v2.2",
    "/strato-api/eth/v1.2/version",
    "/svc-api/eth/v1.2/version",
}

SIMPLE = "contract Simple { uint public x; constructor() public { x = 1; } }"


class _Directory:
    """Minimal UserDirectory for a stand-alone OidcIssuer that signs test tokens."""

    def check_password(self, username: str, password: str) -> bool:
        return False

    def email_of(self, username: str) -> str | None:
        return f"{username}@example.test"

    def client_subject(self, client_id: str, client_secret: str) -> str | None:
        return None

    def client_exists(self, client_id: str) -> bool:
        return False


def _issuer(data_dir: Path, base_url: str) -> OidcIssuer:
    issuer = OidcIssuer(data_dir, _Directory())
    issuer.base_url = base_url
    return issuer


def _rejected(node: RunningNode, token: str) -> httpx.Response:
    r = node.client().get("/svc/v2.3/key", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 403, r.text
    assert "invalid jwt" in r.text
    return r


# ------------------------------------------------------------------------ public routes


def test_listening_line_is_the_only_stdout(node: RunningNode) -> None:
    assert node.stdout_lines == [f"Sandbox node listening on {node.url}"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", node.url)


def test_health_is_public_and_describes_the_node(node: RunningNode) -> None:
    r = node.client().get("/health")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    h = r.json()
    assert h["name"] == "stratoscope-sandbox"
    assert isinstance(h["version"], str) and h["version"]
    assert ISO.match(h["timestamp"])
    assert isinstance(h["uptime"], int) and h["uptime"] >= 0
    assert h["gas"] is False
    last = h["lastBlock"]
    assert isinstance(last["number"], int) and last["number"] >= 0  # genesis exists
    assert HEX64.match(last["hash"])
    assert ISO.match(last["timestamp"])
    info = h["healthInfo"]
    assert info["isHealthy"] is True
    assert info["isNotStalled"] is True
    assert isinstance(info["isLastPending"], bool)


def test_ping_is_public(node: RunningNode) -> None:
    r = node.client().get("/_ping")
    assert r.status_code == 200
    assert r.text == "pong"


def test_openapi_lists_every_route(node: RunningNode) -> None:
    r = node.client().get("/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    missing = API_PATHS - set(paths)
    assert not missing, f"routes missing from /openapi.json: {sorted(missing)}"
    assert "/auth/token" in paths
    assert "/auth/.well-known/openid-configuration" in paths
    assert set(paths["/svc/v2.3/key"]) == {"get", "post"}
    assert "post" in paths["/bloc/v2.2/transactions/results"]
    assert "security" not in paths["/health"]["get"]
    assert paths["/svc/v2.3/key"]["get"]["security"] == [{"bearer": []}]
    params = {
        p["name"]: p for p in paths["/bloc/v2.2/transactions/{hash}/result"]["get"]["parameters"]
    }
    assert params["hash"]["in"] == "path" and params["hash"]["required"] is True


def test_openapi_describes_every_route_of_the_api_table(node: RunningNode) -> None:
    """Every Route that NodeApi.routes() builds is in the served description."""
    from starlette.routing import Route

    from app.node.api import NodeApi

    issuer = _issuer(node.data_dir.parent / "unused-issuer", node.url)
    api = NodeApi(None, None, issuer, 1)  # type: ignore[arg-type]
    served = {r.path for r in api.routes() if isinstance(r, Route)}
    described = set(node.client().get("/openapi.json").json()["paths"])
    assert served, "NodeApi.routes() built no routes"
    assert served <= described, sorted(served - described)


def test_every_described_route_is_served(node: RunningNode) -> None:
    """Black-box check the other way round: every documented path and method is routed."""
    paths = node.client().get("/openapi.json").json()["paths"]
    anonymous = node.client()
    problems = []
    for path, ops in paths.items():
        concrete = re.sub(r"\{[^}]+\}", "x", path)
        for method, op in ops.items():
            r = anonymous.request(method.upper(), concrete)
            # a handler may answer 404 for an unknown id; the router's 404 says "no such route"
            if "no such route" in r.text or r.status_code == 405:
                problems.append(f"{method.upper()} {path}: not routed ({r.status_code})")
            elif "security" in op and r.status_code != 401:
                problems.append(
                    f"{method.upper()} {path}: documented as needing a bearer token, but "
                    f"answers {r.status_code} without one"
                )
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------ auth gate


@pytest.mark.parametrize(
    "path",
    ["/svc/v2.3/key", "/bloc/v2.2/contracts", "/svc-api/eth/v1.2/block/last/1"],
)
def test_missing_token_is_401_with_www_authenticate(node: RunningNode, path: str) -> None:
    r = node.client().get(path)
    assert r.status_code == 401
    assert f'realm="{node.url}/"' in r.headers["www-authenticate"]
    assert "bearer" in r.json()["error"].lower()


def test_missing_token_on_post_is_401(node: RunningNode) -> None:
    r = node.client().post("/svc/v2.3/transaction", json={"txs": []})
    assert r.status_code == 401
    assert "www-authenticate" in r.headers


@pytest.mark.parametrize("token", ["1234", "garbage.token.here", "a" * 9000])
def test_garbage_token_is_403_invalid_jwt(node: RunningNode, token: str) -> None:
    r = _rejected(node, token)
    assert r.json().startswith("Bearer token is invalid or expired: invalid jwt")


def test_non_bearer_scheme_is_403(node: RunningNode) -> None:
    r = node.client().get("/svc/v2.3/key", headers={"Authorization": "Basic YWxpY2U6YWxpY2U="})
    assert r.status_code == 403
    assert "invalid jwt" in r.text


def test_token_signed_by_another_data_dir_is_403(node: RunningNode, tmp_path: Path) -> None:
    # same issuer URL and claims, but another node's signing key
    other = _issuer(tmp_path, node.url)
    token = other.issue("alice")["access_token"]
    _rejected(node, token)


def test_expired_token_is_403(node: RunningNode) -> None:
    issuer = _issuer(node.data_dir, node.url)  # the node's own key
    issuer.clock = lambda: time.time() - 7200
    token = issuer.issue("alice")["access_token"]
    assert jwt.decode(token, options={"verify_signature": False})["exp"] < time.time()
    r = _rejected(node, token)
    assert "expired" in r.text


def test_token_with_the_nodes_key_is_accepted(node: RunningNode) -> None:
    """Control for the two tests above: the same construction with a valid clock works."""
    token = _issuer(node.data_dir, node.url).issue("alice")["access_token"]
    r = node.client().get("/svc/v2.3/key", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    assert r.json()["address"] == node.address("alice")


def test_token_of_unknown_user_is_403(node: RunningNode) -> None:
    token = _issuer(node.data_dir, node.url).issue("mallory")["access_token"]
    _rejected(node, token)


def test_token_command_for_unknown_user_exits_2(node: RunningNode) -> None:
    proc = node.cli("token", "--user", "nobody-here", check=False)
    assert proc.returncode == 2
    assert "nobody-here" in proc.stderr
    assert proc.stdout == ""


def test_token_command_prints_an_rs256_jwt(node: RunningNode) -> None:
    token = node.token("carol")
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert header["alg"] == "RS256"
    assert claims["preferred_username"] == "carol"
    assert claims["email"].startswith("carol@")
    assert claims["iss"] == f"{node.url}/auth"


# ------------------------------------------------------------------------ keys


@pytest.mark.parametrize("user", ["admin", "alice", "bob", "carol", "dave"])
def test_demo_users_have_keys(node: RunningNode, user: str) -> None:
    r = node.client(user).get("/svc/v2.3/key")
    assert r.status_code == 200
    k = r.json()
    assert k["status"] == "success"
    assert HEX40.match(k["address"])
    assert PUBKEY.match(k["pubkey"])


def test_demo_users_have_distinct_addresses(node: RunningNode) -> None:
    addrs = {node.address(u) for u in ("admin", "alice", "bob", "carol", "dave")}
    assert len(addrs) == 5


def test_key_alias_on_real_platform_prefix(node: RunningNode) -> None:
    seed = node.client("alice").get("/svc/v2.3/key").json()
    real = node.client("alice").get("/strato/v2.3/key")
    assert real.status_code == 200
    assert real.json() == seed


def test_get_key_of_another_user_by_username(node: RunningNode) -> None:
    r = node.client("alice").get("/svc/v2.3/key", params={"username": "bob"})
    assert r.status_code == 200
    assert r.json()["address"] == node.address("bob")


@pytest.mark.parametrize("prefix", ["/svc/v2.3", "/strato/v2.3"])
def test_post_key_for_existing_user_is_400(node: RunningNode, prefix: str) -> None:
    r = node.client("alice").post(f"{prefix}/key")
    assert r.status_code == 400
    assert r.json() == "User alice already exists"


def test_new_user_key_lifecycle(node: RunningNode) -> None:
    node.add_user("erin", "Umbrella", unit="Research", password="erin-pw")
    c = node.client("erin")
    r = c.get("/svc/v2.3/key")
    assert r.status_code == 400
    assert r.json() == "User erin doesn't exist"
    # the alias answers the same
    assert c.get("/strato/v2.3/key").json() == "User erin doesn't exist"

    r = c.post("/svc/v2.3/key")
    assert r.status_code == 200
    created = r.json()
    assert created["status"] == "success"
    assert HEX40.match(created["address"])
    assert PUBKEY.match(created["pubkey"])
    assert created["address"] not in {node.address(u) for u in ("alice", "bob", "carol")}

    r = c.get("/svc/v2.3/key")
    assert r.status_code == 200
    assert r.json() == created

    r = c.post("/strato/v2.3/key")
    assert r.status_code == 400
    assert r.json() == "User erin already exists"


def test_new_user_without_key_cannot_transact(node: RunningNode) -> None:
    node.add_user("frank", "Umbrella", password="frank-pw")
    r = node.client("frank").post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Simple", SIMPLE)]},
    )
    assert r.status_code == 400
    assert r.json() == "User frank doesn't exist"


def test_new_user_with_identity_can_transact_after_creating_key(node: RunningNode) -> None:
    node.add_user("gina", "Acme", unit="Sales", password="gina-pw")
    c = node.client("gina")
    assert c.post("/svc/v2.3/key").status_code == 200
    res = submit(c, upload_tx("Simple", SIMPLE))
    assert res[0]["status"] == "Success"


def test_new_user_without_identity_is_refused_by_the_vm(node: RunningNode) -> None:
    node.add_user("hank", "Acme", password="hank-pw", identity=False)
    c = node.client("hank")
    address = c.post("/svc/v2.3/key").json()["address"]
    r = c.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Simple", SIMPLE)]},
    )
    assert r.status_code == 422
    assert "registered cert" in r.json()
    assert address in r.json()


def test_users_listing(node: RunningNode) -> None:
    r = node.client("alice").get("/svc/v2.3/users")
    assert r.status_code == 200
    names = {u["username"]: u["address"] for u in r.json()}
    assert names["alice"] == node.address("alice")
    assert names["bob"] == node.address("bob")
    by_addr = node.client("alice").get(
        "/strato/v2.3/users", params={"address": node.address("bob")}
    )
    assert by_addr.json() == [{"username": "bob", "address": node.address("bob")}]


# ------------------------------------------------------------------------ OIDC against the node


def test_discovery_points_at_the_node(node: RunningNode) -> None:
    r = node.client().get("/auth/.well-known/openid-configuration")
    assert r.status_code == 200
    d = r.json()
    assert d["issuer"] == f"{node.url}/auth"
    assert d["token_endpoint"] == f"{node.url}/auth/token"
    assert d["jwks_uri"] == f"{node.url}/auth/jwks"
    assert {"password", "client_credentials", "authorization_code"} <= set(
        d["grant_types_supported"]
    )
    slash = node.client().get("/auth/.well-known/openid-configuration/")
    assert slash.status_code == 200 and slash.json() == d


def test_password_grant_token_is_accepted_by_the_api(node: RunningNode) -> None:
    r = node.client().post(
        "/auth/token",
        data={"grant_type": "password", "username": "alice", "password": "alice"},
    )
    assert r.status_code == 200, r.text
    tokens = r.json()
    assert tokens["token_type"] == "Bearer"
    claims = jwt.decode(tokens["access_token"], options={"verify_signature": False})
    assert claims["preferred_username"] == "alice"
    k = node.client().get(
        "/svc/v2.3/key", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert k.status_code == 200
    assert k.json()["address"] == node.address("alice")


def test_password_grant_with_wrong_password_is_refused(node: RunningNode) -> None:
    r = node.client().post(
        "/auth/token", data={"grant_type": "password", "username": "alice", "password": "bob"}
    )
    assert r.status_code in (400, 401)
    assert r.json()["error"] == "invalid_grant"


def test_client_credentials_with_basic_auth_acts_as_admin(node: RunningNode) -> None:
    client_id, secret = node.oauth_client()
    basic = base64.b64encode(f"{quote(client_id)}:{quote(secret)}".encode()).decode()
    r = node.client().post(
        "/auth/token",
        data={"grant_type": "client_credentials", "scope": "email openid"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert r.status_code == 200, r.text
    access = r.json()["access_token"]
    claims = jwt.decode(access, options={"verify_signature": False})
    assert claims["preferred_username"] == "admin"
    assert claims["exp"] - time.time() > 60
    k = node.client().get("/svc/v2.3/key", headers={"Authorization": f"Bearer {access}"})
    assert k.status_code == 200
    assert k.json()["address"] == node.address("admin")
    # the operator can transact with it (BR's admin token comes from this grant)
    c = node.new_client(token=access)
    assert submit(c, upload_tx("Simple", SIMPLE))[0]["status"] == "Success"


def test_client_credentials_with_wrong_secret_is_refused(node: RunningNode) -> None:
    client_id, _ = node.oauth_client()
    basic = base64.b64encode(f"{client_id}:wrong".encode()).decode()
    r = node.client().post(
        "/auth/token",
        data={"grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert r.status_code == 401
    assert r.json()["error"] == "invalid_client"
