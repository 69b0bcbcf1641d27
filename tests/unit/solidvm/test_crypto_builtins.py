"""Hashes as SolidVM hashes them, ecrecover, verifySignature and the X.509 builtins.

Certificates and keys are made here with ``cryptography`` (secp256k1, ECDSA with SHA-256), the
kind the platform issues; the chain cases sign a user's certificate with an issuer's key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

import pytest
from coincurve import PrivateKey
from Crypto.Hash import keccak
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509.oid import NameOID

from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, compile_src


def keccak_hex(data: bytes) -> str:
    return str(keccak.new(digest_bits=256, data=data).hexdigest())


# ---------------------------------------------------------------- hashes

HASHES = c(
    """
    function k1(string s) public pure returns (bytes32) { return keccak256(s); }
    function k2(string a, string b) public pure returns (bytes32) { return keccak256(a, b); }
    function kb(bytes b) public pure returns (bytes32) { return keccak256(b); }
    function kn(uint n) public pure returns (bytes32) { return keccak256(n); }
    function kmix(uint n, bool f, address a) public pure returns (bytes32) {
        return keccak256(n, f, a);
    }
    function s2(string a, string b) public pure returns (bytes32) { return sha256(a, b); }
    function r2(string a, string b) public pure returns (bytes20) { return ripemd160(a, b); }
"""
)


def test_one_string_or_bytes_argument_hashes_its_bytes(run: RunFn) -> None:
    assert run(HASHES, "k1", {"s": "hello"}) == [keccak_hex(b"hello")]
    assert run(HASHES, "kb", {"b": "00ff"}) == [keccak_hex(b"\x00\xff")]


def test_several_arguments_hash_their_rlp_list(run: RunFn) -> None:
    # RLP of ["hello", "world"]: a list header, then two short strings with length prefixes
    rlp = bytes([0xCC, 0x85]) + b"hello" + bytes([0x85]) + b"world"
    assert run(HASHES, "k2", {"a": "hello", "b": "world"}) == [keccak_hex(rlp)]
    assert run(HASHES, "s2", {"a": "hello", "b": "world"}) == [hashlib.sha256(rlp).hexdigest()]
    [r] = run(HASHES, "r2", {"a": "hello", "b": "world"})
    assert len(r) == 40


def test_integers_bools_and_addresses_hash_as_rlp(run: RunFn) -> None:
    assert run(HASHES, "kn", {"n": 0}) == [keccak_hex(bytes([0x80]))]  # 0 is the empty string
    assert run(HASHES, "kn", {"n": 5}) == [keccak_hex(bytes([5]))]  # below 128: the byte itself
    assert run(HASHES, "kn", {"n": 1024}) == [keccak_hex(bytes([0x82, 4, 0]))]
    addr = "11" * 20
    rlp_items = bytes([0x82, 1, 0x2C]) + b"\x01" + bytes([0x94]) + bytes.fromhex(addr)
    expected = keccak_hex(bytes([0xC0 + len(rlp_items)]) + rlp_items)
    assert run(HASHES, "kmix", {"n": 300, "f": True, "a": addr}) == [expected]


def test_hash_without_arguments_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="keccak256 needs at least one argument"):
        compile_src(c("function f() public returns (bytes32) { return keccak256(); }"))


# ---------------------------------------------------------------- ecrecover

RECOVER = c(
    """
    function who(bytes32 h, uint8 v, bytes32 r, bytes32 s) public pure returns (address) {
        return ecrecover(h, v, r, s);
    }
    function whoHex(bytes32 h, uint8 v, string r, string s) public pure returns (address) {
        return ecrecover(h, v, r, s);
    }
"""
)


def signed(message: bytes) -> tuple[str, int, str, str, str]:
    key = PrivateKey()
    digest = keccak.new(digest_bits=256, data=message).digest()
    sig = key.sign_recoverable(digest, hasher=None)
    pub = key.public_key.format(compressed=False)[1:]
    address = keccak_hex(pub)[24:]
    return digest.hex(), sig[64] + 27, sig[:32].hex(), sig[32:64].hex(), address


def test_ecrecover_names_the_signer(run: RunFn) -> None:
    h, v, r, s, address = signed(b"pay bob 5")
    assert run(RECOVER, "who", {"h": h, "v": v, "r": r, "s": s}) == [address]
    # r and s may be hex strings, as the platform allows
    assert run(RECOVER, "whoHex", {"h": h, "v": v, "r": r, "s": s}) == [address]


def test_ecrecover_of_a_bad_signature_is_the_zero_address(run: RunFn) -> None:
    h, v, r, s, _ = signed(b"x")
    assert run(RECOVER, "who", {"h": h, "v": 31, "r": r, "s": s}) == ["0" * 40]
    assert run(RECOVER, "who", {"h": h, "v": v, "r": "00" * 32, "s": s}) == ["0" * 40]


def test_ecrecover_with_unreadable_hex_is_invalid_arguments(deploy: DeployFn, call: CallFn) -> None:
    h, v, _, s, _ = signed(b"x")
    addr = deploy(RECOVER, "C").address
    with pytest.raises(ExecutionError, match="invalid arguments: parseHex: error parsing r"):
        call(addr, "whoHex", {"h": h, "v": v, "r": "zz", "s": s})


def test_ecrecover_takes_v_as_27_or_28_only_as_the_platform(run: RunFn) -> None:
    """The platform subtracts 27 from v as a byte: 0 and 1 recover nothing, 283 is 27."""
    h, v, r, s, address = signed(b"pay bob 5")
    assert run(RECOVER, "who", {"h": h, "v": v - 27, "r": r, "s": s}) == ["0" * 40]
    raw = c(
        "function who(bytes32 h, uint v, bytes32 r, bytes32 s) public pure returns (address) "
        "{ return ecrecover(h, v, r, s); }"
    )
    assert run(raw, "who", {"h": h, "v": v + 256, "r": r, "s": s}) == [address]


# The platform's known vector (mercata tests/User/UserBatchOpsSig.test.sol and
# tests/BaseCodeCollection.test.sol): a transaction's SolidVM hash and its signature.
KNOWN_VECTOR = c(
    """
    uint8 v = 0x1c;
    uint r = 0xa3a96e57d33654b676751ba4e4e39fa2ba6d870ad9932c31e8485f5011f701e9;
    uint s = 0x11d7a39195e4eea4f66e735455db97d63b1e48f3d5af34c54c39264cef9d4f19;
    bytes32 public kept;
    function args() internal returns (string[]) {
        return ["0xac840dd68e2ab32e98c8d7ccd3b9a725139f1aa7", "10000000000000000000"];
    }
    function viaString() public returns (address, string) {
        string u = keccak256(2, 1620, 150000, address(0x100e), "mint", args(), "mercata");
        return (ecrecover(u, v, r, s), u);
    }
    function viaBytes32() public returns (address) {
        bytes32 u = keccak256(2, 1620, 150000, address(0x100e), "mint", args(), "mercata");
        return ecrecover(u, v, r, s);
    }
    function viaUint() public returns (address) {
        bytes32 u = keccak256(2, 1620, 150000, address(0x100e), "mint", args(), "mercata");
        return ecrecover(uint(u), v, r, s);
    }
    function texts() public returns (string, string, uint, bool) {
        bytes32 h = keccak256("a", "b");
        kept = h;
        return (string(h), "0x" + h, bytes(h).length, h == keccak256("a", "b"));
    }
    function keptText() public returns (string) { string t = kept; return t; }
"""
)
KNOWN_HASH = "9bd054af4674dcc41999ec46e2689e0f0d5d11d13c5605b5fbceb10410a6b73a"
KNOWN_SIGNER = "1b7dc206ef2fe3aab27404b88c36470ccf16c0ce"


def test_a_hash_kept_in_a_string_is_its_hex_and_ecrecover_reads_it(run: RunFn) -> None:
    """SolidVM's keccak256 of several values is hex text: ``string u = keccak256(...)`` holds
    the 64 hex digits, which ecrecover reads back as the 32-byte hash."""
    assert run(KNOWN_VECTOR, "viaString") == [KNOWN_SIGNER, KNOWN_HASH]
    assert run(KNOWN_VECTOR, "viaBytes32") == [KNOWN_SIGNER]
    assert run(KNOWN_VECTOR, "viaUint") == [KNOWN_SIGNER]


def test_a_hash_reads_as_hex_text_where_text_is_wanted(
    world: Any, deploy: DeployFn, call: CallFn
) -> None:
    h = keccak_hex(bytes([0xC2, 0x61, 0x62]))  # RLP of ["a", "b"]
    addr = deploy(KNOWN_VECTOR, "C").address
    assert call(addr, "texts").values == [h, "0x" + h, "64", "true"]
    assert call(addr, "keptText").values == [h]  # stored in a bytes32 and read back
    # a node restarted from its snapshot keeps it a hash
    from app.node.solidvm.persist import dump_value, load_value
    from app.node.solidvm.types import BYTES32

    stored = world.get_account(addr).storage["kept"]
    assert call(addr, "kept").values == [h]
    assert load_value(json.loads(json.dumps(dump_value(stored, BYTES32))), BYTES32) == stored
    assert type(load_value(dump_value(stored, BYTES32), BYTES32)) is type(stored)


# ---------------------------------------------------------------- keys and certificates


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256K1())


def pem_public(key: ec.EllipticCurvePrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def name(cn: str, org: str, unit: str = "", country: str = "") -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    if unit:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit))
    if country:
        parts.append(x509.NameAttribute(NameOID.COUNTRY_NAME, country))
    return x509.Name(parts)


def certificate(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    issuer_key: ec.EllipticCurvePrivateKey,
) -> str:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=365))
        .sign(issuer_key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


ROOT_KEY = new_key()
ROOT_NAME = name("Admin", "BlockApps", "Operations", "US")
ROOT_CERT = certificate(ROOT_NAME, ROOT_KEY, ROOT_NAME, ROOT_KEY)
USER_KEY = new_key()
USER_CERT = certificate(name("alice", "Acme", "Engineering", "US"), USER_KEY, ROOT_NAME, ROOT_KEY)
CHAIN = USER_CERT + ROOT_CERT

CERTS = c(
    """
    function parse(string cert, string field) public pure returns (string) {
        mapping(string => string) m = parseCert(cert);
        return m[field];
    }
    function check(string cert, string key) public pure returns (bool) {
        return verifyCert(cert, key);
    }
    function checkBy(string cert, string key) public pure returns (bool) {
        return verifyCertSignedBy(cert, key);
    }
    function sig(string h, string s, string key) public pure returns (bool) {
        return verifySignature(h, s, key);
    }
"""
)


def key_address(key: ec.EllipticCurvePrivateKey) -> str:
    raw = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return keccak_hex(raw[1:])[24:]


# parametrized by the field's name alone: the key (so the address) is new in every process,
# and pytest-xdist's workers must collect the same test ids
PARSED = {
    "commonName": "alice",
    "organization": "Acme",
    "organizationalUnit": "Engineering",
    "group": "Engineering",
    "country": "US",
    "publicKey": pem_public(USER_KEY),
    "userAddress": key_address(USER_KEY),
    "parent": "0",
    "certString": USER_CERT,
    "expirationDate": "2027-01-01 00:00:00 UTC",
}


@pytest.mark.parametrize("field", list(PARSED))
def test_parse_cert_fields(run: RunFn, field: str) -> None:
    assert run(CERTS, "parse", {"cert": USER_CERT, "field": field}) == [PARSED[field]]


def test_parse_cert_of_a_chain_names_the_issuer_as_parent(run: RunFn) -> None:
    assert run(CERTS, "parse", {"cert": CHAIN, "field": "parent"}) == [key_address(ROOT_KEY)]
    assert run(CERTS, "parse", {"cert": CHAIN, "field": "commonName"}) == ["alice"]


def test_parse_cert_of_garbage_gives_empty_fields(run: RunFn) -> None:
    assert run(CERTS, "parse", {"cert": "not a certificate", "field": "commonName"}) == [""]
    assert run(CERTS, "parse", {"cert": "", "field": "userAddress"}) == [""]


def test_verify_cert_checks_the_chain_up_to_the_root_key(run: RunFn) -> None:
    root = pem_public(ROOT_KEY)
    assert run(CERTS, "check", {"cert": ROOT_CERT, "key": root}) == ["true"]
    assert run(CERTS, "check", {"cert": CHAIN, "key": root}) == ["true"]
    assert run(CERTS, "check", {"cert": CHAIN, "key": pem_public(new_key())}) == ["false"]
    # the user's certificate alone is signed by the root, not by the user's key
    assert run(CERTS, "check", {"cert": USER_CERT, "key": pem_public(USER_KEY)}) == ["false"]


def test_verify_cert_refuses_a_chain_whose_issuer_does_not_match(run: RunFn) -> None:
    other = new_key()
    stranger = certificate(name("Eve", "Evil"), other, name("Eve", "Evil"), other)
    broken = USER_CERT + stranger
    assert run(CERTS, "check", {"cert": broken, "key": pem_public(other)}) == ["false"]


def test_verify_cert_signed_by_checks_only_the_first_certificate(run: RunFn) -> None:
    root = pem_public(ROOT_KEY)
    assert run(CERTS, "checkBy", {"cert": USER_CERT, "key": root}) == ["true"]
    assert run(CERTS, "checkBy", {"cert": CHAIN, "key": root}) == ["true"]
    assert run(CERTS, "checkBy", {"cert": USER_CERT, "key": pem_public(USER_KEY)}) == ["false"]


def test_hex_public_keys_are_malformed_data(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(CERTS, "C").address
    hex_key = (
        USER_KEY.public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        .hex()
    )
    with pytest.raises(ExecutionError, match="Malformed data: Could not parse public key"):
        call(addr, "check", {"cert": USER_CERT, "key": hex_key})
    with pytest.raises(ExecutionError, match="Malformed data: Could not parse public key"):
        call(addr, "checkBy", {"cert": USER_CERT, "key": hex_key})


def test_unreadable_certificates_are_an_error(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(CERTS, "C").address
    with pytest.raises(ExecutionError, match=r"Could not parse X\.509 certificate"):
        call(addr, "check", {"cert": "-----BEGIN CERTIFICATE-----\nAAAA", "key": ""})


def sign_digest(key: ec.EllipticCurvePrivateKey, digest: bytes) -> str:
    return key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256()))).hex()


def test_verify_signature(run: RunFn) -> None:
    digest = hashlib.sha256(b"release the funds").digest()
    good = sign_digest(USER_KEY, digest)
    key = pem_public(USER_KEY)
    assert run(CERTS, "sig", {"h": digest.hex(), "s": good, "key": key}) == ["true"]
    other = sign_digest(ROOT_KEY, digest)
    assert run(CERTS, "sig", {"h": digest.hex(), "s": other, "key": key}) == ["false"]


@pytest.mark.parametrize(
    ("h", "s", "message"),
    [
        ("abcd", "3006020101020101", "Message hash is not 32 bytes"),
        ("zz", "3006020101020101", "Could not decode hex string"),
        ("00" * 32, "nothex", "Could not parse EC Signature"),
    ],
)
def test_verify_signature_malformed_input(
    deploy: DeployFn, call: CallFn, h: str, s: str, message: str
) -> None:
    addr = deploy(CERTS, "C").address
    with pytest.raises(ExecutionError, match=f"Malformed data: {message}"):
        call(addr, "sig", {"h": h, "s": s, "key": pem_public(USER_KEY)})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("parseCert();", "parseCert takes one certificate string"),
        ('verifyCert("a");', "verifyCert takes a certificate and a PEM public key"),
        ('verifySignature("a", "b");', "verifySignature takes a message hash"),
        ("ecrecover(1, 2);", "ecrecover takes a hash, v, r and s"),
    ],
)
def test_wrong_arity_is_a_compile_error(body: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        compile_src(c(f"function f() public {{ {body} }}"))


def test_results_are_plain_json(run: RunFn) -> None:
    out: list[Any] = run(CERTS, "parse", {"cert": USER_CERT, "field": "commonName"})
    assert json.loads(json.dumps(out)) == ["alice"]


# ---------------------------------------------------------------- P-256 (passkeys)

P256 = c(
    """
    function check(bytes32 h, uint r, uint s, bytes pub) public pure returns (bool) {
        return verifyP256(h, r, s, pub);
    }
    function checkXY(bytes32 h, uint r, uint s, uint x, uint y) public pure returns (bool) {
        return verifyP256(h, r, s, x, y);
    }
"""
)


def p256_signed(message: bytes) -> tuple[str, int, int, str, int, int]:
    key = ec.generate_private_key(ec.SECP256R1())
    digest = hashlib.sha256(message).digest()
    r, s = utils.decode_dss_signature(key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256()))))
    pub = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    nums = key.public_key().public_numbers()
    return digest.hex(), r, s, pub.hex(), nums.x, nums.y


def test_verify_p256_with_a_point_or_its_coordinates(run: RunFn) -> None:
    h, r, s, pub, x, y = p256_signed(b"passkey login")
    assert run(P256, "check", {"h": h, "r": r, "s": s, "pub": pub}) == ["true"]
    assert run(P256, "check", {"h": h, "r": r, "s": s, "pub": pub[2:]}) == ["true"]  # 64 bytes
    assert run(P256, "checkXY", {"h": h, "r": r, "s": s, "x": x, "y": y}) == ["true"]
    other = hashlib.sha256(b"something else").hexdigest()
    assert run(P256, "check", {"h": other, "r": r, "s": s, "pub": pub}) == ["false"]


def test_verify_p256_refuses_a_bad_key(deploy: DeployFn, call: CallFn) -> None:
    h, r, s, _, _, _ = p256_signed(b"x")
    addr = deploy(P256, "C").address
    with pytest.raises(ExecutionError, match="invalid arguments: Could not decode public key"):
        call(addr, "check", {"h": h, "r": r, "s": s, "pub": "04" + "11" * 10})
