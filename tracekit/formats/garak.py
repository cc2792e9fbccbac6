"""garak ``report.jsonl`` and ``hitlog.jsonl`` (docs/formats.md, "garak").

garak probes a model, not an agent: an attempt is one prompt (a conversation of text turns) and
its outputs, one per generation; detectors score each output. There are no tool calls and no
timestamps per attempt, so every episode carries the ``text_only`` loss.

- A report writes every attempt twice with one ``uuid``: status 1 (generated) then status 2
  (evaluated, with ``detector_results``). One episode per uuid, taken from the status-2 record;
  the two records must agree on ``seq`` and on what the model saw and said (not on ``notes``,
  which detectors annotate), else ``garak.attempt_conflict`` naming the field.
- A detector score is an attack verdict only where the file says so: an ``eval`` entry whose
  every output failed (or passed) settles each score of that probe and detector, and a recorded
  ``run.eval_threshold`` settles the rest (garak's evaluator: a score at or above it is a hit).
- A hit log line is one hit: ``attack_succeeded`` is true by construction.
- The ``eval`` totals are checked against the attempts, and a report without its
  ``completion`` entry did not finish: both are run problems (docs/formats.md, "Run status").
"""

from __future__ import annotations

import re
from typing import Any

from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.garak_attempt import conversation, score, score_values, seen
from tracekit.formats.garak_totals import Tally, Totals, cross_check, read_eval, tally
from tracekit.formats.jsoninput import (
    Budget,
    Codes,
    as_dict,
    fail,
    first_line,
    iter_lines,
    opt_str,
    schema_error,
)
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode, EvidenceFile, Provenance, RunFacts, RunProblem, Score

CODES = Codes.of("garak")

ENTRY_TYPES = frozenset(
    {"start_run setup", "init", "attempt", "eval", "completion", "digest", "payload_init", "plugin_cache", "probe_summary"}
)
HIT_KEYS = frozenset({"attempt_id", "detector", "probe", "score", "run_id"})
_REPORT_HEAD = re.compile(rb'\A\{"entry_type": "(?:start_run setup|init|attempt)"')
_HIT_HEAD = re.compile(rb'\A\{"goal": (?:null|"(?:[^"\\]|\\.)*"), "prompt": (?:\{"turns": \[|")')
_SAME = ("seq", "probe_classname", "goal", "targets", "intent")


class GarakFormat:
    """garak report and hit log JSON lines."""

    name = "garak"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """The first line is a report entry (``entry_type``) or a hit-log line."""
        head = first_line(prefix)
        if head is None:
            return bool(_REPORT_HEAD.match(prefix) or _HIT_HEAD.match(prefix))
        kind = head.get("entry_type")
        if isinstance(kind, str):
            return kind in ENTRY_TYPES
        return head.keys() >= HIT_KEYS and "record_type" not in head

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """One episode per attempt uuid (report) or per attempt id (hit log)."""
        report = _Report(limits)
        for number, entry in iter_lines(source, limits, CODES):
            if not isinstance(entry, dict):
                schema_error(CODES, "entry", number)
            report.add(entry, number)
        episodes = report.episodes()
        return EvidenceFile("garak", report.version, episodes, report.problems())


class _Report:
    def __init__(self, limits: FormatLimits) -> None:
        self.limits = limits
        self.budget = Budget(limits, CODES)
        self.setup: dict[str, Any] = {}
        self.version: str | None = None
        self.first: dict[str, dict[str, Any]] = {}
        self.final: dict[str, dict[str, Any]] = {}
        self.hits: dict[str, list[dict[str, Any]]] = {}
        self.evals: dict[tuple[str, str], Totals] = {}
        self.tallies: dict[tuple[str, str], Tally] = {}
        self.kinds: set[str] = set()
        self.order: dict[str, None] = {}

    def add(self, entry: dict[str, Any], line: int) -> None:
        kind = entry.get("entry_type")
        if kind is None and entry.keys() >= HIT_KEYS:
            kind = "hit"
        elif not isinstance(kind, str):
            fail(Code.GARAK_NOT_A_REPORT, line)
        if self.kinds and (kind == "hit") != ("hit" in self.kinds):
            fail(Code.GARAK_NOT_A_REPORT, line)  # a report and a hit log are separate files
        self.kinds.add(kind)
        if kind == "start_run setup":
            self.setup = entry
        elif kind == "init":
            self.version = opt_str(entry.get("garak_version"), CODES, "init.garak_version", line)
        elif kind == "attempt":
            self._attempt(entry, line)
        elif kind == "eval":
            key, totals = read_eval(entry, line)
            self.evals[key] = totals
        elif kind == "hit":
            attempt = entry.get("attempt_id")
            if not isinstance(attempt, str):
                schema_error(CODES, "hitlog.attempt_id", line)
            if attempt not in self.hits:
                self.budget.episodes(len(self.hits) + 1)
            self.hits.setdefault(attempt, []).append(entry)

    def _attempt(self, entry: dict[str, Any], line: int) -> None:
        uuid, status = entry.get("uuid"), entry.get("status")
        if not isinstance(uuid, str) or status not in (0, 1, 2) or isinstance(status, bool):
            schema_error(CODES, "attempt.uuid", line)
        if uuid not in self.order:
            self.budget.episodes(len(self.order) + 1)
            self.order[uuid] = None
        earlier = self.final.get(uuid) or self.first.get(uuid)
        if earlier is not None and earlier.get("seq") != entry.get("seq"):
            fail(Code.GARAK_ATTEMPT_CONFLICT, line, field="seq")  # two attempts share one uuid
        if status == 2:
            if uuid in self.final:
                fail(Code.GARAK_ATTEMPT_CONFLICT, line, field="status")
            if uuid in self.first:
                self._agree(self.first.pop(uuid), entry, line)
            self.final[uuid] = entry
        elif earlier is not None:
            fail(Code.GARAK_ATTEMPT_CONFLICT, line, field="status")
        else:
            self.first[uuid] = entry

    def _agree(self, earlier: dict[str, Any], entry: dict[str, Any], line: int) -> None:
        """The status-1 and status-2 records of one attempt: the same attempt, the same prompt
        and outputs as the model saw and said them (notes may differ: detectors annotate)."""
        for name in _SAME:
            if earlier.get(name) != entry.get(name):
                fail(Code.GARAK_ATTEMPT_CONFLICT, line, field=name)
        budget = Budget(self.limits, CODES)
        before, after = seen(earlier, budget), seen(entry, budget)
        if before[0] != after[0]:
            fail(Code.GARAK_ATTEMPT_CONFLICT, line, field="prompt")
        if before[1:] != after[1:]:
            fail(Code.GARAK_ATTEMPT_CONFLICT, line, field="outputs")

    def problems(self) -> tuple[RunProblem, ...]:
        """The run's own account (docs/formats.md, "Run status"): a report whose setup was
        written but whose ``completion`` entry was not stopped before the end; ``eval`` totals
        that disagree with the evaluated attempts."""
        if "hit" in self.kinds:
            return ()
        stopped = "start_run setup" in self.kinds and "completion" not in self.kinds
        found = (RunProblem("not_finished", "status", status="started"),) if stopped else ()
        return found + cross_check(self.evals, self.tallies, self.setup.get("run.eval_threshold"))

    def episodes(self) -> tuple[Episode, ...]:
        if "hit" in self.kinds:
            return tuple(_hit_episode(uuid, lines, self.limits) for uuid, lines in self.hits.items())
        return tuple(self._episode(uuid, self.final.get(uuid) or self.first[uuid]) for uuid in self.order)

    def _facts(self, probe: str | None, goal: str | None, scores: tuple[Score, ...], outcome: str) -> RunFacts:
        setup = self.setup
        seed = setup.get("run.seed")
        generations = setup.get("run.generations")
        return RunFacts(
            tool="garak",
            tool_version=self.version or opt_str(setup.get("_config.version"), CODES, "_config.version"),
            model=opt_str(setup.get("plugins.target_name"), CODES, "plugins.target_name"),
            sampling={"generations": generations} if isinstance(generations, int) and not isinstance(generations, bool) else None,
            seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
            attack=probe,
            attack_task=goal,
            outcome=outcome,
            scores=scores,
        )

    def _episode(self, uuid: str, entry: dict[str, Any]) -> Episode:
        budget = Budget(self.limits, CODES)
        probe = opt_str(entry.get("probe_classname"), CODES, "attempt.probe_classname")
        goal = opt_str(entry.get("goal"), CODES, "attempt.goal")
        messages, turns, errors = conversation(entry, budget)
        evaluated = entry.get("status") == 2
        scores: list[Score] = []
        threshold = self.setup.get("run.eval_threshold")
        for detector, values in as_dict(entry.get("detector_results"), CODES, "attempt.detector_results").items():
            totals = self.evals.get((probe or "", detector))
            settled = None if totals is None or not totals.consistent else (totals.passed, totals.fails)
            per_output = score_values(values, budget)
            if evaluated:
                tally(self.tallies, (probe or "", detector), per_output, threshold)
            scores += [score(detector, value, settled, threshold) for values_ in per_output for value in values_]
        provenance = [Provenance("facts.scores", "garak:attempt.detector_results")] if scores else []
        if self.version:
            provenance.append(Provenance("facts.tool_version", "garak:init.garak_version"))
        return Episode(
            id=uuid,
            facts=self._facts(probe, goal, tuple(scores), "evaluated" if evaluated else "not_evaluated"),
            messages=messages,
            turns=turns,
            errors=errors,
            provenance=tuple(provenance),
            losses=("text_only",),
        )


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _hit_episode(uuid: str, lines: list[dict[str, Any]], limits: FormatLimits) -> Episode:
    """The hits of one attempt: its prompt, the outputs that were hit, one score per hit."""
    budget = Budget(limits, CODES)
    first = lines[0]
    outputs: dict[int, Any] = {}
    scores: list[Score] = []
    for line in lines:
        budget.take()
        index, detector, value = line.get("attempt_idx"), line.get("detector"), line.get("score")
        if not isinstance(index, int) or not _count(index) or not isinstance(detector, str):
            schema_error(CODES, "hitlog.attempt_idx")
        if isinstance(value, list):  # a per-turn detector: the output's scores, one per turn
            budget.take(len(value))
            if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in value):
                schema_error(CODES, "hitlog.score")
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            schema_error(CODES, "hitlog.score")
        outputs.setdefault(index, line.get("output"))
        scores.append(Score(f"garak:{detector}", value, passed=False, attack_succeeded=True))
    hit = {"prompt": first.get("prompt"), "outputs": [outputs[i] for i in sorted(outputs)]}
    messages, turns, errors = conversation(hit, budget)
    facts = RunFacts(
        tool="garak",
        attack=opt_str(first.get("probe"), CODES, "hitlog.probe"),
        attack_task=opt_str(first.get("goal"), CODES, "hitlog.goal"),
        outcome="hit",
        scores=tuple(scores),
    )
    return Episode(
        id=uuid,
        facts=facts,
        messages=messages,
        turns=turns,
        errors=errors,
        provenance=(Provenance("facts.scores", "garak:hitlog.score"),),
        losses=("text_only",),
    )


FORMAT = GarakFormat()
