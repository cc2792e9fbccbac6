"""The layout rules, checked: pure core, layers, codes documented, registries complete
(docs/cli.md, "Layers")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tracekit.kernel.errors import CODE_INFO, Code

PACKAGE = Path(__file__).resolve().parent.parent / "tracekit"
# Only these may touch the filesystem; everything else takes bytes or records.
IO_ALLOWED = {"loader.py", "sources.py", "docgen.py", "reading.py"}
# The campaign store's I/O edge: it opens the database file and hashes campaign files
# (docs/campaign-store.md); the rest of tracekit/store/ works on a connection. The metamorphic
# worker writes each transformed trace into the study's staging folder (judging/metamorphic/staging.py).
IO_ALLOWED_PATHS = {"store/db.py", "judging/metamorphic/staging.py"}
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
    result = subprocess.run([sys.executable, "-m", "tracekit.kernel.docgen", "--check"], capture_output=True, check=False)
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


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (at any depth: lazy imports inside functions count)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _layer_offenders(layer_of: str, forbidden: tuple[str, ...]) -> list[str]:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        layer = relative.parts[0] if len(relative.parts) > 1 else relative.name
        if layer_of == "core" and layer in ("cli", "report", "__main__.py"):
            continue
        if layer_of != "core" and layer != layer_of:
            continue
        bad = sorted(m for m in _imported_modules(path) if m.startswith(forbidden))
        offenders += [f"{relative}: {m}" for m in bad]
    return offenders


def test_layering_core_never_imports_report_or_cli() -> None:
    """docs/cli.md, "Layers": core (everything but report/ and cli/) -> report/ -> cli/."""
    assert _layer_offenders("core", ("tracekit.report", "tracekit.cli")) == []


def test_layering_report_never_imports_cli() -> None:
    assert _layer_offenders("report", ("tracekit.cli",)) == []


def test_executors_are_one_layer_for_every_campaign_command() -> None:
    """verify, audit and metamorphic reach their workers through tracekit/kernel/executors only."""
    for name in ("verify_cmd.py", "audit_cmd.py", "audit_io.py", "metamorphic_cmd.py"):
        source = (PACKAGE / "cli" / name).read_text(encoding="utf-8")
        assert "multiprocessing" not in source and "distributed" not in source, name
