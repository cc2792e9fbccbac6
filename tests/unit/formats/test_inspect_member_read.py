"""One member read with its local header in one read gives what the header read first, then
the data, gives: the same bytes, or the same refusal (tracekit/formats/inspect_eval.py,
``_compressed_chunks``; docs/formats.md, "Inspect AI", steps E4-E6)."""

from __future__ import annotations

import io
import os
import random
import zipfile
from pathlib import Path

import pytest

from tests.unit.formats.eval_build import chatty_eval, header_bytes, stored_zip
from tracekit.formats import inspect_eval
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "inspect"


def _read_all(data: bytes) -> list[object]:
    """Each member's bytes or refusal (code and message), in directory order; the directory's
    own refusal alone when it has one."""
    handle = io.BytesIO(data)
    try:
        found = inspect_eval.members(handle, len(data), DEFAULT_FORMAT_LIMITS)
    except FormatError as error:
        return [error.finding.message]
    budget = inspect_eval.Budget(DEFAULT_FORMAT_LIMITS)
    out: list[object] = []
    for member in found:
        try:
            out.append(inspect_eval.read_member(handle, member, len(data), DEFAULT_FORMAT_LIMITS, budget))
        except FormatError as error:
            out.append((error.finding.code.value, error.finding.message))
    return out


def _both(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[object]]:
    one_read = _read_all(data)
    with monkeypatch.context() as patch:
        patch.setattr(inspect_eval, "_ONE_READ", -1)
        return one_read, _read_all(data)


def _archives() -> list[bytes]:
    big = os.urandom(100_000).hex().encode()  # over one chunk once compressed
    zip64 = io.BytesIO()
    with zipfile.ZipFile(zip64, "w", zipfile.ZIP_DEFLATED) as archive:  # local zip64 extras
        for name, body in [("header.json", header_bytes()), ("samples/1_epoch_1.json", b"{}")]:
            with archive.open(name, "w", force_zip64=True) as member:
                member.write(body)
    return [
        chatty_eval(3, 4),
        stored_zip([("header.json", header_bytes()), ("samples/1_epoch_1.json", big)]),
        zip64.getvalue(),
        *(path.read_bytes() for path in sorted(CORPUS.rglob("*.eval"))),
    ]


def test_archives_read_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    archives = _archives()
    assert len(archives) >= 8
    for data in archives:
        one_read, apart = _both(data, monkeypatch)
        assert one_read == apart
        assert all(isinstance(x, bytes) for x in one_read)
    with zipfile.ZipFile(io.BytesIO(archives[1])) as plain:
        assert _read_all(archives[1]) == [plain.read(i) for i in plain.infolist()]


@pytest.mark.parametrize("seed", range(4))
def test_corrupted_members_are_refused_the_same_either_way(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes changed in local headers and data (the directory left alone): the same bytes or
    the same refusal for every member, whichever way it is read."""
    rng = random.Random(seed)
    bases = _archives()[:3]
    refused = 0
    for _ in range(150):
        data = bytearray(rng.choice(bases))
        end = data.find(b"PK\x01\x02")
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(0, end)
            data[at] = rng.choice((0, 0xFF, rng.randrange(256)))
        one_read, apart = _both(bytes(data), monkeypatch)
        assert one_read == apart
        refused += any(not isinstance(x, bytes) for x in one_read)
    assert refused > 0
