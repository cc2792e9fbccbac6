"""An item msgspec renders (report/jsonout.py, ``preformatted``) is written byte for byte as the
json module writes it, and an item only the json module renders exactly is left to it."""

from __future__ import annotations

import json

import msgspec
import pytest

from tracekit.report.jsonout import Streamed, dumps, dumps_chunks, preformatted

ITEMS = [
    {"id": "a", "rows": [{"field": "x", "status": "present", "n": 3, "ok": True, "none": None}], "empty": [], "map": {}},
    {"b": [[1, 2], [], [{"z": 0}]], "a": "plain text, (with) [brackets] and: colons"},
]


@pytest.mark.parametrize("item", ITEMS)
def test_a_preformatted_item_is_the_json_modules_bytes(item: dict[str, object]) -> None:
    done = preformatted(msgspec.json.encode(item, order="sorted"))
    assert done is not None
    head = {"report_version": 1}
    nested = {"name": "t", "items": Streamed([done, done])}
    expected = dumps({**head, "traces": [{"name": "t", "items": [item, item]}]})
    assert "".join(dumps_chunks(head, {"traces": [nested]})) == expected
    assert done == json.dumps(item, indent=2, sort_keys=True, ensure_ascii=True)


@pytest.mark.parametrize("text", ["caf\u00e9", "tab\there", 'quote"d', "back\\slash", "del\x7f", "nul\x00"])
def test_an_item_with_an_escape_or_past_ascii_is_left_to_the_json_module(text: str) -> None:
    assert preformatted(msgspec.json.encode({"id": text}, order="sorted")) is None
