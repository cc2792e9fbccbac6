"""Ed25519 keys: strict PEM encodings, keyids, signing and verification (docs/bundle-format.md
section 6). ``cryptography`` is imported only when a signature is made or checked, so the CLI's
start-up does not pay for it."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable

SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
_PEM = re.compile(
    rb"-----BEGIN (PUBLIC KEY|PRIVATE KEY)-----\r?\n([A-Za-z0-9+/=\r\n]{1,200})-----END \1-----"
)


def keyid(public: bytes) -> str:
    """``hex(SHA-256(raw public key))``."""
    return hashlib.sha256(public).hexdigest()


def _pem(label: str, der: bytes) -> bytes:
    body = base64.b64encode(der).decode("ascii")
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n".encode("ascii")


def _blocks(data: bytes, label: bytes, prefix: bytes, limit: int) -> list[bytes] | None:
    found: list[bytes] = []
    for match in _PEM.finditer(data):
        if match.group(1) != label:
            continue
        try:
            der = base64.b64decode(b"".join(match.group(2).split()), validate=True)
        except (binascii.Error, ValueError):
            return None
        if len(der) != len(prefix) + 32 or not der.startswith(prefix):
            return None
        found.append(der[len(prefix) :])
        if len(found) > limit:
            return None
    return found or None


def parse_public_keys(data: bytes, limit: int) -> list[bytes] | None:
    """Raw Ed25519 public keys of every PEM ``PUBLIC KEY`` block; None when there is none, one
    is not Ed25519, or there are more than ``limit``."""
    return _blocks(data, b"PUBLIC KEY", SPKI_PREFIX, limit)


def parse_private_key(data: bytes) -> bytes | None:
    """The 32-byte seed of the one PEM ``PRIVATE KEY`` block (PKCS#8 Ed25519)."""
    found = _blocks(data, b"PRIVATE KEY", PKCS8_PREFIX, 1)
    return found[0] if found and len(found) == 1 else None


def generate() -> tuple[bytes, bytes]:
    """A new ``(seed, public key)`` pair."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    private = Ed25519PrivateKey.generate()
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return seed, public


def public_of(seed: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw
    )


def private_pem(seed: bytes) -> bytes:
    return _pem("PRIVATE KEY", PKCS8_PREFIX + seed)


def public_pem(public: bytes) -> bytes:
    return _pem("PUBLIC KEY", SPKI_PREFIX + public)


def sign(seed: bytes, message: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).sign(message)


def signer(seed: bytes) -> Callable[[bytes], bytes]:
    """``sign`` with the key made once, for a sealer that signs a statement per finding."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).sign


def verifier(public: bytes) -> Callable[[bytes, bytes], bool]:
    """``verify`` with the key made once: ``(signature, message) -> valid``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(public) if len(public) == 32 else None

    def check(signature: bytes, message: bytes) -> bool:
        if key is None or len(signature) != 64:
            return False
        try:
            key.verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    return check


def verify(public: bytes, signature: bytes, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if len(public) != 32 or len(signature) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
