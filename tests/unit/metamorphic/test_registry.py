"""The transform registry, walked member by member (docs/development.md, "Registries")."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.helpers import ROOT
from tracekit.judging.metamorphic import BY_NAME, NAMES, REGISTRY, Klass, Transform, select
from tracekit.judging.metamorphic.base import CLASS_OF_RELATION, RelationKind
from tracekit.judging.replay.checks import BY_ID
from tracekit.kernel.errors import Code, TracekitError

UPSTREAM = (
    "timestamp_variation",
    "check_message_variation",
    "check_evidence_order",
    "add_test_file",
    "add_secret_file",
    "add_unsafe_command",
    "increase_diff_size",
    "change_test_exit",
    "alter_policy_threshold",
    "invalid_duplicate_sequence",
)
"""docs/metamorphic.md, "Transforms": upstream's ten, in upstream's DEFAULT_TRANSFORMS order."""
UPSTREAM_CLASSES = {name: "preserving" for name in UPSTREAM[:3]} | {
    name: "changing" for name in UPSTREAM[3:9]
} | {"invalid_duplicate_sequence": "invalid"}


def test_upstream_ten_come_first_in_upstream_order_with_their_classes() -> None:
    assert NAMES[: len(UPSTREAM)] == UPSTREAM
    for name in UPSTREAM:
        assert BY_NAME[name].upstream
        assert BY_NAME[name].klass.value == UPSTREAM_CLASSES[name]


def test_at_least_four_transforms_of_our_own_covering_every_class() -> None:
    own = [t for t in REGISTRY if not t.upstream]
    assert len(own) >= 4
    assert {t.klass for t in own} == set(Klass)


@pytest.mark.parametrize("transform", REGISTRY, ids=lambda t: t.name)
def test_every_member_is_well_formed(transform: Transform) -> None:
    t = BY_NAME[transform.name]
    assert t is transform
    assert re.fullmatch(r"[a-z][a-z_]+", t.name)
    module = importlib.import_module(f"tracekit.judging.metamorphic.transforms.{t.name}")
    assert module.TRANSFORM is t, "one module per transform, named after it"
    assert CLASS_OF_RELATION[t.relation.kind] is t.klass
    assert all(check in BY_ID for check in t.relation.checks)
    needs_checks = t.relation.kind in (RelationKind.CHECK_FAILS, RelationKind.CHECK_PASSES)
    assert bool(t.relation.checks) == needs_checks
    assert t.summary.endswith(".") and t.relation.describe()


def test_names_are_unique() -> None:
    assert len(NAMES) == len(set(NAMES)) == len(REGISTRY)


def test_select_defaults_to_every_transform_in_registry_order() -> None:
    assert select(None) == NAMES
    assert select([]) == NAMES
    assert select([" , "]) == NAMES


def test_select_keeps_the_order_given_and_splits_commas() -> None:
    assert select(["add_test_file, timestamp_variation", "change_test_exit"]) == (
        "add_test_file",
        "timestamp_variation",
        "change_test_exit",
    )


@pytest.mark.parametrize(
    ("values", "code"),
    [
        (["timestamp_variation,CANARY-transform"], Code.METAMORPHIC_UNKNOWN_TRANSFORM),
        (["add_test_file", "add_test_file"], Code.METAMORPHIC_DUPLICATE_TRANSFORM),
        (["add_test_file,add_test_file"], Code.METAMORPHIC_DUPLICATE_TRANSFORM),
    ],
)
def test_select_rejects_unknown_and_duplicate_names_without_echo(values: list[str], code: Code) -> None:
    with pytest.raises(TracekitError) as raised:
        select(values)
    assert raised.value.finding.code is code
    assert "CANARY" not in raised.value.finding.message
    assert "add_test_file" not in raised.value.finding.message


def test_docs_list_every_transform_with_class_and_relation() -> None:
    text = (ROOT / "docs" / "metamorphic.md").read_text(encoding="utf-8")
    for t in REGISTRY:
        row = next((line for line in text.splitlines() if line.startswith(f"| `{t.name}` |")), None)
        assert row is not None, t.name
        assert f"| {t.klass.value} |" in row and t.relation.describe() in row, t.name
