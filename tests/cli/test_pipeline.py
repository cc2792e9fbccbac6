"""The command pipeline through the installed ``tracekit``: the output sink, usage errors that
name the option, one-file commands given a folder, standard input, deep campaign folders, tables
of mixed columns and Markdown that cannot carry markup (docs/cli.md)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tests.helpers import CORPUS, FIXTURE, ROOT, run_cli

UPSTREAM = CORPUS / "third_party" / "owasp-harness"
BASIC = UPSTREAM / "scenarios" / "goal_hijack" / "basic.yaml"
DENIED = UPSTREAM / "examples" / "traces" / "denied_tool_call.json"
EXACT = CORPUS / "replay" / "combo__tests_unsafe_diff.jsonl"
SEMANTIC = CORPUS / "replay" / "equivalence__message_drift.jsonl"
PSEUDO_FILE = Path("/proc/self/attr/current")


def _commands_writing(target: Path, force: bool) -> list[tuple[str, ...]]:
    """verify, audit and check, each writing its report to ``target``."""
    extra = ("--force",) if force else ()
    return [
        ("verify", str(FIXTURE), "-o", str(target), *extra),
        ("audit", str(FIXTURE), "-o", str(target), *extra),
        ("check", str(BASIC), str(DENIED), "-o", str(target), *extra),
    ]


def _assert_refused(result: object, code: str) -> None:
    assert isinstance(result, __import__("subprocess").CompletedProcess)
    assert result.returncode == 2, result.stderr
    assert f"error[{code}]".encode() in result.stderr, result.stderr
    assert b"internal.error" not in result.stderr and b"Traceback" not in result.stderr


# ------------------------------------------------------------------------------ output mistakes


def test_output_into_a_missing_folder(tmp_path: Path) -> None:
    for args in _commands_writing(tmp_path / "missing" / "report.txt", force=False):
        _assert_refused(run_cli(*args), "cli.output_parent_missing")
    assert not (tmp_path / "missing").exists()


def test_output_onto_a_folder_with_force(tmp_path: Path) -> None:
    for args in _commands_writing(tmp_path, force=True):
        _assert_refused(run_cli(*args), "cli.output_is_folder")


def test_output_onto_a_device_or_fifo_is_refused_even_with_force(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (Path(os.devnull), fifo):
        for args in _commands_writing(target, force=True):
            _assert_refused(run_cli(*args), "cli.output_not_regular")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.skipif(not PSEUDO_FILE.exists(), reason="needs a kernel pseudo-file")
def test_output_onto_a_kernel_pseudo_file_with_force() -> None:
    for args in _commands_writing(PSEUDO_FILE, force=True):
        result = run_cli(*args)
        assert result.returncode == 2 and b"error[cli.output_" in result.stderr, result.stderr
        assert b"internal.error" not in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_output_into_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        for args in _commands_writing(folder / "report.txt", force=False):
            _assert_refused(run_cli(*args), "cli.output_unwritable")
    finally:
        folder.chmod(0o755)


def test_existing_output_without_force(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("keep")
    for args in _commands_writing(target, force=False):
        _assert_refused(run_cli(*args), "cli.output_exists")
    assert target.read_text() == "keep"


def test_replay_output_dir_is_one_unit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "replay.json").write_text("old json")
    (out / "replay.md").mkdir()  # a folder where a file goes: nothing may be replaced
    result = run_cli("replay", str(EXACT), "--output-dir", str(out), "--force")
    _assert_refused(result, "cli.output_is_folder")
    assert (out / "replay.json").read_text() == "old json"
    assert sorted(p.name for p in out.iterdir()) == ["replay.json", "replay.md"]


def test_metamorphic_output_dir_needs_its_parent(tmp_path: Path) -> None:
    result = run_cli("metamorphic", str(EXACT), "-t", "add_test_file", "--output-dir", str(tmp_path / "a" / "b"))
    _assert_refused(result, "cli.output_parent_missing")
    assert not (tmp_path / "a").exists()


def test_check_suite_output_dir_onto_a_device(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(DENIED, traces / "goal_hijack.basic_001.json")
    result = run_cli("check", "-f", "json", "--suite", str(BASIC), "--trace-dir", str(traces), "--output-dir", os.devnull)
    _assert_refused(result, "cli.output_unsafe")


# ------------------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(
    ("args", "code", "named"),
    [
        (("verify", str(FIXTURE), "--trusted-root", "foo"), "cli.trusted_root_syntax", b"NAME=DIR"),
        (("verify", str(FIXTURE), "--trusted-root", "BOGUS=."), "cli.trusted_root_name", b"RUN_ROOT"),
        (("verify", str(FIXTURE), "--trusted-root", "RUN_ROOT=/nonexistent-x"), "cli.trusted_root_missing", b"RUN_ROOT"),
        (("check", str(BASIC)), "cli.missing_argument", b"TRACE"),
        (("check",), "cli.missing_argument", b"SCENARIO"),
        (("check", "--suite", str(BASIC)), "cli.option_needs", b"--trace-dir"),
        (("check", str(BASIC), "--suite", str(BASIC), "--trace-dir", "."), "cli.option_conflict", b"--suite"),
        (("check", str(BASIC), str(DENIED), "--dry-run"), "cli.option_conflict", b"--dry-run"),
        (("check", str(BASIC), str(DENIED), "--include-trace", "-f", "table"), "cli.option_needs", b"--include-trace"),
        (("check", "--suite", "/nonexistent-suite", "--trace-dir", "."), "cli.folder_missing", b"--suite"),
        (("verify", "-", "-"), "cli.stdin_twice", b"once"),
        (("audit", "-", "-"), "cli.stdin_twice", b"once"),
        (("metamorphic", str(EXACT), "-t", ""), "cli.missing_argument", b"--transform"),
    ],
)
def test_usage_errors_name_the_option(args: tuple[str, ...], code: str, named: bytes) -> None:
    result = run_cli(*args, stdin=b"")
    _assert_refused(result, code)
    assert named in result.stderr
    assert b"The command line is not valid." not in result.stderr


@pytest.mark.parametrize("command", ["show", "replay", "replayability"])
def test_one_file_commands_refuse_a_folder(command: str, tmp_path: Path) -> None:
    _assert_refused(run_cli(command, str(tmp_path)), "cli.not_a_file")


def test_check_reads_a_folder_as_a_campaign(tmp_path: Path) -> None:
    # A folder TRACE is a findings campaign (docs/findings.md, "Command line"): an empty one has
    # no input.
    _assert_refused(run_cli("check", "-f", "json", str(BASIC), str(tmp_path)), "cli.no_input")


@pytest.mark.parametrize("command", ["verify", "show", "replay", "replayability", "audit", "check", "metamorphic"])
def test_dash_h_is_help(command: str) -> None:
    short, long = run_cli(command, "-h"), run_cli(command, "--help")
    assert short.returncode == 0 and short.stdout == long.stdout
    assert b"{" not in short.stdout and b"<str>" not in short.stdout


# ------------------------------------------------------------------------------ messages and exits


def test_no_message_keeps_a_placeholder() -> None:
    """The unknown-field message used to print ``{count}``; every code's text, as emitted."""
    case = CORPUS / "invalid" / "schema__unknown_header_field.jsonl"
    for args in (("verify", str(case)), ("show", str(case)), ("audit", str(case)), ("verify", "-f", "json", str(case))):
        result = run_cli(*args)
        assert b"schema.unknown_field" in result.stdout + result.stderr
        assert b"{" not in result.stderr and b"{count}" not in result.stdout


def test_every_call_site_fills_its_placeholders() -> None:
    """Static check: a finding(Code.X, ...) or fail(Code.X, ...) call passes every placeholder
    of X's message by name, so no message can reach a user with a ``{placeholder}``."""
    import ast
    import string

    from tracekit.kernel.errors import CODE_INFO, Code

    needs = {
        code.name: {f for _, f, _, _ in string.Formatter().parse(CODE_INFO[code].message) if f}
        for code in Code
    }
    missing: list[str] = []
    for path in (ROOT / "tracekit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            first = node.args[0]
            if name not in ("finding", "fail") or not isinstance(first, ast.Attribute):
                continue
            if getattr(first.value, "id", "") != "Code" or any(k.arg is None for k in node.keywords):
                continue
            given = {k.arg for k in node.keywords}
            if needs[first.attr] - given:
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {first.attr}")
    assert missing == []


def test_error_codes_page_says_interrupted_exits_130() -> None:
    text = (ROOT / "docs" / "error-codes.md").read_text(encoding="utf-8")
    assert "| `cli.interrupted` | error | 130 |" in text


def test_show_says_why_it_exits_1() -> None:
    result = run_cli("show", str(CORPUS / "sources" / "changed" / "trace.jsonl"))
    assert result.returncode == 1
    assert b"warning[source." in result.stderr


def test_suite_with_nothing_paired_is_not_green(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    result = run_cli("check", "-f", "json", "--suite", str(UPSTREAM / "scenarios"), "--trace-dir", str(traces), "-q")
    assert result.returncode == 2
    assert b"error[cli.nothing_checked]" in result.stderr


# ------------------------------------------------------------------------------ deep folders


def _remove_chain(root: Path) -> None:
    """Remove a deep chain of ``d`` folders bottom-up without recursion (pytest's own clean-up
    would recurse ~1,200 levels)."""
    chain = [root]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for folder in reversed(chain):
        for entry in os.listdir(folder):
            if entry != "d":
                path = folder / entry
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        folder.rmdir()


def _deep_campaign(root: Path, depth: int) -> None:
    shutil.copy(EXACT, root / "top.jsonl")
    folder = root
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    shutil.copy(EXACT, folder / "bottom.jsonl")


@pytest.mark.parametrize("command", ["verify", "audit", "metamorphic"])
def test_a_deeply_nested_campaign_is_walked_with_a_bound(command: str, tmp_path: Path) -> None:
    campaign = tmp_path / "c"
    campaign.mkdir()
    _deep_campaign(campaign, 1200)
    args = ["-t", "add_test_file"] if command == "metamorphic" else ["-f", "json"]
    try:
        result = run_cli(command, str(campaign), *args)
    finally:
        _remove_chain(campaign)
    assert b"Traceback" not in result.stderr and b"internal.error" not in result.stderr
    assert b"warning[cli.walk_too_deep]" in result.stderr
    assert result.returncode == 1  # the top trace is intact, clean and replayable
    if command != "metamorphic":
        doc = json.loads(result.stdout)
        assert [Path(t["path"]).name for t in doc["traces"]] == ["top.jsonl"]


def test_a_deeply_nested_suite_is_walked_with_a_bound(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(BASIC, suite / "basic.yaml")
    folder = suite
    for _ in range(1200):
        folder = folder / "d"
        folder.mkdir()
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(DENIED, traces / "goal_hijack.basic_001.json")
    try:
        result = run_cli("check", "-f", "json", "--suite", str(suite), "--trace-dir", str(traces))
    finally:
        _remove_chain(suite)
    assert b"Traceback" not in result.stderr
    assert b"warning[cli.walk_too_deep]" in result.stderr and result.returncode == 1
    assert json.loads(result.stdout)["counts"]["total"] == 1


# ------------------------------------------------------------------------------ rendering


def test_table_with_mixed_bool_and_number_columns(tmp_path: Path) -> None:
    """Scenario ids ``False`` and ``1.5`` in one column used to crash tabulate."""
    traces = tmp_path / "traces"
    traces.mkdir()
    text = BASIC.read_text(encoding="utf-8")
    for name, ident in (("a.yaml", "False"), ("b.yaml", "1.5")):
        (tmp_path / name).write_text(text.replace("id: goal_hijack.basic_001", f'id: "{ident}"'))
        shutil.copy(DENIED, traces / f"{ident}.json")
    result = run_cli(
        "check", "-f", "json", "--suite", str(tmp_path / "a.yaml"), "--suite", str(tmp_path / "b.yaml"),
        "--trace-dir", str(traces), "-f", "table",
    )
    assert result.returncode == 0, result.stderr
    assert b"False" in result.stdout and b"1.5" in result.stdout


def _replay_trace_with_markup(tmp_path: Path) -> Path:
    sys.path.insert(0, str(CORPUS))
    from gen import replay_parts
    from gen.base import check

    from tracekit.formats.agentguard.writer import write_trace

    message = "<img src=x onerror=alert(1)> [link](http://x) **bold** `code` | pipe"
    draft = replay_parts.trace(
        "markup",
        recorded=replay_parts.checks(
            Tests_passed=check("Tests passed", True, "error", message, ["python -m pytest -q exited 0"])
        ),
    )
    path = tmp_path / "markup.jsonl"
    path.write_bytes(write_trace(draft))
    return path


def test_markdown_escapes_markup_from_the_trace(tmp_path: Path) -> None:
    trace = _replay_trace_with_markup(tmp_path)
    out = tmp_path / "out"
    result = run_cli("replay", str(trace), "--output-dir", str(out), "--allow-divergence", "-q")
    assert result.returncode == 0, result.stderr
    for text in ((out / "replay.md").read_text(), run_cli("replay", str(trace), "-f", "markdown").stdout.decode()):
        assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
        assert "[link](" not in text and "**bold**" not in text and "`code`" not in text


def test_replay_table_with_mixed_columns(tmp_path: Path) -> None:
    """A divergent replay whose differences mix a ``passed`` flag and a fractional score."""
    result = run_cli("replay", str(CORPUS / "replay" / "equivalence__lying_score_and_result.jsonl"))
    assert result.returncode == 1 and b"Traceback" not in result.stderr


# ------------------------------------------------------------------------------ audit streaming


def test_audit_streams_per_trace_results(tmp_path: Path) -> None:
    """JSON streamed from the spool is byte-identical to the whole document rendered at once,
    and the campaign summary counted one report at a time equals the summary over them all."""
    import msgspec

    from tracekit.judging.audit import AuditReport, summarise
    from tracekit.report.audit_render import render_json

    campaign = tmp_path / "c"
    campaign.mkdir()
    for n in range(3):
        shutil.copy(FIXTURE, campaign / f"t{n}.jsonl")
    shutil.copy(DENIED, campaign / "h.json")
    result = run_cli("audit", str(campaign), "-f", "json", "-q")
    doc = json.loads(result.stdout)
    traces = msgspec.convert(doc["traces"], list[AuditReport])
    summary = summarise(traces, skipped=doc["summary"]["skipped_non_trace_files"])
    assert json.loads(msgspec.json.encode(summary)) == doc["summary"]
    # The command line adds the head's ``command`` (docs/cli.md, "JSON reports").
    assert result.stdout.decode() == render_json(traces, summary).replace("{\n", '{\n  "command": "audit",\n', 1)


# ------------------------------------------------------------------------------ formats


@pytest.mark.parametrize(
    ("args", "tests", "failures", "errors"),
    [
        (("verify", str(CORPUS / "valid" / "v2__clean_run.jsonl"), str(CORPUS / "invalid" / "chain__tampered_payload.jsonl")), 2, 0, 1),
        (("audit", str(CORPUS / "audit" / "agentguard" / "consistent__clean_run.jsonl"), str(CORPUS / "audit" / "agentguard" / "forgery__duplicate_check_name.jsonl")), 2, 1, 0),
        (("replay", str(SEMANTIC)), 1, 1, 0),
    ],
)
def test_junit_and_sarif_for_findings_commands(args: tuple[str, ...], tests: int, failures: int, errors: int) -> None:
    from xml.etree.ElementTree import fromstring

    junit = run_cli(*args, "-f", "junit", "-q")
    suite = fromstring(junit.stdout).find("testsuite")
    assert suite is not None and b"Traceback" not in junit.stderr
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == (str(tests), str(failures), str(errors))
    sarif = json.loads(run_cli(*args, "-f", "sarif", "-q").stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert run["results"] and {r["ruleId"] for r in run["results"]} == rules
    assert all(r["level"] in ("error", "warning", "note") for r in run["results"])


@pytest.mark.parametrize(
    "args",
    [
        ("verify", str(FIXTURE)),
        ("show", str(FIXTURE)),
        ("replayability", str(EXACT)),
        ("replay", str(EXACT)),
        ("audit", str(FIXTURE)),
        ("metamorphic", str(EXACT), "-t", "add_test_file"),
    ],
)
def test_every_json_report_has_the_one_report_version(args: tuple[str, ...]) -> None:
    from tracekit import REPORT_VERSION

    doc = json.loads(run_cli(*args, "-f", "json", "-q").stdout)
    assert doc["report_version"] == REPORT_VERSION


def test_show_json_is_typed() -> None:
    doc = json.loads(run_cli("show", str(FIXTURE), "-f", "json").stdout)
    summary = doc["summary"]
    assert all(" " not in key for key in summary) and "counts" not in summary
    assert isinstance(summary["score"], int | float) and isinstance(summary["events"], int)
    assert summary["root_digest"] and doc["counts"]["check_result"] == 1


@pytest.mark.parametrize("command", ["verify", "show", "replayability", "replay", "audit", "check", "metamorphic"])
def test_every_command_offers_table_json_and_markdown(command: str) -> None:
    text = run_cli(command, "--help").stdout.decode()
    for name in ("table", "json", "markdown"):
        assert name in text.split("--format", 1)[1].split("\n", 1)[0]
    for flag in ("--output", "--force", "--quiet"):
        assert flag in text


@pytest.mark.parametrize("command", ["show", "replayability", "replay", "verify", "audit"])
def test_dash_reads_one_trace_from_standard_input(command: str) -> None:
    from_file = run_cli(command, str(EXACT), "-f", "json", "-q")
    from_stdin = run_cli(command, "-", "-f", "json", "-q", stdin=EXACT.read_bytes())
    assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stderr
    assert b"Traceback" not in from_stdin.stderr and json.loads(from_stdin.stdout)


def test_check_reads_its_trace_from_standard_input() -> None:
    piped = run_cli("check", "-f", "json", str(BASIC), "-", "-q", stdin=DENIED.read_bytes())
    named = run_cli("check", "-f", "json", str(BASIC), str(DENIED), "-q")
    assert piped.returncode == named.returncode == 0
    assert piped.stdout == named.stdout


def test_audit_table_wraps_long_messages() -> None:
    """The message column used to reach 190 characters; it wraps at 72."""
    result = run_cli("audit", str(FIXTURE), "-q")
    rows = result.stdout.decode().split("severity", 1)[1].splitlines()
    assert rows and max(len(row) for row in rows) < 190


# ------------------------------------------------------------------------------ adversarial corpus

HOSTILE = sorted((CORPUS / "hostile" / "agentguard").glob("*.jsonl"))
FINDINGS_FORMATS = ("table", "json", "markdown", "junit", "sarif")


@pytest.mark.parametrize("command", ["verify", "audit"])
@pytest.mark.parametrize("fmt", FINDINGS_FORMATS)
def test_every_format_over_the_adversarial_corpus(command: str, fmt: str) -> None:
    result = run_cli(command, str(CORPUS / "hostile"), str(CORPUS / "invalid"), "-f", fmt, "-q")
    assert result.returncode == 2 and result.stdout
    assert b"internal.error" not in result.stderr and b"Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", ["show", "replayability", "replay"])
def test_one_trace_commands_over_the_adversarial_corpus(command: str) -> None:
    """Every hostile trace once, the formats taken in turn (each format several times)."""
    formats = FINDINGS_FORMATS if command == "replay" else FINDINGS_FORMATS[:3]
    for n, path in enumerate(HOSTILE):
        fmt = formats[n % len(formats)]
        result = run_cli(command, str(path), "-f", fmt, "-q")
        assert result.returncode in (0, 1, 2), (path.name, fmt)
        assert b"internal.error" not in result.stderr and b"Traceback" not in result.stderr, (path.name, fmt)


def test_status_names_a_missing_source_not_a_changed_one() -> None:
    missing = json.loads(run_cli("verify", str(CORPUS / "sources" / "required_missing" / "trace.jsonl"), "-f", "json", "-q").stdout)
    changed = json.loads(run_cli("verify", str(CORPUS / "sources" / "changed" / "trace.jsonl"), "-f", "json", "-q").stdout)
    assert missing["traces"][0]["status"] == "source_missing" and missing["exit_code"] == 1
    assert missing["summary"]["source_missing"] == 1 and missing["summary"]["source_changed"] == 0
    assert changed["traces"][0]["status"] == "source_changed" and changed["summary"]["source_changed"] == 1


def test_collect_inputs_lists_each_trace_once() -> None:
    from tracekit.cli.common import collect_inputs

    found = collect_inputs([str(CORPUS / "valid")])
    assert found and len(found) == len(list(found)) and found[0].endswith(".jsonl")
