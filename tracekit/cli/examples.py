"""The examples at the end of every command's ``--help`` (docs/cli.md, "Conventions" 3).

Data only: one list of command lines per command path. tests/cli/test_contract.py checks that
every command has examples and that every option an example uses exists."""

from __future__ import annotations

EXAMPLES: dict[str, tuple[str, ...]] = {
    "verify": (
        "tracekit verify run.jsonl",
        "tracekit verify campaign/ -f junit -o verify.xml",
        "tracekit verify bundle.tkb --trusted-key signer.pub",
    ),
    "show": ("tracekit show log.eval", "tracekit show run.jsonl -f json | jq .episodes"),
    "replayability": ("tracekit replayability run.jsonl --trusted-root RUN_ROOT=./run",),
    "replay": ("tracekit replay run.jsonl", "tracekit replay run.jsonl -f sarif -o replay.sarif"),
    "metamorphic": (
        "tracekit metamorphic run.jsonl --trials 3",
        "tracekit metamorphic logs/ --scenario exfil.yaml --jobs 2",
    ),
    "check": (
        "tracekit check exfil.yaml log.eval --strict",
        "tracekit check exfil.yaml campaign/ -f junit -o check.xml",
        "tracekit check --suite scenarios/ --trace-dir traces/ --output-dir results/",
    ),
    "audit": (
        "tracekit audit campaign/",
        "tracekit audit campaign/ --verbose",
        "tracekit audit campaign/ --db campaign.duckdb",
        "tracekit audit campaign/ -f otlp -o findings.otlp.json",
    ),
    "keygen": ("tracekit keygen -o signer",),
    "seal": (
        "tracekit seal run.jsonl --key signer.key -o run.tkb",
        "tracekit seal campaign/ --key signer.key -o campaign.tkb --scenario exfil.yaml",
    ),
    "redact": ("tracekit redact run.tkb --secrets -o shared.tkb",),
    "bundle show": ("tracekit bundle show run.tkb --trusted-key signer.pub",),
    "bundle extract": ("tracekit bundle extract run.tkb -o - | head",),
    "bundle prove": ("tracekit bundle prove campaign.tkb --finding 0 -o finding.tkb",),
    "db summary": ("tracekit db summary campaign.duckdb",),
    "db diff": ("tracekit db diff campaign.duckdb --since 1",),
    "db findings": ("tracekit db findings campaign.duckdb -f json",),
    "db runs": ("tracekit db runs campaign.duckdb", "tracekit db runs campaign.duckdb -f json"),
    "db export": ("tracekit db export campaign.duckdb --parquet exported/",),
    "attest": (
        "tracekit attest campaign/ --key signer.key -o campaign.intoto.jsonl",
        "tracekit attest log.eval --scenario exfil.yaml --strict --key signer.key -o finding.intoto.jsonl",
    ),
    "report": (
        "tracekit report campaign/ -o report.html",
        "tracekit report log.eval --scenario exfil.yaml --strict -o finding.html",
        "tracekit report finding.tkb --trusted-key signer.pub -o finding.html --force",
    ),
    "explain": ("tracekit explain chain.event_hash_mismatch", "tracekit explain --list"),
    "completion": ("tracekit completion bash >> ~/.bashrc",),
}


def epilog(command_path: str) -> str:
    """The ``Examples:`` block of one command (``tracekit db summary`` -> its examples)."""
    lines = EXAMPLES.get(command_path.split(" ", 1)[1] if " " in command_path else "", ())
    return "\n".join(["Examples:", *(f"  {line}" for line in lines)]) if lines else ""
