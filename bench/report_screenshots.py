"""Screenshots of the reference HTML reports (``make report-screenshots``; docs/report.md):

* docs/img/report.png: the real Inspect AI log of corpus/third_party/inspect judged by the
  external-recipient scenario, scrolled to the first provenance chain;
* docs/img/report-overview.png: the overview of the whole third-party corpus as a campaign.

Each report is written with ``tracekit report`` and opened in headless Chromium over the
DevTools protocol (tests/browser/cdp.py), which also asserts the page stayed inert.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.cdp import CHROMIUM, Browser

SCENARIO = ROOT / "corpus" / "findings" / "exfil-email.yaml"
TRACEKIT = Path(sys.executable).parent / "tracekit"


def _report(out: Path, *inputs: str) -> None:
    """``tracekit report`` run in the repository, so the report shows paths as a user types them."""
    args = [str(TRACEKIT), "report", *inputs, "-o", str(out), "--scenario", str(SCENARIO), "--force", "-q"]
    done = subprocess.run(args, check=False, cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"tracekit report exited {done.returncode}")


def main() -> int:
    if CHROMIUM is None:
        print("chromium is not installed: no screenshots (apt-get install chromium)", file=sys.stderr)
        return 1
    images = ROOT / "docs" / "img"
    with tempfile.TemporaryDirectory() as tmp, Browser() as browser:
        one, campaign = Path(tmp) / "inspect.html", Path(tmp) / "campaign.html"
        _report(one, "corpus/third_party/inspect/tracekit_corpus.eval")
        _report(campaign, "corpus/third_party")
        for page, scroll, name in (
            (one, "document.querySelector('svg.chain').closest('section').scrollIntoView()", "report.png"),
            (campaign, "window.scrollTo(0, 0)", "report-overview.png"),
        ):
            seen = browser.open(page)
            assert not (seen.console or seen.exceptions or seen.requests or seen.csp_violations), seen
            browser.evaluate(scroll)
            browser.screenshot(images / name)
            print(f"wrote {images / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
