"""``redact --secrets``' detector (tracekit/bundle/credentials.py): calling detect-secrets'
plugins directly, and skipping the keyword detector on a text without a keyword, finds what its
ad-hoc ``scan_line`` finds; what the plugins may cost is charged before they run, so a text on
which a plugin's patterns take quadratic time is refused by the work budget, not scanned for
minutes (docs/threat-model.md, "Work budget")."""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.bundle.test_redact_secrets import SHAPES
from tracekit.bundle import credentials
from tracekit.kernel.limits import BudgetExceeded, Meter

NEAR_MISSES = [
    'password = "x"', "password: 'hunter2'", "pwd=`abc`", 'my_secret_key: "Zt7_Zt7_Zt7_Zt7_"',
    "https://user:pa55word@example.com/x", "https://example.com/a://b@c", "-----BEGIN RSA PRIVATE KEY-----",
    "xoxb-1234567890-abcdefghij", "ghp_" + "a1B2" * 9, "sk-" + "A1b2" * 12, "AKIA" + "Z" * 16,
    "eyJ" + "x" * 40, "1234567890:" + "a" * 35, '"' + "aB3" * 10 + '"', "Aa1" * 7, "f" * 64,
    "api_key='" + "q" * 30 + "'", "SECRET == \"value\"", "contraseña = \"abc\"", "npm_" + "a" * 36,
]


def _reference(text: str) -> bool:
    """What the detector decided before: the harness's patterns, then ``scan_line`` under our
    false-positive policy."""
    import re

    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    from tracekit.judging.harness.assertions.no_secret_disclosure import PATTERNS

    if any(re.search(p.pattern, text) for p in PATTERNS.values()):
        return True
    with transient_settings(credentials._settings()):
        return any(credentials._counts(s.type, s.secret_value) for s in scan_line(text))


def _holds(text: str) -> bool:
    return credentials.detector()([text], Meter(1 << 62).charge)


@pytest.mark.parametrize("text", [*SHAPES.values(), *NEAR_MISSES])
def test_the_direct_plugin_calls_decide_as_scan_line_does(text: str) -> None:
    assert _holds(text) == _reference(text)
    assert _holds(f"prefix {text} suffix") == _reference(f"prefix {text} suffix")


WORDS = ["password", "pwd", "api_key", "secret", "=", ":", '"', "'", "`", " ", "sk-", "AKIA", "://", "@",
         "hf_", "eyJ", "Zt7_", "a1B2c3D4e5F6g7H8i9J0", "x", "0", "-"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=24))
def test_generated_texts_are_decided_as_scan_line_decides(parts: list[str]) -> None:
    text = "".join(parts)
    assert _holds(text) == _reference(text)


def test_every_keyword_pattern_for_an_adhoc_line_needs_a_keyword() -> None:
    """The gate is sound: each pattern the keyword detector uses for an ad-hoc line holds the
    keyword group once, in sequence (not optional), and the gate matches the keywords in any
    case (one of those patterns is case-sensitive), so a text the gate passes over cannot
    match any of them."""
    import re

    from detect_secrets.plugins.keyword import (
        DENYLIST,
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        REGEX_BY_FILETYPE,
    )
    from detect_secrets.util.filetype import determine_file_type

    used = REGEX_BY_FILETYPE.get(determine_file_type(credentials.ADHOC), QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    group = "(" + "|".join(DENYLIST) + ")"
    assert used
    for pattern in used:
        assert pattern.pattern.count(group) == 1
        assert not re.search(re.escape(group) + r"(?:[?*]|\{0,)", pattern.pattern)


@pytest.mark.parametrize("unit", ["pwd_", "password", "api_key", "`pwd", "pwd=`x"])
def test_the_keyword_charge_grows_with_the_square_of_a_keyword_run(unit: str) -> None:
    import re

    from detect_secrets.plugins.keyword import DENYLIST

    keywords = re.compile("|".join(DENYLIST), re.IGNORECASE)
    small = credentials.keyword_cost(unit * 250, keywords)
    large = credentials.keyword_cost(unit * 1000, keywords)
    assert large > 12 * small


@pytest.mark.parametrize("unit", ["://a", "//", "/", "sk-", "eyJ"])
def test_the_scan_charge_grows_with_the_square_of_a_run_of_starts(unit: str) -> None:
    assert credentials.scan_cost(unit * 1000) > 12 * credentials.scan_cost(unit * 250)


def test_a_path_is_not_charged_as_a_run_of_starts() -> None:
    path = "/".join(["src", "tracekit", "bundle"] * 300)
    assert credentials.scan_cost(path) < 2 * credentials.scan_cost("x" * len(path))


def test_a_quadratic_text_is_refused_before_the_keyword_detector_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 64 KiB word of ``pwd_`` takes the keyword detector about 15 minutes; its charge is
    past the default budget, so the plugin never runs."""
    from detect_secrets.plugins.keyword import KeywordDetector

    from tracekit.kernel.limits import DEFAULT_BUDGET

    def refuse(*_args: object, **_kwargs: object) -> set[object]:
        raise AssertionError("the keyword detector ran on a text past the budget")

    monkeypatch.setattr(KeywordDetector, "analyze_line", refuse)
    holds = credentials.detector()
    with pytest.raises(BudgetExceeded):
        holds(["pwd_" * 16384], Meter(DEFAULT_BUDGET.redact_work).charge)


def test_realistic_texts_are_charged_within_a_small_factor_of_their_length() -> None:
    """The charges are not so pessimistic that ordinary text is refused: a JSON line of prose,
    ids, a URL and a keyword costs well under 200 units a character (about 1.8 us a character
    is what the plugins spend on it)."""
    rng = random.Random(7)
    words = ["the", "agent", "called", "read_file", "with", "path", "tests/test_x.py", "password", "ok"]
    line = '{"role": "tool", "content": "' + " ".join(rng.choice(words) for _ in range(300))
    line += ' https://example.com/a", "id": "' + base64.b64encode(rng.randbytes(48)).decode() + '"}'
    used = Meter(1 << 62)
    holds = credentials.detector()
    holds([line], used.charge)
    assert used.used < 200 * len(line)


def test_the_plugins_never_verify_under_settings_that_ask_them_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugins run under the process's settings; were those to hold detect-secrets'
    verification filter (a plugin would then ask a provider whether a key is live), the detector
    runs them under its own instead."""
    import detect_secrets.plugins.base as base
    from detect_secrets.settings import get_settings

    asked: list[object] = []

    def call(function: object, **_kwargs: object) -> object:  # how a plugin calls its verify
        asked.append(function)
        raise AssertionError("a plugin asked to verify a secret")

    holds = credentials.detector()
    monkeypatch.setattr(base, "call_function_with_arguments", call)
    monkeypatch.setitem(get_settings().filters, credentials.VERIFYING, {})
    assert holds([SHAPES["keyword"]], Meter(1 << 62).charge)  # not a harness shape: the plugins run
    assert asked == []
