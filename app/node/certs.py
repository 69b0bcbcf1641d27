"""X.509 certificates of the node's identity registry, as the platform issues them.

The node operator's certificate is self-signed; every other user's is issued and signed by the
operator's key (ECDSA with SHA-256 on secp256k1, the users' own key type). A registered user's
certificate string holds the chain, user first, so that contracts can check it with the SolidVM
builtins: ``verifyCert(cert, operatorKey)``, ``parseCert(cert)["parent"]`` is the operator.
"""

from __future__ import annotations

import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALIDITY = dt.timedelta(days=3650)


def _name(common_name: str, organization: str, unit: str, country: str) -> x509.Name:
    parts = [
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
    ]
    if unit:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit))
    if len(country) == 2:  # X.509 country names are two letters
        parts.append(x509.NameAttribute(NameOID.COUNTRY_NAME, country))
    return x509.Name(parts)


def public_key(uncompressed_hex: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256K1(), bytes.fromhex(uncompressed_hex)
    )


def public_key_pem(uncompressed_hex: str) -> str:
    return (
        public_key(uncompressed_hex)
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def issue(
    subject: tuple[str, str, str, str],
    subject_key_hex: str,
    issuer_secret: bytes,
    issuer_cert_pem: str | None,
    now: dt.datetime | None = None,
) -> str:
    """A PEM certificate (with the issuer's appended) for ``subject`` = (CN, O, OU, C).

    ``issuer_cert_pem`` None means self-signed by ``issuer_secret``'s key.
    """
    signer = ec.derive_private_key(int.from_bytes(issuer_secret, "big"), ec.SECP256K1())
    name = _name(*subject)
    if issuer_cert_pem is None:
        issuer_name = name
    else:
        issuer_name = x509.load_pem_x509_certificate(issuer_cert_pem.encode()).subject
    start = (now or dt.datetime.now(dt.UTC)).replace(microsecond=0)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(public_key(subject_key_hex))
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + VALIDITY)
        .sign(signer, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    return pem if issuer_cert_pem is None else pem + issuer_cert_pem
