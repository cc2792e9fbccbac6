"""Byte-stable JSON rendering shared by every report."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def dumps(document: dict[str, Any]) -> str:
    """Sorted keys, two-space indent, ASCII only, trailing newline: the same input gives the
    same bytes."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def dumps_struct(report: object, /, **head: object) -> str:
    """:func:`dumps` of a typed report (a msgspec Struct), its JSON form derived by msgspec,
    after the ``head`` keys (``report_version``, ``command``...) a document puts around it."""
    import msgspec

    document: dict[str, Any] = msgspec.to_builtins(report)
    return dumps({**head, **document})


def _element(value: Mapping[str, Any]) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True)
    return "\n".join("    " + line for line in text.splitlines())


def _list_chunks(items: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    first = True
    for item in items:
        yield ("[\n" if first else ",\n") + _element(item)
        first = False
    yield "[]" if first else "\n  ]"


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
