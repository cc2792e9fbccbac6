"""``add_secret_file`` (changing, upstream): a new file on a secret or forbidden path.

Upstream adds ``secrets/metamorphic_<trial>.key``. tracekit keeps that path when it matches the
snapshot's ``secret_patterns`` or ``forbidden_paths`` (of the enabled checks), else instantiates
one of those patterns; with no usable pattern the case is not applicable. Expected:
``secret-scan`` or ``forbidden-paths`` fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, Relation, RelationKind
from tracekit.judging.metamorphic.edits import add_matching_file, clone, enabled_patterns, snapshot
from tracekit.judging.metamorphic.transforms.add_test_file import stem

PATTERN_KEYS = {"secret-scan": "secret_patterns", "forbidden-paths": "forbidden_paths"}


RELATION = Relation(RelationKind.CHECK_FAILS, ("secret-scan", "forbidden-paths"))


@dataclass(frozen=True, slots=True)
class AddSecretFile:
    name: str = "add_secret_file"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Adds a new file on a path the secret or forbidden-path patterns cover."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        patterns = enabled_patterns(snapshot(out), PATTERN_KEYS)
        name = stem(trial, seed)
        add_matching_file(out, f"secrets/{name}.key", patterns, name)
        return out


TRANSFORM = AddSecretFile()
