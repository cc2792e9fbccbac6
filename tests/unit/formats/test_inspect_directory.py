"""The plain-archive directory reader lists exactly what ``zipfile`` lists, and the names checked
all at once are refused exactly when the entry-by-entry checks refuse one
(tracekit/formats/inspect_directory.py; docs/formats.md, "Inspect AI", steps E1-E3)."""

from __future__ import annotations

import io
import random
import struct
import zipfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.unit.formats.eval_build import chatty_eval, header_bytes, stored_zip
from tracekit.formats import inspect_directory, inspect_eval
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError

ROOT = Path(__file__).resolve().parents[3]
REAL = sorted((ROOT / "corpus").rglob("*.eval"))


def _fast(data: bytes) -> list[inspect_directory.Member] | None:
    return inspect_directory.plain_entries(io.BytesIO(data), len(data))


def _zipfile(data: bytes) -> list[inspect_directory.Member] | str:
    try:
        return inspect_eval._zipfile_entries(io.BytesIO(data))
    except FormatError as error:
        return error.finding.code.value
    except NotImplementedError:  # an entry's extract version past 6.3 (left as it was)
        return "NotImplementedError"


def _members(data: bytes, monkeypatch: pytest.MonkeyPatch, fast: bool) -> object:
    """What ``members`` answers (its members, or the refusal's code and message), through the
    plain reader when it takes the archive or, with ``fast`` off, through ``zipfile`` alone."""
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(inspect_directory, "plain_entries", lambda *_: None)
        try:
            return inspect_eval.members(io.BytesIO(data), len(data), DEFAULT_FORMAT_LIMITS)
        except FormatError as error:
            return error.finding.code.value, error.finding.message
        except NotImplementedError:
            return "NotImplementedError"


def _archives() -> list[bytes]:
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:  # extra fields and a comment on a member
        archive.writestr(zipfile.ZipInfo("header.json"), header_bytes())
        info = zipfile.ZipInfo("samples/1_epoch_1.json")
        info.extra, info.comment = struct.pack("<HH4s", 0x5455, 4, b"abcd"), b"note"
        archive.writestr(info, b"{}")
        archive.writestr(zipfile.ZipInfo("samples/caf\u00e9.json"), b"{}")  # a UTF-8 name
    return [
        *(path.read_bytes() for path in REAL),
        chatty_eval(3, 4),
        stored_zip([("header.json", header_bytes()), ("samples/1_epoch_1.json", b"{}")]),
        zipped.getvalue(),
    ]


def _zip64_end(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """An archive that ends in a zip64 end record and its locator, as ``zipfile`` writes one
    past 65,535 members (the limit lowered here, so that three members are enough)."""
    zipped = io.BytesIO()
    with monkeypatch.context() as patch:
        patch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)
        with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("header.json", header_bytes())
            archive.writestr("samples/1_epoch_1.json", b"{}")
            archive.writestr("samples/2_epoch_1.json", b"{}")
    data = zipped.getvalue()
    assert data[-42:-38] == b"PK\x06\x07" and data[-98:-94] == b"PK\x06\x06"
    return data


def test_a_zip64_end_record_is_read_as_zipfile_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """An archive of more than 65,535 members (every log of that many samples) is plain
    too; a zip64 end record that is odd in any way is left to ``zipfile``."""
    data = _zip64_end(monkeypatch)
    listed = _fast(data)
    assert listed is not None and [m.name for m in listed][0] == "header.json" and len(listed) == 3
    assert listed == _zipfile(data)
    at = len(data) - 98
    odd = {
        "two disks": data[:-26] + struct.pack("<I", 2) + data[-22:],
        "locator elsewhere": data[:-34] + struct.pack("<Q", at - 1) + data[-26:],
        "record length": data[: at + 4] + struct.pack("<Q", 45) + data[at + 12 :],
        "counts differ": data[: at + 24] + struct.pack("<Q", 2) + data[at + 32 :],
        "not a record": data[:at] + b"PK\x06\x05" + data[at + 4 :],
    }
    for name, changed in odd.items():
        assert _fast(changed) is None, name
        assert _members(changed, monkeypatch, True) == _members(changed, monkeypatch, False), name


def _zip64_directory() -> bytes:
    """A stored zip whose second directory entry keeps its sizes in a zip64 extra field."""
    data = bytearray(stored_zip([("header.json", header_bytes()), ("samples/1_epoch_1.json", b"{}")]))
    at = data.rfind(b"PK\x01\x02")
    name_len = struct.unpack_from("<H", data, at + 28)[0]
    data[at + 20 : at + 28] = b"\xff" * 8
    data[at + 30 : at + 32] = struct.pack("<H", 20)
    extra = struct.pack("<HHQQ", 0x0001, 16, 2, 2)
    data[at + 46 + name_len : at + 46 + name_len] = extra
    end = data.rfind(b"PK\x05\x06")
    size = struct.unpack_from("<I", data, end + 12)[0]
    data[end + 12 : end + 16] = struct.pack("<I", size + len(extra))
    return bytes(data)


def test_the_plain_reader_takes_real_archives_and_lists_what_zipfile_lists() -> None:
    """Every archive of the corpus that ``zipfile`` reads is plain (the one it refuses, a cut
    archive, is not)."""
    archives = _archives()
    assert len(archives) >= len(REAL) + 3 and len(REAL) >= 10
    refused = 0
    for data in archives:
        listed = _zipfile(data)
        refused += isinstance(listed, str)
        assert _fast(data) == (None if isinstance(listed, str) else listed)
    assert 0 < refused < len(REAL)


def test_an_archive_that_is_not_plain_is_left_to_zipfile() -> None:
    data = chatty_eval(2, 2)
    commented = data[:-2] + b"\x02\x00hi"  # an archive comment
    prefixed = b"junk" + data  # zipfile's "concat": offsets shift by four
    assert _fast(commented) is None and _fast(prefixed) is None and _fast(_zip64_directory()) is None
    assert _zipfile(commented) == _zipfile(data)
    assert isinstance(_zipfile(prefixed), list)
    listed = _zipfile(_zip64_directory())
    assert not isinstance(listed, str)
    assert [(m.compressed, m.size) for m in listed] == [(126, 126), (2, 2)]


def test_a_zip64_locator_that_ends_the_directory_is_left_to_zipfile() -> None:
    """The last entry's comment ends in what reads as a zip64 locator naming two disks: the
    directory is otherwise plain, and zipfile refuses it (an archive spanning disks)."""
    data = bytearray(stored_zip([("header.json", header_bytes())]))
    end = data.rfind(b"PK\x05\x06")
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, 0, 2)
    entry = data.rfind(b"PK\x01\x02")
    data[entry + 32 : entry + 34] = struct.pack("<H", len(locator))  # the entry's comment
    size = struct.unpack_from("<I", data, end + 12)[0]
    data[end + 12 : end + 16] = struct.pack("<I", size + len(locator))
    data[end:end] = locator
    assert _fast(bytes(data)) is None
    assert _zipfile(bytes(data)) == "inspect.bad_archive"


@pytest.mark.parametrize("seed", range(6))
def test_corrupted_directories_give_zipfile_s_answer(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes changed in the directory and end records of small archives: wherever the plain
    reader answers, it answers what ``zipfile`` does, and ``members`` answers the same through
    either, refusals included."""
    rng = random.Random(seed)
    bases = [*_archives()[-3:], _zip64_directory(), _zip64_end(monkeypatch)]
    taken = 0
    for _ in range(300):
        data = bytearray(rng.choice(bases))
        start = data.rfind(b"PK\x01\x02", 0, data.rfind(b"PK\x05\x06"))
        start = data.find(b"PK\x01\x02") if rng.random() < 0.5 else start
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(start, len(data))
            data[at] = rng.choice((0, 1, 0x2E, 0x2F, 0x5C, 0xFF, rng.randrange(256)))
        fast = _fast(bytes(data))
        if fast is not None:
            taken += 1
            assert fast == _zipfile(bytes(data))
        assert _members(bytes(data), monkeypatch, True) == _members(bytes(data), monkeypatch, False)
    assert taken > 0


_CHAR = st.sampled_from(["a", "a", "a", "b", "/", "/", ".", ".", ":", "\\", "\n", "\x00", "\x7f", "\xa0", "\u00e9"])
_NAME = st.text(alphabet=_CHAR, max_size=6)
_FLAG = st.sampled_from([0, 0, 0, 0, 0, 0, 0x1, 0x8, 0x800])


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(_NAME, _FLAG), max_size=5))
@example([("a", 0), ("/a", 0)])
@example([("a/./b", 0)])
@example([("a/..", 0)])
@example([("a", 0), ("a", 0)])
@example([("a/b:c", 0), ("a:b/c", 0)])
@example([("a\xa0", 0)])
@example([("a", 0), ("b", 0x1)])
def test_names_checked_at_once_agree_with_the_checks_one_by_one(named: list[tuple[str, int]]) -> None:
    names, flags = [name for name, _ in named], [flag for _, flag in named]
    entries = [inspect_directory.Member(name, 0, 0, 0, 0, 0, b"", flag) for name, flag in named]
    try:
        inspect_eval._first_unsafe(entries)
        refused = False
    except FormatError:
        refused = True
    assert inspect_directory.all_plain(names, flags) is not refused
