"""Realistic benchmark traces: up to 10,000 events filling a byte budget, deterministic per seed.

Built from the corpus builders (corpus/gen/base.py) and written by ``tracekit.formats.agentguard.writer``, so every
trace is canonical and intact. What makes it realistic, per docs/trace-format.md step 4.4:

* mostly ``agent_command`` events with long argv (12 to 48 tokens, one in twenty up to the
  128-item bound) and their command text (up to 4096 characters), output identities, float
  durations;
* ``file_change`` events, a fraction carrying bounded unified diffs (at most 32,768 characters);
* guard summaries with watcher events and violations, guard metrics with float timings;
* ``check_result`` events with evidence lists (64 items), a completion listing every path;
* non-ASCII text (Latin, Cyrillic, CJK, emoji) in about one text field in twelve and one diff in
  five, which the canonical form escapes as ``\\uXXXX`` (surrogate pairs for emoji), so lines
  stay ASCII;
* float offsets on every event (``relative_offset_seconds``), floats and integers throughout.

The diff budget is sized last so the trace lands just under its byte target.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _extra in (ROOT / "corpus", ROOT):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

from gen import base

from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace, event_record, write_trace
from tracekit.kernel.canonical import agentguard_bytes
from tracekit.kernel.limits import DEFAULT_LIMITS

WORDS = (
    "build", "cache", "config", "deploy", "fixture", "handler", "index", "loader", "parser",
    "queue", "render", "schema", "session", "token", "widget", "worker", "report", "client",
)
NON_ASCII = ("café", "naïve façade", "Grüße", "Привет мир", "日本語のテキスト", "数据处理",
             "résumé ✓", "emoji 😀 🚀", "Ελληνικά", "한국어", "ß→∞ ±½", "מבחן")
ENVELOPE_OVERHEAD = 300  # bytes an event line adds around its payload (keys, hashes, numbers)


def _word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def _maybe_intl(rng: random.Random, text: str, share: float = 0.08) -> str:
    return f"{text} {rng.choice(NON_ASCII)}" if rng.random() < share else text


def _path(rng: random.Random, index: int) -> str:
    return f"src/{_word(rng)}_{index % 97}/{_word(rng)}_{index}.py"


def _duration(rng: random.Random) -> float:
    return round(rng.lognormvariate(-1.0, 1.2), 6)


SHORT_FLAGS = ("-q", "-x", "-v", "-s", "-j8", "-O2", "-k", "-p", "-W", "-m", "--", "-e", "-n", "-c")


def _token(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(SHORT_FLAGS)
    if roll < 0.6:
        return f"--{_word(rng)}={rng.randint(0, 10**4)}"
    if roll < 0.85:
        return _path(rng, rng.randint(0, 5000))
    return _maybe_intl(rng, _word(rng))


def _command(rng: random.Random, index: int) -> DraftEvent:
    """An agent command with a long argv (most 12-48 tokens, a few up to the 128-item bound)."""
    argv = ["python", "-m", f"tools.{_word(rng)}"]
    long_run = rng.random() < 0.05
    argv += [_token(rng) for _ in range(rng.randint(80, 125) if long_run else rng.randint(9, 45))]
    command = " ".join(argv)[: DEFAULT_LIMITS.string_chars]
    event = base.command(argv, exit_code=rng.choice((0, 0, 0, 1, 2)), duration=_duration(rng),
                         stdout=f"{index} ok {_word(rng)}\n" * rng.randint(0, 8))
    event.payload["command"] = command
    return event


def _guard(rng: random.Random, index: int) -> DraftEvent:
    watched = [
        {"event_type": rng.choice(("created", "modified", "deleted")),
         "observed_at_sequence": i + 1, "path": _path(rng, index * 1000 + i), "source": "polling"}
        for i in range(rng.randint(20, 120))
    ]
    return DraftEvent("guard_summary", {
        "files_observed": rng.randint(10, 5000), "kill_required": False, "mode": "monitor",
        "monitor_duration_seconds": _duration(rng) * 100, "scan_count": rng.randint(1, 400),
        "terminated_agent": False, "triggered": False,
        "violations": [
            {"action": "recorded", "message": _maybe_intl(rng, "write outside scope"),
             "path": _path(rng, index + i), "violation_type": "scope"}
            for i in range(rng.randint(0, 6))
        ],
        "watcher_mode": "polling", "watcher_events_observed": len(watched),
        "watcher_events": watched, "watcher_event_limit_exceeded": False,
        "watcher_event_error": None,
        "scan_complete": True, "incomplete_scan_count": 0, "scan_error": None,
    })


def _command_guard(rng: random.Random) -> DraftEvent:
    return DraftEvent("command_guard_summary", {
        "event_file": None, "events_observed": rng.randint(1, 900), "kill_required": False,
        "mode": "enforce", "monitor_duration_seconds": _duration(rng) * 50,
        "scan_count": rng.randint(1, 300), "terminated_agent": False, "triggered": True,
        "violations": [
            {"action": "blocked", "command_text": f"curl https://example.invalid/{_word(rng)}",
             "matched_patterns": ["curl "], "message": "Unsafe command blocked.",
             "violation_type": "unsafe_command"}
            for _ in range(rng.randint(0, 4))
        ],
    })


def _diff(rng: random.Random, path: str, budget: int) -> str:
    """A unified diff whose canonical encoding is about ``budget`` bytes, at most 32,768 chars.

    One diff in five touches text with non-ASCII characters (about one added line in eight)."""
    intl = 0.125 if rng.random() < 0.2 else 0.0
    lines = [f"--- a/{path}", f"+++ b/{path}"]
    size = 0
    hunk = 1
    while size < budget:
        lines.append(f"@@ -{hunk},7 +{hunk},9 @@ def {_word(rng)}_{hunk}():")
        for _ in range(rng.randint(4, 12)):
            sign = rng.choice(" +-")
            text = f"{sign}    {_word(rng)} = {_word(rng)}({rng.randint(0, 999)}, {rng.random():.4f})"
            lines.append(_maybe_intl(rng, text, intl) if sign == "+" else text)
        hunk += 11
        size = len(agentguard_bytes("\n".join(lines)))
    diff = "\n".join(lines) + "\n"
    limit = DEFAULT_LIMITS.diff_chars
    while len(diff) > limit or len(agentguard_bytes(diff)) > budget + 200:
        lines.pop()
        diff = "\n".join(lines) + "\n"
    return diff


def build(events: int = 10_000, target_bytes: int = 16_700_000, seed: int = 8,
          name: str = "bench") -> bytes:
    """Return the canonical JSONL bytes of one realistic trace of ``events`` events, at most
    ``target_bytes`` long (and within the 16 MiB limit)."""
    limit = min(target_bytes, DEFAULT_LIMITS.total_bytes)
    target = limit
    for _ in range(5):
        data = _build(events, target, seed, name)
        if len(data) <= limit:
            return data
        target -= len(data) - limit + 20_000
    raise RuntimeError("could not fit the trace into its byte budget")


def _build(events: int, target_bytes: int, seed: int, name: str) -> bytes:
    rng = random.Random(seed)
    header = base.header(2, name)
    n_guard = max(1, events // 250)
    n_files = max(1, events // 4)
    n_commands = events - 1 - 2 * n_guard - 1 - n_files - 1 - 7 - 1
    draft: list[DraftEvent] = [base.started(header)]
    draft += [_command(rng, i) for i in range(n_commands)]
    draft += [_guard(rng, i) for i in range(n_guard)]
    draft += [_command_guard(rng) for _ in range(n_guard)]
    draft.append(DraftEvent("guard_metrics", {
        "command_guard_violations": 3, "filesystem_guard_violations": 0, "guard_blocked": True,
        "guard_violations_total": 3, "time_to_block_ms": 12.5, "time_to_first_violation_ms": 11.75,
    }))
    paths = [_path(rng, 100_000 + i) for i in range(n_files)]
    changes = [base.file_change(p, rng.choice(("modified", "modified", "added", "deleted")),
                                added=rng.randint(0, 400), deleted=rng.randint(0, 200))
               for p in paths]
    draft += changes
    draft.append(base.test_result(duration=_duration(rng) * 20))
    for name_, severity in (("Tests passed", "error"), ("Forbidden paths", "critical"),
                            ("Test tampering", "error"), ("Unsafe commands", "critical"),
                            ("Scope adherence", "warning"), ("Diff size", "warning"),
                            ("Secret scan", "critical")):
        evidence = [_maybe_intl(rng, f"{p}: +{rng.randint(0, 99)} -{rng.randint(0, 99)}")
                    for p in rng.sample(paths, min(64, len(paths)))]
        draft.append(base.check(name_, True, severity, f"{name_}: no findings.", evidence))
    draft.append(base.completed(paths, added=4000, deleted=2000, score=100,
                                duration=round(sum(rng.random() for _ in range(50)), 6)))
    for position, event in enumerate(draft):
        event.relative_offset_seconds = round(position * 0.0371 + rng.random(), 6)
    # Spend what is left of the byte budget on diffs, in about one file change in eight.
    used = len(agentguard_bytes(header)) + 400 + sum(
        len(agentguard_bytes(event_record(e, 1, base.EMPTY_SHA, 2))) + 1 for e in draft)
    with_diff = changes[:: 8]
    share = max(0, target_bytes - used - 40 * len(with_diff)) // max(1, len(with_diff))
    for change in with_diff:
        budget = min(int(share * rng.uniform(0.6, 1.4)), 30_000)
        if budget > 200:
            change.payload.update(diff_included=True, diff_truncated=False,
                                  unified_diff=_diff(rng, change.payload["path"], budget))
    return write_trace(DraftTrace(header=header, events=draft))


if __name__ == "__main__":
    out = build()
    print(len(out), out.count(b"\n"))


def tampered_copies(data: bytes, task_id: str) -> dict[str, bytes]:
    """Copies of a generated trace that both verifiers must judge alike: tampered ones (both
    refuse) and re-spelled ones with the same values (both accept, as upstream does)."""
    import json

    lines = data.split(b"\n")
    middle = len(lines) // 2
    flipped = bytearray(data)
    at = data.index(b'"command":"', len(data) // 2) + 12
    flipped[at] ^= 0x01
    swapped = list(lines)
    swapped[middle], swapped[middle + 1] = swapped[middle + 1], swapped[middle]
    spaced = list(lines)
    spaced[middle] = json.dumps(json.loads(lines[middle]), sort_keys=True).encode()
    edited = task_id[:-1] + task_id[-1].swapcase()
    return {
        "intact": data,
        "payload_byte_flipped": bytes(flipped),
        "events_swapped": b"\n".join(swapped),
        "event_dropped": b"\n".join(lines[:middle] + lines[middle + 1 :]),
        "truncated": data[: len(data) // 3],
        "header_edited": data.replace(f'"task_id":"{task_id}"'.encode(), f'"task_id":"{edited}"'.encode(), 1),
        "hash_edited": data.replace(b'"event_hash":"', b'"event_hash":"0', 1),
        "non_canonical_spacing": b"\n".join(spaced),
        "crlf": data.replace(b"\n", b"\r\n"),
    }
