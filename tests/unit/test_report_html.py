"""The HTML report's page builder and renderer (docs/report.md, "Bounds"): thousands of files and
hundreds of episodes give a page of bounded size that says what it folded; names and texts from a
trace are cleaned; the same page renders to the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.report_inputs import SCENARIO, hostile_run
from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_file
from tracekit.cli.check_io import read_scenario
from tracekit.cli.findings_io import judge, load
from tracekit.judging.audit import unreadable, with_episodes
from tracekit.judging.harness.scenario import parse_scenario
from tracekit.kernel.errors import Code, finding
from tracekit.report.html import build, fold
from tracekit.report.html.render import render


def _inputs(tmp_path: Path) -> tuple[object, object, dict[str, object]]:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(hostile_run()), encoding="utf-8")
    audit = with_episodes(audit_file(AuditJob(str(path), str(path), True, AuditOptions(False, (), None))))  # type: ignore[arg-type]
    evidence = load(str(path), None)
    scenario = parse_scenario(read_scenario(str(SCENARIO)))
    return audit, evidence, {e.id: judge(scenario, e, False) for e in evidence.episodes}


def test_thousands_of_files_and_episodes_fold(tmp_path: Path) -> None:
    audit, evidence, judged = _inputs(tmp_path)
    page = build.PageBuilder("exfil-email", False)
    for n in range(build.FILE_LIMIT + 2000):
        page.skipped(f"campaign/{n}.json")
    for _ in range(build.EPISODE_LIMIT + 50):
        page.trace(audit, evidence, judged)  # type: ignore[arg-type]
    page.trace(unreadable("last.jsonl", "unknown", finding(Code.FORMAT_UNKNOWN)), None, {})
    built = page.page()
    assert len(built.files) == build.FILE_LIMIT and built.files_folded == 2000 + 150 + 1
    assert len(built.episodes) == build.EPISODE_LIMIT and built.episodes_folded == 50
    assert built.exit_code == 2
    html = render(built)
    assert f"2151 file(s) beyond the first {build.FILE_LIMIT} are counted, not listed." in html
    assert f"50 episode(s) beyond the first {build.EPISODE_LIMIT} have no section." in html
    assert ">files</th><td>12151<" in html  # every file counted, listed or not
    assert len(html.encode()) < 16 * 1024 * 1024
    assert render(built) == html
    # Sections of files past the listing link to no row that is not there.
    assert 'href="#f10001"' not in html and 'id="f10000"' in html and 'id="f10001"' not in html


def test_text_budget_is_spent_in_order_and_says_so() -> None:
    budget = fold.Budget(total=5000, limit=2000)
    shown = [budget.fold("x" * 3000) for _ in range(4)]
    assert [f.shown for f in shown if f] == [2000, 2000, 1000, 0]
    assert all(f is not None and f.size == 3000 and f.folded for f in shown)
    assert budget.cut == 4 and budget.fold(None) is None


def test_texts_and_names_are_cleaned() -> None:
    text = "a\x1b[31mred\x00\ud800\tb\n"
    folded = fold.Budget().fold(text)
    assert folded is not None and folded.text == "a\\x1b[31mred\\x00\ufffd\tb\n"
    assert folded.size == len(text.encode("utf-8", "surrogatepass"))
    assert fold.name("n" * 100) == "n" * 61 + "..." and fold.name(None) == "-"
