"""Inspect AI eval logs, ``.json`` and ``.eval`` (docs/formats.md, "Inspect AI").

Detection (step D): a ``.eval`` starts with a zip local header whose member name is one Inspect
writes (``_journal/start.json``, ``header.json``, ``samples/...``, ``summaries.json``,
``reductions.json``); a ``.json`` log is a JSON object with a top-level ``eval`` object and a
``version`` or ``status`` key.

Loading: a ``.json`` document is size-checked, depth-checked and decoded once; a ``.eval``
archive is read member by member through :mod:`tracekit.formats.inspect_eval`. Both give the
header's run facts (step H) and one episode per sample per epoch (steps S1-S8, in
:mod:`tracekit.formats.inspect_sample`), in the same order (sample id, then epoch), so a
``.eval`` and its ``inspect log convert`` JSON give identical evidence.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import Any, NoReturn

import msgspec

from tracekit.formats import envelope
from tracekit.formats.base import EpisodeStream, FormatError, FormatLimits, Source
from tracekit.formats.inspect_run import run_problems
from tracekit.formats.inspect_sample import episode, sample_items
from tracekit.formats.inspect_values import obj, opt_str
from tracekit.kernel.errors import Code, finding
from tracekit.kernel.evidence import Episode, EvidenceFile, RunFacts
from tracekit.kernel.jsonscan import nesting_exceeds

NAME = "inspect"
_ZIP = b"PK\x03\x04"
_MEMBERS = (b"_journal/", b"header.json", b"samples/", b"summaries.json", b"reductions.json")
_VERSIONS = (1, 2, 3)


class InspectFormat:
    """Inspect AI eval logs (log versions 1 to 3)."""

    name = NAME

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        if prefix.startswith(_ZIP):
            if len(prefix) < 30:
                return False
            name_len = int.from_bytes(prefix[26:28], "little")
            name = prefix[30 : 30 + name_len]
            return any(name == m or (m.endswith(b"/") and name.startswith(m)) for m in _MEMBERS)
        keys = envelope.top_level(prefix)
        if not keys or not envelope.is_object(keys.get(b"eval", b"")):
            return False
        return b"version" in keys or b"status" in keys

    def stream(self, source: Source, limits: FormatLimits) -> EpisodeStream:
        """One sample's episode at a time (docs/formats.md, "Streaming episodes"): the archive
        reader holds one member's bytes and one sample's values at once, the JSON reader the
        document and one sample's values."""
        source.handle.seek(0)
        zipped = source.handle.read(4) == _ZIP
        return _stream_eval(source, limits) if zipped else _stream_json(source, limits)

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        return self.stream(source, limits).evidence()


def decode(data: bytes, limits: FormatLimits, member: str) -> Any:
    """Step D2: depth pre-scan, then one msgspec decode (no recursion a deep input can blow),
    then the duplicate-key check. The pre-scan and the text's key count share one pass over the
    text outside its strings (:func:`outside_strings`), made only when one needs it: the
    pre-scan when the text has more brackets than the depth limit, the key count when the text
    has a backslash (:func:`_repeats_a_key`)."""
    outside = outside_strings(data) if _brackets(data) > limits.depth else None
    if outside is not None and _too_deep(data, outside, limits.depth):
        raise FormatError(finding(Code.INSPECT_TOO_DEEP, limit=limits.depth, member=member))
    if not data.isascii():  # ASCII is UTF-8; anything else is decoded once to prove it
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(finding(Code.INSPECT_NOT_UTF8, member=member)) from None
    try:
        value = msgspec.json.decode(data)
    except msgspec.DecodeError:
        raise FormatError(finding(Code.INSPECT_JSON_INVALID, member=member)) from None
    # msgspec keeps the last of repeated keys; a reviewer could be shown the other. The text's
    # keys (its colons outside strings) are counted against the decoded value's (counted the
    # same way on its msgspec encoding): a repeated key makes the value hold fewer.
    if _repeats_a_key(data, outside, value):
        raise FormatError(finding(Code.INSPECT_DUPLICATE_KEY, member=member))
    return value


def _repeats_a_key(data: bytes, outside: bytes | None, value: Any) -> bool:
    """Whether the decoded value holds fewer keys than the text, which needs two keys at least.

    A text without a backslash has no escapes: each of its strings decodes to itself and is
    encoded back as itself (msgspec escapes only quotes, backslashes and control characters,
    none of them a colon), so the encoding's colons are the value's keys plus its strings'
    colons, as the text's colons are its keys plus the same strings' colons. A repeated key
    drops a key and the strings of all but one of its values: fewer colons. Otherwise the two
    counts agree, and neither text needs a scan (nor a text of fewer than two colons an
    encoding: it holds fewer than two keys)."""
    if b"\\" not in data:
        colons = data.count(b":")
        return colons > 1 and msgspec.json.encode(value).count(b":") != colons
    keys = (outside if outside is not None else outside_strings(data)).count(b":")
    return keys > 1 and keys != outside_strings(msgspec.json.encode(value)).count(b":")


def _brackets(data: bytes) -> int:
    return data.count(b"[") + data.count(b"{")


_KEEP = bytes(sorted(set(range(256)) - set(b'[]{}":')))
_SQUARE = bytes.maketrans(b"{}", b"[]")


def outside_strings(data: bytes) -> bytes:
    """The brackets and colons of a JSON text outside its strings, in order.

    Escaped backslashes go first, then escaped quotes, so every quote left delimits a string and
    the odd pieces between quotes are string contents (the method of ``tracekit.kernel.jsonscan``). Exact
    for valid JSON; an invalid text is refused by the decoder afterwards. Outside strings a colon
    only ever ends an object key, so the colons count the keys.

    A long text is done in pieces of about 1 MiB, each cut after a byte that is not a backslash
    (so no escape spans a cut, and each piece pairs its backslashes as the whole text would):
    the copies the replacements and the split make are a piece's, not the text's; the pieces
    carry over whether they start inside a string."""
    if len(data) <= _PIECE:  # one piece, as below without the carry-over
        structure = _quotes_and_structure(data, 0, len(data))
        # When no string holds a bracket or colon, every string is an adjacent pair of quotes
        # here; the first string's opening quote pairs with nothing else, and so on, so no quote
        # left over means exactly that.
        bare = structure.replace(b'""', b"")
        return bare if b'"' not in bare else b"".join(structure.split(b'"')[0::2])
    out: list[bytes] = []
    inside = False  # whether the piece starts inside a string
    for start, end in _pieces(data):
        parts = _quotes_and_structure(data, start, end).split(b'"')
        out.append(b"".join(parts[1::2] if inside else parts[0::2]))
        if len(parts) % 2 == 0:  # an odd number of quotes: the next piece starts on the other side
            inside = not inside
    return b"".join(out)


_PIECE = 1 << 20


def _pieces(data: bytes) -> Iterator[tuple[int, int]]:
    start, size = 0, len(data)
    while start < size:
        end = min(start + _PIECE, size)
        while end < size and data[end - 1] == 0x5C:  # never cut after a backslash
            end += 1
        yield start, end
        start = end


def _quotes_and_structure(data: bytes, start: int, end: int) -> bytes:
    piece = data[start:end] if start or end != len(data) else data
    if b"\\" in piece:
        piece = piece.replace(b"\\\\", b"").replace(b'\\"', b"")
    return piece.translate(None, _KEEP)


def _too_deep(data: bytes, outside: bytes, limit: int) -> bool:
    """``tracekit.kernel.jsonscan.depth_exceeds`` on the text's structure already found."""
    if _brackets(data) <= limit:
        return False
    return nesting_exceeds(outside.translate(_SQUARE, b":"), limit)


def _header_schema(rule: str) -> FormatError:
    return FormatError(finding(Code.INSPECT_SCHEMA, rule=rule, member="header"))


def facts(log: dict[str, Any]) -> tuple[RunFacts, str]:
    """Step H: run facts from ``version`` and the ``eval`` spec."""
    version = log.get("version")
    if type(version) is not int:
        raise _header_schema("version must be an integer")
    if version not in _VERSIONS:
        raise FormatError(finding(Code.INSPECT_UNSUPPORTED_VERSION))
    spec = log.get("eval")
    if not isinstance(spec, dict):
        raise _header_schema("eval must be an object")
    packages = spec.get("packages") or {}
    revision = spec.get("revision") or {}
    config = spec.get("model_generate_config") or {}
    if not all(isinstance(x, dict) for x in (packages, revision, config)):
        raise _header_schema(
            "eval.packages, eval.revision and eval.model_generate_config must be objects"
        )
    seed = config.get("seed")
    return (
        RunFacts(
            tool="inspect_ai",
            tool_version=opt_str(packages.get("inspect_ai"), "eval.packages", "header"),
            model=opt_str(spec.get("model"), "eval.model", "header"),
            endpoint=opt_str(spec.get("model_base_url"), "eval.model_base_url", "header"),
            sampling=config or None,
            seed=seed if type(seed) is int else None,
            harness_revision=opt_str(revision.get("commit"), "eval.revision.commit", "header"),
            task=opt_str(spec.get("task"), "eval.task", "header"),
        ),
        str(version),
    )


def _sample_key(sample: Any) -> tuple[int, Any, int]:
    """Episodes are ordered by sample id (integers first), then epoch: the same for a .eval
    (members in completion order) and its converted JSON."""
    sample = obj(sample, "a sample must be an object")
    sample_id, epoch = sample.get("id"), sample.get("epoch", 1)
    epoch = epoch if type(epoch) is int else 0
    return (0, sample_id, epoch) if type(sample_id) is int else (1, str(sample_id), epoch)


class _FileItems:
    """``items_per_file``: every sample's events and messages, charged before it is converted,
    and the tool calls its episode holds, charged once it is (a model event may carry many)."""

    def __init__(self, limits: FormatLimits) -> None:
        self.limit = limits.items_per_file
        self.used = 0

    def _charge(self, count: int) -> None:
        self.used += count
        if self.used > self.limit:
            raise FormatError(finding(Code.INSPECT_FILE_TOO_MANY_ITEMS, limit=self.limit))

    def pair(self, sample: Any, base: RunFacts, limits: FormatLimits) -> tuple[tuple[int, Any, int], Episode]:
        key = _sample_key(sample)  # checks that the sample is an object
        self._charge(sample_items(sample))
        converted = episode(sample, base, limits)
        if converted.calls:
            self._charge(len(converted.calls))
        return key, converted


def _samples(samples: list[Any], base: RunFacts, limits: FormatLimits) -> Iterator[tuple[Any, Episode]]:
    items = _FileItems(limits)
    for sample in samples:
        yield items.pair(sample, base, limits)


def _stream_json(source: Source, limits: FormatLimits) -> EpisodeStream:
    """Steps J1-J3: one bounded document.

    Fast path: the document's top level is decoded with its values left as raw slices of the
    text (``msgspec.Raw``) and the ``samples`` array likewise, so samples are decoded and turned
    into episodes one at a time (only one sample's values alive at once), after the checks that
    cover the whole text (size, depth, UTF-8). Every key is counted as :func:`decode` does, part
    by part; the parts' counts and the top level's keys must add up to the text's. Anything
    irregular (a syntax error, a repeated key, a schema error, a bound) sends the document
    through :func:`_stream_whole`, the whole-document path, which reports it with exactly the
    finding and first-error order it always had (:func:`_whole_error` once episodes have been
    handed over: nothing is reported before the stream ends)."""
    if source.size > limits.member_bytes:
        raise FormatError(finding(Code.INSPECT_MEMBER_TOO_LARGE, limit=limits.member_bytes))
    source.handle.seek(0)
    data = source.handle.read(limits.member_bytes + 1)
    if len(data) > limits.member_bytes:
        raise FormatError(finding(Code.INSPECT_MEMBER_TOO_LARGE, limit=limits.member_bytes))
    outside = outside_strings(data)
    if _too_deep(data, outside, limits.depth) or not data.isascii() and not _utf8(data):
        return _stream_whole(data, limits)
    try:
        log, raw_samples, keys = _json_head(data, limits)
        base, version = facts(log)
    except (FormatError, msgspec.DecodeError, _Irregular):
        return _stream_whole(data, limits)
    pairs = _json_pairs(data, raw_samples, base, keys - outside.count(b":"), limits)
    return EpisodeStream(NAME, version, pairs, run_problems(log, len(raw_samples)))


class _Irregular(Exception):
    """The fast path of :func:`_stream_json` met something the whole-document path must report."""


_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw] | None)


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8, decoded a piece at a time (no copy of the whole text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(data), _PIECE):
            decoder.decode(view[start : start + _PIECE])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _keys(value: Any) -> int:
    return outside_strings(msgspec.json.encode(value)).count(b":")


def _json_head(data: bytes, limits: FormatLimits) -> tuple[dict[str, Any], list[msgspec.Raw], int]:
    """The fast path's top level: the log without its samples, the samples as raw slices, and
    the keys counted so far (the top level's)."""
    top = _TOP.decode(data)
    keys = 1 if "samples" in top else 0  # the key itself; the rest of the top level in ``log``
    raw_samples = _RAW_LIST.decode(top.pop("samples", msgspec.Raw(b"null"))) or []
    log = {key: msgspec.json.decode(raw) for key, raw in top.items()}
    if len(raw_samples) > limits.episodes:
        raise _Irregular
    return log, raw_samples, keys + _keys(log)


def _json_pairs(
    data: bytes, raw_samples: list[msgspec.Raw], base: RunFacts, keys: int, limits: FormatLimits
) -> Iterator[tuple[Any, Episode]]:
    """The fast path's samples, one at a time; ``keys`` (the top level's count less the text's)
    must come back to 0 once every sample's keys are added."""
    try:
        items = _FileItems(limits)
        for raw in raw_samples:
            sample = msgspec.json.decode(raw)
            keys += _keys(sample)
            yield items.pair(sample, base, limits)
        if keys:
            raise _Irregular
    except (FormatError, msgspec.DecodeError, _Irregular) as error:
        _whole_error(data, limits, error)


def _whole_error(data: bytes, limits: FormatLimits, error: Exception) -> NoReturn:
    """The fast path met something irregular after it had handed over episodes: the whole
    document is read again through :func:`_stream_whole` for the finding it reports (its first
    error, as before streaming). That path refuses whatever the fast path did; should it not,
    the fast path's own finding stands (a key count that does not add up: a repeated key)."""
    for _ in _stream_whole(data, limits).pairs:
        pass
    if isinstance(error, FormatError):
        raise error
    raise FormatError(finding(Code.INSPECT_DUPLICATE_KEY, member="document"))


def _stream_whole(data: bytes, limits: FormatLimits) -> EpisodeStream:
    log = decode(data, limits, "document")
    del data  # the text is no longer needed while the episodes are built
    if not isinstance(log, dict):
        raise _header_schema("the log must be a JSON object")
    base, version = facts(log)
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise _header_schema("samples must be a list")
    if len(samples) > limits.episodes:
        raise FormatError(finding(Code.INSPECT_TOO_MANY_EPISODES, limit=limits.episodes))
    return EpisodeStream(NAME, version, _samples(samples, base, limits), run_problems(log, len(samples)))


def _stream_eval(source: Source, limits: FormatLimits) -> EpisodeStream:
    """Steps E1-E6 then H and S: header.json, then each samples/ member in turn, one at a time
    as the stream is iterated (the source must stay open meanwhile)."""
    from tracekit.formats import inspect_eval as zipped

    handle, size = source.handle, source.size
    found = zipped.members(handle, size, limits)
    budget = zipped.Budget(limits)
    log = _eval_header(found, handle, size, limits, budget)
    base, version = facts(log)
    sample_members = [
        m for m in found if m.name.startswith("samples/") and m.name.endswith(".json")
    ]
    if len(sample_members) > limits.episodes:
        raise FormatError(finding(Code.INSPECT_TOO_MANY_EPISODES, limit=limits.episodes))

    def pairs() -> Iterator[tuple[Any, Episode]]:
        items = _FileItems(limits)
        for member in sample_members:
            sample = decode(zipped.read_member(handle, member, size, limits, budget), limits, "sample")
            yield items.pair(sample, base, limits)

    return EpisodeStream(NAME, version, pairs(), run_problems(log, len(sample_members)))


def _eval_header(found: Any, handle: Any, size: int, limits: FormatLimits, budget: Any) -> dict[str, Any]:
    """``header.json``; for a ``.eval`` still being written (no header yet), the journal's
    ``start.json`` with the run recorded as ``started`` (docs/formats.md, "Run status")."""
    from tracekit.formats import inspect_eval as zipped

    header = next((m for m in found if m.name == "header.json"), None)
    started = next((m for m in found if m.name == "_journal/start.json"), None)
    member = header or started
    if member is None:
        raise FormatError(finding(Code.INSPECT_MISSING_MEMBER, member="header.json"))
    log = decode(zipped.read_member(handle, member, size, limits, budget), limits, "header")
    if not isinstance(log, dict):
        raise _header_schema("header.json must be a JSON object")
    if header is None:
        log = {**log, "status": "started"}
    return log


FORMAT = InspectFormat()
