"""What one ``.eval`` may cost, and whether its local headers agree with its central directory
(docs/formats.md, "Inspect AI", steps E4 and E5, and "Bounds")."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from tests.unit.formats.eval_build import chatty_eval, chatty_sample, header_bytes, stored_zip
from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile

SAMPLE = chatty_sample(1, 6)
MEMBERS = [("header.json", header_bytes()), ("samples/1_epoch_1.json", SAMPLE)]


def _load(data: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return registry.load(Source(io.BytesIO(data), len(data), ".eval"), "inspect", limits)


def _refused(data: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> FormatError:
    with pytest.raises(FormatError) as raised:
        _load(data, limits)
    return raised.value


def test_an_agreeing_crafted_archive_loads() -> None:
    evidence = _load(stored_zip(MEMBERS))
    assert [len(e.messages) for e in evidence.episodes] == [6]


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"local_names": {"samples/1_epoch_1.json": "samples/2_epoch_1.json"}}, "name"),
        ({"local_names": {"header.json": "header.jsoN"}}, "name"),
        ({"local_sizes": {"samples/1_epoch_1.json": len(SAMPLE) - 1}}, "sizes or checksum"),
    ],
)
def test_a_local_header_that_disagrees_is_refused(change: dict[str, dict[str, object]], rule: str) -> None:
    error = _refused(stored_zip(MEMBERS, **change))  # type: ignore[arg-type]
    assert error.finding.code is Code.INSPECT_LOCAL_HEADER_MISMATCH
    assert f"({rule})" in error.finding.message
    assert "epoch" not in error.finding.message and "jsoN" not in error.finding.message


class _Unseekable(io.RawIOBase):
    """An output ``zipfile`` cannot seek back in: it writes data descriptors (flag bit 3)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, chunk: bytes) -> int:  # type: ignore[override]
        self.data += chunk
        return len(chunk)


def test_members_with_data_descriptors_compare_names_only() -> None:
    out = _Unseekable()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in MEMBERS:
            archive.writestr(name, data)
    data = bytes(out.data)
    assert all(i.flag_bits & 0x8 for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    assert [len(e.messages) for e in _load(data).episodes] == [6]
    forged = data.replace(b"samples/1_epoch_1.json", b"samples/9_epoch_1.json", 1)  # local only
    assert _refused(forged).finding.code is Code.INSPECT_LOCAL_HEADER_MISMATCH


def test_the_header_member_is_checked_too() -> None:
    data = stored_zip(MEMBERS, local_sizes={"header.json": len(header_bytes()) + 5})
    assert _refused(data).finding.code is Code.INSPECT_LOCAL_HEADER_MISMATCH


def test_real_archives_agree() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "inspect"
    paths = sorted(root.rglob("*.eval"))
    assert len(paths) >= 2
    for path in paths:
        assert _load(path.read_bytes()).episodes, path.name


def _padded(number: int, pad: int) -> bytes:
    """A sample whose one message is ``pad`` repeated bytes: a tiny member that expands a lot."""
    return json.dumps({"id": number, "epoch": 1, "messages": [{"role": "user", "content": "a" * pad}]}).encode()


def _deflated(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def test_small_members_share_one_allowance() -> None:
    """Each member expands about 1,000 times but stays under 1 MiB: one loads; three draw more
    than the archive's one allowance and are refused as a bomb."""
    head = [("header.json", header_bytes())]
    one = _deflated(head + [("samples/1_epoch_1.json", _padded(1, 600_000))])
    assert len(_load(one).episodes) == 1
    three = _deflated(head + [(f"samples/{n}_epoch_1.json", _padded(n, 600_000)) for n in range(3)])
    assert _refused(three).finding.code is Code.INSPECT_ZIP_BOMB


def test_whole_file_item_bound_at_its_value_and_one_below() -> None:
    data = chatty_eval(3, 100)  # 300 messages, no events
    assert len(_load(data, FormatLimits(items_per_file=300)).episodes) == 3
    error = _refused(data, FormatLimits(items_per_file=299))
    assert error.finding.code is Code.INSPECT_FILE_TOO_MANY_ITEMS
    assert "299" in error.finding.message


def test_whole_file_item_bound_holds_for_json_logs_too() -> None:
    samples = [json.loads(chatty_sample(n, 100)) for n in range(3)]
    log = json.dumps({**json.loads(header_bytes()), "samples": samples}).encode()
    source = Source(io.BytesIO(log), len(log), ".json")
    assert len(registry.load(source, "inspect", FormatLimits(items_per_file=300)).episodes) == 3
    with pytest.raises(FormatError) as raised:
        registry.load(Source(io.BytesIO(log), len(log), ".json"), "inspect", FormatLimits(items_per_file=299))
    assert raised.value.finding.code is Code.INSPECT_FILE_TOO_MANY_ITEMS


def test_a_small_archive_of_many_short_messages_is_refused_at_the_default_bound() -> None:
    """Near real size: 51 members of 10,000 one-word messages (about 0.1 MB as stored) pass
    the default whole-file bound by 10,000 and are refused before the last sample converts."""
    data = chatty_eval(51, 10_000)
    assert len(data) < 200_000
    error = _refused(data)
    assert error.finding.code is Code.INSPECT_FILE_TOO_MANY_ITEMS
    assert DEFAULT_FORMAT_LIMITS.items_per_file == 500_000


def test_tool_calls_count_against_the_whole_file_bound() -> None:
    """One model event may carry many calls: they are charged once the sample is converted."""
    calls = [{"id": f"c{i}", "function": "f", "arguments": {}} for i in range(50)]
    event = {"event": "model", "input": [], "output": {"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": calls}}]}}
    sample = json.dumps({"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "go"}], "events": [event]}).encode()
    data = stored_zip([("header.json", header_bytes()), ("samples/1_epoch_1.json", sample)])
    assert len(_load(data, FormatLimits(items_per_file=52)).episodes[0].calls) == 50
    assert _refused(data, FormatLimits(items_per_file=51)).finding.code is Code.INSPECT_FILE_TOO_MANY_ITEMS


def test_an_entry_needing_a_later_zip_version_is_a_bad_archive() -> None:
    """An entry whose "version needed to extract" is past what zipfile reads (6.3) goes to
    zipfile, which raises NotImplementedError: refused as an unreadable archive, not an internal
    error."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in MEMBERS:
            archive.writestr(name, data)
    data = bytearray(out.getvalue())
    entry = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)  # the second entry's
    data[entry + 6 : entry + 8] = (64).to_bytes(2, "little")
    assert _refused(bytes(data)).finding.code is Code.INSPECT_BAD_ARCHIVE
