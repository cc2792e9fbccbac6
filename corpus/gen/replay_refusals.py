"""Traces that verify but must not be replayed: each reason of docs/replay.md
"Replayability", plus tracekit's own (a content-based or incomplete secret scan it cannot
recompute, inconsistent evidence).

replayability exits 1 with the reason's code; replay exits 2 and writes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from gen import base
from gen.case import Case
from gen.replay_parts import FOLDER, C, case, checks, expect, trace
from tracekit.formats.agentguard.writer import write_trace

check, change = base.check, base.file_change


def refused(code: str) -> dict[str, object]:
    return expect(2, None, code)


def _policy() -> Iterator[Case]:
    yield case(
        "not_replayable__v1",
        base.clean_trace(1, "replay-v1"),
        refused("replay.not_replayable_v1"),
        "Schema v1 has no policy snapshot; defaults are never inferred.",
    )
    yield case(
        "not_replayable__redacted_inputs",
        trace(
            "redacted",
            snapshot={
                "unsafe_commands": ["rm -rf", "[REDACTED]"],
                "command_policy_patterns": ["rm -rf", "[REDACTED]"],
                "redacted_inputs": ["unsafe_commands"],
            },
        ),
        refused("replay.redacted_inputs"),
        "A pattern was redacted, so the policy cannot be rerun.",
    )
    yield case(
        "not_replayable__command_patterns_differ",
        trace(
            "patterns-differ",
            snapshot={"command_policy_patterns": ["rm -rf"]},
        ),
        refused("replay.command_patterns_differ"),
        "The command guard enforced other patterns.",
    )
    severities = dict(base.DEFAULT_SEVERITIES, **{"license-scan": "warning"})
    yield case(
        "not_replayable__unknown_check",
        trace(
            "unknown-check",
            snapshot={
                "enabled_checks": [*base.CHECK_IDS, "license-scan"],
                "severities": severities,
            },
            recorded=[*checks(), check("License scan", True, "warning", "No license issues.")],
        ),
        refused("replay.unknown_check"),
        "An enabled check tracekit does not know.",
    )
    missing = {k: v for k, v in base.DEFAULT_SEVERITIES.items() if k != "diff-size"}
    yield case(
        "not_replayable__missing_severity",
        trace("no-severity", snapshot={"severities": missing}),
        refused("replay.missing_severity"),
        "diff-size is enabled but has no severity.",
    )
    yield case(
        "not_replayable__score_weights_missing_info",
        trace(
            "weights-three",
            snapshot={"score_weights": {"critical": 50, "error": 30, "warning": 10}},
        ),
        refused("replay.score_weights"),
        "score_weights lacks the info key.",
    )
    yield case(
        "not_replayable__score_weights_by_check",
        trace(
            "weights-ids",
            snapshot={"score_weights": {"tests-passed": 20}},
        ),
        refused("replay.score_weights"),
        "score_weights keyed by check, like the upstream fixture.",
    )


def _truncation() -> Iterator[Case]:
    draft = trace("trunc-command")
    draft.events[2].payload["truncation"]["command"] = True
    yield case(
        "not_replayable__truncated_agent_command",
        draft,
        refused("replay.truncated_evidence"),
        "An agent command's text was cut: unsafe-command matching cannot be trusted.",
    )
    draft = trace("trunc-argv")
    draft.events[1].payload["truncation"]["argv"] = True
    yield case(
        "not_replayable__truncated_agent_argv",
        draft,
        refused("replay.truncated_evidence"),
        "Any truthy truncation flag counts, argv included.",
    )
    draft = trace("trunc-test")
    draft.events[5].payload["truncation"]["command"] = True
    yield case(
        "not_replayable__truncated_test_result",
        draft,
        refused("replay.truncated_evidence"),
        "The test command text was cut.",
    )
    draft = trace("trunc-check")
    draft.events[6].payload["truncation"]["evidence"] = True
    yield case(
        "not_replayable__truncated_check_result",
        draft,
        refused("replay.truncated_evidence"),
        "A recorded check's evidence was cut: it cannot be compared.",
    )
    draft = trace("trunc-files", completion={"truncated": True, "count": 2})
    draft.events[-1].payload["modified_files"]["paths"] = ["src/widget.py"]
    yield case(
        "not_replayable__truncated_modified_files",
        draft,
        refused("replay.truncated_modified_files"),
        "The completion's path list was cut.",
    )


def _secret_scan() -> Iterator[Case]:
    yield case(
        "not_replayable__content_based_secret_scan",
        trace(
            "content-scan",
            recorded=checks(
                Secret_scan=check(
                    "Secret scan",
                    True,
                    C,
                    "No path-based or content-based secret findings appeared in the diff.",
                )
            ),
        ),
        refused("replay.secret_scan_not_recomputable"),
        "Content patterns are not in the snapshot, so the scan cannot be recomputed.",
    )
    yield case(
        "not_replayable__forged_content_based_secret_scan",
        trace(
            "forged-scan",
            changes=[
                change("src/widget.py", added=4, deleted=2),
                change("src/certs/server.pem", "added", added=20, deleted=0),
            ],
            recorded=checks(
                Secret_scan=check(
                    "Secret scan",
                    True,
                    C,
                    "No path-based or content-based secret findings appeared in the diff.",
                )
            ),
        ),
        refused("replay.secret_scan_not_recomputable"),
        "A .pem file changed and the scan is forged as passed with a content-based message: "
        "upstream substitutes the recorded result and calls it exact; tracekit refuses.",
    )
    yield case(
        "not_replayable__secret_scan_incomplete",
        trace(
            "incomplete-scan",
            recorded=checks(
                Secret_scan=check(
                    "Secret scan",
                    False,
                    C,
                    "Secret-content scan was incomplete.",
                    ["Secret-content scan incomplete: required evidence unavailable."],
                )
            ),
            completion={"result": "FAIL", "score": 50, "failed": ["Secret scan"]},
        ),
        refused("replay.secret_scan_not_recomputable"),
        "An incomplete content scan cannot be replayed.",
    )


def _evidence() -> Iterator[Case]:
    draft = trace("inconsistent")
    draft.events[-1].payload["modified_files"].update(paths=["src/widget.py"], count=1)
    yield case(
        "not_replayable__file_changes_inconsistent",
        draft,
        refused("replay.inconsistent_file_changes"),
        "Two file_change events, but the completion lists one path.",
    )
    draft = trace("reordered-paths")
    draft.events[-1].payload["modified_files"]["paths"].reverse()
    yield case(
        "not_replayable__file_changes_reordered",
        draft,
        refused("replay.inconsistent_file_changes"),
        "The completion lists the same paths in another order (upstream requires equality).",
    )
    draft = trace("strict-sources")
    draft.header["source_artifacts"] = [
        {
            "path": "replay-strict-sources-manifest.json",
            "required": False,
            "role": "manifest",
            "sha256": hashlib.sha256(b"{}\n").hexdigest(),
        }
    ]
    yield Case(
        FOLDER,
        "not_replayable__strict_sources.jsonl",
        write_trace(draft),
        {
            "verify": {"exit": 0, "code": "source.unavailable"},
            "replayability": {"exit": 0, "code": None},
            "replayability --strict-sources": {"exit": 1, "code": "replay.strict_sources"},
            "replay": {"exit": 0, "equivalence": "exact"},
            "replay --strict-sources": {"exit": 2, "equivalence": None},
        },
        "An optional source is missing: replayable, unless --strict-sources is given.",
    )


def cases() -> Iterator[Case]:
    yield from _policy()
    yield from _truncation()
    yield from _secret_scan()
    yield from _evidence()
