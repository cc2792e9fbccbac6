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
    from tracekit.errors import TracekitError
    from tracekit.limits import Limits
    from tracekit.loader import iter_lines

    try:
        count = sum(1 for _ in iter_lines(io.BytesIO(data), Limits(line_bytes=4096, total_bytes=65536, events=64)))  # type: ignore[arg-type]
    except TracekitError as error:
        return error.finding.code.value
    return f"lines:{count}"


@target("records")
def records(data: bytes) -> str:
    from tracekit.limits import DEFAULT_LIMITS
    from tracekit.records import RecordProblem, decode_event, decode_header

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
    from tracekit.verify import VerifyOptions, verify_bytes

    report = verify_bytes(data, VerifyOptions(keep_events=True))
    assert report.exit_code in (0, 1, 2)
    return str(report.exit_code)


@target("replay")
def replay(data: bytes) -> str:
    from tracekit.replay.engine import replay as run_replay
    from tracekit.verify import VerifyOptions, verify_bytes

    report = verify_bytes(data, VerifyOptions(keep_events=True))
    if not report.intact:
        return "invalid"
    return str(run_replay(report).equivalence)


@target("harness_trace")
def harness_trace(data: bytes) -> str:
    from tracekit.errors import TracekitError
    from tracekit.harness.trace import parse_trace

    try:
        parse_trace(data)
    except TracekitError as error:
        return error.finding.code.value
    return "ok"


@target("harness_scenario")
def harness_scenario(data: bytes) -> str:
    from tracekit.errors import TracekitError
    from tracekit.harness.scenario import parse_scenario

    try:
        parse_scenario(data)
    except TracekitError as error:
        return error.finding.code.value
    return "ok"


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
