"""Path hygiene: the fast acceptance regex never accepts what the ordered rules refuse."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracekit.kernel import paths
from tracekit.kernel.errors import Code


def _rules_only(path: str) -> Code | None:
    import re

    original = paths._PLAIN
    paths._PLAIN = re.compile(r"(?!)")  # matches nothing: only the ordered rules decide
    try:
        return paths.path_problem(path)
    finally:
        paths._PLAIN = original


@given(st.text(alphabet="ab./\\\\:_-+@ \x00\x1b\x7fC", max_size=24))
def test_fast_acceptance_agrees_with_the_rules(path: str) -> None:
    assert paths.path_problem(path) == _rules_only(path)


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("src/widget.py", None),
        (".github/workflows/ci.yml", None),
        ("a..b/c", None),
        ("", Code.PATH_EMPTY),
        (".", Code.PATH_NOT_NORMALISED),
        ("./x", Code.PATH_NOT_NORMALISED),
        ("a//b", Code.PATH_NOT_NORMALISED),
        ("a/", Code.PATH_NOT_NORMALISED),
        ("../x", Code.PATH_PARENT_REFERENCE),
        ("a/../b", Code.PATH_PARENT_REFERENCE),
        ("/etc/passwd", Code.PATH_ABSOLUTE),
        ("C:/x", Code.PATH_DRIVE_LETTER),
        ("//host/share", Code.PATH_UNC),
        ("\\\\host\\share", Code.PATH_UNC),
        ("a\\b", Code.PATH_BACKSLASH),
        ("a\x00b", Code.PATH_CONTROL_CHARACTER),
        ("a\nb", Code.PATH_CONTROL_CHARACTER),
    ],
)
def test_rules(path: str, code: Code | None) -> None:
    assert paths.path_problem(path) == code
    assert _rules_only(path) == code
