"""Original subject statements (docs/bundle-format.md section 6, "Original subjects", and
verification step 8b): in version 3 each finding's original file is named by its plain SHA-256
and BLAKE3 in a signed statement of its own, an ``A`` frame, so that redaction can withhold it
with the original while the bundle's statement and its signature stay whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tracekit.bundle import dsse, jcs, keys
from tracekit.bundle.container import bad
from tracekit.bundle.limits import BundleLimits
from tracekit.kernel.errors import Code

ORIGINAL_PREDICATE_TYPE = "urn:tracekit:predicate:bundle-original:v1"
"""The predicate of an original subject statement (section 6, "Original subjects")."""
REASONS = frozenset({"secret", "match", "requested"})


def original_statement(
    index: int, plain: tuple[str, str], root: Mapping[str, str], original: tuple[str, int]
) -> dict[str, Any]:
    """The statement naming finding ``index``'s original by its ``plain`` (BLAKE3, SHA-256)
    digests, linked to the bundle by ``root`` (the bundle statement's root subject digest) and to
    the manifest by the original's blob digest and length."""
    b3, sha = plain
    digest, length = original
    return {
        "_type": dsse.STATEMENT_TYPE,
        "subject": [{"name": f"original-{index}", "digest": {"blake3": b3, "sha256": sha}}],
        "predicateType": ORIGINAL_PREDICATE_TYPE,
        "predicate": {
            "bundle_root": dict(root),
            "finding": index,
            "original": {"digest": digest, "length": length},
        },
    }


Signer = tuple[str, Callable[[bytes], bytes]]
"""A signer's keyid and its signing function (:func:`tracekit.bundle.keys.signer`)."""


def original_frame(index: int, statement: dict[str, Any], signer: Signer | None) -> bytes:
    """The ``A`` payload: ``{"finding": i, "envelope": DSSE}``, signed by the bundle's signer."""
    payload = jcs.dumps(statement)
    signatures: tuple[dsse.Signature, ...] = ()
    if signer is not None:
        kid, sign = signer
        signatures = (dsse.Signature(kid, sign(dsse.pae(dsse.PAYLOAD_TYPE, payload))),)
    envelope = dsse.Envelope(payload, dsse.PAYLOAD_TYPE, signatures)
    return jcs.dumps({"finding": index, "envelope": dsse.envelope_json(envelope)})


def withheld_frame(index: int, reason: str) -> bytes:
    """The ``A`` payload of a withheld original (section 8): the finding and the reason only."""
    return jcs.dumps({"finding": index, "reason": reason})


def finding_of(value: Any) -> int | None:
    """The finding index an ``A`` payload names, or None when it names none."""
    index = value.get("finding") if isinstance(value, dict) else None
    return index if type(index) is int else None


def _invalid(rule: str) -> Exception:
    return bad(Code.BUNDLE_STATEMENT_INVALID, rule=rule)


class OriginalCheck:
    """Step 8b for one bundle: what every ``A`` frame is checked against."""

    def __init__(
        self, root: Mapping[str, str], signers: Sequence[str], public: Mapping[str, bytes], limits: BundleLimits
    ) -> None:
        self.root = dict(root)
        self.signers = frozenset(signers)
        self.verifiers = {kid: keys.verifier(public[kid]) for kid in signers}
        self.limits = limits

    def check(
        self, value: Any, index: int, original: tuple[str, int], plain: tuple[str, str] | None, reason: str | None
    ) -> dict[str, Any] | None:
        """Finding ``index``'s ``A`` payload: withheld exactly when its original is (``plain``
        None, with the original's ``reason``), else a statement equal to the one the sealer makes
        from the held original, signed by exactly the bundle's signers. Returns the envelope,
        None when withheld."""
        if finding_of(value) != index:
            raise _invalid("original statement finding")
        if plain is None:
            if value != {"finding": index, "reason": reason}:
                raise _invalid("withheld original statement")
            return None
        if set(value) != {"finding", "envelope"}:
            raise _invalid("original statement fields")
        envelope = value["envelope"]
        if not isinstance(envelope, dict) or set(envelope) != {"payload", "payloadType", "signatures"}:
            raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="envelope fields")
        if envelope["payloadType"] != dsse.PAYLOAD_TYPE:
            raise bad(Code.BUNDLE_PAYLOAD_TYPE)
        payload = dsse.unb64(envelope["payload"])
        if payload is None:
            raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="payload encoding")
        self._statement(jcs.loads_canonical(payload, 0, self.limits.depth), index, original, plain)
        self._signatures(envelope["signatures"], payload)
        return envelope

    def _statement(self, value: Any, index: int, original: tuple[str, int], plain: tuple[str, str]) -> None:
        expected = original_statement(index, plain, self.root, original)
        if value == expected:
            return
        if not isinstance(value, dict) or set(value) != set(expected) or value.get("predicateType") != ORIGINAL_PREDICATE_TYPE:
            raise _invalid("original statement")
        if value.get("subject") != expected["subject"]:
            raise bad(Code.BUNDLE_ORIGINAL_MISMATCH)
        raise bad(Code.BUNDLE_ROOT_MISMATCH)

    def _signatures(self, entries: Any, payload: bytes) -> None:
        """Exactly the bundle statement's signers, each signature valid (step 9's rules)."""
        if not isinstance(entries, list) or len(entries) > self.limits.signatures:
            raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="signatures")
        message = dsse.pae(dsse.PAYLOAD_TYPE, payload)
        seen: set[str] = set()
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != {"keyid", "sig"}:
                raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="signature entry")
            kid, sig = entry["keyid"], dsse.unb64(entry["sig"])
            if kid not in self.signers or kid in seen or sig is None:
                raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="original statement signer")
            if not self.verifiers[kid](sig, message):
                raise bad(Code.BUNDLE_BAD_SIGNATURE)
            seen.add(kid)
        if seen != self.signers:
            raise bad(Code.BUNDLE_SIGNATURE_INVALID, rule="original statement signer")
