"""What an auditor asks of a campaign store: a summary of the latest run, what changed between
two runs, and findings by policy and format (docs/campaign-store.md, "Queries").

Pure over a DuckDB connection: each function runs SQL and returns typed reports. Paths are
relative to the campaign root; messages are tracekit's fixed text.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.store.schema import detail_columns, detail_items

SEVERITIES = ("error", "warning", "notice", "info")
FAILING = ("error", "warning")
TOP_GAPS = 10


class Run(msgspec.Struct, frozen=True):
    run_id: int
    status: str
    tool_version: str
    started_at: str
    ended_at: str | None
    files_seen: int
    files_audited: int
    files_reused: int


class FormatSummary(msgspec.Struct, frozen=True):
    files: int
    episodes: int
    intact: int
    not_intact: int
    no_integrity: int
    unreadable: int
    rerunnable: int
    not_rerunnable: int
    exit_codes: dict[str, int]
    failing_policies: dict[str, int]
    """Episodes with an error or warning finding, per policy."""


class FieldGap(msgspec.Struct, frozen=True):
    format: str
    field: str
    missing: int
    partial: int
    needed_to_rerun: bool


class Summary(msgspec.Struct, frozen=True):
    run: Run
    files: int
    episodes: int
    skipped_non_trace_files: int
    by_format: dict[str, FormatSummary]
    findings_by_severity: dict[str, int]
    fields_missing_most: list[FieldGap]


def _run(con: Any, run_id: int) -> Run:
    row = con.execute(
        "SELECT run_id, status, tool_version, CAST(started_at AS VARCHAR), "
        "CAST(ended_at AS VARCHAR), files_seen, files_audited, files_reused "
        "FROM runs WHERE run_id = ?",
        [run_id],
    ).fetchone()
    return Run(*row)


def complete_runs(con: Any) -> list[int]:
    """Completed run ids, newest first."""
    rows = con.execute(
        "SELECT run_id FROM runs WHERE status = 'complete' ORDER BY run_id DESC"
    ).fetchall()
    return [int(r[0]) for r in rows]


def latest_run(con: Any) -> int:
    """The newest completed run; raises TracekitError(store.no_runs) when there is none."""
    runs = complete_runs(con)
    if not runs:
        raise TracekitError(finding(Code.STORE_NO_RUNS))
    return runs[0]


def summary(con: Any, run_id: int | None = None) -> Summary:
    """The campaign as of run ``run_id`` (default: the latest completed run)."""
    run_id = latest_run(con) if run_id is None else _known(con, run_id)
    by_file = dict(
        con.execute(
            "SELECT format, count(*) FROM files WHERE run_id = ? GROUP BY format", [run_id]
        ).fetchall()
    )
    formats = _by_format(con, run_id, by_file)
    severity = Counter(
        dict(
            con.execute(
                "SELECT fi.severity, count(*) FROM files f "
                "JOIN findings fi ON fi.result_id = f.result_id WHERE f.run_id = ? "
                "GROUP BY fi.severity",
                [run_id],
            ).fetchall()
        )
    )
    total = con.execute("SELECT count(*) FROM files WHERE run_id = ?", [run_id]).fetchone()
    return Summary(
        run=_run(con, run_id),
        files=int(total[0]) if total else 0,
        episodes=sum(f.episodes for f in formats.values()),
        skipped_non_trace_files=int(by_file.get("not_a_trace", 0)),
        by_format=formats,
        findings_by_severity={s: int(severity[s]) for s in SEVERITIES},
        fields_missing_most=_gaps(con, run_id),
    )


def _by_format(con: Any, run_id: int, by_file: dict[Any, Any]) -> dict[str, FormatSummary]:
    """Per format: files, episodes, integrity, rerunnability, exit codes and failing policies."""
    rows = con.execute(
        "SELECT e.format, count(*), count(*) FILTER (WHERE e.intact), "
        "count(*) FILTER (WHERE e.intact = false), "
        "count(*) FILTER (WHERE e.intact IS NULL AND e.readable), "
        "count(*) FILTER (WHERE NOT e.readable), count(*) FILTER (WHERE e.rerunnable), "
        "count(*) FILTER (WHERE e.exit_code = 0), count(*) FILTER (WHERE e.exit_code = 1), "
        "count(*) FILTER (WHERE e.exit_code = 2) "
        "FROM files f JOIN episodes e ON e.result_id = f.result_id "
        "WHERE f.run_id = ? GROUP BY e.format ORDER BY e.format",
        [run_id],
    ).fetchall()
    policies: dict[str, dict[str, int]] = {}
    # Episodes (of each file of the run) with a failing finding of each policy: counted per
    # detail, which the episodes of a file share (schema version 5), never per finding.
    for fmt, policy, count in con.execute(
        f"WITH {_EPISODES}, failing AS (SELECT DISTINCT result_id, detail, policy FROM "
        f"(SELECT result_id, detail, {detail_columns('findings')} FROM "
        f"{detail_items('findings')} d) WHERE severity IN ('error', 'warning')) "
        "SELECT ep.format, failing.policy, sum(ep.n) FROM ep JOIN failing "
        "USING (result_id, detail) GROUP BY ep.format, failing.policy ORDER BY 3 DESC, 2",
        [run_id],
    ).fetchall():
        policies.setdefault(str(fmt), {})[str(policy)] = int(count)
    formats = {
        str(r[0]): FormatSummary(
            files=int(by_file.get(r[0], 0)), episodes=int(r[1]), intact=int(r[2]),
            not_intact=int(r[3]), no_integrity=int(r[4]), unreadable=int(r[5]),
            rerunnable=int(r[6]), not_rerunnable=int(r[1]) - int(r[6]),
            exit_codes={"0": int(r[7]), "1": int(r[8]), "2": int(r[9])},
            failing_policies=policies.get(str(r[0]), {}),
        )
        for r in rows
    }
    return formats


def _gaps(con: Any, run_id: int) -> list[FieldGap]:
    """The evidence fields missing or partial in most episodes (at most ``TOP_GAPS``)."""
    return [
        FieldGap(str(g[0]), str(g[1]), int(g[2]), int(g[3]), bool(g[4]))
        for g in con.execute(
            f"WITH {_EPISODES}, c AS (SELECT result_id, detail, "
            f"{detail_columns('completeness')} FROM {detail_items('completeness')} d) "
            "SELECT ep.format, c.field, coalesce(sum(ep.n) FILTER (WHERE c.status = 'missing'), 0) "
            "AS m, coalesce(sum(ep.n) FILTER (WHERE c.status = 'partial'), 0) AS p, "
            "bool_or(c.needed_to_rerun) FROM ep JOIN c USING (result_id, detail) "
            "GROUP BY ep.format, c.field HAVING m + p > 0 "
            "ORDER BY m + p DESC, ep.format, c.field LIMIT ?",
            [run_id, TOP_GAPS],
        ).fetchall()
    ]


_EPISODES = (
    "ep AS (SELECT e.format, e.result_id, e.detail, count(*) AS n FROM files f "
    "JOIN episode_rows e ON e.result_id = f.result_id WHERE f.run_id = ? "
    "GROUP BY e.format, e.result_id, e.detail)"
)
"""The episodes of each file of a run, counted by (format, result, detail)."""


def _known(con: Any, run_id: int) -> int:
    if run_id not in complete_runs(con):
        raise TracekitError(finding(Code.STORE_UNKNOWN_RUN, run=run_id))
    return run_id


class FindingRow(msgspec.Struct, frozen=True):
    path: str
    format: str
    episode: int
    """The episode's 0-based position in the file."""
    episode_id: str | None
    """The episode's id as every report prints it (docs/cli.md, "Episode ids"); None for a file
    that holds no episode."""
    code: str
    severity: str
    policy: str
    line: int | None
    where: str | None
    message: str


class Findings(msgspec.Struct, frozen=True):
    run_id: int
    policy: str | None
    format: str | None
    total: int
    """Matching findings; ``rows`` holds at most the limit asked for."""
    rows: list[FindingRow]


def findings(
    con: Any, *, policy: str | None = None, fmt: str | None = None, run_id: int | None = None,
    limit: int = 10_000,
) -> Findings:
    """Findings of a run (default: the latest completed), filtered by policy and format, most
    severe first, at most ``limit`` rows."""
    run_id = latest_run(con) if run_id is None else _known(con, run_id)
    # Counted per (file, detail), listed by sorting the keys of every finding only (schema
    # version 5: a file's episodes share a few details), then reading the ``limit`` rows' text.
    episodes, items = "f.run_id = ?", "true"
    shown: list[Any] = [run_id]
    kept: list[Any] = []
    if fmt is not None:
        episodes += " AND e.format = ?"
        shown.append(fmt)
    if policy is not None:
        items = "item[3] = ?"
        kept.append(policy)
    keys = (
        "(SELECT result_id, detail, seq, CASE item[2] WHEN 'error' THEN 0 WHEN 'warning' THEN 1 "
        f"WHEN 'notice' THEN 2 ELSE 3 END AS rank FROM {detail_items('findings')} WHERE {items})"
    )
    total = con.execute(
        "SELECT coalesce(sum(ep.n * k.n), 0) FROM (SELECT e.result_id, e.detail, count(*) AS n "
        "FROM files f JOIN episode_rows e ON e.result_id = f.result_id "
        f"WHERE {episodes} GROUP BY e.result_id, e.detail) ep JOIN (SELECT result_id, detail, "
        f"count(*) AS n FROM {keys} GROUP BY result_id, detail) k USING (result_id, detail)",
        [*shown, *kept],
    ).fetchone()
    # The first ``limit`` rows of a severity concern at most ``limit`` episodes: only the first
    # ``limit`` episodes (by path and position) holding that severity are expanded and sorted.
    rows = con.execute(
        f"WITH ranks AS (SELECT DISTINCT result_id, detail, rank FROM {keys}), "
        "chosen AS (SELECT f.path, e.format, e.episode, e.episode_id, e.result_id, e.detail, "
        "r.rank FROM files f JOIN episode_rows e ON e.result_id = f.result_id JOIN ranks r "
        f"ON r.result_id = e.result_id AND r.detail = e.detail WHERE {episodes} "
        "QUALIFY row_number() OVER (PARTITION BY r.rank ORDER BY f.path, e.episode) <= ?), "
        "top AS (SELECT c.*, k.seq FROM chosen c JOIN "
        f"{keys} k ON k.result_id = c.result_id AND k.detail = c.detail AND k.rank = c.rank "
        "ORDER BY c.rank, c.path, c.episode, k.seq LIMIT ?) "
        "SELECT top.path, top.format, top.episode, top.episode_id, "
        f"{detail_columns('findings')} FROM top JOIN {detail_items('findings')} d "
        "ON d.result_id = top.result_id AND d.detail = top.detail AND d.seq = top.seq "
        "ORDER BY top.rank, top.path, top.episode, top.seq",
        [*kept, *shown, limit, *kept, limit],
    ).fetchall()
    return Findings(
        run_id, policy, fmt, int(total[0]) if total else 0, [FindingRow(*r) for r in rows]
    )


def run_exit(con: Any, run_id: int) -> int:
    """The worst exit code over a run's files (0 for a run of none)."""
    row = con.execute(
        "SELECT coalesce(max(r.exit_code), 0) FROM files f JOIN results r "
        "ON r.result_id = f.result_id WHERE f.run_id = ?",
        [run_id],
    ).fetchone()
    return int(row[0]) if row else 0


class FileFinding(msgspec.Struct, frozen=True):
    """One finding of a file, for the pass/fail formats (JUnit, SARIF)."""

    code: str
    severity: str
    line: int | None
    message: str


class FileFindings(msgspec.Struct, frozen=True):
    """One file of a run: its path, exit code and findings over all its episodes."""

    path: str
    exit_code: int
    findings: list[FileFinding]


def run_files(con: Any, run_id: int) -> list[FileFindings]:
    """Every file of a run (path order) with its findings (episode and sequence order)."""
    out: dict[str, FileFindings] = {}
    for path, exit_code in con.execute(
        "SELECT f.path, r.exit_code FROM files f JOIN results r ON r.result_id = f.result_id "
        "WHERE f.run_id = ? AND r.format <> 'not_a_trace' ORDER BY f.path",
        [run_id],
    ).fetchall():
        out[str(path)] = FileFindings(str(path), int(exit_code), [])
    for path, code, severity, line, message in con.execute(
        "SELECT f.path, fi.code, fi.severity, fi.line, fi.message FROM files f "
        "JOIN findings fi ON fi.result_id = f.result_id WHERE f.run_id = ? "
        "ORDER BY f.path, fi.episode, fi.seq",
        [run_id],
    ).fetchall():
        if str(path) in out:
            out[str(path)].findings.append(FileFinding(str(code), str(severity), line, str(message)))
    return list(out.values())


class RunRow(Run, frozen=True):
    """One run of the store, as ``db runs`` lists it: the run (``status`` ``complete``,
    ``running`` (or killed; marked by the next run) or ``interrupted``), its exit and options."""

    exit_code: int | None
    """The worst file's exit code; None unless the run is complete."""
    options: dict[str, Any]
    """Our options of the run (``strict_sources``, trusted ``roots``, ``scenario`` digest...)."""


class Runs(msgspec.Struct, frozen=True):
    """``db runs``: every run of the store, oldest first."""

    runs: list[RunRow]


def runs(con: Any) -> Runs:
    """Every run recorded in the store, oldest first (``db runs``); an empty list for none."""
    rows = con.execute(
        "SELECT run_id, status, tool_version, CAST(started_at AS VARCHAR), "
        "CAST(ended_at AS VARCHAR), files_seen, files_audited, files_reused, options "
        "FROM runs ORDER BY run_id"
    ).fetchall()
    out = []
    for run_id, status, version, started, ended, seen, audited, reused, options in rows:
        exit_code = run_exit(con, int(run_id)) if status == "complete" else None
        try:
            parsed = msgspec.json.decode(str(options), type=dict[str, Any])
        except (msgspec.ValidationError, msgspec.DecodeError):
            raise TracekitError(finding(Code.STORE_CORRUPT)) from None
        out.append(
            RunRow(run_id, status, version, started, ended, seen, audited, reused, exit_code, parsed)
        )
    return Runs(out)
