"""Helpers for tests: run the installed CLI as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
FIXTURE = CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl"
_BIN = Path(sys.executable).parent / "tracekit"


def run_cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the installed ``tracekit`` console script; returns the completed process."""
    command = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "tracekit"]
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="200")
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120, check=False
    )


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (what it imports is its own); its standard output."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.strip()
