"""Fuzz targets for sealed bundles (docs/bundle-format.md section 7), registered with the other
targets by importing this module.

``bundle_verify`` takes either a bundle (bytes starting with the bundle magic) and verifies it,
or any other bytes, which it reads as edits to a small sealed bundle holding the canary: each
three bytes set one byte (position, value), and a length that is a multiple of seven also
truncates. The oracle is stronger than "no exception": a changed bundle must exit 2, and no
diagnostic may carry the canary.
"""

from __future__ import annotations

import io
from functools import cache

from fuzz.targets import CANARY, target


@cache
def _seed() -> tuple[bytes, bytes]:
    """A signed bundle whose content holds the canary, and the public key that signed it."""
    from tracekit.bundle import keys
    from tracekit.bundle.seal import FindingInput, seal
    from tracekit.kernel.evidence import (
        Arguments,
        Episode,
        EvidenceFile,
        Message,
        RunFacts,
        ToolCall,
        ToolResult,
    )

    seed = bytes(range(32))
    call = ToolCall(
        index=0, turn=0, name=CANARY, call_id="c0",
        arguments=Arguments(shape="object", value={CANARY: [1, {"x": CANARY}]}),
        result=ToolResult(text=CANARY),
    )
    episode = Episode(
        id=CANARY, facts=RunFacts(tool="fuzz"),
        messages=(Message(0, "user", CANARY), Message(1, "assistant", "ok")), calls=(call,),
    )
    evidence = EvidenceFile(format="inspect", format_version=None, episodes=(episode,))
    data = b"".join(seal([FindingInput(CANARY.encode(), evidence)], seed, False))
    return data, keys.public_of(seed)


def _edit(bundle: bytes, script: bytes) -> bytes:
    out = bytearray(bundle)
    for at in range(0, len(script) - 2, 3):
        position = (script[at] << 8 | script[at + 1]) % len(out)
        out[position] = script[at + 2]
    if script and len(script) % 7 == 0:
        del out[(script[0] << 8 | script[-1]) % len(out) :]
    return bytes(out)


@target("bundle_verify")
def bundle_verify(data: bytes) -> str:
    from tracekit.bundle.container import MAGIC
    from tracekit.bundle.verify import verify_bundle

    seed, public = _seed()
    bundle = data if data.startswith(MAGIC) else _edit(seed, data)
    report = verify_bundle(io.BytesIO(bundle), [public])
    if any(CANARY in f.message for f in report.findings):
        raise AssertionError("a bundle diagnostic echoed content")
    if bundle != seed and report.exit_code != 2:
        raise AssertionError("a changed bundle did not exit 2")
    if bundle == seed and report.exit_code != 0:
        raise AssertionError("the intact seed bundle did not verify")
    return report.findings[0].code.value if report.findings else "0"
