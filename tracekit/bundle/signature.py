"""The signature frame: DSSE envelope, statement and Ed25519 signatures (docs/bundle-format.md
verification steps 8 and 9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from tracekit.bundle import dsse, jcs, keys
from tracekit.bundle.container import bad
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.predicate import Predicate
from tracekit.kernel.errors import Code

_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Signed:
    """Valid signers' keyids, the trusted ones among them, and the decoded statement."""

    signers: tuple[str, ...]
    trusted: tuple[str, ...]
    statement: Any
    envelope: Any
    public: dict[str, bytes]
    """Each signer's public key, for the original subject statements (step 8b)."""


def _is_hex64(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and set(text) <= _HEX


def _invalid(rule: str) -> Exception:
    return bad(Code.BUNDLE_SIGNATURE_INVALID, rule=rule)


def _public_keys(entries: Any, limits: BundleLimits) -> dict[str, bytes]:
    if not isinstance(entries, list) or len(entries) > limits.signatures:
        raise _invalid("public_keys")
    found: dict[str, bytes] = {}
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"keyid", "algorithm", "public_key"}:
            raise _invalid("public_keys")
        if entry["algorithm"] != "ed25519":
            raise bad(Code.BUNDLE_UNKNOWN_ALGORITHM)
        public = dsse.unb64(entry["public_key"])
        if public is None or len(public) != 32 or not _is_hex64(entry["keyid"]):
            raise _invalid("public_keys")
        if keys.keyid(public) != entry["keyid"]:
            raise bad(Code.BUNDLE_KEY_MISMATCH)
        if entry["keyid"] in found:
            raise _invalid("public_keys")
        found[entry["keyid"]] = public
    return found


def _statement(
    payload: bytes,
    root: bytes,
    originals: Sequence[tuple[str, int, str | None]],
    kind: str,
    proof: tuple[int | None, int | None],
    limits: BundleLimits,
    root256: bytes | None,
    version: int,
) -> Any:
    """Step 8: a Statement v1 naming this root and, before version 3, these originals."""
    value = jcs.loads_canonical(payload, 0, limits.depth)

    def invalid(rule: str) -> Exception:
        return bad(Code.BUNDLE_STATEMENT_INVALID, rule=rule)

    if not isinstance(value, dict) or set(value) != {"_type", "subject", "predicateType", "predicate"}:
        raise invalid("statement fields")
    predicate_type = value["predicateType"]
    if value["_type"] != dsse.STATEMENT_TYPE or predicate_type not in (
        dsse.PREDICATE_TYPE,
        dsse.LEGACY_PREDICATE_TYPE,
    ):
        raise invalid("statement or predicate type")
    subject = value["subject"]
    try:
        typed = msgspec.convert(value["predicate"], Predicate, strict=True)
    except msgspec.ValidationError:
        raise invalid("predicate") from None
    if typed.bundle_kind != ("campaign" if kind == "proof" else kind):
        raise invalid("predicate")
    if typed.episodes is not None and len(typed.episodes) != typed.findings:
        raise invalid("episodes")  # one list of ids per finding (section 6)
    predicate = value["predicate"]
    if not isinstance(subject, list) or not subject or len(subject) > limits.findings + 1:
        raise invalid("subject")
    if version == 3 and len(subject) != 1:
        raise invalid("subject count")  # originals are named by their own statements (step 8b)
    if not _root_matches(subject[0], root, root256, predicate_type == dsse.PREDICATE_TYPE):
        # a proof's root is where its path leads: a wrong path is a bad proof (section 9)
        raise bad(Code.BUNDLE_PROOF_INVALID if kind == "proof" else Code.BUNDLE_ROOT_MISMATCH)
    if version == 3:
        _count_findings(predicate, kind, proof, len(originals))
        return value
    if kind == "proof":
        proof_index, proof_size = proof
        if proof_index is None or not predicate.get("findings") == proof_size == len(subject) - 1:
            raise bad(Code.BUNDLE_PROOF_INVALID)
        wanted = [(proof_index, originals[0])]
    else:
        if len(subject) - 1 != len(originals) or predicate.get("findings") != len(originals):
            raise invalid("subject count")
        wanted = list(enumerate(originals))
    for index, (b3, _length, sha) in wanted:
        expected = {"name": f"original-{index}", "digest": {"blake3": b3, "sha256": sha}}
        if subject[index + 1] != expected:
            raise bad(Code.BUNDLE_ROOT_MISMATCH)
    _check_subject_shapes(subject)
    return value


def _count_findings(predicate: Any, kind: str, proof: tuple[int | None, int | None], held: int) -> None:
    """Step 8 in version 3: the predicate's ``findings`` is the number of findings the bundle
    holds, or for a proof the size its path was checked against."""
    proof_index, proof_size = proof
    if kind == "proof":
        if proof_index is None or predicate.get("findings") != proof_size:
            raise bad(Code.BUNDLE_PROOF_INVALID)
    elif predicate.get("findings") != held:
        raise bad(Code.BUNDLE_STATEMENT_INVALID, rule="subject count")


def _check_subject_shapes(subject: list[Any]) -> None:
    """Every original's subject entry is ours: ``original-N`` with a BLAKE3 and a SHA-256 digest.
    A proof checks only its own finding's subject against its records; the others' are the
    campaign's, shown by `bundle show`: they must still be our names and digests (step 8)."""
    for index, entry in enumerate(subject[1:]):
        digest = entry.get("digest") if isinstance(entry, dict) else None
        if (
            not isinstance(entry, dict)
            or set(entry) != {"name", "digest"}
            or entry["name"] != f"original-{index}"
            or not isinstance(digest, dict)
            or set(digest) != {"blake3", "sha256"}
            or not all(_is_hex64(v) for v in digest.values())
        ):
            raise bad(Code.BUNDLE_STATEMENT_INVALID, rule="subject")


def _root_matches(entry: Any, root: bytes, root256: bytes | None, current: bool) -> bool:
    """Step 8's root subject: a legacy statement names the BLAKE3 root only; a current one both
    roots. A proof cannot recompute the campaign's SHA-256 root (it holds one finding), so there
    it is checked for form only, like the other findings' originals."""
    if not current:
        return bool(entry == dsse.root_subject(root, None))
    if not isinstance(entry, dict) or not isinstance(entry.get("digest"), dict):
        return False
    claimed = entry["digest"].get("sha256")
    if root256 is None:
        if not _is_hex64(claimed):
            return False
        return bool(entry == dsse.root_subject(root, bytes.fromhex(claimed)))
    return bool(entry == dsse.root_subject(root, root256))


def check_signatures(
    signed: Any,
    root: bytes,
    originals: Sequence[tuple[str, int, str | None]],
    kind: str,
    proof: tuple[int | None, int | None],
    trusted: Sequence[bytes],
    limits: BundleLimits,
    root256: bytes | None = None,
    version: int = 2,
) -> Signed:
    """Steps 8-9. Raises on any malformed part or invalid signature (exit 2)."""
    if not isinstance(signed, dict) or set(signed) != {"envelope", "public_keys"}:
        raise _invalid("signature frame fields")
    envelope = signed["envelope"]
    if not isinstance(envelope, dict) or set(envelope) != {"payload", "payloadType", "signatures"}:
        raise _invalid("envelope fields")
    if envelope["payloadType"] != dsse.PAYLOAD_TYPE:
        raise bad(Code.BUNDLE_PAYLOAD_TYPE)
    payload = dsse.unb64(envelope["payload"])
    if payload is None:
        raise _invalid("payload encoding")
    known = _public_keys(signed["public_keys"], limits)
    statement = _statement(payload, root, originals, kind, proof, limits, root256, version)
    entries = envelope["signatures"]
    if not isinstance(entries, list) or len(entries) > limits.signatures:
        raise _invalid("signatures")
    trusted_ids = {keys.keyid(k): k for k in trusted}
    message = dsse.pae(dsse.PAYLOAD_TYPE, payload)
    signers: dict[str, bytes] = {}
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"keyid", "sig"}:
            raise _invalid("signature entry")
        kid, sig = entry["keyid"], dsse.unb64(entry["sig"])
        if not _is_hex64(kid) or sig is None or kid in signers:
            raise _invalid("signature entry")
        public = known.get(kid) or trusted_ids.get(kid)
        if public is None:
            raise _invalid("signature by a key the bundle does not name")
        if not keys.verify(public, sig, message):
            raise bad(Code.BUNDLE_BAD_SIGNATURE)
        signers[kid] = public
    if set(known) - set(signers):
        raise _invalid("public key without a signature")
    trusted_signers = tuple(k for k in signers if k in trusted_ids)
    return Signed(tuple(signers), trusted_signers, statement, envelope, signers)
