"""Worst-case inputs within the loader's limits, one generator per shape (docs/threat-model.md,
"Work budget").

Each generator is deterministic and takes a scale, so the same shape serves three consumers:
the complexity tests (tests/complexity, small to mid scales, asserting on counts of work), the
fuzz targets (fuzz/targets.py, random scales) and the worst-case table of ``make bench``
(bench/worst_case.py, at the limits). Every AgentGuard trace here is intact and replayable, so
the work it causes happens *after* loading, where the loader's bounds do not reach.
"""

from __future__ import annotations

import json
from typing import Any

from gen import base
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace, write_trace

STRING_CHARS = 4096
LIST_ITEMS = 4096


def _trace(
    snapshot: dict[str, Any], commands: list[DraftEvent], paths: list[str], name: str
) -> bytes:
    h = base.header(2, name, policy_snapshot=snapshot)
    events = [base.started(h), *commands]
    events += [base.file_change(path, added=1, deleted=0) for path in paths]
    events += [base.test_result(), *base.passing_checks()]
    events.append(base.completed(paths, added=len(paths), deleted=0))
    return write_trace(DraftTrace(header=h, events=events))


def evidence_bomb(commands: int, repeats: int, command_chars: int = STRING_CHARS) -> bytes:
    """One unsafe-command pattern listed ``repeats`` times, and ``commands`` commands of about
    ``command_chars`` characters that each contain it: upstream's evidence is one line of the
    command's length per (command, listed pattern), commands x repeats x length characters."""
    pattern = "rm -rf"
    patterns = [pattern] * repeats
    snapshot = base.policy_snapshot(unsafe_commands=patterns, command_policy_patterns=patterns)
    tail = "x" * max(0, command_chars - len(pattern) - 12)
    argv = [pattern, f"/tmp/{tail}"]
    cmds = [base.command(argv, matched=[pattern]) for _ in range(commands)]
    return _trace(snapshot, cmds, ["src/a.py"], "evidence-bomb")


def glob_bomb(files: int, patterns: int, path_chars: int = 64) -> bytes:
    """``patterns`` distinct globs in each path list and ``files`` changed files: upstream tests
    every file against every pattern of every list (files x patterns x 4 globs)."""
    globs = [f"*{i}*?*x" for i in range(patterns)]
    snapshot = base.policy_snapshot(
        allowed_paths=globs, forbidden_paths=globs, test_paths=globs, secret_patterns=globs,
        expected_modified_files_max=files, max_files_changed=files,
    )
    pad = "p" * max(1, path_chars - 16)
    paths = [f"src/{pad}/{i:08d}.py" for i in range(files)]
    return _trace(snapshot, [], paths, "glob-bomb")


def star_bomb(patterns: int, stars: int) -> bytes:
    """Globs of ``stars`` ``*`` each: compiling them costs a regular-expression group per star."""
    globs = [f"{i}" + "*a" * stars for i in range(patterns)]
    snapshot = base.policy_snapshot(forbidden_paths=globs)
    return _trace(snapshot, [], ["src/a.py"], "star-bomb")


def separator_trace() -> bytes:
    """A valid (intact, non-canonical) trace whose command text holds raw U+2028, U+2029 and
    U+0085 where the canonical form escapes them: the hash covers parsed values, so the raw
    spelling verifies, and ``str.splitlines`` would cut the record in three."""
    h = base.header(2, "separators")
    text = "echo a\u2028b\u2029c\u0085d\u000be"
    events = [base.started(h), base.command(["echo", text[5:]])]
    events[1].payload["command"] = text
    events += [base.file_change("src/widget.py"), base.test_result(), *base.passing_checks()]
    events.append(base.completed(["src/widget.py"], added=3, deleted=1))
    data = write_trace(DraftTrace(header=h, events=events))
    for escape in (b"\\u2028", b"\\u2029", b"\\u0085"):
        assert escape in data
        data = data.replace(escape, escape.decode("unicode_escape").encode())
    return data


# ------------------------------------------------------------------------------------ harness


def recipient_scenario() -> bytes:
    """A scenario with one ``no_external_recipient`` assertion."""
    return (
        b"id: worst.recipient\ntitle: Worst case\ncategory: sensitive_data_disclosure\n"
        b"severity: high\ntarget:\n  adapter: http_agent\n  endpoint: /run\ninput:\n"
        b"  user_message: go\nexpected:\n  allowed_recipients:\n    - user@example.com\n"
        b"assertions:\n  - type: no_external_recipient\n"
    )


def word_run_trace(chars: int, events: int = 1) -> bytes:
    """A harness trace whose ``tool_code`` events each hold one run of ``chars`` word characters
    and no ``@``: the recipient pattern backtracked quadratically over each."""
    code = [{"type": "tool_code", "code": "a" * chars} for _ in range(events)]
    return json.dumps({"messages": [], "tool_calls": [], "events": code}).encode()


def keyword_run_trace(count: int, chars: int) -> bytes:
    """A harness trace of ``count`` distinct messages, each one word of about ``chars``
    characters of ``pwd_`` repeated: detect-secrets' keyword detector takes time quadratic in
    each (``redact --secrets`` charges it before it runs)."""
    texts = [f"{index}" + "pwd_" * (chars // 4) for index in range(count)]
    messages = [{"role": "assistant", "content": text} for text in texts]
    return json.dumps({"messages": messages, "tool_calls": [], "events": []}).encode()


def sources_trace(count: int, prefix: str = "src") -> bytes:
    """A valid trace listing ``count`` required source artifacts ``<prefix><i>.bin`` (the caller
    puts the files next to it)."""
    draft = base.clean_trace(name="sources")
    draft.header["source_artifacts"] = [
        {"path": f"{prefix}{i}.bin", "required": True, "role": f"artifact_{i}", "sha256": base.EMPTY_SHA}
        for i in range(count)
    ]
    return write_trace(draft)


def marker_scenario(markers: int, marker_chars: int = 24) -> bytes:
    """A ``memory_isolation`` scenario with ``markers`` distinct forbidden markers, none present."""
    lines = [f"      - \"m{i:06d}{'q' * max(0, marker_chars - 7)}\"" for i in range(markers)]
    return (
        "id: worst.markers\ntitle: Worst case\ncategory: memory_isolation\nseverity: high\n"
        "target:\n  adapter: http_agent\n  endpoint: /run\ninput:\n  user_message: go\n"
        "expected:\n  memory_isolation:\n    forbidden_markers:\n"
        + "\n".join(lines)
        + "\nassertions:\n  - type: memory_isolation\n"
    ).encode()


def marker_text_trace(strings: int, string_chars: int) -> bytes:
    """A harness trace of ``strings`` tool-call arguments of ``string_chars`` characters each,
    base64-looking so strict mode decodes every one."""
    chunk = ("QUJD" * (string_chars // 4 + 1))[:string_chars]
    calls = [{"name": "write", "arguments": {"text": chunk}} for _ in range(strings)]
    return json.dumps({"messages": [], "tool_calls": calls, "events": []}).encode()
