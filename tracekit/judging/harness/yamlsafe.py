"""A bounded, safe YAML loader for scenario files (docs/harness.md, "Loading a scenario").

Two passes over bytes that are already capped in size:

1. The YAML *event* stream is walked first, before any node or object exists. It refuses
   anchors and aliases (so an alias bomb costs nothing), explicit tags outside the
   JSON-compatible core schema, nesting deeper than ``limits.depth``, more than
   ``limits.values`` nodes and scalars longer than ``limits.string_chars``.
2. Only then is the document constructed, by a SafeLoader subclass that builds nothing but
   dicts, lists, strings, numbers, booleans and null: timestamps stay strings, ``!!binary``,
   ``!!set``, ``!!omap`` and ``!!pairs`` are refused, and a key repeated in one mapping is
   refused (a reviewer and the tool must not read different policies from one file), and so
   are NaN and the infinities (``.nan``, ``.inf``, ``1e999``) and a leading byte order mark, as
   in traces.

Every failure raises :class:`TracekitError` with a ``harness.yaml_*`` finding whose text is fixed;
a line number is the only thing taken from the file.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import yaml  # type: ignore[import-untyped, unused-ignore]

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.limits import Limits

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CORE = "tag:yaml.org,2002:"
_ALLOWED_TAGS = frozenset(
    {"!", *(_CORE + name for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp"))}
)
_REFUSED_TAGS = tuple(_CORE + name for name in ("binary", "set", "omap", "pairs"))


class _Refused(Exception):
    """Internal: construction met something the scenario format does not allow."""

    def __init__(self, code: Code, line: int | None = None) -> None:
        super().__init__(code.value)
        self.code = code
        self.line = line


class _ScenarioLoader(_BaseLoader):  # type: ignore[misc, unused-ignore]
    """SafeLoader that keeps the document JSON-compatible and refuses repeated keys."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        keys = [self.construct_object(key_node, deep=deep) for key_node, _ in node.value]
        line = _line(getattr(node, "start_mark", None))
        for key in keys:
            if not isinstance(key, str | int | float | bool | type(None)):
                raise _Refused(Code.HARNESS_YAML_INVALID, line)
        if len(set(keys)) != len(keys):
            raise _Refused(Code.HARNESS_YAML_DUPLICATE_KEY, line)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result


def _refuse_tag(_loader: Any, _node: Any) -> NoReturn:
    raise _Refused(Code.HARNESS_YAML_TAG)


def _finite_float(loader: Any, node: Any) -> float:
    # NaN and the infinities (``.nan``, ``.inf``, ``1e999``) are refused, as in traces.
    value: float = _BaseLoader.construct_yaml_float(loader, node)
    if not math.isfinite(value):
        raise _Refused(Code.HARNESS_YAML_NON_FINITE, _line(getattr(node, "start_mark", None)))
    return value


_ScenarioLoader.add_constructor(_CORE + "timestamp", _BaseLoader.construct_yaml_str)
_ScenarioLoader.add_constructor(_CORE + "float", _finite_float)
for _tag in _REFUSED_TAGS:
    _ScenarioLoader.add_constructor(_tag, _refuse_tag)


def _line(mark: Any) -> int | None:
    line = getattr(mark, "line", None)
    return line + 1 if isinstance(line, int) else None


def _fail(code: Code, event: Any = None, limit: int | None = None) -> NoReturn:
    line = _line(getattr(event, "start_mark", None))
    raise TracekitError(finding(code, line) if limit is None else finding(code, line, limit=limit))


def _has_surrogate(text: str) -> bool:
    # A double-quoted "\ud800" escape yields a lone surrogate, which no output can encode.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _prescan(text: str, limits: Limits) -> None:
    """Walk the event stream and enforce step 1 (see module docstring)."""
    depth = 0
    nodes = 0
    loader = _BaseLoader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                _fail(Code.HARNESS_YAML_ALIAS, event)
            if isinstance(event, yaml.NodeEvent):
                tag = getattr(event, "tag", None)
                if tag is not None and tag not in _ALLOWED_TAGS:
                    _fail(Code.HARNESS_YAML_TAG, event)
                nodes += 1
                if nodes > limits.values:
                    _fail(Code.HARNESS_YAML_TOO_MANY_NODES, event, limit=limits.values)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limits.depth:
                    _fail(Code.HARNESS_YAML_TOO_DEEP, event, limit=limits.depth)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                if len(event.value) > limits.string_chars:
                    _fail(Code.HARNESS_YAML_SCALAR_TOO_LONG, event, limit=limits.string_chars)
                if not event.value.isascii() and _has_surrogate(event.value):
                    _fail(Code.HARNESS_YAML_INVALID, event)
    finally:
        loader.dispose()


def load_yaml(data: bytes, limits: Limits) -> Any:
    """Parse one scenario document from ``data``; return plain JSON-compatible values.

    Raises :class:`TracekitError` (``harness.scenario_too_large``, ``harness.yaml_*``).
    """
    if len(data) > limits.total_bytes:
        raise TracekitError(finding(Code.HARNESS_SCENARIO_TOO_LARGE, limit=limits.total_bytes))
    if data.startswith(b"\xef\xbb\xbf"):
        raise TracekitError(finding(Code.HARNESS_YAML_BOM, 1))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TracekitError(finding(Code.HARNESS_YAML_INVALID)) from None
    try:
        _prescan(text, limits)
        loader = _ScenarioLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except _Refused as refused:
        raise TracekitError(finding(refused.code, refused.line)) from None
    except yaml.MarkedYAMLError as error:
        raise TracekitError(finding(Code.HARNESS_YAML_INVALID, _line(error.problem_mark))) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError):
        # ValueError: e.g. an integer beyond Python's digit limit; TypeError: an unhashable key.
        raise TracekitError(finding(Code.HARNESS_YAML_INVALID)) from None
