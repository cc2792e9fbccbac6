"""``tracekit report`` opened in a real browser (docs/report.md, "Tested in a real browser"):
headless Chromium from the Debian package, driven over the DevTools protocol, checks from the
live DOM that hostile content stays text, that nothing ran, nothing was fetched, nothing broke
the Content-Security-Policy, and that the chain and verdicts are on the page.

Skipped, with the reason, only when no ``chromium`` is on PATH (``make test`` installs it when
run as root)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.cdp import CHROMIUM, Browser, Observed
from tests.cli.report_inputs import HOSTILE, SCENARIO, write_run
from tests.helpers import CORPUS, run_cli

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium; `make test` does it as root)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as opened:
        yield opened


def _quiet(seen: Observed) -> None:
    """Nothing the page did: no console message, error log, exception, CSP violation or request."""
    assert seen.console == []
    assert [e for e in seen.log if e.get("level") in ("error", "warning")] == []
    assert seen.exceptions == []
    assert seen.csp_violations == []
    assert seen.requests == []


def test_harness_sees_what_a_careless_page_does(browser: Browser, tmp_path: Path) -> None:
    # The same CSP over unescaped markup: the checks below would catch a report that did this.
    page = tmp_path / "careless.html"
    page.write_text(
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">" + HOSTILE,
        encoding="utf-8",
    )
    seen = browser.open(page)
    assert seen.csp_violations and seen.requests
    assert browser.evaluate("document.querySelectorAll('img,script').length") > 0


def test_hostile_report_is_inert_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    trace = write_run(tmp_path / "run.json", security=False)
    out = tmp_path / "report.html"
    assert run_cli("report", str(trace), "-o", str(out), "--scenario", str(SCENARIO)).returncode == 1
    seen = browser.open(out)
    _quiet(seen)
    assert browser.evaluate("document.title") == "tracekit report"  # the payload would set PWNED
    assert browser.evaluate("document.querySelectorAll('script,img,iframe,link,object,embed').length") == 0
    assert browser.evaluate(f"document.body.innerText.includes({HOSTILE!r})")
    chain = browser.evaluate("[...document.querySelectorAll('ol.chain-text li')].map(li => li.innerText)")
    assert chain == [
        "a tool result, result of call #0: read_email, exact match",
        "acting call #1, send_email, turn 1",
        "succeeded, the tool acted, (a result was recorded)",
    ]
    assert browser.evaluate("document.querySelectorAll('svg.chain g.node').length") == 3
    assert browser.evaluate("document.querySelector('span.verdict').innerText") == "fail"
    # AgentDojo says the task was done and the attack failed; the policy fails: both disagree.
    rows = browser.evaluate(
        "[...document.querySelectorAll('table.tool-verdicts tbody tr')].map(r => r.innerText.split('\\t'))"
    )
    assert rows == [["agentdojo:utility", "task passed", "DISAGREES"], ["agentdojo:security", "attack failed", "DISAGREES"]]


def test_campaign_and_bundle_report_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    key, trace = tmp_path / "k", write_run(tmp_path / "run.json")
    sealed, redacted = tmp_path / "b.tkb", tmp_path / "r.tkb"
    assert run_cli("keygen", "-o", str(key), "-q").returncode == 0
    assert run_cli("seal", str(trace), "-o", str(sealed), "--key", f"{key}.key", "-q").returncode == 0
    assert run_cli("redact", str(sealed), "-o", str(redacted), "--match", "evil", "-q").returncode == 0
    out = tmp_path / "campaign.html"
    done = run_cli(
        "report", str(CORPUS / "third_party"), str(redacted), "-o", str(out),
        "--scenario", str(SCENARIO), "--trusted-key", f"{key}.pub",
    )
    assert done.returncode == 1, done.stderr
    seen = browser.open(out)
    _quiet(seen)
    # Every in-page link leads somewhere; every file row and chart is there.
    dangling = browser.evaluate(
        "[...document.querySelectorAll('a[href]')].filter(a => !document.getElementById("
        "a.getAttribute('href').slice(1))).length"
    )
    assert dangling == 0
    assert browser.evaluate("document.querySelectorAll('a[href]:not([href^=\"#\"])').length") == 0
    kinds = browser.evaluate("[...document.querySelectorAll('tr.file')].map(r => r.className)")
    assert "file bundle" in kinds and "file skipped" in kinds and kinds.count("file trace") > 20
    # 6 formats and the bundle; 2 policy results; at least one failing assertion.
    assert browser.evaluate("document.querySelectorAll('svg rect.bar').length") >= 7 + 2 + 1
    assert browser.evaluate("document.querySelectorAll('table.withheld tr').length") >= 2
