"""docs/cli.md matches ``tracekit --help``: a section per command whose Options and Formats lines
list exactly what the command's ``--help`` shows."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT, run_cli

DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _listed_commands(*group: str) -> list[str]:
    text = run_cli(*group, "--help").stdout.decode()
    if "Commands:" not in text:
        return []
    listed = text.split("Commands:", 1)[1].split("\n\n", 1)[0]  # the epilog follows a blank line
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", listed, re.MULTILINE)]


def _commands() -> list[str]:
    """Every command, a group's sub-commands as ``group sub`` (``bundle show``, ``db diff``):
    each has its own section, the group itself none."""
    found: list[str] = []
    for name in _listed_commands():
        subs = _listed_commands(name)
        found += [f"{name} {sub}" for sub in subs] if subs else [name]
    return found


def _section(command: str) -> str:
    match = re.search(rf"^### tracekit {re.escape(command)}\n(.*?)(?=^##|\Z)", DOC, re.DOTALL | re.MULTILINE)
    assert match is not None, f"docs/cli.md has no section for {command}"
    return match.group(1)


def _listed(section: str, label: str) -> set[str]:
    line = re.search(rf"^- {label}: (.*)$", section, re.MULTILINE)
    assert line is not None, label
    return set(re.findall(r"`([^`]+)`", line.group(1)))


def _help(command: str) -> tuple[set[str], set[str]]:
    text = run_cli(*command.split(), "--help").stdout.decode().split("Options:", 1)[1]
    options = set(re.findall(r"^\s+(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", text, re.MULTILINE))
    formats = re.search(r"--format <([a-z|]+)>", text)
    return options, set(formats.group(1).split("|")) if formats else set()


def test_every_command_has_a_section() -> None:
    commands = _commands()
    assert {"verify", "show", "replay", "replayability", "audit", "check", "metamorphic"} <= set(commands)
    assert {"bundle show", "bundle extract", "bundle prove", "db summary", "db export"} <= set(commands)
    documented = re.findall(r"^### tracekit ([a-z][a-z -]*)$", DOC, re.MULTILINE)
    assert sorted(documented) == sorted(commands)


@pytest.mark.parametrize("command", _commands())
def test_section_matches_help(command: str) -> None:
    section = _section(command)
    options, formats = _help(command)
    assert _listed(section, "Options") == options
    assert _listed(section, "Formats") == formats
    for label in ("Inputs", "Output", "Exit codes"):
        assert f"- {label}:" in section
