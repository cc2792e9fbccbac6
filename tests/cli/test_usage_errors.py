"""Usage errors the argument parser finds (a missing argument, an unknown option, a value of the
wrong type) come out in the one error style, exit 2, and escape what the user typed."""

from __future__ import annotations

import pytest

from tests.helpers import run_cli

MISSING = [
    ("verify",), ("show",), ("replay",), ("replayability",), ("audit",), ("metamorphic",), ("seal",),
    ("redact",), ("keygen",), ("bundle", "show"), ("bundle", "extract"), ("bundle", "prove"),
    ("db", "summary"), ("db", "diff"), ("db", "findings"), ("db", "export"),
]


@pytest.mark.parametrize("words", MISSING, ids=" ".join)
def test_missing_arguments_use_the_one_error_style(words: tuple[str, ...]) -> None:
    result = run_cli(*words)
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert lines[0].startswith("tracekit: error[cli.usage] ")
    assert lines[1] == f"Try 'tracekit {' '.join(words)} -h' for help."
    assert not any(line.startswith(("Error:", "Usage:")) for line in lines)


def test_a_bad_value_is_named_and_escaped() -> None:
    result = run_cli("verify", "--jobs", "\x1b[31mx", "corpus/valid")
    assert result.returncode == 2
    stderr = result.stderr.decode()
    assert stderr.startswith("tracekit: error[cli.usage] ") and "--jobs" in stderr
    assert "\x1b" not in stderr and "\\x1b" in stderr


def test_unknown_option() -> None:
    result = run_cli("audit", "--no-such-option", "corpus/valid")
    assert result.returncode == 2
    assert result.stderr.decode().startswith("tracekit: error[cli.usage] No such option")
