"""``--debug FILE`` (docs/cli.md, "Debug reports"): an internal error writes its stack to FILE,
never the exception's message, locals or arguments."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tracekit.cli import app, debug


def _crash(*_args: object, **_kwargs: object) -> object:
    def command(**_kw: object) -> None:
        raise RuntimeError("canary-secret-value /home/alice/trace.jsonl")

    return command


def test_an_internal_error_writes_a_debug_report_without_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "debug.txt"
    monkeypatch.setattr(sys, "argv", ["tracekit", "verify", "canary-argument.jsonl", "--debug", str(target)])
    monkeypatch.setattr(app, "build", _crash)
    debug._TARGET.clear()
    with pytest.raises(SystemExit) as raised:
        app.main()
    assert raised.value.code == 2
    text = target.read_text(encoding="utf-8")
    assert "command tracekit verify" in text and "exception builtins.RuntimeError" in text
    assert "test_debug.py" in text and " in command" in text
    assert "canary" not in text and "alice" not in text
    err = capsys.readouterr().err
    assert "internal.error" in err and "--debug report was written" in err and "canary" not in err


def test_the_option_is_taken_anywhere_and_an_existing_file_is_kept(tmp_path: Path) -> None:
    debug._TARGET.clear()
    assert debug.take_option(["verify", "--debug=x.txt", "t.jsonl"]) == ["verify", "t.jsonl"]
    assert [Path("x.txt")] == debug._TARGET
    existing = tmp_path / "old.txt"
    existing.write_text("keep", encoding="utf-8")
    debug._TARGET[:] = [existing]
    with pytest.raises(BaseException):  # noqa: B017 - the sink refuses with cli.output_exists
        debug.write_report(RuntimeError("x"), "tracekit verify")
    assert existing.read_text(encoding="utf-8") == "keep"
    debug._TARGET.clear()
