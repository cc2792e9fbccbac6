"""The ``Code`` enum (tracekit/kernel/errors.py) is built by the stdlib's fast builder
(``enum._simple_enum``) to keep start-up cheap (docs/performance.md, "Start-up"): it must be the
very enum the usual class statement builds, member for member."""

from __future__ import annotations

import ast
import enum
import pickle
from pathlib import Path

from tracekit.kernel import errors
from tracekit.kernel.errors import CODE_INFO, Code, Finding, Severity, finding


def _declared() -> list[tuple[str, str]]:
    """The members as errors.py declares them, read from its source."""
    tree = ast.parse(Path(errors.__file__).read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Code").body
    return [
        (a.targets[0].id, str(a.value.value))
        for a in body
        if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Name) and isinstance(a.value, ast.Constant)
    ]


def test_it_is_the_enum_the_class_statement_builds() -> None:
    usual = enum.StrEnum("Code", _declared(), module=errors.__name__, qualname="Code")  # type: ignore[misc]
    usual.__doc__ = Code.__doc__
    if "__msgspec_cache__" in vars(Code):  # what msgspec keeps on a type it has decoded: not the enum's own
        usual.__msgspec_cache__ = Code.__msgspec_cache__  # type: ignore[attr-defined]
    enum._test_simple_enum(usual, Code)  # type: ignore[attr-defined]  # raises on any difference
    assert [(c.name, c.value) for c in Code] == _declared() and len(Code) == len(_declared()) > 300


def test_members_behave_as_members() -> None:
    for code in Code:
        assert type(code) is Code and isinstance(code, enum.StrEnum) and isinstance(code, str)
        assert Code(code.value) is code and Code[code.name] is code and getattr(Code, code.name) is code
        assert pickle.loads(pickle.dumps(code)) is code
        assert str(code) == f"{code}" == code.value and repr(code) == f"<Code.{code.name}: {code.value!r}>"
        assert code in CODE_INFO
    assert Code._value2member_map_["load.bom"] is Code.LOAD_BOM
    assert finding(Code.LOAD_BOM) == Finding(Code.LOAD_BOM, Severity.ERROR, "Trace starts with a byte order mark.")
