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
