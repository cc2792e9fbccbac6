"""The check registry: upstream's seven checks in registry order (docs/replay.md,
"The seven checks").

Registry order is the order checks run and are reported in; it is also the order upstream writes
``enabled_checks``. Each check is its own module; tests walk :data:`REGISTRY`.
"""

from __future__ import annotations

from tracekit.judging.replay.checks import (
    diff_size,
    forbidden_paths,
    scope_adherence,
    secret_scan,
    test_tampering,
    tests_passed,
    unsafe_commands,
)
from tracekit.judging.replay.checks.base import Check, Decision

REGISTRY: tuple[Check, ...] = (
    tests_passed.CHECK,
    forbidden_paths.CHECK,
    test_tampering.CHECK,
    unsafe_commands.CHECK,
    scope_adherence.CHECK,
    diff_size.CHECK,
    secret_scan.CHECK,
)
BY_ID: dict[str, Check] = {check.id: check for check in REGISTRY}
CHECK_IDS: tuple[str, ...] = tuple(BY_ID)
_BY_SPELLING: dict[str, str] = {
    **{check.id: check.id for check in REGISTRY},
    **{check.name: check.id for check in REGISTRY},
}


def resolve_name(name: str) -> str | None:
    """The check id a recorded name denotes, or None.

    A recorded name denotes a check when it is exactly its display name (what upstream writes,
    ``Tests passed``) or exactly its id (``tests-passed``, as some fixtures write). Other
    spellings are not guessed at.
    """
    return _BY_SPELLING.get(name)


__all__ = ["BY_ID", "CHECK_IDS", "REGISTRY", "Check", "Decision", "resolve_name"]
