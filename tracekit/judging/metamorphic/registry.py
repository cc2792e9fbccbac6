"""The transform registry: upstream's ten transforms in upstream's order, then tracekit's own.

Registry order is the default selection order and the order reports list transforms in; it is
also part of the study id (study.py), so it never changes for existing names. Tests walk
:data:`REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Iterable

from tracekit.judging.metamorphic.base import Transform
from tracekit.judging.metamorphic.transforms import (
    add_secret_file,
    add_test_file,
    add_unsafe_command,
    alter_policy_threshold,
    canonical_reencoding,
    change_test_exit,
    check_evidence_order,
    check_message_variation,
    increase_diff_size,
    invalid_dropped_event,
    invalid_duplicate_file_change,
    invalid_duplicate_sequence,
    remove_forbidden_change,
    reorder_agent_commands,
    timestamp_variation,
)
from tracekit.kernel.errors import Code, TracekitError, finding

REGISTRY: tuple[Transform, ...] = (
    timestamp_variation.TRANSFORM,
    check_message_variation.TRANSFORM,
    check_evidence_order.TRANSFORM,
    add_test_file.TRANSFORM,
    add_secret_file.TRANSFORM,
    add_unsafe_command.TRANSFORM,
    increase_diff_size.TRANSFORM,
    change_test_exit.TRANSFORM,
    alter_policy_threshold.TRANSFORM,
    invalid_duplicate_sequence.TRANSFORM,
    reorder_agent_commands.TRANSFORM,
    canonical_reencoding.TRANSFORM,
    remove_forbidden_change.TRANSFORM,
    invalid_dropped_event.TRANSFORM,
    invalid_duplicate_file_change.TRANSFORM,
)
BY_NAME: dict[str, Transform] = {transform.name: transform for transform in REGISTRY}
NAMES: tuple[str, ...] = tuple(BY_NAME)


def select(values: Iterable[str] | None) -> tuple[str, ...]:
    """Parse ``--transform`` values (each may hold comma-separated names) into a selection.

    No values means every registered transform, in registry order; otherwise the names in the
    order given. Empty items are ignored, as upstream does. Raises :class:`TracekitError`
    (``metamorphic.unknown_transform`` or ``metamorphic.duplicate_transform``); the message never
    repeats the offending name.
    """
    selected: list[str] = []
    for raw in values or []:
        for item in raw.split(","):
            name = item.strip()
            if not name:
                continue
            if name not in BY_NAME:
                raise TracekitError(finding(Code.METAMORPHIC_UNKNOWN_TRANSFORM))
            if name in selected:
                raise TracekitError(finding(Code.METAMORPHIC_DUPLICATE_TRANSFORM))
            selected.append(name)
    return tuple(selected) if selected else NAMES
