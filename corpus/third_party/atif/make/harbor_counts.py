"""Count the ATIF trajectories of the corpus with Harbor's own model (docs/formats.md, "ATIF").

Run with the Python (3.12 or later) of a throwaway venv holding Harbor's ``harbor`` package and
pydantic (never a tracekit dependency; the trajectory model needs nothing else):

    /tmp/harbor-venv/bin/python make/harbor_counts.py > make/harbor_counts.expected.json

Per file: what ``harbor.utils.trajectory_validator.TrajectoryValidator`` says of it, and the counts
of the ``harbor.models.trajectories.Trajectory`` it parses into (steps by source, copied-context
agent steps, tool calls, observation results, results whose ``source_call_id`` names a call of
the same step, the agent's name, version, model and tool definitions).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator

PUBLIC = Path(__file__).resolve().parent.parent / "public"


def _results(trajectory: Trajectory) -> dict[str, int]:
    total = with_id = paired = 0
    for step in trajectory.steps:
        calls = {c.tool_call_id for c in step.tool_calls or []}
        for result in step.observation.results if step.observation else []:
            total += 1
            with_id += result.source_call_id is not None
            paired += result.source_call_id in calls
    return {"observation_results": total, "results_with_source_call_id": with_id, "results_paired_in_step": paired}


def count(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    validator = TrajectoryValidator()
    valid = validator.validate(json.loads(text))
    trajectory = Trajectory.model_validate_json(text)
    agent_steps = [s for s in trajectory.steps if s.source == "agent"]
    definitions = trajectory.agent.tool_definitions
    return {
        "harbor_validator": {"valid": bool(valid), "errors": len(validator.get_errors())},
        "schema_version": trajectory.schema_version,
        "steps_by_source": dict(sorted(Counter(s.source for s in trajectory.steps).items())),
        "agent_steps_copied_context": sum(bool(s.is_copied_context) for s in agent_steps),
        "agent_steps_own": sum(not s.is_copied_context for s in agent_steps),
        "tool_calls": sum(len(s.tool_calls or []) for s in trajectory.steps),
        **_results(trajectory),
        "agent_name": trajectory.agent.name,
        "agent_version": trajectory.agent.version,
        "agent_model_name": trajectory.agent.model_name,
        "tool_definitions": None if definitions is None else len(definitions),
        "subagent_trajectories": len(trajectory.subagent_trajectories or []),
        "continued_trajectory_ref": trajectory.continued_trajectory_ref is not None,
    }


def main() -> None:
    files = sorted(PUBLIC.glob("*.json"))
    counts = {p.name: count(p) for p in files if p.name != "counts.expected.json"}
    note = {"harbor": version("harbor"), "pydantic": version("pydantic"), "python": sys.version.split()[0],
            "script": "corpus/third_party/atif/make/harbor_counts.py"}  # fmt: skip
    json.dump({"made_with": note, "files": counts}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
