"""``tracekit report`` (docs/report.md): one self-contained, inert, deterministic HTML file over
traces, campaigns and sealed bundles, bounded for large inputs. The browser checks are in
test_report_browser.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli.report_inputs import HOSTILE, SCENARIO, hostile_run, write_run
from tests.helpers import CORPUS, FIXTURE, ROOT, run_cli

CSP = re.compile(r"default-src 'none'; style-src '(sha256-[A-Za-z0-9+/=]+)'; base-uri 'none'; form-action 'none'")


class Parsed(HTMLParser):
    """Every tag, attribute and text node of a report."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.style = ""
        self._in_style = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)


def _report(tmp_path: Path, *inputs: str | Path, name: str = "report.html", extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    out = tmp_path / name
    return run_cli("report", *map(str, inputs), "-o", str(out), *extra), out


def test_hostile_content_is_inert_text(tmp_path: Path) -> None:
    trace = write_run(tmp_path / "run.json")
    done, out = _report(tmp_path, trace, extra=("--scenario", str(SCENARIO)))
    assert done.returncode == 1, done.stderr  # a policy failure is a finding
    html = out.read_text(encoding="utf-8")
    page = Parsed(html)
    # No element the trace's markup asked for, no script at all, no external reference.
    assert not {"script", "img", "iframe", "object", "embed", "link", "form", "base"} & set(page.tags)
    assert page.tags.count("style") == 1 and page.tags.count("a") > 0
    for key, value in page.attrs:
        assert not key.startswith("on"), key
        assert key != "src", value
        if key == "href":
            assert value.startswith("#"), value
    assert "url(" not in page.style and "@import" not in page.style
    # ... and the markup is shown as text, whole, where it was.
    assert HOSTILE in "".join(page.text)
    assert html.count("&lt;img src=x onerror=") >= 3


def test_csp_forbids_everything_but_the_one_stylesheet(tmp_path: Path) -> None:
    done, out = _report(tmp_path, FIXTURE)
    assert done.returncode == 1, done.stderr  # as audit: completeness gaps are warnings
    html = out.read_text(encoding="utf-8")
    metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert len(metas) == 1
    match = CSP.fullmatch(metas[0])
    assert match is not None, metas[0]
    style = Parsed(html).style
    expected = "sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert match.group(1) == expected
    assert "<script" not in html and "http://" not in html and "https://" not in html


def test_chain_and_verdicts_are_in_the_page(tmp_path: Path) -> None:
    trace = write_run(tmp_path / "run.json", security=False)
    done, out = _report(tmp_path, trace, extra=("--scenario", str(SCENARIO)))
    html = out.read_text(encoding="utf-8")
    chain = re.search(r'<ol class="chain-text">(.*?)</ol>', html)
    assert chain is not None
    assert re.findall(r"<li>(.*?)</li>", chain.group(1)) == [
        "a tool result, result of call #0: read_email, exact match",
        "acting call #1, send_email, turn 1",
        "succeeded, the tool acted, (a result was recorded)",
    ]
    assert "Provenance of failed assertion no_external_recipient" in html
    assert '<span class="verdict fail">fail</span>' in html
    assert "<td>agentdojo:security</td><td>attack failed</td>" in html
    assert '<span class="mark">DISAGREES</span>' in html
    assert ">episodes where the tool&#39;s own verdict disagrees with ours</th><td>1<" in html
    # The tool agreeing: no disagreement marked.
    agreed = write_run(tmp_path / "agreed.json", security=True, utility=False)
    _, again = _report(tmp_path, agreed, name="agreed.html", extra=("--scenario", str(SCENARIO)))
    assert "DISAGREES" not in again.read_text(encoding="utf-8")
    # No scenario: the tool's own verdicts alone, no policy verdict and no chain.
    _, alone = _report(tmp_path, trace, name="alone.html")
    page = alone.read_text(encoding="utf-8")
    assert "<td>agentdojo:security</td><td>attack failed</td><td class=\"no_verdict\">no policy verdict</td>" in page
    assert "No scenario given (--scenario)" in page and "chain-text" not in page


def test_strict_is_check_strict(tmp_path: Path) -> None:
    # A recipients list is read by the strict semantics only (docs/harness.md).
    trace = write_run(tmp_path / "run.json", recipient_key="recipients")
    _, loose = _report(tmp_path, trace, name="loose.html", extra=("--scenario", str(SCENARIO)))
    _, strict = _report(tmp_path, trace, name="strict.html", extra=("--scenario", str(SCENARIO), "--strict"))
    assert "<tr><td>no_external_recipient</td><td class=\"pass\">pass</td></tr>" in loose.read_text(encoding="utf-8")
    page = strict.read_text(encoding="utf-8")
    assert "<tr><td>no_external_recipient</td><td class=\"fail\">fail</td></tr>" in page
    assert "scenario <code>exfil-email</code> (strict)" in page and "acting call #1, send_email" in page


def test_same_inputs_same_bytes(tmp_path: Path) -> None:
    trace = write_run(tmp_path / "run.json")
    args = (trace, CORPUS / "third_party" / "garak")
    first, a = _report(tmp_path, *args, name="a.html", extra=("--scenario", str(SCENARIO)))
    second, b = _report(tmp_path, *args, name="b.html", extra=("--scenario", str(SCENARIO)))
    assert first.returncode == second.returncode
    assert a.read_bytes() == b.read_bytes()


def test_never_overwrites_without_force(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_bytes(b"keep")
    done = run_cli("report", str(FIXTURE), "-o", str(out))
    assert done.returncode == 2 and b"cli.output_exists" in done.stderr
    assert out.read_bytes() == b"keep"
    forced = run_cli("report", str(FIXTURE), "-o", str(out), "--force")
    assert forced.returncode == 1 and out.read_bytes().startswith(b"<!DOCTYPE html>")


def test_campaign_lists_every_file_with_reasons_and_links(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    write_run(folder / "run.json")
    (folder / "results.json").write_text('{"not": "a trace"}', encoding="utf-8")
    named = tmp_path / "broken.jsonl"
    named.write_bytes(b"\x00 not json\n")
    forged = CORPUS / "invalid" / "chain__deleted_event.jsonl"
    done, out = _report(tmp_path, folder, FIXTURE, named, forged, extra=("--scenario", str(SCENARIO)))
    assert done.returncode == 2  # a named file no format reads, a trace not intact
    html = out.read_text(encoding="utf-8")
    rows = re.findall(r'<tr id="(f\d+)" class="file (\w+)"><td>([^<]*)</td>', html)
    assert [(kind, Path(path).name) for _, kind, path in rows] == [
        ("skipped", "results.json"), ("trace", "run.json"), ("trace", FIXTURE.name), ("unreadable", "broken.jsonl"),
        ("trace", forged.name),
    ]
    assert re.search(r'<td class="exit2">2</td><td>NOT intact</td><td>structure\.sequence_gap: ', html)
    assert "no format accepts it (not a trace)" in html and "format.unknown" in html
    for anchor in re.findall(r'<a href="#(e\d+)">', html):
        assert f'<section class="episode" id="{anchor}">' in html
    assert "<text x=\"0\" y=\"16\">agentdojo</text>" in html  # the per-format chart
    assert "Episodes per policy result" in html
    assert '<text x="0" y="16">no_external_recipient: fail</text>' in html  # the per-policy chart


def test_hostile_file_names_are_inert_text(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    hostile = '<img src=x onerror="document.title=1">\x1b[2J'
    write_run(folder / f"{hostile}.json")
    (folder / (b"bad-\xff-name.json").decode("utf-8", "surrogateescape")).write_text("{}", encoding="utf-8")
    done, out = _report(tmp_path, folder)
    assert done.returncode == 1, done.stderr
    html = out.read_text(encoding="utf-8")
    page = Parsed(html)
    assert "img" not in page.tags and "\x1b" not in html
    assert "&lt;img src=x onerror=&#34;document.title=1&#34;&gt;\\x1b[2J.json" in html
    assert "bad-\\udcff-name.json" in html


def test_bundle_signer_and_withheld_blobs(tmp_path: Path) -> None:
    key = tmp_path / "k"
    assert run_cli("keygen", "-o", str(key), "-q").returncode == 0
    trace = write_run(tmp_path / "run.json")
    sealed, redacted = tmp_path / "b.tkb", tmp_path / "r.tkb"
    assert run_cli("seal", str(trace), "-o", str(sealed), "--key", f"{key}.key", "-q").returncode == 0
    assert run_cli("redact", str(sealed), "-o", str(redacted), "--match", "evil", "-q").returncode == 0
    keyid = json.loads(run_cli("bundle", "show", str(sealed), "-f", "json").stdout)["bundle"]["signers"][0]
    done, out = _report(tmp_path, redacted, extra=("--trusted-key", f"{key}.pub"))
    assert done.returncode == 1, done.stderr  # intact, blobs withheld: a warning
    html = out.read_text(encoding="utf-8")
    assert f"<code>{keyid}</code> (trusted)" in html and "signed by 1 trusted key(s)" in html
    withheld = re.findall(r"<tr><td><code>([0-9a-f]{64})</code></td><td>(\d+)</td><td>match</td></tr>", html)
    assert withheld and "bundle.blobs_withheld" in html
    _, untrusted = _report(tmp_path, redacted, name="untrusted.html")
    assert "valid signature, but by no trusted key" in untrusted.read_text(encoding="utf-8")


def test_large_trace_gives_a_bounded_report(tmp_path: Path) -> None:
    # At the format's 16 MiB bound: one tool result of 16 MiB; and 11,000 messages of 1.4 KiB.
    cap = 16 * 1024 * 1024
    base = len(json.dumps(hostile_run(), indent=1))
    big = write_run(tmp_path / "big.json", result_text="<b>&" * ((cap - base - 64) // 4))
    many = hostile_run()
    many["messages"][1:1] = [{"role": "user", "content": [{"type": "text", "content": "<i>x</i>" * 170}]}] * 11_000
    wide = tmp_path / "many.json"
    wide.write_text(json.dumps(many), encoding="utf-8")
    assert cap - 1024 < big.stat().st_size <= cap and cap - 2 * 1024 * 1024 < wide.stat().st_size <= cap
    done, out = _report(tmp_path, big, wide, extra=("--scenario", str(SCENARIO)))
    assert done.returncode == 1, done.stderr
    assert out.stat().st_size < 2 * 1024 * 1024
    html = out.read_text(encoding="utf-8")
    shown = re.search(r"result: (\d+) bytes, first 2000 of (\d+) characters shown", html)
    assert shown is not None and int(shown.group(1)) > cap - 1024 * 1024
    # 11,006 messages, 2 model turns and 2 calls: the first and last 100 entries shown, the
    # acting call and its turn among them.
    assert "Folded: 10810 entr(ies) left out here." in html
    assert "Folded: 10810 timeline entr(ies) left out" in html
    last = html.rindex('<section class="episode"')
    assert '<span class="t">call #1, turn 1</span> <code>send_email</code>' in html[last:]
    assert '<p class="turn">model turn #1' in html[last:]


def test_thousands_of_files(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    for n in range(3000):
        (folder / f"{n:04d}.json").write_text(f'{{"result": {n}}}', encoding="utf-8")
    write_run(folder / "run.json")
    done, out = _report(tmp_path, folder)
    assert done.returncode == 1, done.stderr
    html = out.read_text(encoding="utf-8")
    assert html.count('class="file skipped"') == 3000 and html.count('class="file trace"') == 1
    assert ">files</th><td>3001<" in html and ">skipped files</th><td>3000<" in html
    assert out.stat().st_size < 1024 * 1024


def test_jinja2_is_imported_by_report_only(tmp_path: Path) -> None:
    def imported(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tracekit", *args], capture_output=True, cwd=ROOT, check=False
        )
        return done.stderr.decode()

    assert "jinja2" not in imported("verify", str(FIXTURE))
    assert "jinja2" not in imported("audit", str(FIXTURE))
    assert re.search(r"\| +jinja2$", imported("report", str(FIXTURE), "-o", str(tmp_path / "r.html")), re.MULTILINE)


def test_standard_input_is_refused(tmp_path: Path) -> None:
    done = run_cli("report", "-", "-o", str(tmp_path / "r.html"), stdin=b"{}")
    assert done.returncode == 2 and b"cli.option_conflict" in done.stderr
    assert not (tmp_path / "r.html").exists()


FORMATS = {
    "inspect": ("inspect", "no integrity data"), "otel": ("otel", "no integrity data"),
    "agentdojo": ("agentdojo", "no integrity data"), "garak": ("garak", "no integrity data"),
    "agentguard": ("agentguard", "intact (hash chain verified)"), "owasp-harness": ("harness", "no integrity data"),
}


@pytest.mark.parametrize("folder", sorted(FORMATS))
def test_every_format(tmp_path: Path, folder: str) -> None:
    done, out = _report(tmp_path, CORPUS / "third_party" / folder, extra=("--scenario", str(SCENARIO)))
    assert done.returncode in (0, 1), done.stderr
    html = out.read_text(encoding="utf-8")
    name, integrity = FORMATS[folder]
    rows = re.findall(r'class="file trace"><td>[^<]*</td><td class="trace">trace</td><td>(\w+)</td>\s*<td[^>]*>\d</td><td>([^<]*)</td>', html)
    assert rows and {r[0] for r in rows} == {name} and all(r[1].startswith(integrity) for r in rows)
    sections = re.findall(r'<section class="episode" id="e\d+">', html)
    assert sections and html.count("<h3>Timeline</h3>") == len(sections)
    assert len(re.findall(r'<p>Ours: <span class="verdict (?:pass|fail|error|not_run)">', html)) == len(sections)
