"""Bounded reading of Inspect ``.eval`` archives (docs/formats.md, "Inspect AI", steps E1-E6).

A ``.eval`` is a zip whose members are zstd-compressed (method 93), which Python 3.11's
``zipfile`` cannot decompress. The central directory is parsed, after the member count has
been read from the end-of-central-directory record and checked, by
:mod:`tracekit.formats.inspect_directory` when the archive is plain and by ``zipfile``
otherwise (the same entries either way); member data is read from the handle in chunks and
decompressed by a streaming decoder whose output is capped per read, so no member is ever
expanded past its limit and the archive is never loaded whole.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, BinaryIO, cast

from tracekit.formats import inspect_directory as directory
from tracekit.formats.base import FormatError, FormatLimits
from tracekit.formats.inspect_directory import Member
from tracekit.kernel.errors import Code, finding

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_LOCAL = b"PK\x03\x04"
_STORED, _DEFLATED, _ZSTD = 0, 8, 93
_CHUNK = 64 * 1024
_SMALL_MEMBER = 1024 * 1024
"""Output allowed past the compression-ratio limit, over the whole archive (step E5)."""
_ZSTD_WINDOW = 1 << 25
"""Largest zstd window accepted (32 MiB): bounds the decoder's own memory."""


def _error(code: Code, **params: int | str) -> FormatError:
    return FormatError(finding(code, **params))


def _raw_name(info: zipfile.ZipInfo) -> bytes:
    """The directory's name bytes, as stored: ``zipfile`` decodes them (UTF-8 when flag bit 11
    is set, else CP437) and keeps the decoded text, before any clean-up, in ``orig_filename``."""
    encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
    try:
        return info.orig_filename.encode(encoding)
    except UnicodeEncodeError:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="central directory unreadable") from None


def _member_count(handle: BinaryIO, size: int) -> int:
    """Step E1: the entry count from the end-of-central-directory record (zip64 aware)."""
    tail_len = min(size, 22 + 65535)
    handle.seek(size - tail_len)
    tail = handle.read(tail_len)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="no end of central directory")
    count = struct.unpack_from("<H", tail, at + 10)[0]
    if count != 0xFFFF:
        return int(count)
    locator = at - 20
    if locator < 0 or tail[locator : locator + 4] != _EOCD64_LOCATOR:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="zip64 locator missing")
    record = struct.unpack_from("<Q", tail, locator + 8)[0]
    if record + 56 > size:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="zip64 record out of range")
    handle.seek(record)
    head = handle.read(56)
    if len(head) < 56 or head[:4] != _EOCD64:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="zip64 record missing")
    return int(struct.unpack_from("<Q", head, 32)[0])


def members(handle: BinaryIO, size: int, limits: FormatLimits) -> list[Member]:
    """Steps E1-E3: the members, after the count, name and duplicate checks."""
    if _member_count(handle, size) > limits.members:
        raise _error(Code.INSPECT_TOO_MANY_MEMBERS, limit=limits.members)
    entries = directory.plain_entries(handle, size)
    if entries is None:
        entries = _zipfile_entries(handle)
    if len(entries) > limits.members:
        raise _error(Code.INSPECT_TOO_MANY_MEMBERS, limit=limits.members)
    if not directory.all_plain([m.name for m in entries], [m.flags for m in entries]):
        _first_unsafe(entries)
    return entries


def _zipfile_entries(handle: BinaryIO) -> list[Member]:
    """The directory as ``zipfile`` parses it, for an archive that is not plain."""
    handle.seek(0)
    try:
        infos = zipfile.ZipFile(handle).infolist()  # noqa: SIM115 - parses the directory only
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError, NotImplementedError):
        # NotImplementedError: an entry needing a later zip version than zipfile reads
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="central directory unreadable") from None
    return [
        Member(
            info.filename,
            info.compress_type,
            info.header_offset,
            info.compress_size,
            info.file_size,
            info.CRC,
            _raw_name(info),
            info.flag_bits,
        )
        for info in infos
    ]


def _first_unsafe(entries: list[Member]) -> None:
    """Steps E2-E3 entry by entry: the first entry with an unsafe name, encryption or a name
    seen before is refused."""
    seen: set[str] = set()
    for member in entries:
        if not directory.safe_name(member.name):
            raise _error(Code.INSPECT_UNSAFE_MEMBER_NAME)
        if member.flags & 0x1:
            raise _error(Code.INSPECT_BAD_ARCHIVE, rule="encrypted member")
        if member.name in seen:
            raise _error(Code.INSPECT_BAD_ARCHIVE, rule="duplicate member name")
        seen.add(member.name)


class Budget:
    """Step E5's running total of decompressed bytes over the archive, and what is left of the
    small-member allowance: output past a member's compression ratio is drawn from one 1 MiB
    allowance shared by the whole archive, so many small members cannot each expand freely."""

    def __init__(self, limits: FormatLimits) -> None:
        self.limits = limits
        self.used = 0
        self.allowance = _SMALL_MEMBER

    def take(self, count: int) -> None:
        self.used += count
        if self.used > self.limits.total_decompressed:
            raise _error(Code.INSPECT_TOTAL_TOO_LARGE, limit=self.limits.total_decompressed)


def _compressed_chunks(handle: BinaryIO, member: Member, size: int) -> Iterator[bytes]:
    start = _local_header(handle, member)
    if start + member.compressed > size:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member data out of range")
    handle.seek(start)
    left = member.compressed
    while left > 0:
        chunk = handle.read(min(_CHUNK, left))
        if not chunk:
            raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member data cut short")
        left -= len(chunk)
        yield chunk


_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_ZIP64_EXTRA = 0x0001


def _local_header(handle: BinaryIO, member: Member) -> int:
    """Step E4: the member's local header, which must agree with the central directory on the
    name and method, and, unless sizes follow the data (flag bit 3), on the CRC-32 and both
    sizes (zip64 sizes from the local zip64 extra field); another zip reader, walking local
    headers, would otherwise see a different member. Returns where the data starts."""
    handle.seek(member.offset)
    local = handle.read(_LOCAL_HEADER.size)
    if len(local) < _LOCAL_HEADER.size or local[:4] != _LOCAL:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="local header missing")
    _, _, flags, method, _, _, crc, compressed, size, name_len, extra_len = _LOCAL_HEADER.unpack(local)
    name = handle.read(name_len)
    extra = handle.read(extra_len)
    if len(name) != name_len or len(extra) != extra_len:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="local header missing")
    if name != member.raw_name:
        raise _error(Code.INSPECT_LOCAL_HEADER_MISMATCH, rule="name")
    if method != member.method:
        raise _error(Code.INSPECT_LOCAL_HEADER_MISMATCH, rule="compression method")
    if not (flags | member.flags) & 0x8:
        if 0xFFFFFFFF in (compressed, size):
            size, compressed = _zip64_sizes(extra, size, compressed)
        if (crc, compressed, size) != (member.crc, member.compressed, member.size):
            raise _error(Code.INSPECT_LOCAL_HEADER_MISMATCH, rule="sizes or checksum")
    return int(member.offset + _LOCAL_HEADER.size + name_len + extra_len)


def _zip64_sizes(extra: bytes, size: int, compressed: int) -> tuple[int, int]:
    """The local zip64 extra field's sizes (uncompressed, then compressed, each present only
    where the header holds 0xFFFFFFFF); unchanged when the field is absent or short."""
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, at)
        body = extra[at + 4 : at + 4 + length]
        if tag == _ZIP64_EXTRA:
            fields = [size, compressed]
            offset = 0
            for i, value in enumerate(fields):
                if value == 0xFFFFFFFF and offset + 8 <= len(body):
                    fields[i] = struct.unpack_from("<Q", body, offset)[0]
                    offset += 8
            return fields[0], fields[1]
        at += 4 + length
    return size, compressed


class _ChunkReader:
    """A file-like view over the compressed chunks, for zstd's stream reader."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        while len(self._buffer) < max(size, 1):
            chunk = next(self._chunks, b"")
            if not chunk:
                break
            self._buffer += chunk
        if size < 0:
            size = len(self._buffer)
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out


def _decompressed(handle: BinaryIO, member: Member, size: int) -> Iterator[bytes]:
    chunks = _compressed_chunks(handle, member, size)
    if member.method == _STORED:
        yield from chunks
        return
    if member.method == _DEFLATED:
        inflater = zlib.decompressobj(-15)
        for chunk in chunks:
            data = inflater.decompress(chunk, _CHUNK)
            yield data
            while inflater.unconsumed_tail:
                yield inflater.decompress(inflater.unconsumed_tail, _CHUNK)
        yield inflater.flush()
        return
    if member.method != _ZSTD:
        raise _error(Code.INSPECT_UNSUPPORTED_COMPRESSION)
    try:
        import zstandard
    except ImportError:
        raise _error(Code.INSPECT_ZSTD_UNAVAILABLE) from None
    decoder = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW)
    with decoder.stream_reader(
        cast(IO[bytes], _ChunkReader(chunks)), read_across_frames=True
    ) as reader:
        while data := reader.read(_CHUNK):
            yield data


def read_member(
    handle: BinaryIO, member: Member, size: int, limits: FormatLimits, budget: Budget
) -> bytes:
    """Steps E4-E6: one member's bytes, decompressed under the member, ratio and total caps,
    then checked against the directory's size and CRC-32."""
    if member.size > limits.member_bytes:
        raise _error(Code.INSPECT_MEMBER_TOO_LARGE, limit=limits.member_bytes)
    by_ratio = member.compressed * limits.compression_ratio
    allowed = by_ratio + budget.allowance
    parts: list[bytes] = []
    produced = 0
    crc = 0
    try:
        for data in _decompressed(handle, member, size):
            produced += len(data)
            if produced > limits.member_bytes:
                raise _error(Code.INSPECT_MEMBER_TOO_LARGE, limit=limits.member_bytes)
            if produced > member.size:
                raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member larger than declared")
            if produced > allowed:
                raise _error(Code.INSPECT_ZIP_BOMB, limit=limits.compression_ratio)
            budget.take(len(data))
            crc = zlib.crc32(data, crc)
            parts.append(data)
    except FormatError:
        raise
    except (zlib.error, ValueError, OSError, MemoryError):
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member data does not decompress") from None
    except Exception as error:  # zstandard.ZstdError is not importable before the lazy import
        if type(error).__name__ == "ZstdError":
            raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member data does not decompress") from None
        raise
    if produced != member.size or crc != member.crc:
        raise _error(Code.INSPECT_BAD_ARCHIVE, rule="member size or checksum mismatch")
    budget.allowance -= max(0, produced - by_ratio)
    return b"".join(parts)
