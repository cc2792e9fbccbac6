"""The layout rules of STYLE.md, checked: pure core, codes documented, registries complete."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tracekit.errors import CODE_INFO, Code

PACKAGE = Path(__file__).resolve().parent.parent / "tracekit"
# Only these may touch the filesystem (STYLE rule 1); everything else takes bytes or records.
IO_ALLOWED = {"loader.py", "sources.py", "docgen.py", "reading.py"}
# The campaign store's I/O edge: it opens the database file and hashes campaign files
# (docs/campaign-store.md); the rest of tracekit/store/ works on a connection.
IO_ALLOWED_PATHS = {"store/db.py"}
IO_NAMES = {"open", "unlink", "write_bytes", "write_text", "read_bytes", "read_text", "mkdir", "rmdir", "fdopen"}
OS_NAMES = {"replace", "rename", "remove", "open", "unlink", "makedirs"}


def _io_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            module = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            if name in IO_NAMES or (module in ("os", "shutil") and name in OS_NAMES):
                found.append(f"{path.name}:{node.lineno}:{name}")
    return found


def test_core_modules_do_no_file_io() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "cli" or path.name in IO_ALLOWED:
            continue
        if relative.as_posix() in IO_ALLOWED_PATHS:
            continue
        offenders += _io_calls(path)
    assert offenders == []


def test_every_code_is_documented_with_fixed_text() -> None:
    assert set(CODE_INFO) == set(Code)
    for code, info in CODE_INFO.items():
        assert code.value == code.value.lower() and "." in code.value
        assert info.message.endswith(".")


def test_error_codes_doc_is_current() -> None:
    result = subprocess.run([sys.executable, "-m", "tracekit.docgen", "--check"], capture_output=True, check=False)
    assert result.returncode == 0, result.stdout.decode()


# errors.py is the table of every code and its fixed text: data, not logic, and one place by design.
TABLES = {"errors.py"}


def test_modules_stay_small() -> None:
    big = [
        p.name
        for p in PACKAGE.rglob("*.py")
        if p.name not in TABLES and len(p.read_text(encoding="utf-8").splitlines()) > 450
    ]
    assert big == []
