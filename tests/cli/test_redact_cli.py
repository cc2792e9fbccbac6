"""``tracekit redact --scenario`` through the installed entry point (docs/bundle-format.md
section 8): the scenario's markers are withheld, the bundle still verifies (exit 1, listed)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import CORPUS, run_cli

CASE = CORPUS / "harness" / "s8_secret_disclosure"


def test_redact_scenario_withholds_its_markers(tmp_path: Path) -> None:
    trace = CASE / "fail__plain.json"
    bundle, out = tmp_path / "b.tkb", tmp_path / "r.tkb"
    assert run_cli("seal", str(trace), "-o", str(bundle), "-q").returncode == 0
    result = run_cli("redact", str(bundle), "--scenario", str(CASE / "scenario.yaml"), "-o", str(out), "-f", "json", "-q")
    assert result.returncode == 0, result.stderr
    withheld = json.loads(result.stdout)["withheld"]
    assert withheld and {w["reason"] for w in withheld} == {"match"}
    verified = run_cli("verify", str(out), "-f", "json")
    assert verified.returncode == 1
    import yaml

    scenario = yaml.safe_load((CASE / "scenario.yaml").read_bytes())
    markers = [m for a in scenario["assertions"] for m in a.get("markers", [])]
    markers += scenario["expected"].get("secret_markers", [])
    assert markers and not any(m.encode() in out.read_bytes() for m in markers)


def test_redact_scenario_that_is_unusable_exits_2(tmp_path: Path) -> None:
    bundle = tmp_path / "b.tkb"
    assert run_cli("seal", str(CASE / "pass.json"), "-o", str(bundle), "-q").returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [\n")
    result = run_cli("redact", str(bundle), "--scenario", str(bad), "-o", str(tmp_path / "r.tkb"))
    assert result.returncode == 2 and not (tmp_path / "r.tkb").exists()


LEGACY_V2 = Path(__file__).resolve().parent.parent / "unit" / "bundle" / "legacy" / "v2"


def _first_original(bundle: Path) -> str:
    shown = json.loads(run_cli("bundle", "show", str(bundle), "-f", "json").stdout)
    return str(shown["bundle"]["originals"][0]["blake3"])


def test_redacting_an_original_leaves_no_plain_digest_of_it(tmp_path: Path) -> None:
    """Version 3 (docs/bundle-format.md section 8): the original's plain SHA-256 and BLAKE3 go
    with its subject statement; no warning."""
    import base64
    import hashlib
    import re

    import blake3

    trace = CASE / "fail__plain.json"
    bundle, out = tmp_path / "b.tkb", tmp_path / "r.tkb"
    assert run_cli("seal", str(trace), "-o", str(bundle), "-q").returncode == 0
    result = run_cli("redact", str(bundle), "--blob", _first_original(bundle), "-o", str(out), "-q")
    assert result.returncode == 0 and b"original_digests_published" not in result.stderr
    data = out.read_bytes()
    published = data + b"".join(base64.b64decode(p) for p in re.findall(rb'"payload":"([A-Za-z0-9+/=]+)"', data))
    original = trace.read_bytes()
    for digest in (hashlib.sha256(original).digest(), blake3.blake3(original).digest()):
        assert digest not in published and digest.hex().encode() not in published
    assert hashlib.sha256(original).hexdigest().encode() in bundle.read_bytes() + b"".join(
        base64.b64decode(p) for p in re.findall(rb'"payload":"([A-Za-z0-9+/=]+)"', bundle.read_bytes())
    )  # before redaction the held original is named by it
    assert run_cli("verify", str(out)).returncode == 1


def test_redacting_an_original_of_a_version_2_bundle_warns(tmp_path: Path) -> None:
    bundle, out = LEGACY_V2 / "campaign.tkb", tmp_path / "r.tkb"
    result = run_cli("redact", str(bundle), "--blob", _first_original(bundle), "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert b"warning[bundle.original_digests_published]" in result.stderr
    assert run_cli("verify", str(out)).returncode == 1


def test_redact_past_its_work_budget_writes_nothing_and_exits_2(tmp_path: Path) -> None:
    """docs/threat-model.md, "Work budget": a redaction that would scan more blob data than
    ``--work-budget`` cannot tell what to withhold, so it writes nothing; ``--blob`` scans none."""
    trace = CASE / "fail__plain.json"
    bundle, out = tmp_path / "b.tkb", tmp_path / "r.tkb"
    assert run_cli("seal", str(trace), "-o", str(bundle), "-q").returncode == 0
    size = trace.stat().st_size  # the original alone is scanned whole
    refused = run_cli("redact", str(bundle), "--match", "nowhere-at-all", "--work-budget", str(size), "-o", str(out))
    assert refused.returncode == 2 and not out.exists()
    assert b"redact.work_budget_exceeded" in refused.stderr and b"nowhere" not in refused.stderr
    allowed = run_cli("redact", str(bundle), "--match", "nowhere-at-all", "--work-budget", str(64 * size), "-o", str(out))
    assert allowed.returncode == 0 and out.read_bytes() == bundle.read_bytes()
    by_digest = run_cli("redact", str(bundle), "--blob", _first_original(bundle), "--work-budget", "1", "-o", str(tmp_path / "d.tkb"))
    assert by_digest.returncode == 0, by_digest.stderr
