"""Replayable cases: policy variants (weights, severities, enabled checks, v3) and recorded
verdicts that nearly (semantic) or do not (divergent) follow from the evidence, plus the
pairing rules (reordered records, names as ids, float scores) that must stay exact.

Recorded checks and completion summaries are written by hand (gen/replay_parts.py says why).
"""

from __future__ import annotations

from collections.abc import Iterator

from gen import base
from gen.case import Case
from gen.replay_parts import (
    DIVERGENT,
    EXACT,
    INFO,
    TESTS,
    TESTS_FAILED,
    C,
    E,
    W,
    case,
    checks,
    expect,
    trace,
)

check, change, command = base.check, base.file_change, base.command


def _policy_variants() -> Iterator[Case]:
    weights = {"critical": 40, "error": 25, "warning": 5, "info": 0}
    severities = dict(base.DEFAULT_SEVERITIES, **{"diff-size": E, "scope-adherence": INFO})
    yield case(
        "policy__custom_weights_and_severities",
        trace(
            "custom-weights",
            snapshot={"score_weights": weights, "severities": severities},
            changes=[
                change("src/widget.py", added=450, deleted=2),
                change("scripts/x.sh", "added", added=3, deleted=0),
            ],
            recorded=[
                *checks()[:4],
                check(
                    "Scope adherence",
                    False,
                    INFO,
                    "Changed files did not fully match the configured scope.",
                    ["Outside allowed paths: scripts/x.sh"],
                    weights,
                ),
                check(
                    "Diff size",
                    False,
                    E,
                    "Diff size exceeded configured limits.",
                    ["Added 453 lines; limit is 400."],
                    weights,
                ),
                checks()[6],
            ],
            completion={"result": "FAIL", "score": 75, "failed": ["Scope adherence", "Diff size"]},
        ),
        EXACT,
        "Snapshot weights (error 25) and severities (diff-size error, scope info) drive the score.",
    )
    enabled = [
        "tests-passed",
        "forbidden-paths",
        "test-tampering",
        "unsafe-commands",
        "scope-adherence",
    ]
    yield case(
        "policy__subset_enabled",
        trace(
            "subset",
            snapshot={"enabled_checks": enabled},
            changes=[
                change("src/widget.py", added=450, deleted=2),
                change("src/certs/dev.pem", "added", added=3, deleted=0),
            ],
            recorded=checks()[:5],
        ),
        EXACT,
        "Diff size and Secret scan are not enabled, so their violations do not count.",
    )
    timed_out = trace("timed-out")
    timed_out.events[5].payload.update(timed_out=True, functional_pass=False)
    yield case(
        "policy__tests_timed_out_exit_zero",
        timed_out,
        EXACT,
        "timed_out is ignored by Tests passed (exit code 0 passes), as upstream.",
    )
    yield case(
        "v3__contained_tests_failed",
        trace(
            "v3-failed",
            version=3,
            containment=True,
            test_exit=1,
            recorded=checks(Tests_passed=TESTS_FAILED),
            completion={"result": "FAIL", "score": 70, "failed": ["Tests passed"]},
        ),
        EXACT,
        "v3 with containment evidence: replays like v2; containment is carried, not scored.",
    )
    yield case(
        "v3__no_containment_clean",
        trace("v3-clean", version=3),
        EXACT,
        "v3 without a containment event: containment is reported as not recorded.",
    )


def _equivalence() -> Iterator[Case]:
    yield case(
        "equivalence__reordered_check_events",
        trace("reordered", recorded=checks()[::-1]),
        EXACT,
        "Check events in reverse order: tracekit pairs by name (upstream: divergent).",
    )
    ids = [
        check(i, True, s, e.payload["message"], e.payload["evidence"])
        for i, s, e in zip(base.CHECK_IDS, base.DEFAULT_SEVERITIES.values(), checks(), strict=True)
    ]
    ids[0] = check(
        "tests-passed", False, E, "Configured test command failed.", [f"{TESTS} exited 1"]
    )
    yield case(
        "equivalence__names_as_ids",
        trace(
            "ids",
            test_exit=1,
            recorded=ids,
            completion={"result": "FAIL", "score": 70, "failed": ["tests-passed"]},
        ),
        EXACT,
        "Check names recorded as ids (as the upstream fixture does) still pair.",
    )
    yield case(
        "equivalence__failed_checks_reordered",
        trace(
            "failed-order",
            test_exit=1,
            changes=[change("src/widget.py", added=430, deleted=2)],
            recorded=checks(
                Tests_passed=TESTS_FAILED,
                Diff_size=check(
                    "Diff size",
                    False,
                    W,
                    "Diff size exceeded configured limits.",
                    ["Added 430 lines; limit is 400."],
                ),
            ),
            completion={
                "result": "FAIL",
                "score": 60,
                "failed": ["Diff size", "Tests passed"],
                "warnings": ["Diff size"],
            },
        ),
        EXACT,
        "failed_checks in another order: compared as a set of checks.",
    )
    yield case(
        "equivalence__score_as_float",
        trace(
            "float-score",
            test_exit=1,
            recorded=checks(Tests_passed=TESTS_FAILED),
            completion={"result": "FAIL", "score": 70.0, "failed": ["Tests passed"]},
        ),
        EXACT,
        "A recorded score of 70.0 equals the recomputed 70.",
    )
    yield case(
        "equivalence__message_drift",
        trace(
            "drift",
            recorded=checks(
                Tests_passed=check(
                    "Tests passed", True, E, "All tests passed.", [f"{TESTS} exited 0"]
                )
            ),
        ),
        expect(
            1,
            "semantic",
            **{
                "replay --no-require-equivalence": {"exit": 0, "equivalence": "semantic"},
                "replay --allow-divergence": {"exit": 0, "equivalence": "semantic"},
            },
        ),
        "Only a message differs: semantic; exit 1 unless equivalence is not required.",
    )
    yield from _divergent()


def _divergent() -> Iterator[Case]:
    relaxed = expect(
        1, "divergent", **{"replay --allow-divergence": {"exit": 0, "equivalence": "divergent"}}
    )
    yield case(
        "equivalence__lying_score_and_result",
        trace(
            "lying-score",
            test_exit=1,
            recorded=checks(Tests_passed=TESTS_FAILED),
        ),
        relaxed,
        "Tests failed and the check says so, but the completion claims PASS at 100.",
    )
    yield case(
        "equivalence__lying_check_passed",
        trace(
            "lying-check",
            snapshot={"allowed_paths": ["src/**", ".github/**"]},
            changes=[
                change("src/widget.py", added=4, deleted=2),
                change(".github/workflows/ci.yml", added=1, deleted=1),
            ],
        ),
        DIVERGENT,
        "A forbidden workflow changed, yet every recorded check passed and the run PASSed.",
    )
    yield case(
        "equivalence__score_fractional",
        trace(
            "fraction",
            test_exit=1,
            recorded=checks(Tests_passed=TESTS_FAILED),
            completion={"result": "FAIL", "score": 70.5, "failed": ["Tests passed"]},
        ),
        DIVERGENT,
        "A score of 70.5 is not 70 (upstream truncates with int() and calls it equal).",
    )
    yield case(
        "equivalence__missing_check_record",
        trace("missing", recorded=checks()[:6]),
        DIVERGENT,
        "The Secret scan record is missing.",
    )
    yield case(
        "equivalence__duplicate_check_record",
        trace("duplicate", recorded=[*checks(), checks()[5]]),
        DIVERGENT,
        "Diff size is recorded twice.",
    )
    yield case(
        "equivalence__unregistered_check_record",
        trace(
            "unregistered",
            recorded=[*checks(), check("License scan", True, W, "No license issues.")],
        ),
        DIVERGENT,
        "A recorded check that no enabled check produces.",
    )
    wrong = check(
        "Tests passed", False, E, "Configured test command failed.", [f"{TESTS} exited 1"]
    )
    wrong.payload["score_contribution"] = -10
    yield case(
        "equivalence__wrong_score_contribution",
        trace(
            "contribution",
            test_exit=1,
            recorded=checks(Tests_passed=wrong),
            completion={"result": "FAIL", "score": 70, "failed": ["Tests passed"]},
        ),
        DIVERGENT,
        "A failed error check recorded as -10 instead of -30.",
    )
    yield case(
        "equivalence__evidence_reordered",
        trace(
            "evidence-order",
            changes=[change("src/keys/id_rsa.pem", "added", added=27, deleted=0)],
            recorded=checks(
                Secret_scan=check(
                    "Secret scan",
                    False,
                    C,
                    "Path-based secret pattern appeared in the diff.",
                    [
                        "src/keys/id_rsa.pem matched pattern *id_rsa*",
                        "src/keys/id_rsa.pem matched pattern *.pem",
                    ],
                )
            ),
            completion={"result": "FAIL", "score": 50, "failed": ["Secret scan"]},
        ),
        DIVERGENT,
        "Evidence lines in another order: evidence is compared in order, as upstream.",
    )
    yield case(
        "equivalence__wrong_severity",
        trace(
            "severity",
            test_exit=1,
            recorded=checks(
                Tests_passed=check(
                    "Tests passed",
                    False,
                    W,
                    "Configured test command failed.",
                    [f"{TESTS} exited 1"],
                )
            ),
            completion={"score": 90, "failed": ["Tests passed"], "warnings": ["Tests passed"]},
        ),
        DIVERGENT,
        "Tests passed recorded as a warning, and the run as PASS, against severity error.",
    )


def cases() -> Iterator[Case]:
    yield from _policy_variants()
    yield from _equivalence()
