"""Unreadable inputs never stop a command or a campaign (docs/cli.md, "Inputs and folders"):
a file nothing can read is one error for that file, and the other files of a folder are judged
as they are without it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, FIXTURE, run_cli

SCENARIO_DIR = CORPUS / "harness" / "s1_every_name_counts"
SCENARIO = SCENARIO_DIR / "scenario.yaml"
GARAK = CORPUS / "third_party" / "garak" / "blank.report.jsonl"
HOSTILE = sorted(p for p in (CORPUS / "hostile").rglob("*") if p.is_file() and p.suffix in {".json", ".jsonl"}
                 and p.name != "expected.json")
DEEP = b"[" * 1000 + b"\n"


def _deep(tmp_path: Path) -> Path:
    path = tmp_path / "deep.json"
    path.write_bytes(DEEP)
    return path


def _argv(command: str, target: Path, tmp_path: Path) -> list[str]:
    if command == "check":
        return ["check", str(SCENARIO), str(target), "-f", "json"]
    if command == "seal":
        return ["seal", str(target), "-o", str(tmp_path / "out.tkb"), "-f", "json"]
    return [command, str(target), "-f", "json"]


@pytest.mark.parametrize("command", ["verify", "show", "audit", "replay", "seal", "check"])
def test_a_deep_file_alone_is_one_error_exit_2(command: str, tmp_path: Path) -> None:
    result = run_cli(*_argv(command, _deep(tmp_path), tmp_path))
    assert result.returncode == 2, result.stderr
    assert b"internal.error" not in result.stderr + result.stdout
    assert b"Traceback" not in result.stderr


def test_sniffing_a_deep_prefix_never_raises() -> None:
    from tracekit.formats import registry

    for prefix in (DEEP, b"{" * 5000, b'{"a":' * 3000, b"[" * 60 + b"[[]]" * 10):
        for suffix in (".json", ".jsonl", ".eval", ""):
            assert registry.detect(prefix, suffix) is None


def test_depth_counts_brackets_that_never_close() -> None:
    from tracekit.kernel.jsonscan import depth_exceeds

    assert depth_exceeds(b"[" * 1000, 64)
    assert depth_exceeds(b"[" * 66, 64)
    assert not depth_exceeds(b"[" * 10, 64)
    assert depth_exceeds(b"[" * 40 + b"[" * 30 + b"]" * 30, 64)
    assert not depth_exceeds(b"[" * 65 + b"]" * 65, 64)
    assert depth_exceeds(b"[" * 66 + b"]" * 66, 64)


def _rows(document: dict[str, object]) -> dict[str, object]:
    rows = document["traces"]
    assert isinstance(rows, list)
    return {Path(row["path"]).name: {k: v for k, v in row.items() if k != "path"} for row in rows}


def _controls(folder: Path) -> list[str]:
    folder.mkdir()
    names = []
    for source in (FIXTURE, GARAK, SCENARIO_DIR / "pass.json"):
        shutil.copy(source, folder / source.name)
        names.append(source.name)
    return names


@pytest.mark.parametrize("command", ["verify", "audit"])
def test_hostile_files_in_a_folder_never_change_the_other_files_results(command: str, tmp_path: Path) -> None:
    """The class property: a folder of good files, then the same folder with every hostile file
    of the corpus and the deep file added; every good file's row is the same."""
    names = _controls(tmp_path / "plain")
    plain = json.loads(run_cli(command, str(tmp_path / "plain"), "-f", "json", "-q").stdout)
    mixed_dir = tmp_path / "mixed"
    shutil.copytree(tmp_path / "plain", mixed_dir)
    for index, hostile in enumerate(HOSTILE):
        shutil.copy(hostile, mixed_dir / f"h{index:03}_{hostile.name}")
    _deep(mixed_dir)
    result = run_cli(command, str(mixed_dir), "-f", "json", "-q")
    assert result.returncode == 2, result.stderr
    mixed = json.loads(result.stdout)
    before, after = _rows(plain), _rows(mixed)
    for name in names:
        assert after[name] == before[name], name


def test_check_campaign_judges_the_other_files_beside_a_deep_one(tmp_path: Path) -> None:
    _controls(tmp_path / "plain")
    plain = json.loads(run_cli("check", "-f", "json", str(SCENARIO), str(tmp_path / "plain"), "-q").stdout)
    _deep(tmp_path / "plain")
    mixed = json.loads(run_cli("check", "-f", "json", str(SCENARIO), str(tmp_path / "plain"), "-q").stdout)
    assert mixed["counts"] == plain["counts"]
    assert mixed["episodes"] == plain["episodes"]


def _unreadable(tmp_path: Path) -> dict[str, Path]:
    """Inputs no reader accepts: not a trace, empty, too deep, truncated mid-line."""
    files = {"foo": b'{"foo": 1}\n', "empty": b"", "deep": DEEP, "truncated": FIXTURE.read_bytes()[:700]}
    out = {}
    for name, data in files.items():
        path = tmp_path / (f"{name}.jsonl" if name == "truncated" else f"{name}.json")
        path.write_bytes(data)
        out[name] = path
    return out


COMMAND_FORMATS = [
    ("verify", "json"), ("verify", "junit"), ("verify", "sarif"),
    ("audit", "json"), ("audit", "junit"), ("audit", "sarif"),
    ("replay", "json"), ("replay", "junit"), ("replay", "sarif"),
    ("replayability", "json"), ("show", "json"), ("seal", "json"),
    ("check", "json"), ("check", "junit"), ("check", "sarif"),
]


def _document_says_error(format: str, text: str) -> None:
    if format == "junit":
        assert "<error" in text
    elif format == "sarif":
        results = [r for run in json.loads(text)["runs"] for r in run["results"]]
        # check's too: its findings shape lists the refused file as an error result.
        assert any(r["level"] == "error" for r in results)
    else:
        document = json.loads(text)
        assert document.get("exit_code", 2) == 2 or document.get("result") == "error"


@pytest.mark.parametrize(("command", "format"), COMMAND_FORMATS)
def test_every_command_on_every_unreadable_input_exits_2_with_a_document(
    command: str, format: str, tmp_path: Path
) -> None:
    """The class property (docs/cli.md, "Inputs and folders"): exit 2, and the document written
    to ``-o`` says error, whatever the input and the machine format."""
    for name, path in _unreadable(tmp_path).items():
        out = tmp_path / f"{name}.{command}.{format}"
        if command == "seal":
            argv = ["seal", str(path), "-o", str(tmp_path / f"{name}.tkb"), "-f", format]
        elif command == "check":
            argv = ["check", str(SCENARIO), str(path), "-f", format, "-o", str(out)]
        else:
            argv = [command, str(path), "-f", format, "-o", str(out)]
        result = run_cli(*argv, "-q")
        assert result.returncode == 2, (name, result.stderr)
        assert b"internal.error" not in result.stderr
        text = result.stdout.decode() if command == "seal" else out.read_text()
        _document_says_error(format, text)
        assert not (tmp_path / f"{name}.tkb").exists()


def test_check_never_passes_a_file_no_reader_accepts(tmp_path: Path) -> None:
    files = _unreadable(tmp_path)
    for name in ("foo", "empty"):
        result = run_cli("check", "-f", "json", str(SCENARIO), str(files[name]), "-f", "junit")
        assert result.returncode == 2
        assert "<error" in result.stdout.decode() and not re.search(r"\d+ pass", result.stderr.decode())
    piped = run_cli("check", "-f", "json", str(SCENARIO), "-", stdin=b'{"foo": 1}')
    assert piped.returncode == 2 and json.loads(piped.stdout)["result"] == "error"
    ok = run_cli("check", "-f", "json", str(SCENARIO), str(SCENARIO_DIR / "pass.json"), "-q")
    assert ok.returncode == 0 and json.loads(ok.stdout)["result"] == "pass"


def test_seal_of_a_folder_lists_the_non_trace_json_it_skips(tmp_path: Path) -> None:
    names = _controls(tmp_path / "campaign")
    _deep(tmp_path / "campaign")
    result = run_cli("seal", str(tmp_path / "campaign"), "-o", str(tmp_path / "c.tkb"), "-f", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["findings"] == len(names)
    assert [Path(s["trace"]).name for s in report["skipped"]] == ["deep.json"]
    assert report["skipped"][0]["code"] == "format.unknown"
    assert b"1 non-trace file(s) skipped" in result.stderr


def test_overlapping_inputs_count_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "A" / "sub").mkdir(parents=True)
    shutil.copy(FIXTURE, tmp_path / "A" / FIXTURE.name)
    shutil.copy(GARAK, tmp_path / "A" / "sub" / GARAK.name)
    a, sub = str(tmp_path / "A"), str(tmp_path / "A" / "sub")
    for command in ("audit", "verify"):
        result = run_cli(command, a, sub, str(tmp_path / "A" / "sub" / GARAK.name), "-f", "json", "-q")
        assert len(json.loads(result.stdout)["traces"]) == 2, command


def _sealed(tmp_path: Path) -> Path:
    bundle = tmp_path / "sealed.tkb"
    assert run_cli("seal", str(FIXTURE), "-o", str(bundle), "-q").returncode == 0
    return bundle


@pytest.mark.parametrize("command", ["show", "audit", "replay"])
def test_a_bundle_given_to_a_trace_command_points_to_the_bundle_commands(command: str, tmp_path: Path) -> None:
    result = run_cli(command, str(_sealed(tmp_path)), "-f", "json", "-q")
    assert result.returncode == 2
    said = result.stdout + result.stderr  # audit: an error row in its document
    assert b"cli.bundle_input" in said
    assert b"format.unknown" not in said


def test_verify_picks_up_bundles_in_a_folder_and_lists_what_it_skips(tmp_path: Path) -> None:
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    _sealed(bundles)
    alone = run_cli("verify", str(bundles), "-q")
    assert alone.returncode in (0, 1) and b"sealed" in alone.stdout  # verified as a bundle
    mixed = tmp_path / "mixed"
    _controls(mixed)
    shutil.copy(bundles / "sealed.tkb", mixed / "sealed.tkb")
    _deep(mixed)
    result = run_cli("verify", str(mixed), "-f", "json")
    document = json.loads(result.stdout)
    assert len(document["traces"]) == 3
    skipped = {Path(s["trace"]).name: s["code"] for s in document["skipped"]}
    assert skipped == {"sealed.tkb": "cli.bundle_input", "deep.json": "format.unknown"}
    assert b"2 non-trace file(s) skipped" in result.stderr
    table = run_cli("verify", str(mixed), "-q").stdout.decode()
    assert "skipped files:" in table and "cli.bundle_input" in table and "format.unknown" in table


def test_audit_lists_the_files_it_skips_in_every_format_and_the_summary(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    _controls(folder)
    (folder / "results.json").write_bytes(b'{"foo": 1}\n')
    document = json.loads(run_cli("audit", str(folder), "-f", "json", "-q").stdout)
    assert [(Path(s["trace"]).name, s["code"]) for s in document["skipped"]] == [("results.json", "format.unknown")]
    assert document["summary"]["skipped_non_trace_files"] == 1
    table = run_cli("audit", str(folder))
    assert "skipped files:" in table.stdout.decode() and "results.json" in table.stdout.decode()
    assert b"1 non-trace file(s) skipped" in table.stderr
    markdown = run_cli("audit", str(folder), "-f", "markdown", "-q").stdout.decode()
    assert "## Skipped files" in markdown and "format.unknown" in markdown


@pytest.mark.parametrize("command", ["verify", "audit"])
def test_junit_and_sarif_list_the_skipped_files(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    _controls(folder)
    _deep(folder)
    junit = run_cli(command, str(folder), "-f", "junit", "-q").stdout.decode()
    assert '<skipped type="format.unknown"' in junit and "deep.json" in junit
    sarif = json.loads(run_cli(command, str(folder), "-f", "sarif", "-q").stdout)
    notes = [r for run in sarif["runs"] for r in run["results"] if r["message"]["text"].startswith("Skipped")]
    assert [r["ruleId"] for r in notes] == ["format.unknown"]
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("deep.json")


AGENTDOJO = CORPUS / "third_party" / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_1" / "none" / "none.json"


def test_a_forced_format_that_drops_the_files_own_records_is_a_finding() -> None:
    audit = run_cli("audit", str(AGENTDOJO), "--input-format", "harness", "-f", "json", "-q")
    row = json.loads(audit.stdout)["traces"][0]
    assert "format.forced_other" in [f["code"] for f in row["findings"]] and audit.returncode >= 1
    verify = run_cli("verify", str(AGENTDOJO), "--input-format", "harness", "-f", "json", "-q")
    assert "format.forced_other" in [f["code"] for f in json.loads(verify.stdout)["traces"][0]["findings"]]
    check = run_cli("check", "-f", "json", str(SCENARIO), str(AGENTDOJO), "--input-format", "harness", "-q")
    assert b"warning[format.forced_other]" in check.stderr
    plain = run_cli("audit", str(AGENTDOJO), "-f", "json", "-q")
    assert b"format.forced_other" not in plain.stdout
    same = run_cli("audit", str(AGENTDOJO), "--input-format", "agentdojo", "-f", "json", "-q")
    assert b"format.forced_other" not in same.stdout


def test_check_campaign_junit_and_sarif_show_unreadable_files_red_and_skipped_files_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    _controls(folder)
    _deep(folder)
    (folder / "truncated.jsonl").write_bytes(FIXTURE.read_bytes()[:700])
    junit = run_cli("check", "-f", "json", str(SCENARIO), str(folder), "-f", "junit", "-q")
    assert junit.returncode == 2
    text = junit.stdout.decode()
    assert '<skipped type="format.unknown"' in text and "<error type=" in text and "truncated.jsonl" in text
    sarif = json.loads(run_cli("check", "-f", "json", str(SCENARIO), str(folder), "-f", "sarif", "-q").stdout)
    levels = {r["ruleId"]: r["level"] for run in sarif["runs"] for r in run["results"]}
    assert levels["format.unknown"] == "note"
    assert "error" in {level for rule, level in levels.items() if rule.startswith("load.")}
