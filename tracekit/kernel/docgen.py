"""Generate docs/error-codes.md from the Code enum: ``python -m tracekit.kernel.docgen [--check]``."""

from __future__ import annotations

import sys
from pathlib import Path

from tracekit.kernel.code_help import FAMILY_HELP
from tracekit.kernel.errors import CODE_INFO, RETIRED, Code, Severity

_EXIT = {Severity.ERROR: "2", Severity.WARNING: "1", Severity.NOTICE: "0", Severity.INFO: "0"}
_EXIT_OF_CODE = {Code.CLI_INTERRUPTED: "130"}
"""Codes whose exit code is not their severity's."""
TARGET = Path(__file__).resolve().parents[2] / "docs" / "error-codes.md"


def exit_of(code: Code) -> str:
    """The exit code a finding of ``code`` gives by default (the table's exit column)."""
    return _EXIT_OF_CODE.get(code, _EXIT[CODE_INFO[code].severity])


def render() -> str:
    """The whole error-code reference, one table per code family."""
    lines = [
        "# Error codes",
        "",
        "Generated from `tracekit/kernel/errors.py` by `python -m tracekit.kernel.docgen`; a test checks that",
        "this file is current. A code never changes meaning. Messages hold only fixed text, counts,",
        "limits and names from tracekit's own schema: never a name, value or path from the input.",
        "The exit column is the default for `verify`; commands document their own exit rules.",
        "`tracekit explain CODE` prints one code's entry from the same catalogue.",
        "A code marked *no longer emitted* keeps its meaning, so an older report can still be read;",
        "the code named beside it says the same thing now (docs/cli.md, \"One code per mistake\").",
        "",
    ]
    families: dict[str, list[Code]] = {}
    for code in Code:
        families.setdefault(code.value.split(".")[0], []).append(code)
    for family, codes in families.items():
        lines += [f"## {family}", ""]
        help_ = FAMILY_HELP.get(family)
        if help_ is not None:
            lines += [f"Why it matters: {help_.why}", "", f"What to do: {help_.action}", ""]
        lines += ["| code | severity | exit | message |", "|---|---|---|---|"]
        for code in codes:
            info = CODE_INFO[code]
            message = info.message.replace("|", "\\|")
            if code in RETIRED:
                message += f" *No longer emitted: `{RETIRED[code].value}` says it now.*"
            lines.append(f"| `{code.value}` | {info.severity.value} | {exit_of(code)} | {message} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print("docs/error-codes.md is out of date: run python -m tracekit.kernel.docgen")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
