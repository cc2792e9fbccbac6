"""An Inspect ``.eval``'s central directory read without ``zipfile`` when it is plain
(docs/formats.md, "Inspect AI", steps E1-E3).

``zipfile`` makes a ``ZipInfo`` per member (about 8 microseconds and 400 bytes each: a log of
50,000 samples spends 0.4 s there). Most archives are plain: the end record is the file's last
22 bytes with no comment, the directory ends where the end record starts (or, in an archive of
more than 65,535 members, where the zip64 end record before it starts, one disk, nothing odd),
and every entry lies inside the directory with a name free of NUL bytes, an extract version
``zipfile`` accepts and no zip64 extra field. For such an archive :func:`plain_entries` lists
the entries ``zipfile`` would, field for field, with one ``struct`` unpack each; for any other
it answers ``None`` and the caller asks ``zipfile``, which refuses or lists it as before. So an
archive is accepted, and described, exactly as before (tests/unit/formats/test_inspect_directory.py
compares the two on real, crafted and corrupted archives).
"""

from __future__ import annotations

import re
import struct
from typing import BinaryIO

import msgspec


class Member(msgspec.Struct, frozen=True, gc=False):
    """One archive member, as the central directory describes it (a Struct: made once per
    member, 50,000 times for a log of 50,000 samples)."""

    name: str
    method: int
    offset: int
    compressed: int
    size: int
    crc: int
    raw_name: bytes = b""
    """The name's bytes as the central directory stores them."""
    flags: int = 0


_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_LOCATOR = struct.Struct("<4sIQI")
"""The zip64 end record's locator: signature, its disk, the record's offset, the disks."""
_ZIP64_END = struct.Struct("<4sQHHIIQQQQ")
"""The zip64 end record without extensible data (56 bytes, ``zipfile``'s ``structEndArchive64``)."""
_CENTRAL = struct.Struct("<4s2xBxHH4xIIIHHH8xI")
"""One directory entry's fixed part (46 bytes, ``zipfile``'s ``structCentralDir``), the fields
read here only: signature, extract version, flags, method, CRC-32, compressed size, size, the
name's, extra field's and comment's lengths, and the local header's offset."""
_CENTRAL_SIGNATURE = b"PK\x01\x02"
_MAX_EXTRACT_VERSION = 63
"""``zipfile.MAX_EXTRACT_VERSION``: an entry asking for a later version is left to ``zipfile``."""
_ZIP64_EXTRA = 0x0001
_UTF8_NAME = 0x800
_TAIL = 22 + 20
"""The end record and, before it, where a zip64 locator would be."""


def plain_entries(handle: BinaryIO, size: int) -> list[Member] | None:
    """The directory's entries as ``zipfile`` lists them (names NUL-free, so ``filename`` and
    ``orig_filename`` agree), or ``None`` when the archive is not plain (module docstring)."""
    if size < _TAIL:
        return None
    handle.seek(size - _TAIL)
    tail = handle.read(_TAIL)
    end = tail[20:]
    if len(tail) != _TAIL or end[:4] != _EOCD or end[20:22] != b"\0\0":
        return None
    if tail[:4] == _EOCD64_LOCATOR:
        found = _zip64_directory(handle, size, tail[:20])
        if found is None:
            return None
        directory_size, directory_offset, directory_end = found
    else:
        directory_size, directory_offset = struct.unpack_from("<II", end, 12)
        directory_end = size - 22
    if directory_offset + directory_size != directory_end:  # zipfile's "concat" would not be 0
        return None
    handle.seek(directory_offset)
    data = handle.read(directory_size)
    if len(data) != directory_size:
        return None
    return _entries(data)


def _zip64_directory(handle: BinaryIO, size: int, locator: bytes) -> tuple[int, int, int] | None:
    """The directory's size and offset from a zip64 end record (an archive of more than 65,535
    members: every log of that many samples), and where the directory must end: just before
    that record. Only a record ``zipfile`` of every version reads alike is taken: one disk,
    the locator pointing at the record just before it, a record of the fixed size with both
    entry counts equal; anything else is left to ``zipfile``."""
    _, disk, record_at, disks = _LOCATOR.unpack(locator)
    if disk != 0 or disks != 1 or size < _TAIL + _ZIP64_END.size or record_at != size - _TAIL - _ZIP64_END.size:
        return None
    handle.seek(record_at)
    record = handle.read(_ZIP64_END.size)
    if len(record) != _ZIP64_END.size:
        return None
    signature, length, _, _, disk_number, disk_start, here, total, directory_size, directory_offset = (
        _ZIP64_END.unpack(record)
    )
    if signature != _EOCD64 or length != _ZIP64_END.size - 12 or disk_number or disk_start or here != total:
        return None
    return directory_size, directory_offset, record_at


def _entries(data: bytes) -> list[Member] | None:
    entries: list[Member] = []
    unpack, fixed, at, total = _CENTRAL.unpack_from, _CENTRAL.size, 0, len(data)
    while at < total:
        if at + fixed > total:
            return None
        (signature, version, flags, method, crc, compressed, size,
         name_len, extra_len, comment_len, offset) = unpack(data, at)
        start = at + fixed
        at = start + name_len + extra_len + comment_len
        if signature != _CENTRAL_SIGNATURE or at > total or version > _MAX_EXTRACT_VERSION:
            return None
        raw = data[start : start + name_len]
        if extra_len and not _plain_extra(data, start + name_len, extra_len):
            return None
        name = _name(raw, flags)
        if name is None:
            return None
        entries.append(Member(name, method, offset, compressed, size, crc, raw, flags))
    return entries


def _name(raw: bytes, flags: int) -> str | None:
    """The name as ``zipfile`` decodes it (UTF-8 when flag bit 11 is set, else CP437, both of
    which read ASCII as ASCII); ``None`` for a NUL byte (``zipfile`` cuts the name there) or
    bytes that are not UTF-8 (``zipfile`` fails)."""
    if b"\0" in raw:
        return None
    if raw.isascii():
        return raw.decode("ascii")
    if not flags & _UTF8_NAME:
        return raw.decode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _plain_extra(data: bytes, at: int, length: int) -> bool:
    """Whether an entry's extra field is one ``zipfile`` reads without change or complaint:
    every block within the field and none of them zip64 (whose sizes would replace the
    entry's). ``zipfile`` ignores up to three trailing bytes, as this does."""
    end = at + length
    while end - at >= 4:
        kind, block = struct.unpack_from("<HH", data, at)
        if kind == _ZIP64_EXTRA or at + 4 + block > end:
            return False
        at += 4 + block
    return True


_CONTROL = re.compile("[\x00-\x1f\x7f]")


def safe_name(name: str) -> bool:
    """Step E2: a member name is relative, forward-slashed, without ``..`` or control bytes."""
    if not name or name.startswith("/") or "\\" in name or ":" in name.split("/", 1)[0]:
        return False
    if _CONTROL.search(name):
        return False
    return all(part not in ("..", ".") for part in name.split("/"))


_COLON_IN_FIRST_PART = re.compile(r"(?m)^[^/\n]*:")


def all_plain(names: list[str], flags: list[int]) -> bool:
    """Whether no entry breaks a rule of step E2 or E3 (an unsafe name, an encrypted member,
    a repeated name), tested over all the names at once with a few scans of their text: once
    no name holds a control byte, the names joined by newlines are one name a line, and with
    slashes turned to newlines too, one part a line. ``False`` sends the caller to the
    entry-by-entry checks, which report the first entry that breaks one, as they always did."""
    if not names:
        return True
    if not all(names) or any(flag & 0x1 for flag in flags) or len(set(names)) != len(names):
        return False
    together = "".join(names)
    if "\\" in together or not together.isprintable() and _CONTROL.search(together):
        return False
    lines = "\n" + "\n".join(names)
    if "\n/" in lines or ":" in together and _COLON_IN_FIRST_PART.search(lines):
        return False
    parts = lines.replace("/", "\n") + "\n"
    return "\n.\n" not in parts and "\n..\n" not in parts
