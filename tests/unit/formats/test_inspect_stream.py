"""Inspect logs read one episode at a time (docs/formats.md, "Streaming episodes"): the stream
holds the same episodes as the whole read, in the same order once sorted by key, refuses what
the whole read refuses, and a consumer that keeps only counts stays small near the limits."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.unit.formats.eval_build import HEADER, chatty_eval, chatty_sample
from tracekit.formats import registry
from tracekit.formats.base import (
    DEFAULT_FORMAT_LIMITS,
    EpisodeStream,
    FormatError,
    Source,
    in_order,
)
from tracekit.formats.reading import consume_file, load_file
from tracekit.kernel.evidence import EvidenceFile

ROOT = Path(__file__).resolve().parents[3]
INSPECT = ROOT / "corpus" / "third_party" / "inspect"
LOGS = sorted(p for p in INSPECT.rglob("*") if p.suffix in (".eval", ".json") and ".expected" not in p.name)


def _streamed(path: Path) -> EvidenceFile:
    """The file's evidence rebuilt from its stream, episode by episode."""

    def whole(stream: EpisodeStream) -> EvidenceFile:
        pairs = list(stream.pairs)
        return EvidenceFile(stream.format, stream.format_version, tuple(in_order(pairs)), stream.run_problems)

    return consume_file(path, whole)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_the_stream_holds_what_the_whole_read_holds(path: Path) -> None:
    try:
        expected = load_file(path)
    except FormatError as error:
        with pytest.raises(FormatError) as caught:
            _streamed(path)
        assert caught.value.finding == error.finding
        return
    assert _streamed(path) == expected


def _reversed_eval(samples: int) -> bytes:
    """Members in the reverse of the episode order (as a run's completion order may be)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for number in reversed(range(samples)):
            archive.writestr(f"samples/{number}_epoch_1.json", chatty_sample(number, 3))
    return out.getvalue()


def test_episodes_come_as_read_and_sort_by_key(tmp_path: Path) -> None:
    path = tmp_path / "log.eval"
    path.write_bytes(_reversed_eval(12))
    read: list[Any] = consume_file(path, lambda stream: [episode.id for _, episode in stream.pairs])
    ordered = [episode.id for episode in load_file(path).episodes]
    assert read == list(reversed(ordered))  # sample 11 first, as stored
    assert [e.id for e in _streamed(path).episodes] == ordered


def test_a_broken_sample_is_raised_from_the_stream_not_before(tmp_path: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        archive.writestr("samples/0_epoch_1.json", chatty_sample(0, 3))
        archive.writestr("samples/1_epoch_1.json", b'{"id": 1, "epoch": 1, "messages": [')
    source = Source(io.BytesIO(out.getvalue()), len(out.getvalue()), ".eval")
    stream = registry.stream_as(registry.get("inspect"), source, DEFAULT_FORMAT_LIMITS)
    first = next(stream.pairs)
    assert first[1].id  # the first sample was handed over
    with pytest.raises(FormatError) as caught:
        next(stream.pairs)
    with pytest.raises(FormatError) as whole:
        registry.load(Source(io.BytesIO(out.getvalue()), len(out.getvalue()), ".eval"))
    assert caught.value.finding == whole.value.finding


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'"epoch": 1,', b'"epoch": 1, "epoch": 2,'),
        (b'"messages": [', b'"messages": [{"a": 1, "a": 2},'),
    ],
)
def test_a_json_log_irregular_late_is_refused_as_the_whole_read_refuses_it(
    tmp_path: Path, old: bytes, new: bytes
) -> None:
    text = (INSPECT / "tracekit_corpus.json").read_bytes()
    at = text.rfind(old)  # the last sample's: found after earlier episodes were handed over
    assert at > 0
    path = tmp_path / "log.json"
    path.write_bytes(text[:at] + new + text[at + len(old) :])
    with pytest.raises(FormatError) as whole:
        load_file(path)
    with pytest.raises(FormatError) as streamed:
        _streamed(path)
    assert streamed.value.finding == whole.value.finding


_PEAK = """
import sys
from tracekit.formats.reading import consume_file, load_file
path, how = sys.argv[1], sys.argv[2]
if how == "stream":
    count = consume_file(path, lambda stream: sum(len(e.messages) for _, e in stream.pairs))
else:
    count = sum(len(e.messages) for e in load_file(path).episodes)
# VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(count, int(status[0]) // 1024)
"""


def _peak(path: Path, how: str) -> tuple[int, int]:
    """(messages read, peak RSS in MiB) of a fresh process reading ``path`` ``how``."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}  # no test's settings
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path), how], capture_output=True, text=True, check=True, cwd=ROOT, env=env
    )
    count, peak = done.stdout.split()
    return int(count), int(peak)


def test_streaming_an_archive_at_the_item_bound_stays_small(tmp_path: Path) -> None:
    """500,000 one-word messages (``items_per_file``, exactly) in 50 samples: the whole read
    holds every episode (about 160 MiB); a consumer of the stream that keeps counts holds one
    sample's (measured: about 40 MiB)."""
    path = tmp_path / "chatty.eval"
    path.write_bytes(chatty_eval(50, 10_000))
    streamed, stream_peak = _peak(path, "stream")
    whole, whole_peak = _peak(path, "whole")
    assert streamed == whole == DEFAULT_FORMAT_LIMITS.items_per_file
    assert stream_peak < 80, (stream_peak, whole_peak)
    assert whole_peak > stream_peak + 50, (stream_peak, whole_peak)
