"""Building blocks for the replay corpus (gen/replay.py holds the cases).

Every recorded check_result and completion summary below is written BY HAND from upstream's check
semantics (docs/replay.md and upstream's checks/*.py messages): nothing here calls tracekit's
replay engine, so the corpus is an independent oracle for it. Each case says, per command, the
exit code, the equivalence (exact / semantic / divergent, or None when the trace is not
replayable) and the first replayability reason code.

Base policy (gen/base.py): allowed src/**, tests/**, docs/**; forbidden .github/**, secrets/**,
*.lock; test paths tests/**, **/test_*.py; unsafe "rm -rf", "curl ", "git push"; secret patterns
*.pem, **/.env, secrets/**, *id_rsa*; 1-5 files expected; limits 10 files, 400/400 lines;
weights critical 50, error 30, warning 10, info 0.
"""

from __future__ import annotations

from typing import Any

from gen import base
from gen.case import Case
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace, write_trace

FOLDER = "replay"
INTACT = {"exit": 0, "code": None}
TESTS = "python -m pytest -q"
C, E, W, INFO = "critical", "error", "warning", "info"
TESTS_FAILED = base.check(
    "Tests passed", False, E, "Configured test command failed.", [f"{TESTS} exited 1"]
)
"""The recorded Tests passed check of a run whose test command exited 1."""


# ------------------------------------------------------------------------------ building blocks


def checks(**failing: DraftEvent) -> list[DraftEvent]:
    """The seven recorded checks in registry order: passing, except those given by display name
    (keys use underscores: ``Tests_passed``)."""
    replaced = {name.replace("_", " "): event for name, event in failing.items()}
    return [replaced.get(e.payload["name"], e) for e in base.passing_checks()]


def trace(
    name: str,
    *,
    changes: list[DraftEvent] | None = None,
    extra_commands: list[DraftEvent] | None = None,
    test_exit: int = 0,
    recorded: list[DraftEvent] | None = None,
    completion: dict[str, Any] | None = None,
    snapshot: dict[str, Any] | None = None,
    version: int = 2,
    containment: bool = False,
) -> DraftTrace:
    """A trace from parts: the clean run's two commands, then ``extra_commands``; the given
    file changes (default: the clean run's two); the test result; the recorded checks; and a
    completion whose paths are the file-change paths in event order."""
    h = base.header(version, name)
    if version >= 2 and snapshot:
        h["policy_snapshot"].update(snapshot)
    if changes is None:
        changes = [
            base.file_change("src/widget.py", added=4, deleted=2),
            base.file_change("docs/widget.md", added=2, deleted=0),
        ]
    paths = [c.payload["path"] for c in changes]
    added = sum(c.payload["lines_added"] for c in changes)
    deleted = sum(c.payload["lines_deleted"] for c in changes)
    events = [base.started(h)]
    if containment:
        events.append(base.containment())
    events += [
        base.command(["cat", "src/widget.py"], stdout="def widget():\n    return 1\n"),
        base.command(["python", "tools/apply_patch.py", "fix.diff"], duration=0.5),
        *(extra_commands or []),
        *changes,
        base.test_result(TESTS, exit_code=test_exit),
        *(recorded if recorded is not None else checks()),
        base.completed(paths, **{"added": added, "deleted": deleted, **(completion or {})}),
    ]
    return DraftTrace(header=h, events=events)


def symlink(path: str, *, new: bool) -> DraftEvent:
    """A symlink file_change: ``new`` links have no old digest or mode (so they count as added)."""
    event = base.file_change(path, "symlink", added=1, deleted=0 if new else 1)
    event.payload.update(
        new_mode="120000",
        new_content_sha256=base.sha("widget.py"),
        symlink_target="widget.py",
        old_mode=None if new else "120000",
        old_content_sha256=None if new else base.sha("old-target"),
    )
    return event


def simulated(argv: list[str]) -> DraftEvent:
    """A command that was neither blocked nor executed (audit-mode simulation)."""
    event = base.command(argv, exit_code=None, duration=None)
    event.payload.update(executed=False, exit_code=None)
    return event


def expect(
    replay_exit: int, equivalence: str | None, reason: str | None = None, **extra: dict[str, Any]
) -> dict[str, Any]:
    return {
        "verify": INTACT,
        "replayability": {"exit": 0 if reason is None else 1, "code": reason},
        "replay": {"exit": replay_exit, "equivalence": equivalence},
        **extra,
    }


EXACT = expect(0, "exact")
DIVERGENT = expect(1, "divergent")


def case(name: str, draft: DraftTrace, expected: dict[str, Any], about: str) -> Case:
    return Case(FOLDER, f"{name}.jsonl", write_trace(draft), expected, about)
