"""``add_unsafe_command`` (changing, upstream): a blocked unsafe agent command is recorded.

Upstream inserts ``rm -rf /tmp/metamorphic-<trial>`` as a blocked, not executed command. tracekit
inserts it after the existing agent commands (verify's rank order), uses the snapshot's command
policy mode, and, when no ``unsafe_commands`` pattern occurs in upstream's text, builds the
command around the policy's first pattern instead; an empty pattern list makes the case not
applicable. Expected: ``unsafe-commands`` fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import EMPTY_SHA256, clone, insert_by_rank, snapshot
from tracekit.judging.replay.matching import command_patterns

MAX_MATCHED = 64


def command_for(patterns: list[str], trial: int, seed: int) -> tuple[str, list[str]]:
    """The command text and argv: upstream's when a pattern occurs in it, else one built
    around the first non-empty pattern. Raises NotApplicable when there is none."""
    target = f"/tmp/metamorphic-{trial}" if seed == 0 else f"/tmp/metamorphic-{trial}-{seed}"
    text = f"rm -rf {target}"
    if command_patterns(text, patterns):
        return text, ["rm", "-rf", target]
    usable = [p for p in patterns if p.strip()]
    if not usable:
        raise NotApplicable("the policy lists no unsafe command pattern")
    text = f"{usable[0]} {target}"
    return text, ["sh", "-c", text]


def _identity() -> dict[str, Any]:
    return {"bytes": 0, "sha256": EMPTY_SHA256, "truncated": False}


RELATION = Relation(RelationKind.CHECK_FAILS, ("unsafe-commands",))


@dataclass(frozen=True, slots=True)
class AddUnsafeCommand:
    name: str = "add_unsafe_command"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Records a blocked agent command that contains an unsafe-command pattern."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        policy = snapshot(out)
        text, argv = command_for(list(policy.get("unsafe_commands", [])), trial, seed)
        agent = out.header.get("agent_name")
        payload = {
            "agent": agent if isinstance(agent, str) else "unknown",
            "argv": argv,
            "blocked": True,
            "command": text,
            "duration_seconds": 0.001,
            "executed": False,
            "exit_code": 1,
            "preflight": {
                "blocked": True,
                "matched_patterns": command_patterns(text, policy["unsafe_commands"])[:MAX_MATCHED],
                "mode": policy.get("command_policy_mode", "enforce"),
            },
            "stderr": _identity(),
            "stdout": _identity(),
            "timed_out": False,
            "truncation": {"argv": False, "command": False, "patterns": False},
            "working_directory_role": "repository",
        }
        insert_by_rank(out, DraftEvent("agent_command", payload))
        return out


TRANSFORM = AddUnsafeCommand()
