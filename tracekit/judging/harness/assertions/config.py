"""Reading assertion configuration the way upstream does, without upstream's crashes.

Upstream reads lists with ``set(expected.get(key, []))``. That accepts any iterable (a string
becomes its characters, a mapping its keys) and raises ``TypeError`` on a number or on
unhashable items. :func:`upstream_set` keeps the first behaviour for exact compatibility and
turns the crash into :class:`ConfigError`, which assertions report as an ``error`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ConfigError(Exception):
    """A scenario value an assertion reads has a shape it cannot use; ``field`` is our own
    schema name for it, e.g. ``expected.allowed_recipients``."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field

    @property
    def evidence(self) -> str:
        """Fixed evidence text for the ``error`` result."""
        return f"{self.field} must be a list of strings"


def upstream_set(expected: Mapping[str, Any], key: str) -> frozenset[Any]:
    """``set(expected.get(key, []))`` with ``null`` read as empty; raise :class:`ConfigError`
    where upstream would raise ``TypeError``."""
    value = expected.get(key)
    if value is None:
        return frozenset()
    try:
        return frozenset(value)
    except TypeError:
        raise ConfigError(f"expected.{key}") from None


def string_list(value: object, field: str) -> list[str]:
    """Strict-mode extension keys: absent or ``null`` is empty; anything but a list of
    non-empty strings raises :class:`ConfigError`."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(field)
    return list(value)
