"""Every single-byte change anywhere in a bundle exits 2 (docs/bundle-format.md section 7):
positions and values sampled by hypothesis over several bundles, and an exhaustive sweep of
every position of one small bundle."""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from tests.unit.bundle.factory import SECRET, check, sealed


@cache
def _bundles() -> tuple[bytes, ...]:
    import io

    from tracekit.bundle import redact
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS as LIMITS

    secret = sealed(4, secret=SECRET)
    originals = [bytes.fromhex(o[0]) for o in check(secret).originals]
    chosen = redact.plan(io.BytesIO(secret), LIMITS, redact.secrets_selector(), originals)
    redacted = b"".join(redact.rewrite(io.BytesIO(secret), LIMITS, chosen, originals))
    return (sealed(3), sealed(2, signed=False), sealed(1, campaign=3), redacted)


@given(st.data())
def test_any_single_byte_change_exits_2(data: st.DataObject) -> None:
    bundle = data.draw(st.sampled_from(_bundles()))
    assert check(bundle).exit_code in (0, 1)
    position = data.draw(st.integers(0, len(bundle) - 1))
    value = data.draw(st.integers(0, 255).filter(lambda v: v != bundle[position]))
    changed = bundle[:position] + bytes([value]) + bundle[position + 1 :]
    assert check(changed).exit_code == 2


def test_exhaustive_sweep_of_one_small_bundle() -> None:
    bundle = sealed(1)
    assert check(bundle).exit_code == 0
    for position in range(len(bundle)):
        for flip in (0x01, 0x80):
            changed = bytearray(bundle)
            changed[position] ^= flip
            assert check(bytes(changed)).exit_code == 2, position
