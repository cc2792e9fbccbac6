"""The bundle's bounds, one frozen object (docs/bundle-format.md, "Limits")."""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class BundleLimits:
    """Bounds a bundle reader enforces before reading the bytes they bound."""

    json_frame_bytes: int = 16 * MiB
    blob_bytes: int = 512 * MiB
    total_bytes: int = 2048 * MiB
    frames: int = 1_000_000
    """Each blob costs the verifier about 320 bytes of state (digest, length, SHA-256, a
    referenced mark): 1,000,000 frames bound it near 320 MB whatever the bundle."""
    depth: int = 32
    findings: int = 100_000
    proof_path: int = 64
    signatures: int = 16
    trusted_keys: int = 1024


DEFAULT_BUNDLE_LIMITS = BundleLimits()
