"""The roots a verifier computes (docs/bundle-format.md section 5 and verification step 6): a
finding's, a campaign's, the one a proof's path leads to, and the same with SHA-256."""

from __future__ import annotations

from typing import Any

from tracekit.bundle import merkle
from tracekit.bundle.container import bad
from tracekit.bundle.limits import BundleLimits
from tracekit.kernel.errors import Code


def sha256_root(kind: str, roots: list[bytes]) -> bytes | None:
    """Step 6's second root from the findings' SHA-256 ``roots``; None for a proof, which holds
    one finding's records only."""
    from tracekit.bundle.seal import campaign_root

    if kind == "finding":
        return roots[0]
    return campaign_root(roots, merkle.sha256) if kind == "campaign" else None


def bundle_root(kind: str, roots: list[bytes], proof: Any, limits: BundleLimits, first: int) -> tuple[bytes, int | None]:
    """Step 6: the finding root, the campaign root, or the root a proof's path leads to (with
    the proof's index; ``first``: the finding index the proof's records name)."""
    from tracekit.bundle.seal import campaign_root, finding_leaf

    if kind == "finding":
        return roots[0], None
    if kind == "campaign":
        return campaign_root(roots), None
    if len(roots) != 1 or not isinstance(proof, dict) or set(proof) != {"index", "size", "path"}:
        raise bad(Code.BUNDLE_PROOF_INVALID)
    index, size, path = proof["index"], proof["size"], proof["path"]
    ok = (
        type(index) is int
        and type(size) is int
        and 0 <= index < size <= limits.findings
        and index == first
        and isinstance(path, list)
        and len(path) <= limits.proof_path
        and all(isinstance(p, str) and len(p) == 64 and p == p.lower() for p in path)
    )
    if not ok:
        raise bad(Code.BUNDLE_PROOF_INVALID)
    try:
        siblings = [bytes.fromhex(p) for p in path]
    except ValueError:
        raise bad(Code.BUNDLE_PROOF_INVALID) from None
    root = merkle.root_from_path(finding_leaf(index, roots[0]), index, size, siblings)
    if root is None:
        raise bad(Code.BUNDLE_PROOF_INVALID)
    return root, index
