"""verify of a file of many episodes counts them as they stream and keeps none (docs/threat-model.md,
"The Inspect archive reader")."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_audit_memory import _eval
from tracekit.cli.verify_job import VerifyJob, verify_job
from tracekit.formats import registry


def test_verify_holds_no_episode_it_has_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pair the stream hands over is watched two pairs later (the consumer's loop still
    names the last one): only this watcher refers to it then, never a list of every episode read
    (what made a file of 100,000 short episodes cost verify 223 MiB; 97 MiB counted as they
    stream)."""
    real = registry.stream_as
    refs: list[int] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        stream = real(*args, **kwargs)
        read = stream.pairs

        def pairs() -> Any:
            last: list[Any] = []
            for pair in read:
                if len(last) == 2:
                    refs.append(sys.getrefcount(last.pop(0)))  # 1, this call's, unless the consumer kept it
                last.append(pair)
                yield pair

        stream.pairs = pairs()
        return stream

    monkeypatch.setattr(registry, "stream_as", watched)
    source = _eval(tmp_path / "many.eval", 300)
    trace = verify_job(VerifyJob("many.eval", str(source), False, False, ()))
    assert trace is not None and trace.status == "no_integrity"
    assert len(refs) == 298 and set(refs) == {1}, sorted(set(refs))
