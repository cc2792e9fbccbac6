"""The layout, checked (docs/architecture.md): which package may import which, no import circle,
no loose module at the top, small functions, and the document matching the tree."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.test_references import GENERATED

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tracekit"
JUDGING = ("judging.harness", "judging.replay", "judging.metamorphic", "judging.findings", "judging.audit")
LOWER = ("kernel", "formats", *JUDGING)
ALLOWED: dict[str, frozenset[str]] = {
    "kernel": frozenset(),
    "formats": frozenset({"kernel"}),
    "judging.harness": frozenset({"kernel", "formats"}),
    "judging.replay": frozenset({"kernel", "formats"}),
    "judging.metamorphic": frozenset({"kernel", "formats", "judging.replay"}),
    "judging.findings": frozenset({"kernel", "formats", "judging.harness", "judging.replay", "judging.metamorphic"}),
    "judging.audit": frozenset({"kernel", "formats", *JUDGING[:4]}),
    "bundle": frozenset(LOWER),
    "store": frozenset(LOWER),
    "attest": frozenset({*LOWER, "bundle"}),
    "report": frozenset({*LOWER, "bundle", "store", "attest"}),
    "cli": frozenset({*LOWER, "bundle", "store", "attest", "report"}),
    "__main__": frozenset({"cli"}),
    "": frozenset({"kernel", "formats"}),
}
"""Package -> the packages it may import (besides itself and the ``tracekit`` root's metadata),
as docs/architecture.md, "Layers" states them."""
MAX_FUNCTION_LINES = 60
CODE_FOLDERS = ("tracekit", "bench", "fuzz")
"""corpus/gen is left out: its long functions are tables of corpus cases, data written as code."""


def layer(module: str) -> str:
    """``tracekit.judging.audit.engine`` -> ``judging.audit``; the root package -> ``""``."""
    parts = module.split(".")[1:]
    if not parts or parts == ["__init__"]:
        return ""
    if parts[0] == "judging" and len(parts) > 1:
        return f"judging.{parts[1]}"
    return parts[0]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, lazy imports inside functions included."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: {m for m in _imports(path) if m in modules and m != name and not name.startswith(m + ".")}
        for name, path in modules.items()
    }


def test_each_package_imports_only_the_layers_below_it() -> None:
    offenders = []
    for name, targets in _graph().items():
        own = layer(name)
        for target in targets:
            other = layer(target)
            if target != "tracekit" and other != own and other not in ALLOWED[own]:
                offenders.append(f"{name} -> {target}")
    assert sorted(offenders) == []


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_import_circle() -> None:
    assert _circles(_graph()) == []


def test_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_entry_points_at_the_top() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


def test_no_function_over_sixty_lines() -> None:
    long = []
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).as_posix().startswith(GENERATED):  # make bench's venv, make fuzz's seeds
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1 if node.end_lineno else 0
                    if length > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert long == []




def _documented_packages() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\s*(tracekit/(?:[\w/]+/)?)\s", text, re.MULTILINE))


def test_architecture_document_matches_the_tree() -> None:
    packages = {
        path.parent.relative_to(ROOT).as_posix() + "/"
        for path in PACKAGE.rglob("__init__.py")
        if "templates" not in path.parts
    }
    assert _documented_packages() == packages
