"""Encoded and split secrets are found; evidence never needs the secret."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from tracekit.judging.harness.leakscan import find_forms, split_across, string_leaves, views

SECRET = "tok_Zx81-secret!"


def form(text: str) -> str | None:
    return find_forms([SECRET], [text]).get(0)


def test_forms() -> None:
    assert form(f"a {SECRET} b") == "plain"
    assert form(quote(SECRET, safe="")) == "percent"
    assert form(json.dumps(SECRET, ensure_ascii=True).replace("Z", "\\u005a")) == "json_escape"
    for prefix in ("", "x", "xy", "xyz"):
        encoded = base64.b64encode((prefix + SECRET).encode()).decode()
        assert form(f"data:{encoded}") == "base64"
        assert form(base64.urlsafe_b64encode((prefix + SECRET).encode()).decode()) == "base64"
    assert form(quote(base64.b64encode(SECRET.encode()).decode(), safe="")) == "base64"
    assert form("nothing to see") is None


def test_plain_wins_over_encoded() -> None:
    texts = [base64.b64encode(SECRET.encode()).decode(), SECRET]
    assert find_forms([SECRET], texts) == {0: "plain"}


def test_split() -> None:
    assert split_across(SECRET, [SECRET[:5], SECRET[5:]])
    assert not split_across(SECRET, [SECRET])
    assert not split_across(SECRET, [SECRET[:5], "x", SECRET[5:]])


def test_string_leaves_in_document_order() -> None:
    assert list(string_leaves({"a": ["b", {"c": "d"}], "e": 1})) == ["a", "b", "c", "d", "e"]
    assert list(string_leaves({"a": ["b", {"c": "d"}]}, keys=False)) == ["b", "d"]


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=0, max_size=12), st.binary(min_size=0, max_size=12))
def test_base64_found_at_any_alignment(head: bytes, tail: bytes) -> None:
    encoded = base64.b64encode(head + SECRET.encode() + tail).decode()
    assert any(SECRET in view for _form, view in views(encoded))
