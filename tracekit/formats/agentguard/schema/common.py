"""Constrained scalar types shared by the schemas (strict: a bool is never an int)."""


from typing import Annotated

from msgspec import Meta, Struct

MAX_INT = 2**63 - 1

Hex64 = Annotated[str, Meta(pattern="^[0-9a-f]{64}\\Z")]
"""A lowercase SHA-256 hex digest."""
Text = Annotated[str, Meta(max_length=4096)]
"""A bounded string (the generic 4096-character bound)."""
NonNegInt = Annotated[int, Meta(ge=0, le=MAX_INT)]
"""A JSON integer >= 0 that fits in 63 bits."""
PosInt = Annotated[int, Meta(ge=1, le=MAX_INT)]
"""A JSON integer >= 1 that fits in 63 bits."""
AnyInt = Annotated[int, Meta(ge=-MAX_INT - 1, le=MAX_INT)]
"""A JSON integer that fits in 64 bits (exit codes may be negative)."""
NonNegFloat = Annotated[float, Meta(ge=0.0)]
NonNegNumber = Annotated[int, Meta(ge=0, le=MAX_INT)] | NonNegFloat
"""A JSON number >= 0; integers and floats keep their own type (``0`` is not ``0.0``)."""
TextList = Annotated[list[Text], Meta(max_length=4096)]
"""A list of bounded strings."""


class Closed(Struct, forbid_unknown_fields=True, frozen=True):
    """Base for every closed JSON object of the format: unknown keys are refused."""
