"""tracekit audit through the installed entry point, as a reviewer runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS, FIXTURE, run_cli

AUDIT = CORPUS / "audit"
HARNESS = CORPUS / "third_party" / "owasp-harness"
CLEAN = AUDIT / "agentguard" / "consistent__clean_run.jsonl"
COMPLETE = AUDIT / "harness" / "complete.json"
TRACE_KEYS = {"path", "format", "exit_code", "intact", "replay", "findings", "completeness"}


def _json(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("audit", *args, "--format", "json", "-q")
    assert b"Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize(
    ("path", "exit_code"),
    [
        (CLEAN, 0),
        (COMPLETE, 0),
        (AUDIT / "agentguard" / "forgery__score_mismatch.jsonl", 1),
        (AUDIT / "harness" / "arguments_stringified.json", 1),
        (FIXTURE, 1),
        (CORPUS / "invalid" / "chain__tampered_payload.jsonl", 2),
        (CORPUS / "invalid" / "load__empty_file.jsonl", 2),
        (HARNESS / "observed-results.json", 2),  # named explicitly: not a trace
    ],
    ids=lambda v: Path(v).name if isinstance(v, Path) else str(v),
)
def test_exit_codes(path: Path, exit_code: int) -> None:
    result = run_cli("audit", str(path))
    assert result.returncode == exit_code, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"tracekit audit: 1 trace(s)" in result.stderr


def test_json_shape() -> None:
    code, doc = _json(str(CLEAN), str(COMPLETE))
    assert code == 0 and doc["report_version"] == 1 and doc["exit_code"] == 0
    traces = doc["traces"]
    assert isinstance(traces, list) and len(traces) == 2
    for trace in traces:
        assert set(trace) >= TRACE_KEYS
        for found in trace["findings"]:
            assert {"code", "severity", "message", "line"} <= set(found)
        for row in trace["completeness"]:
            assert {"field", "status", "where"} <= set(row)
    agentguard, harness = traces
    assert agentguard["format"] == "agentguard" and agentguard["replay"]["equivalence"] == "exact"
    assert (
        harness["format"] == "harness" and harness["replay"] is None and harness["intact"] is None
    )
    assert doc["summary"]["rerunnable"] == 2


def test_folder_campaign_skips_non_trace_files() -> None:
    code, doc = _json(str(AUDIT))
    summary = doc["summary"]
    assert code == 1
    assert summary["total"] == 26 and summary["skipped_non_trace_files"] == 2  # two expected.json
    assert summary["consistent"] == 1


def test_third_party_campaign() -> None:
    """Every file under corpus/third_party is read as its own format (docs/formats.md, "Using it
    from the command line"). Before the format layer, the Inspect, OTel, AgentDojo and garak
    logs were taken for harness or AgentGuard traces (garak and OTel "not intact"); now each is
    detected as what it is, audited per episode, and none is unreadable. The *.expected.json
    ground truth is never collected; the harness results file and schemas are skipped."""
    code, doc = _json(str(CORPUS / "third_party"))
    summary = doc["summary"]
    assert code == 1
    third = CORPUS / "third_party"

    def files(*patterns: str) -> int:
        found = {p for pattern in patterns for p in third.glob(pattern)}
        return len([p for p in found if not p.name.endswith(".expected.json")])

    expected = {
        "agentguard": 1,
        "inspect": files("inspect/**/*.eval", "inspect/**/*.json"),
        "otel": files("otel/*.jsonl", "otel/public/*.json", "otel/guardrail/*.json"),
        "agentdojo": files("agentdojo/runs/**/*.json", "agentdojo/public/runs/**/*.json"),
        "garak": files("garak/*.jsonl", "garak/public/*.jsonl"),
    }
    assert all(expected.values())
    for name, count in expected.items():
        assert summary["formats"][name] == count, name
        assert summary["by_format"][name]["traces"] == count
        assert summary["by_format"][name]["readable"] == count
    assert summary["formats"]["harness"] >= 30
    assert summary["unreadable"] == 0 and summary["not_intact"] == 0
    assert summary["by_format"]["agentguard"]["intact"] == 1
    assert summary["rerunnable"] == 0  # no third-party format carries seeds and revisions
    assert summary["by_format"]["inspect"]["episodes"] > summary["formats"]["inspect"]
    assert summary["episodes"] == sum(row["episodes"] for row in summary["by_format"].values())
    assert summary["skipped_non_trace_files"] >= 1  # observed-results.json and the schemas
    for trace in doc["traces"]:
        assert not trace["path"].endswith(".expected.json")
        codes = {f["code"] for f in trace["findings"]}
        # A run that failed before any sample holds no episode, and says so.
        assert trace["episodes"] or "audit.run_samples_missing" in codes, trace["path"]
        if trace["format"] not in ("agentguard", "harness"):
            assert trace["intact"] is None
            assert "audit.format_no_integrity" in codes
            for episode in trace["episodes"]:
                assert {"id", "completeness", "findings"} <= set(episode)
                assert len(episode["completeness"]) == len(trace["completeness"])
    top = {g["field"] for g in summary["fields_missing_most"][:12]}
    assert {"model_version", "seed", "harness_revision"} & top


def test_jobs_gives_the_same_report() -> None:
    single = run_cli("audit", str(AUDIT), "--format", "json", "-q")
    parallel = run_cli("audit", str(AUDIT), "--format", "json", "-q", "--jobs", "2")
    assert single.returncode == parallel.returncode == 1
    assert single.stdout == parallel.stdout


def test_markdown_and_table() -> None:
    markdown = run_cli(
        "audit",
        str(CLEAN),
        str(AUDIT / "harness" / "repeated_finding.json"),
        "--format",
        "markdown",
    )
    assert markdown.returncode == 1
    text = markdown.stdout.decode()
    assert text.startswith("# tracekit audit") and "### Completeness" in text
    assert "audit.repeated_finding" in text
    table = run_cli("audit", str(AUDIT / "agentguard" / "forgery__result_mismatch.jsonl"))
    assert (
        b"audit.result_mismatch" in table.stdout
        and b"Integrity is not authenticity" in table.stdout
    )


def test_scenario_is_evaluated_on_harness_traces() -> None:
    scenario = HARNESS / "scenarios" / "goal_hijack" / "basic.yaml"
    code, doc = _json(str(COMPLETE), "--scenario", str(scenario))
    trace = doc["traces"][0]
    assert code == 0
    assert (
        trace["harness"]["scenario_id"] == "goal_hijack.basic_001"
        and trace["harness"]["result"] == "fail"
    )
    assert "audit.outcome_reproduced" in [f["code"] for f in trace["findings"]]


def test_bad_scenario_exits_2_before_any_work(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [unclosed\n")
    result = run_cli("audit", str(COMPLETE), "--scenario", str(bad))
    assert result.returncode == 2 and result.stdout == b""
    assert b"harness." in result.stderr


def test_output_file_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    first = run_cli("audit", str(CLEAN), "--format", "json", "-o", str(out), "-q")
    assert first.returncode == 0 and json.loads(out.read_text())["exit_code"] == 0
    again = run_cli("audit", str(CLEAN), "-o", str(out))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    forced = run_cli("audit", str(CLEAN), "-o", str(out), "--force", "-q")
    # one trace: its block only; a campaign summary of one trace would repeat it
    assert forced.returncode == 0 and out.read_text().startswith("== ")
    assert "campaign summary" not in out.read_text()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_folder_holding_one_trace_prints_its_block_as_the_trace_alone_would(tmp_path: Path, jobs: str) -> None:
    """A walked folder whose other files are no traces holds one trace after all: its block,
    as for that trace named alone, and the files left out (the workers sent table rows, and
    the first trace's block beside them: cli/audit_run.py)."""
    (tmp_path / "a.json").write_text('{"not": "a trace"}')
    (tmp_path / "trace.jsonl").write_bytes(CLEAN.read_bytes())
    (tmp_path / "z.json").write_text("[]")
    alone = run_cli("audit", str(tmp_path / "trace.jsonl"), "-q")
    folder = run_cli("audit", str(tmp_path), "-q", "--jobs", jobs)
    assert folder.returncode == alone.returncode == 0
    block = alone.stdout.decode()
    assert folder.stdout.decode().startswith(block.rstrip("\n")) and "campaign summary" not in folder.stdout.decode()
    assert folder.stdout.decode().count("format.unknown") == 2  # the two files left out, listed


def test_stdin() -> None:
    result = run_cli("audit", "-", "--format", "json", "-q", stdin=COMPLETE.read_bytes())
    assert result.returncode == 0
    assert json.loads(result.stdout)["traces"][0]["format"] == "harness"
    result = run_cli("audit", "-", "--format", "json", "-q", stdin=CLEAN.read_bytes())
    assert result.returncode == 0
    assert json.loads(result.stdout)["traces"][0]["format"] == "agentguard"


def test_no_input_and_missing_file() -> None:
    empty = run_cli("audit", str(CORPUS / "gen"))  # a folder without traces
    assert empty.returncode == 2 and b"cli.no_input" in empty.stderr
    missing = run_cli("audit", "/nonexistent/trace.jsonl", "--format", "json", "-q")
    assert missing.returncode == 2 and b"Traceback" not in missing.stderr
    assert json.loads(missing.stdout)["traces"][0]["findings"][0]["code"] == "format.unreadable"


def test_no_echo_of_trace_content(tmp_path: Path) -> None:
    canary = "CANARY_e41b"
    trace = {
        "messages": [{"role": "user", "content": canary}],
        "tool_calls": [
            {
                "name": canary,
                "arguments": json.dumps({canary: canary}),
                "result": canary + "..." * 30,
            },
            {"name": canary, canary: canary, "result": {"text": canary, "truncated": True}},
        ],
        "events": [{"type": "outcome", "result": canary, canary: canary}],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    for fmt in ("table", "markdown"):
        result = run_cli("audit", str(path), "--format", fmt)
        assert result.returncode == 1
        assert canary.encode() not in result.stdout + result.stderr


# ------------------------------------------------------------------ the table's message column


def _finding_rows(table: str) -> list[str]:
    """The findings table's lines (header, rule and rows, wrapped lines included)."""
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("severity "))
    rows = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("=="):
            break
        rows.append(line)
    return rows


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval",
        CORPUS / "third_party" / "agentdojo",
        AUDIT / "harness" / "arguments_stringified.json",
        AUDIT / "agentguard" / "forgery__score_mismatch.jsonl",
    ],
    ids=lambda p: p.name,
)
def test_table_message_does_not_repeat_the_location(path: Path) -> None:
    """The table's where column holds the location; the message leaves it out and each line of
    a finding row stays within the wrapped widths. JSON keeps the whole message."""
    table = run_cli("audit", str(path), "--verbose").stdout.decode()
    code, doc = _json(str(path))
    located = [
        f for t in doc["traces"] for f in t["findings"] if f["where"] and f"({f['where']})" in f["message"]
    ]
    assert located, "the corpus file has located gap findings"
    for f in located:
        assert f"({f['where']})" not in table
    rows = _finding_rows(table)
    assert max(len(line.rstrip()) for line in rows) <= len(rows[1])  # within the columns' rule
    for f in located:
        assert len(f["message"].replace(f" ({f['where']})", "")) <= 100
    assert "Evidence field" in table


def test_markdown_message_does_not_repeat_the_location() -> None:
    path = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
    markdown = run_cli("audit", str(path), "-f", "markdown").stdout.decode()
    assert "| warning | audit.field_missing | - | every episode: facts.seed" in markdown
    assert "Evidence field seed is missing. |" in markdown
    assert "is missing (every episode" not in markdown


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_one_trace_has_no_campaign_tables_several_do(fmt: str) -> None:
    one = run_cli("audit", str(CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"), "-f", fmt)
    two = run_cli("audit", str(CLEAN), str(COMPLETE), "-f", fmt)
    for marker in ("ampaign summary", "y format", "ields missing most"):
        assert marker not in one.stdout.decode()
        assert marker in two.stdout.decode()


# ------------------------------------------------------------------ one bounded reader


def test_oversized_harness_trace_is_refused_by_the_bounded_reader(tmp_path: Path) -> None:
    """A harness-shaped file over the 16 MiB cap: refused with harness.trace_too_large (exit 2),
    from a named file before reading it and from standard input once past the cap."""
    big = tmp_path / "big.json"
    head = b'{"messages": [], "tool_calls": [], "events": [], "pad": "'
    big.write_bytes(head + b"x" * (16 * 1024 * 1024) + b'"}')
    for args, stdin in (((str(big), "--input-format", "harness"), None), (("-", "--input-format", "harness"), big.read_bytes())):
        result = run_cli("audit", *args, "--format", "json", "-q", stdin=stdin)
        assert result.returncode == 2, result.stderr
        trace = json.loads(result.stdout)["traces"][0]
        assert trace["format"] == "harness" and trace["findings"][0]["code"] == "harness.trace_too_large"


def test_a_campaign_table_is_summary_first_then_one_line_per_file(tmp_path: Path) -> None:
    """docs/audit.md, "Reading the table": the summary, then one row per file; a file's own
    tables only with --verbose."""
    import shutil

    from tests.helpers import FIXTURE

    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        shutil.copyfile(FIXTURE, tmp_path / name)
    brief = run_cli("audit", str(tmp_path)).stdout.decode()
    assert brief.startswith("== campaign summary")
    rows = [line for line in brief.splitlines() if line.endswith(".jsonl")]
    assert len(rows) == 3 and all(not line.startswith("==") for line in rows)
    assert "completeness" not in brief.split("== files")[1] and "field " not in brief.split("== files")[1]
    verbose = run_cli("audit", str(tmp_path), "--verbose").stdout.decode()
    assert verbose.count("\n== ") >= 4 and len(verbose) > len(brief)
