"""Fuzz targets: each takes bytes and returns an outcome, and must never raise.

A target's outcome is an exit code (0, 1 or 2) or, for library targets, the first finding code.
Any exception escaping a target is a bug: the drivers save the input into corpus/regressions/
with the outcome a correct tracekit must give (always "no exception"; for CLI targets an exit
code in 0..2 with no traceback and no echo of the canary).
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CANARY = "zqxfuzzcanary7731qxz"
Target = Callable[[bytes], str]
TARGETS: dict[str, Target] = {}


def target(name: str) -> Callable[[Target], Target]:
    def register(fn: Target) -> Target:
        TARGETS[name] = fn
        return fn

    return register


@target("loader")
def loader(data: bytes) -> str:
    from tracekit.formats.agentguard.loader import iter_lines
    from tracekit.kernel.errors import TracekitError
    from tracekit.kernel.limits import Limits

    try:
        count = sum(1 for _ in iter_lines(io.BytesIO(data), Limits(line_bytes=4096, total_bytes=65536, events=64)))  # type: ignore[arg-type]
    except TracekitError as error:
        return error.finding.code.value
    return f"lines:{count}"


@target("records")
def records(data: bytes) -> str:
    from tracekit.formats.agentguard.records import RecordProblem, decode_event, decode_header
    from tracekit.kernel.limits import DEFAULT_LIMITS

    line = data.split(b"\n", 1)[0]
    outcomes = []
    for decode in (
        lambda: decode_header(line, 1, DEFAULT_LIMITS),
        lambda: decode_event(line, 2, 2, "0" * 64, DEFAULT_LIMITS),
        lambda: decode_event(line, 2, 3, "0" * 64, DEFAULT_LIMITS),
    ):
        try:
            decode()
            outcomes.append("ok")
        except RecordProblem as problem:
            outcomes.append(problem.finding.code.value)
    return ",".join(outcomes)


@target("verify")
def verify(data: bytes) -> str:
    from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes

    report = verify_bytes(data, VerifyOptions(keep_events=True))
    assert report.exit_code in (0, 1, 2)
    return str(report.exit_code)


@target("replay")
def replay(data: bytes) -> str:
    from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
    from tracekit.judging.replay.engine import replay as run_replay

    report = verify_bytes(data, VerifyOptions(keep_events=True))
    if not report.intact:
        return "invalid"
    return str(run_replay(report).equivalence)


@target("harness_trace")
def harness_trace(data: bytes) -> str:
    from tracekit.formats.harness.trace import parse_trace
    from tracekit.kernel.errors import TracekitError

    try:
        parse_trace(data)
    except TracekitError as error:
        return error.finding.code.value
    return "ok"


@target("harness_scenario")
def harness_scenario(data: bytes) -> str:
    from tracekit.judging.harness.scenario import parse_scenario
    from tracekit.kernel.errors import TracekitError

    try:
        parse_scenario(data)
    except TracekitError as error:
        return error.finding.code.value
    return "ok"


@target("worst_case_shapes")
def worst_case_shapes(data: bytes) -> str:
    """The shapes of corpus/gen/worst.py at sizes drawn from the input's digest, each checked
    against its work budget (docs/threat-model.md, "Work budget"): evidence per check within
    its bound, pattern and marker meters never past theirs, the recipient scan equal to
    upstream's pattern, drafts split on "\n" only."""
    import hashlib
    import random

    rng = random.Random(hashlib.sha256(data).digest())
    shape = rng.randrange(5)
    if shape in (0, 1):
        return _replay_bomb(rng, shape)
    if shape == 2:
        return _recipient_scan(rng)
    if shape == 3:
        return _marker_scan(rng)
    from tracekit.formats.agentguard.writer import read_draft, write_trace

    trace = _worst().separator_trace()
    assert write_trace(read_draft(trace)).count(b"\n") == trace.count(b"\n")
    return "shape4:ok"


def _worst() -> Any:
    """corpus/gen/worst.py, the worst-case shapes within the limits."""
    import sys

    root = Path(__file__).resolve().parent.parent
    if str(root / "corpus") not in sys.path:
        sys.path.insert(0, str(root / "corpus"))
    from gen import worst

    return worst


def _replay_bomb(rng: Any, shape: int) -> str:
    from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
    from tracekit.judging.replay.engine import replay as run_replay
    from tracekit.kernel.errors import Code
    from tracekit.kernel.limits import WorkBudget

    worst = _worst()
    trace = (
        worst.evidence_bomb(rng.randint(1, 64), rng.randint(1, 4096), rng.randint(16, 4096))
        if shape == 0
        else worst.glob_bomb(rng.randint(1, 512), rng.randint(1, 512), rng.randint(8, 256))
    )
    budget = WorkBudget(
        evidence_lines=rng.randint(1, 4096),
        evidence_chars=rng.randint(1, 1 << 20),
        match_work=rng.randint(1, 1 << 28),
    )
    report = verify_bytes(trace, VerifyOptions(keep_events=True, check_sources=False))
    assert report.intact
    result = run_replay(report, budget=budget)
    reasons = [r.code for r in result.reasons]
    assert reasons in ([], [Code.REPLAY_WORK_BUDGET_EXCEEDED]), reasons
    for check in result.recomputed.checks if result.recomputed else ():
        chars = sum(len(line) for line in check.evidence)
        longest = max((len(line) for line in check.evidence), default=0)
        assert len(check.evidence) <= budget.evidence_lines + 1
        assert chars <= budget.evidence_chars + longest
    return f"shape{shape}:{reasons[0].value if reasons else result.equivalence}"


def _recipient_scan(rng: Any) -> str:
    from tracekit.judging.harness.assertions.no_external_recipient import EMAIL, find_emails

    alphabet = rng.choice(["a", "a@", "a.b@", "x@y.z ", "ab_1.+-@ é"])
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 2000)))
    assert find_emails(text) == EMAIL.findall(text)
    long = alphabet[0] * rng.randint(0, 1 << 20)
    return f"shape2:{len(find_emails(long))}"


def _marker_scan(rng: Any) -> str:
    from tracekit.judging.harness import leakscan
    from tracekit.kernel.limits import BudgetExceeded, Meter

    markers = [f"m{i}{'q' * rng.randint(0, 40)}" for i in range(rng.randint(1, 200))]
    texts = ["QUJD" * rng.randint(0, 4096) for _ in range(rng.randint(1, 8))]
    meter = Meter(rng.randint(1, 1 << 24))
    try:
        leakscan.find_forms(markers, texts, meter)
    except BudgetExceeded:
        return "shape3:over"
    assert meter.used <= meter.limit
    return "shape3:ok"


def _cli(args_for: Callable[[Path], list[str]], suffix: str) -> Target:
    def run(data: bytes) -> str:
        from typer.testing import CliRunner

        from tracekit.cli.app import app

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"input{suffix}"
            path.write_bytes(data)
            result = CliRunner().invoke(app, args_for(path))
        text = result.stdout + result.stderr
        assert result.exit_code in (0, 1, 2), f"exit {result.exit_code}"
        assert "Traceback" not in text
        assert CANARY not in text or result.exit_code != 2, "canary echoed"
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return str(result.exit_code)

    return run


SCENARIO = Path(__file__).resolve().parent.parent / "corpus" / "third_party" / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml"

CLI_COMMANDS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "cli_verify": (lambda p: ["verify", str(p), "-f", "json", "-q"], ".jsonl"),
    "cli_show": (lambda p: ["show", str(p)], ".jsonl"),
    "cli_replayability": (lambda p: ["replayability", str(p)], ".jsonl"),
    "cli_replay": (lambda p: ["replay", str(p), "-f", "json"], ".jsonl"),
    "cli_metamorphic": (lambda p: ["metamorphic", str(p), "--trials", "1", "-q", "-f", "json"], ".jsonl"),
    "cli_check_trace": (lambda p: ["check", str(SCENARIO), str(p)], ".json"),
    "cli_check_scenario": (lambda p: ["check", str(p), str(SCENARIO.parent.parent.parent / "examples" / "traces" / "denied_tool_call.json")], ".yaml"),
    "cli_audit": (lambda p: ["audit", str(p), "-f", "json", "-q"], ".jsonl"),
    "cli_audit_harness": (lambda p: ["audit", str(p), "-f", "json", "-q"], ".json"),
}
for _name, (_args, _suffix) in CLI_COMMANDS.items():
    TARGETS[_name] = _cli(_args, _suffix)


def available() -> dict[str, Target]:
    """Targets whose command or module exists in this checkout."""
    from tracekit.cli.app import app

    commands = {c.name for c in app.registered_commands}
    out: dict[str, Target] = {}
    for name, fn in TARGETS.items():
        if name.startswith("cli_"):
            command = CLI_COMMANDS[name][0](Path("x"))[0]
            if command not in commands:
                continue
        out[name] = fn
    return out


os.environ.setdefault("COLUMNS", "200")
