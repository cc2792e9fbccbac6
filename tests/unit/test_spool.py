"""The one spool (tracekit/cli/spool.py): typed items back in order, at their offsets, whether
they stayed in memory or moved to a temporary file past ``IN_MEMORY`` bytes."""

from __future__ import annotations

import msgspec
import pytest

from tracekit.cli import spool as spool_module
from tracekit.cli.spool import Lines, Spool


class Item(msgspec.Struct, frozen=True):
    number: int
    text: str


def _items(count: int, width: int) -> list[Item]:
    return [Item(n, chr(0x61 + n % 26) * width + "\u00e9") for n in range(count)]


@pytest.mark.parametrize(("count", "width"), [(0, 1), (1, 1), (50, 10), (400, 3000), (3, 600_000)])
def test_items_come_back_in_order_and_at_their_offsets(count: int, width: int) -> None:
    items = _items(count, width)
    spool: Spool[Item] = Spool(Item)
    offsets = [spool.add(item) for item in items]
    assert list(spool.read()) == items
    assert [spool.at(o) for o in offsets] == items
    assert list(spool.read()) == items  # read again, whole
    spool.close()


def test_it_moves_to_a_temporary_file_past_the_memory_bound_and_keeps_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spool_module, "IN_MEMORY", 100)
    spool: Spool[Item] = Spool(Item)
    first = spool.add(Item(1, "x" * 40))
    assert spool._memory is not None  # 55 bytes: still in memory
    spool.add_line(msgspec.json.encode(Item(2, "y" * 40)))
    assert spool._memory is None  # 110 bytes: on disk, with what was held before
    third = spool.add(Item(3, "z"))
    assert list(spool.read()) == [Item(1, "x" * 40), Item(2, "y" * 40), Item(3, "z")]
    assert spool.at(third) == Item(3, "z") and spool.at(first) == Item(1, "x" * 40)
    spool.extend([Item(4, "w")])
    assert [i.number for i in spool.read()] == [1, 2, 3, 4]
    spool.close()


def test_a_small_spool_never_imports_tempfile() -> None:
    from tests.helpers import run_python

    code = (
        "import sys, msgspec\n"
        "from tracekit.cli.spool import Spool\n"
        "class I(msgspec.Struct):\n    n: int\n"
        "s = Spool(I); s.extend(I(n) for n in range(1000)); assert [i.n for i in s.read()] == list(range(1000))\n"
        "print('tempfile' in sys.modules)\n"
    )
    assert run_python(code) == "False"


@pytest.mark.parametrize("rows", [0, 1, 7, 40_000])
def test_lines_come_back_as_text_in_pieces_that_end_at_a_newline(rows: int) -> None:
    """Audit's table rows (cli/audit_run.py): what was added, whole, as text; past the memory
    bound too, every piece but the last ending at a newline, never inside a character."""
    lines = Lines()
    made = []
    for n in range(rows):
        row = "\n" + "\u00e9" * (n % 50) + f" row {n} \u4e2d"
        made.append(row)
        if n % 3 == 0:
            lines.add_bytes(row.encode())
        else:
            lines.add_lines([row.encode()[1:]])  # the same bytes: a line, then its newline
            made[-1] = row[1:] + "\n"
    pieces = list(lines.text())
    assert "".join(pieces) == "".join(made)
    assert all(piece.endswith("\n") for piece in pieces[:-1]) and (rows < 40_000 or len(pieces) > 1)
    lines.close()
