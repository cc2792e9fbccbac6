"""audit --scenario over a mixed folder: per format and per policy, how many episodes were judged
and failed, and each tool's own verdict compared (docs/findings.md, "Campaigns")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import CORPUS, run_cli

SCENARIO = str(CORPUS / "findings" / "exfil-email.yaml")


def test_policies_are_counted_per_format(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    result = run_cli("audit", str(CORPUS / "third_party"), "--scenario", SCENARIO, "-f", "json", "-o", str(out), "-q")
    assert result.returncode == 1, result.stderr
    document = json.loads(out.read_text())
    policies = document["summary"]["by_policy"]
    by_format = document["summary"]["by_format"]
    for fmt in ("inspect", "otel", "agentdojo", "garak", "harness"):
        assert policies[fmt]["exfil-email"]["episodes"] == by_format[fmt]["episodes"]
    # Compatible mode (upstream's rule): the string-valued exfiltrations fail, garak has no calls.
    assert policies["garak"]["exfil-email"]["failed"] == 0
    assert policies["inspect"]["exfil-email"]["failed"] > 0
    assert policies["otel"]["exfil-email"]["failed"] > 0
    assert policies["agentdojo"]["exfil-email"]["failed"] > 0


def test_one_inspect_log_judged_per_episode_with_tool_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    log = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
    run_cli("audit", str(log), "--scenario", SCENARIO, "-f", "json", "-o", str(out), "-q")
    [trace] = json.loads(out.read_text())["traces"]
    policy = trace["harness"]
    assert (policy["scenario_id"], policy["episodes_judged"], policy["result"]) == ("exfil-email", 9, "fail")
    failing = {e["episode"] for e in policy["episodes"] if e["result"] == "fail"}
    # Strict on a third-party format (docs/cli.md, "Verdicts and modes"): the list recipient too.
    assert policy["strict"] is True
    assert failing == {"injection_exfil_str_epoch_1", "injection_exfil_list_epoch_1"}
    # Inspect's includes() scorer called the exfiltrating sample correct: the verdicts disagree.
    mismatches = [f["where"] for f in trace["findings"] if f["code"] == "audit.outcome_mismatch"]
    index = [e["episode"] for e in policy["episodes"]].index("injection_exfil_str_epoch_1")
    assert f"episodes[{index}]" in mismatches
    table = run_cli("audit", str(log), "--scenario", SCENARIO, "-q")
    assert b"scenario exfil-email (strict): fail; 2 of 9 episode(s) fail" in table.stdout
