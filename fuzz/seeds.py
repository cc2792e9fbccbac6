"""Seed inputs for every target, taken from the committed corpus (structure-aware fuzzing)."""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def seeds_for(target: str) -> list[bytes]:
    """Real inputs of the kind ``target`` reads: JSONL traces, harness traces or scenarios."""
    if target in ("harness_trace", "cli_check_trace", "cli_audit_harness"):
        pattern, base = "*.json", CORPUS / "third_party" / "owasp-harness" / "examples"
    elif target.startswith("format_"):  # every third-party log and the hostile Inspect cases
        found = [p for d in ("third_party", "hostile/inspect") for p in (CORPUS / d).rglob("*")]
        small = sorted(p for p in found if p.is_file() and p.suffix in (".json", ".jsonl", ".eval"))
        return [p.read_bytes() for p in small if p.stat().st_size < 300_000] or [b"{}\n"]
    elif target in ("harness_scenario", "cli_check_scenario"):
        pattern, base = "*.yaml", CORPUS / "third_party" / "owasp-harness" / "scenarios"
    else:
        pattern, base = "*.jsonl", CORPUS
    found = sorted(p for p in base.rglob(pattern) if p.stat().st_size < 300_000)
    return [p.read_bytes() for p in found] or [b"{}\n"]
