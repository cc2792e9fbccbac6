"""Byte-stable JSON rendering shared by every report."""

from __future__ import annotations

import json
from typing import Any


def dumps(document: dict[str, Any]) -> str:
    """Sorted keys, two-space indent, ASCII only, trailing newline: the same input gives the
    same bytes."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=True) + "\n"
