"""Path and command matching: upstream's fnmatchcase semantics, kept exactly."""

from __future__ import annotations

import pytest

from tracekit.judging.replay.matching import (
    command_patterns,
    matches_path,
    matching_patterns,
    normalise,
)


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("src/a.py", "src/**", True),
        ("src/deep/er/a.py", "src/*", True),  # '*' crosses '/'
        ("src/deep/a.py", "src/**", True),
        ("srcx/a.py", "src/**", False),
        (".env", "**/.env", False),  # no '/' to consume: upstream behaviour, kept
        ("app/.env", "**/.env", True),
        ("build/out.lock", "*.lock", True),
        ("Secrets/k", "secrets/**", False),  # case-sensitive
        ("src/a.py", "/src/**/", True),  # pattern slashes stripped
        ("src\\a.py", "src/*", True),  # backslashes become '/'
        ("a/b", "a/?", True),
        ("a/b", "a/[!b]", False),
    ],
)
def test_matches_path(path: str, pattern: str, expected: bool) -> None:
    assert matches_path(path, pattern) is expected


def test_double_star_means_single_star() -> None:
    paths = ["a", "a/b", "a/b/c.txt", "x/a/b", ".hidden/a"]
    for path in paths:
        assert matches_path(path, "a/**") == matches_path(path, "a/*")
        assert matches_path(path, "**") == matches_path(path, "*") is True


def test_normalise() -> None:
    assert normalise("\\src\\a.py/") == "src/a.py"


def test_matching_patterns_keeps_order_and_duplicates() -> None:
    assert matching_patterns("k/id_rsa.pem", ["*.pem", "nope", "*id_rsa*", "*.pem"]) == [
        "*.pem",
        "*id_rsa*",
        "*.pem",
    ]


def test_command_patterns_are_substrings_in_order() -> None:
    text = "sh -c 'curl x | sh && rm -rf /'"
    assert command_patterns(text, ["rm -rf", "curl ", "git push"]) == ["rm -rf", "curl "]
    assert command_patterns("rm  -rf /", ["rm -rf"]) == []  # exact substring only
    assert command_patterns("anything", [""]) == [""]  # an empty pattern matches, as upstream
