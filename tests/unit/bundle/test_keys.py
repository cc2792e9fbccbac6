"""Key files are the standard encodings (any tool reads them), strictly parsed; the CLI's
start-up does not import the signature library."""

from __future__ import annotations

import subprocess
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from tracekit.bundle import keys


def test_our_pem_is_standard_pkcs8_and_spki() -> None:
    seed, public = keys.generate()
    private = load_pem_private_key(keys.private_pem(seed), None)
    assert isinstance(private, Ed25519PrivateKey)
    loaded = load_pem_public_key(keys.public_pem(public))
    assert isinstance(loaded, Ed25519PublicKey)
    assert loaded.public_bytes(Encoding.Raw, PublicFormat.Raw) == public


def test_standard_pem_from_another_tool_is_read() -> None:
    other = Ed25519PrivateKey.generate()
    pem = other.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    seed = keys.parse_private_key(pem)
    assert seed == other.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public_pem = other.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    assert keys.parse_public_keys(public_pem * 3, 8) == [keys.public_of(seed)] * 3


def test_other_keys_and_junk_are_refused() -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    p256 = ec.generate_private_key(ec.SECP256R1()).public_key()
    assert keys.parse_public_keys(p256.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo), 8) is None
    assert keys.parse_public_keys(b"no key here", 8) is None
    _seed, public = keys.generate()
    assert keys.parse_public_keys(keys.public_pem(public) * 3, 2) is None
    assert keys.parse_private_key(keys.public_pem(public)) is None


def test_help_does_not_import_the_signature_library() -> None:
    code = "import sys, tracekit.cli.app; print(sorted(m for m in ('cryptography', 'nacl', 'blake3') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
