"""Byte-stable JSON rendering shared by every report."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

HEAD_KEYS = ("command", "report_version", "exit_code")
"""The keys every report starts with, in this order (docs/cli.md, "JSON reports")."""


_HEAD: dict[str, Any] = {}


def set_head(**keys: Any) -> None:
    """What the command line knows of the report about to be written (its ``command``, and its
    ``exit_code`` once decided): every report document gets the keys it lacks from here."""
    _HEAD.update({key: value for key, value in keys.items() if key in HEAD_KEYS})


def dumps(document: dict[str, Any]) -> str:
    """The head keys first (:data:`HEAD_KEYS`, those present), then every other key sorted;
    two-space indent, ASCII only, trailing newline: the same input gives the same bytes. A
    report document (one with ``report_version``) gets the head keys it lacks from
    :func:`set_head`."""
    if "report_version" in document and "command" in _HEAD:  # set by the CLI's main only
        document = {**{k: v for k, v in _HEAD.items() if k not in document}, **document}
    head = [key for key in HEAD_KEYS if key in document]
    rest = {key: value for key, value in document.items() if key not in HEAD_KEYS}
    lines = [f"  {json.dumps(key)}: {_indented(document[key])}" for key in head]
    body = json.dumps(rest, indent=2, sort_keys=True, ensure_ascii=True)
    if not lines:
        return body + "\n"
    if not rest:
        return "{\n" + ",\n".join(lines) + "\n}\n"
    return "{\n" + ",\n".join(lines) + ",\n" + body[2:] + "\n"


def _indented(value: Any) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True)
    return text.replace("\n", "\n  ")


def dumps_struct(report: object, /, **head: object) -> str:
    """:func:`dumps` of a typed report (a msgspec Struct), its JSON form derived by msgspec,
    after the ``head`` keys (``report_version``, ``command``...) a document puts around it."""
    import msgspec

    document: dict[str, Any] = msgspec.to_builtins(report)
    return dumps({**head, **document})


def struct_chunks(report: Any, streamed: str, /, **head: object) -> Iterator[str]:
    """:func:`dumps_struct` of ``report`` in chunks, its list field ``streamed`` (a file's
    episodes) rendered one item at a time: a document of 50,000 episodes is never one string
    (docs/threat-model.md, "The Inspect archive reader"). Joined, the chunks are its bytes."""
    import msgspec

    items = getattr(report, streamed)
    if not items:  # as dumps_struct writes it, whether the empty field is kept or omitted
        return iter([dumps_struct(report, **head)])
    document: dict[str, Any] = msgspec.to_builtins(msgspec.structs.replace(report, **{streamed: ()}))
    document.pop(streamed, None)
    return dumps_chunks({**head, **document}, {streamed: (msgspec.to_builtins(item) for item in items)})


_PIECE = 64 * 1024
"""Characters of a list element's rendering gathered before they are handed to the sink."""
_ENCODER = json.JSONEncoder(indent=2, sort_keys=True, ensure_ascii=True)


class Streamed:
    """A list inside a list element of :func:`dumps_chunks`, rendered one item at a time as it
    is written (a file's episodes in its audit): the items are made only when they are needed."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


class Preformatted(str):
    """A list item of :func:`dumps_chunks` already rendered as ``json.dumps(item, indent=2,
    sort_keys=True, ensure_ascii=True)`` renders it (no indent before its first line): written
    as it is, each line after a break indented."""

    __slots__ = ()


def preformatted(encoded: bytes) -> Preformatted | None:
    """``encoded`` (msgspec JSON with keys sorted) as :class:`Preformatted`, or None when it
    holds an escape or a byte past ASCII's printable range, which only the json module renders
    exactly as the other items are (``ensure_ascii``, its escapes)."""
    import msgspec

    if not encoded.isascii() or b"\\" in encoded or b"\x7f" in encoded:
        return None
    return Preformatted(msgspec.json.format(encoded, indent=2).decode("ascii"))


class Shared:
    """A list item of :func:`dumps_chunks` rendered as a :class:`Preformatted` is, in two
    pieces: ``shared``, the text before ``own`` that recurs across items (the same object each
    time, as a cache hands it out), whose indented form is made once per indent; and ``own``,
    the rest, this item's own."""

    __slots__ = ("own", "shared")

    def __init__(self, shared: Preformatted, own: Preformatted) -> None:
        self.shared, self.own = shared, own


_INDENTED: dict[tuple[str, str], str] = {}
_INDENTED_MAX = 64
"""Indented shared texts kept (a file's items repeat a few; past this many, the memo restarts)."""


def _indented_shared(text: str, prefix: str) -> str:
    key = (text, prefix)
    done = _INDENTED.get(key)
    if done is None:
        if len(_INDENTED) >= _INDENTED_MAX:
            _INDENTED.clear()
        done = _INDENTED[key] = text.replace("\n", "\n" + prefix)
    return done


def _element(value: Any, prefix: str) -> Iterator[str]:
    """``json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True)`` with every line after
    a break indented by ``prefix``, in pieces of about :data:`_PIECE` characters, a
    :class:`Streamed` value of ``value`` rendered item by item: an element as large as a file's
    whole audit is never one string (nor a list of its lines). With ASCII escaping a newline in
    the text is always a line break, never inside a string."""
    if isinstance(value, Preformatted):
        yield value.replace("\n", "\n" + prefix)
        return
    if isinstance(value, Shared):
        yield _indented_shared(value.shared, prefix) + value.own.replace("\n", "\n" + prefix)
        return
    streamed: dict[str, Streamed] = {}
    if isinstance(value, dict) and any(isinstance(v, Streamed) for v in value.values()):
        value = dict(value)
        for n, (key, item) in enumerate(list(value.items())):
            if isinstance(item, Streamed):
                value[key] = f"\x00tracekit-streamed-{n}\x00"
                streamed[json.dumps(value[key])] = item
    parts: list[str] = []
    size = 0
    for part in _ENCODER.iterencode(value):
        part = part.replace("\n", "\n" + prefix)
        marker = next((m for m in streamed if m in part), None) if streamed else None
        if marker is not None:
            before, part = part.split(marker, 1)
            yield "".join([*parts, before])
            parts, size = [], 0
            yield from _list_chunks(streamed.pop(marker).items, prefix)
        parts.append(part)
        size += len(part)
        if size >= _PIECE:
            yield "".join(parts)
            parts, size = [], 0
    yield "".join(parts)


def _list_chunks(items: Iterable[Any], base: str = "") -> Iterator[str]:
    """A list whose opening bracket follows a line indented by ``base``, one item at a time."""
    first = True
    inner = base + "    "
    for item in items:
        yield ("[\n" if first else ",\n") + inner
        yield from _element(item, inner)
        first = False
    yield "[]" if first else "\n" + base + "  ]"


def dumps_chunks(head: dict[str, Any], lists: dict[str, Iterable[Mapping[str, Any]]]) -> Iterator[str]:
    """``dumps({**head, key: list(items) ...})`` in chunks, streaming each top-level list
    without holding it: joined, the chunks are byte-identical to :func:`dumps`."""
    sentinels = {key: f"\x00tracekit-list-{n}\x00" for n, key in enumerate(lists)}
    skeleton = dumps({**head, **sentinels})
    markers = {json.dumps(sentinels[key]): items for key, items in lists.items()}
    rest = skeleton
    while True:
        found = [(rest.find(marker), marker) for marker in markers if marker in rest]
        if not found:
            yield rest
            return
        position, marker = min(found)
        yield rest[:position]
        yield from _list_chunks(markers.pop(marker))
        rest = rest[position + len(marker) :]
