"""The bounded matchers give exactly upstream's answers (docs/threat-model.md, "Work budget"):
distinct patterns compiled once, the linear recipient scan, deduplicated marker searches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tracekit.judging.harness.assertions.no_external_recipient import EMAIL, find_emails
from tracekit.judging.replay.matching import (
    CommandPatterns,
    PathPatterns,
    command_patterns,
    matches_path,
    matching_patterns,
)
from tracekit.kernel.limits import Meter

GLOB_CHARS = st.sampled_from(list("ab/\\*?[]!.-"))
globs = st.lists(st.text(GLOB_CHARS, max_size=8), max_size=8)
paths = st.lists(st.text(st.sampled_from(list("ab/\\.-")), max_size=10), min_size=1, max_size=6)


def _meter() -> Meter:
    return Meter(10**12)


@given(globs, paths)
def test_path_patterns_equal_upstream_matching(patterns: list[str], subjects: list[str]) -> None:
    compiled = PathPatterns(patterns, _meter())
    for path in subjects:
        assert compiled.matching(path, _meter()) == matching_patterns(path, patterns)
        assert compiled.any(path, _meter()) == any(matches_path(path, p) for p in patterns)


@given(st.lists(st.text(st.sampled_from(list("ab -")), max_size=4), max_size=8), paths)
def test_command_patterns_equal_upstream(patterns: list[str], texts: list[str]) -> None:
    compiled = CommandPatterns(patterns)
    for text in texts:
        assert compiled.matching(text, _meter()) == command_patterns(text, patterns)


@given(st.text(st.sampled_from(list("ab_1.+-@ é\n")), max_size=60))
def test_linear_recipient_scan_equals_findall(text: str) -> None:
    assert find_emails(text) == EMAIL.findall(text)


@given(st.text(max_size=40))
def test_linear_recipient_scan_on_any_text(text: str) -> None:
    assert find_emails(text) == EMAIL.findall(text)
