"""The identity registry keeps real X.509 certificates, which contracts read with the builtins."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, wait_for

WHO = """
contract Who {
    function field(string name) public returns (string) {
        return parseCert(getUserCert(msg.sender)["certString"])[name];
    }
    function checked(string operatorKey) public returns (bool) {
        return verifyCert(getUserCert(msg.sender)["certString"], operatorKey);
    }
    function signedBy(string operatorKey) public returns (bool) {
        return verifyCertSignedBy(getUserCert(msg.sender)["certString"], operatorKey);
    }
}
"""


def operator_key_pem(node: RunningNode) -> str:
    rows = (
        node.client("alice")
        .get("/cirrus/search/Certificate", params={"userAddress": f"eq.{node.address('admin')}"})
        .json()
    )
    raw = bytes.fromhex(rows[0]["publicKey"])
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), raw)
    pem = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return pem.decode()


def call(node: RunningNode, user: str, address: str, method: str, args: dict[str, str]) -> str:
    res = submit(node.client(user), call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"][0])


def test_registered_users_hold_certificates_issued_by_the_operator(node: RunningNode) -> None:
    address = deploy(node.client("alice"), "Who", WHO)
    assert call(node, "alice", address, "field", {"name": "commonName"}) == "alice"
    assert call(node, "alice", address, "field", {"name": "organization"}) == "Acme"
    assert call(node, "bob", address, "field", {"name": "organizationalUnit"}) == "Logistics"
    assert call(node, "alice", address, "field", {"name": "userAddress"}) == node.address("alice")
    assert call(node, "alice", address, "field", {"name": "parent"}) == node.address("admin")
    key = operator_key_pem(node)
    assert call(node, "alice", address, "checked", {"operatorKey": key}) == "true"
    assert call(node, "bob", address, "signedBy", {"operatorKey": key}) == "true"
    other = ec.generate_private_key(ec.SECP256K1()).public_key()
    stranger = other.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    assert call(node, "alice", address, "checked", {"operatorKey": stranger}) == "false"


def test_the_operator_certificate_is_self_signed(node: RunningNode) -> None:
    address = deploy(node.client("admin"), "Who", WHO)
    assert call(node, "admin", address, "field", {"name": "parent"}) == "0"
    key = operator_key_pem(node)
    assert call(node, "admin", address, "checked", {"operatorKey": key}) == "true"


def test_a_user_added_later_gets_a_certificate_too(node: RunningNode) -> None:
    node.add_user("erin", "Umbrella", password="erin-pw")
    c = node.client("erin")
    assert c.post("/svc/v2.3/key").status_code in (200, 201)
    address = deploy(node.client("alice"), "Who", WHO)

    def registered() -> str | None:
        res = submit(c, call_tx(address, "field", {"name": "commonName"}))
        ok = res[0]["status"] == "Success" and res[0]["data"]["contents"][0] == "erin"
        return "yes" if ok else None

    wait_for(registered, 10, "erin's certificate")
    assert call(node, "erin", address, "checked", {"operatorKey": operator_key_pem(node)}) == "true"
