"""The sealer applies every bound ``bundle verify`` applies, while it plans frames and before it
yields a byte (docs/bundle-format.md, "Limits"): at each bound's exact value the sealed bundle
verifies under the same bounds; one below, the sealer refuses with the verifier's own code and
the verifier refuses the bundle with the same finding."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.unit.bundle.factory import key_pair
from tests.unit.formats.eval_build import chatty_eval
from tracekit.bundle.container import BLOB, DIGEST_BYTES, BundleError, iter_frames
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.plan import FramePlan
from tracekit.bundle.seal import FindingInput, seal, seal_with_root
from tracekit.bundle.verify import verify_bundle
from tracekit.cli.app import app
from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, Source
from tracekit.kernel.errors import Code

ROOMY = BundleLimits()


def _item(samples: int, messages: int) -> FindingInput:
    data = chatty_eval(samples, messages)
    evidence = registry.load(Source(io.BytesIO(data), len(data), ".eval"), None, DEFAULT_FORMAT_LIMITS)
    return FindingInput(data, evidence)


@pytest.fixture(scope="module")
def item() -> FindingInput:
    """A small .eval of many short messages: few bytes, many record frames."""
    return _item(4, 300)


def _sealed(items: list[FindingInput], limits: BundleLimits, campaign: bool = False) -> bytes:
    return b"".join(seal(items, key_pair()[0], campaign, limits=limits))


def _exact(data: bytes) -> dict[str, int]:
    """The smallest value of each bound the bundle ``data`` passes."""
    frames = list(iter_frames(io.BytesIO(data), ROOMY))
    blobs = [len(f.payload) - DIGEST_BYTES for f in frames if f.kind == BLOB]
    return {
        "frames": len(frames),
        "total_bytes": len(data),
        "json_frame_bytes": max(len(f.payload) for f in frames if f.kind != BLOB),
        "blob_bytes": max(blobs),
    }


CODES = {
    "frames": Code.BUNDLE_TOO_MANY_FRAMES,
    "total_bytes": Code.BUNDLE_TOO_LARGE,
    "json_frame_bytes": Code.BUNDLE_FRAME_TOO_LARGE,
    "blob_bytes": Code.BUNDLE_FRAME_TOO_LARGE,
}


@pytest.mark.parametrize("bound", sorted(CODES))
def test_each_bound_at_its_exact_value_and_one_below(item: FindingInput, bound: str) -> None:
    data = _sealed([item], ROOMY)
    exact = _exact(data)[bound]
    at = dataclasses.replace(ROOMY, **{bound: exact})
    assert _sealed([item], at) == data
    assert verify_bundle(io.BytesIO(data), [key_pair()[1]], at).exit_code == 0
    below = dataclasses.replace(ROOMY, **{bound: exact - 1})
    with pytest.raises(BundleError) as raised:
        seal([item], key_pair()[0], False, limits=below)  # refused before any chunk exists
    assert raised.value.finding.code is CODES[bound]
    refused = verify_bundle(io.BytesIO(data), [key_pair()[1]], below)
    assert refused.exit_code == 2
    assert refused.findings == (raised.value.finding,)


def test_findings_bound_for_a_campaign(item: FindingInput) -> None:
    small = _item(1, 3)
    data = _sealed([item, small, small], ROOMY, campaign=True)
    at = dataclasses.replace(ROOMY, findings=3)
    assert verify_bundle(io.BytesIO(data), [], at).exit_code == 1  # intact, untrusted key
    below = dataclasses.replace(ROOMY, findings=2)
    with pytest.raises(BundleError) as raised:
        seal([item, small, small], None, True, limits=below)
    assert raised.value.finding.code is Code.BUNDLE_TOO_MANY_FINDINGS
    assert verify_bundle(io.BytesIO(data), [], below).findings == (raised.value.finding,)


def test_frame_bound_refuses_early_without_planning_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the frame bound the plan stops: the refusal costs the frames counted, not the rest."""
    many = _item(20, 500)  # about 10,000 record frames
    planned = []
    record = FramePlan.record
    monkeypatch.setattr(FramePlan, "record", lambda self, length: (planned.append(length), record(self, length)))
    with pytest.raises(BundleError) as raised:
        seal([many], None, False, limits=dataclasses.replace(ROOMY, frames=100))
    assert raised.value.finding.code is Code.BUNDLE_TOO_MANY_FRAMES
    assert "100" in raised.value.finding.message
    assert len(planned) < 100


def test_the_command_refuses_before_writing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``tracekit seal`` maps the refusal to exit 2 with the verifier's code; no file appears."""
    import tracekit.bundle.seal as sealer

    planned = sealer.seal_with_root
    small = dataclasses.replace(ROOMY, frames=50)
    monkeypatch.setattr(sealer, "seal_with_root", lambda *a, **k: planned(*a, **k, limits=small))
    source = tmp_path / "chatty.eval"
    source.write_bytes(chatty_eval(2, 100))
    out = tmp_path / "out.tkb"
    result = CliRunner().invoke(app, ["seal", str(source), "-o", str(out)])
    assert result.exit_code == 2
    assert "bundle.too_many_frames" in result.stderr and "50 frames" in result.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [source]


def test_a_spool_gives_the_same_bundle_as_records_made_again(item: FindingInput) -> None:
    small = _item(1, 3)
    for items, campaign in (([item], False), ([item, small], True)):
        spool = io.BytesIO()
        root, chunks = seal_with_root(items, key_pair()[0], campaign, spool=spool)
        spooled = b"".join(chunks)
        assert spool.tell() > 0
        assert spooled == _sealed(items, ROOMY, campaign)
        assert verify_bundle(io.BytesIO(spooled), [key_pair()[1]]).root == root.hex()


def test_the_plan_counts_each_blob_with_its_salt(item: FindingInput) -> None:
    """Version 2 and 3 blob frames hold digest, salt and bytes (docs/bundle-format.md section 3): the
    blob bound the plan applies is the verifier's, salt included, and both roots are signed."""
    import json

    from tracekit.bundle.blobs import SALT_BYTES

    data = _sealed([item], ROOMY)
    frames = list(iter_frames(io.BytesIO(data), ROOMY))
    assert json.loads(frames[0].payload)["bundle_version"] == 3
    largest = _exact(data)["blob_bytes"]
    for bound in (largest - SALT_BYTES, largest - 1):
        with pytest.raises(BundleError) as raised:
            seal([item], key_pair()[0], False, limits=dataclasses.replace(ROOMY, blob_bytes=bound))
        assert raised.value.finding.code is Code.BUNDLE_FRAME_TOO_LARGE
    report = verify_bundle(io.BytesIO(data), [key_pair()[1]])
    assert report.exit_code == 0 and report.root is not None


@pytest.mark.parametrize("bound", ["frames", "total_bytes", "json_frame_bytes", None])
def test_a_batch_of_records_plans_as_each_record_does(bound: str | None) -> None:
    """``record_batch`` counts what ``record`` counts one by one, and refuses with the same
    finding at a bound (docs/bundle-format.md, "Limits")."""
    lengths = [100, 5000, 30, 70_000, 9]
    tight = {"frames": 3, "total_bytes": 8 + 9 * 3 + 5130, "json_frame_bytes": 60_000, None: 0}[bound]
    limits = dataclasses.replace(ROOMY, **({bound: tight} if bound else {}))
    one, batch = FramePlan(limits), FramePlan(limits)
    outcomes = []
    for plan, feed in ((one, lambda p: [p.record(n) for n in lengths]), (batch, lambda p: p.record_batch(lengths))):
        try:
            feed(plan)
            plan.check_frames([])
            outcomes.append(None)
        except BundleError as error:
            outcomes.append(error.finding)
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] is None) == (bound is None)
    assert (one.frames, one.size, one.records) == (batch.frames, batch.size, batch.records)
