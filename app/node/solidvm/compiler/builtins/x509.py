"""X.509 builtins: parseCert, verifyCert, verifyCertSignedBy (PEM certificates on secp256k1).

As the platform: a certificate string may hold a chain (the subject's certificate first, then its
issuers); signatures are ECDSA over the SHA-256 of the signed part; public keys are PEM.
``verifyCert`` checks the whole chain up to a root signed by the key, ``verifyCertSignedBy`` only
that the first certificate is signed by it. Parsing uses ``cryptography``.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from ... import ast as A
from ...errors import ExecutionError
from ...ops import describe, keccak256, type_error
from ...runtime import Frame
from ...types import BOOL
from ...values import MappingValue
from ..base import CERT_MAPPING, CExpr, CompilerBase
from .crypto import load_public_key, verify_digest

CERT_FIELDS = (
    "commonName",
    "country",
    "organization",
    "group",
    "organizationalUnit",
    "publicKey",
    "userAddress",
    "certString",
    "parent",
    "expirationDate",
)


def load_chain(text: str) -> list[Any]:
    """The certificates of a PEM string, subject first; raises ValueError when unreadable.

    asn1crypto reads the structure (it accepts the platform's certificates, whose signature
    algorithms carry NULL parameters that cryptography refuses); cryptography does the EC math.
    """
    from asn1crypto import pem
    from asn1crypto import x509 as ax

    certs = []
    try:
        for kind, _headers, der in pem.unarmor(text.encode(), multiple=True):
            if kind != "CERTIFICATE":
                raise ValueError(f"unexpected PEM block {kind}")
            cert = ax.Certificate.load(der)
            cert.subject.native  # noqa: B018 - parse now: asn1crypto decodes lazily
            certs.append(cert)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(str(exc) or "not a PEM certificate") from None
    if not certs:
        raise ValueError("no certificate")
    return certs


def _dn(name: Any) -> tuple[str, str, str, str]:
    d = name.native

    def part(key: str) -> str:
        v = d.get(key, "")
        return str(v[0] if isinstance(v, list) else v)

    return (
        part("common_name"),
        part("organization_name"),
        part("organizational_unit_name"),
        part("country_name"),
    )


def public_key(cert: Any) -> Any:
    """The certificate's subject key as a cryptography key object."""
    from cryptography.hazmat.primitives.serialization import load_der_public_key

    try:
        return load_der_public_key(cert.public_key.dump())
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"unsupported public key: {exc}") from None


def key_address(pub: Any) -> str:
    """The account address of an EC public key: keccak256 of the uncompressed point."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)[1:]
    return keccak256(raw)[12:].hex()


def parse_cert(text: str) -> dict[str, str]:
    """The platform's certificate map; every field empty when the text is not a certificate."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    fields = dict.fromkeys(CERT_FIELDS, "")
    try:
        chain = load_chain(text)
        cert = chain[0]
        cn, org, unit, country = _dn(cert.subject)
        pub = public_key(cert)
        pem = pub.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
        address = key_address(pub)
        parent = key_address(public_key(chain[1])) if len(chain) > 1 else "0"
        not_after = cert["tbs_certificate"]["validity"]["not_after"].native
        expires = not_after.strftime("%Y-%m-%d %H:%M:%S UTC")
    except (ValueError, TypeError, AttributeError):
        return fields
    if not cn or not org:  # the platform's subject needs both
        return fields
    fields.update(
        commonName=cn,
        country=country,
        organization=org,
        group=unit,
        organizationalUnit=unit,
        publicKey=pem,
        userAddress=address,
        certString=text,
        parent=parent,
        expirationDate=expires,
    )
    return fields


def signed_by(cert: Any, pub: Any) -> bool:
    """The platform's rule: ECDSA over the SHA-256 of the certificate's signed part."""
    tbs = cert["tbs_certificate"].dump()
    signature = cert["signature_value"].native
    return verify_digest(pub, signature, hashlib.sha256(tbs).digest())


def verify_chain(chain: list[Any], root_key: Any) -> bool:
    """Each certificate issued (and signed) by the next; the last one signed by ``root_key``."""
    for cert, issuer in itertools.pairwise(chain):
        try:
            issuer_key = public_key(issuer)
        except ValueError:
            return False
        if _dn(cert.issuer) != _dn(issuer.subject) or not signed_by(cert, issuer_key):
            return False
    return signed_by(chain[-1], root_key)


def _chain_arg(text: Any) -> list[Any]:
    if type(text) is not str:
        raise type_error(f"expected a certificate string, got {describe(text)}")
    try:
        return load_chain(text)
    except ValueError as exc:
        raise ExecutionError(
            f"invalid certificate: Could not parse X.509 certificate: {exc}",
            "invalid certificate",
        ) from None


def _key_arg(text: Any) -> Any:
    if type(text) is not str:
        raise type_error(f"expected a PEM public key string, got {describe(text)}")
    return load_public_key(text)


class X509Builtins(CompilerBase):
    """parseCert, verifyCert, verifyCertSignedBy."""

    def _two_strings(self, args: list[A.Expr], e: A.Call, name: str) -> tuple[Any, Any]:
        if len(args) != 2:
            self.error(f"{name} takes a certificate and a PEM public key", e)
        return self.expr(args[0])[0], self.expr(args[1])[0]

    def b_parseCert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("parseCert takes one certificate string", e)
        f, _ = self.expr(args[0])

        def run_parse(fr: Frame) -> Any:
            text = f(fr)
            if type(text) is not str:
                raise type_error(f"parseCert needs a string, got {describe(text)}")
            fr.ctx.charge_memory(len(text))
            return MappingValue(CERT_MAPPING, parse_cert(text))

        return run_parse, CERT_MAPPING

    def b_verifyCert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        cert, key = self._two_strings(args, e, "verifyCert")

        def run_verify(fr: Frame) -> Any:
            chain = _chain_arg(cert(fr))
            fr.ctx.steps += 100 * len(chain)
            if fr.ctx.steps > fr.ctx.max_steps:
                raise fr.ctx.out_of_gas()
            return verify_chain(chain, _key_arg(key(fr)))

        return run_verify, BOOL

    def b_verifyCertSignedBy(self, args: list[A.Expr], e: A.Call) -> CExpr:
        cert, key = self._two_strings(args, e, "verifyCertSignedBy")

        def run_verify_by(fr: Frame) -> Any:
            chain = _chain_arg(cert(fr))
            fr.ctx.steps += 100
            return signed_by(chain[0], _key_arg(key(fr)))

        return run_verify_by, BOOL
