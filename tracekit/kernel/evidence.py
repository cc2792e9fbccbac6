"""The common evidence model: what a tool-using agent's run left behind, in any format.

Every importer in :mod:`tracekit.formats` turns a file into an :class:`EvidenceFile`: one or more
:class:`Episode` (an Inspect sample per epoch, an OTLP trace, an AgentDojo task run, a garak
attempt), each holding its run facts and an ordered record of what was sent, what the model
answered, which tools it called with which arguments, and what the tools returned
(docs/formats.md, "The evidence model").

Rules every importer keeps (docs/formats.md, "Importer rules"):

1. No field is invented. Absent is ``None`` (or an empty tuple), never a default that reads like
   a recorded value; a sampling parameter the run left at the provider's default is absent.
2. Values are kept verbatim in the shape found: tool-call arguments as the string or the object
   the format holds (:class:`Arguments`), result payloads as the exact text.
3. Every evidence field that was found names where it came from (:class:`Provenance`), in the
   format's own schema terms (``inspect:ModelEvent.call.response``), never a value or key taken
   from the file.
4. Truncation and redaction are recorded with the bytes lost when the format says so, and as
   "suspected" when only a heuristic sees it.
5. The model holds untrusted content (messages, arguments, results). Renderers never print it:
   reports show counts, our field names and digests; content reaches only the policy engine and
   sealed bundles.

The Structs are frozen; collections are tuples. JSON values taken from the input are typed
``Any``: they are whatever the bounded decoder produced (dicts, lists, str, int, float, bool,
None).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from msgspec import Struct

Role = Literal["system", "user", "assistant", "tool", "developer", "other"]
"""Who a message is from. ``other`` keeps a role the format has and we do not model."""

ArgumentShape = Literal["string", "object", "repr", "absent"]
"""How a format stores tool-call arguments: the provider's JSON string, a decoded JSON object, a
Python ``repr`` (not JSON: types are lost), or not at all."""

Capture = Literal["captured", "not_captured", "not_carried"]
"""Whether content was recorded: ``not_captured`` when the format can carry it but the run chose
not to (OTel's opt-in content), ``not_carried`` when the format has nowhere to put it."""

Status = Literal["present", "partial", "missing", "not_carried"]
"""How much of one piece of evidence a record carries (docs/audit.md, "Completeness")."""
STATUSES: tuple[Status, ...] = ("present", "partial", "missing", "not_carried")


class Provenance(Struct, frozen=True):
    """Where one evidence field came from."""

    field: str
    """Our field name (``episode.model``, ``calls[2].arguments``)."""
    source: str
    """The format's schema path it was read from (``inspect:EvalSpec.model``)."""


class Truncation(Struct, frozen=True):
    """Content that was cut before it reached the file."""

    where: str
    """Our location (``calls[3].result``, ``messages[5].text``)."""
    detected_by: str
    """The format marker or heuristic that shows it (``inspect:ToolEvent.truncated``,
    ``otel:attribute_length_limit``)."""
    raw_bytes: int | None = None
    """Size before the cut, when the format records it."""
    kept_bytes: int | None = None
    """Size kept, when known."""
    suspected: bool = False
    """True when only a heuristic sees it (a value exactly at a limit, JSON that stops parsing)."""


class Redaction(Struct, frozen=True):
    """Content withheld by the writer on purpose (a masking marker, an omitted payload)."""

    where: str
    detected_by: str
    bytes_lost: int | None = None


class Arguments(Struct, frozen=True):
    """A tool call's arguments, verbatim in the shape the format holds them."""

    shape: ArgumentShape
    text: str | None = None
    """The exact string when ``shape`` is ``string`` or ``repr``; None for an object."""
    value: Any = None
    """The decoded JSON object when ``shape`` is ``object``; for ``string``, the parse of
    ``text`` when it is a JSON object, else None. Never re-serialised for comparison."""
    parse_error: bool = False
    """True when a ``string`` shape does not parse as JSON (a cut or malformed string)."""


class ToolResult(Struct, frozen=True):
    """What a tool handed back to the agent for one call."""

    text: str | None
    """The payload as the agent saw it, verbatim; None when not captured."""
    value: Any = None
    """Added by the formats layer: the payload when the format holds it as a JSON value other
    than a string (a harness ``result`` object), verbatim as decoded; None otherwise."""
    is_error: bool = False
    error_kind: str | None = None
    """Our name for the error class when the format names one (``tool_error``, ``timeout``,
    ``exception``); the error's own text, if any, is in ``text``."""
    stringified: bool = False
    """True when the format stored a structured result as text (AgentDojo's ``str()``)."""
    started_at: str | None = None
    """Start time as the format records it (ISO 8601 or epoch text), verbatim."""
    latency_s: float | None = None
    retries: int | None = None
    truncation: Truncation | None = None
    capture: Capture = "captured"


class ToolCall(Struct, frozen=True):
    """One tool call the model emitted, with the result the tool returned (if any)."""

    index: int
    """Position among the episode's calls, in emission order (0-based)."""
    turn: int
    """Index of the model turn (:class:`ModelTurn`) that emitted it."""
    name: str
    call_id: str | None
    arguments: Arguments
    result: ToolResult | None = None
    """None when no result was recorded (the call was never executed, or the run stopped)."""
    parallel_group: int | None = None
    """Calls emitted in one model turn share the turn's index here; None when the format cannot
    say whether calls were parallel."""


class Message(Struct, frozen=True):
    """One message of the conversation, as recorded."""

    index: int
    role: Role
    text: str | None
    """The message's text content, verbatim (text blocks joined with ``\\n`` when the format
    splits them); None when the format holds no text or did not capture it."""
    call_ids: tuple[str, ...] = ()
    """For an assistant message: the ids of the tool calls it carries."""
    tool_call_id: str | None = None
    """For a tool message: the call it answers."""
    capture: Capture = "captured"


class ToolSchema(Struct, frozen=True):
    """A tool as it was offered to the model."""

    name: str
    description: str | None = None
    parameters: Any = None


class ModelTurn(Struct, frozen=True):
    """One model invocation: what was sent, what came back."""

    index: int
    input_runs: tuple[tuple[int, int], ...] | None = None
    """The messages sent, when the format says which: ``(first index, count)`` runs into
    :attr:`Episode.messages`, in the order sent (:func:`message_runs`). A turn sent the whole
    history so far is one run, so a long loop holds one pair per turn, never the square of its
    length (docs/formats.md, "Bounds")."""
    tool_schemas: tuple[ToolSchema, ...] | None = None
    """The tools in force for this call; None when not recorded."""
    raw_request: str | None = None
    """The provider request as logged (JSON text), when the format keeps it."""
    raw_response: str | None = None
    """The provider response as logged (JSON text), when the format keeps it."""
    finish_reason: str | None = None
    """As the provider returned it when known, else as the format normalised it."""
    finish_reason_source: str | None = None
    model: str | None = None
    started_at: str | None = None
    latency_s: float | None = None
    error: bool = False


class Score(Struct, frozen=True):
    """A verdict the tool itself recorded (an Inspect score, a garak detector, AgentDojo's
    ``security``)."""

    scorer: str
    value: Any
    """As recorded (number, string, bool or object)."""
    passed: bool | None = None
    """The tool's pass/fail reading of ``value`` when the format defines one."""
    attack_succeeded: bool | None = None
    """For red-team verdicts: True when the tool says the attack worked (AgentDojo
    ``security: true``, a garak detector hit)."""


class RunFacts(Struct, frozen=True):
    """Run-level evidence (docs/formats.md, "Run facts"); every field None when absent."""

    tool: str
    """The writer, by our name (``inspect_ai``, ``opentelemetry``, ``agentdojo``, ``garak``)."""
    tool_version: str | None = None
    model: str | None = None
    model_version: str | None = None
    endpoint: str | None = None
    sampling: Any = None
    """Explicitly set sampling parameters as recorded (an object); None when none were set."""
    seed: int | None = None
    harness_revision: str | None = None
    tool_server_revision: str | None = None
    injection_point: str | None = None
    """Which channel carried the attack input, in the format's terms, when recorded."""
    task: str | None = None
    attack: str | None = None
    """The attack as the format names it (AgentDojo ``attack_type``, garak ``probe_classname``);
    None when the run was not an attack or the format does not say."""
    attack_task: str | None = None
    """What the attack was after, in the format's terms (AgentDojo ``injection_task_id``, garak
    ``goal``); None when not recorded."""
    outcome: str | None = None
    scores: tuple[Score, ...] = ()


class Approval(Struct, frozen=True):
    """A human or policy decision on a tool call, as the format records it (Inspect's
    ``ApprovalEvent``)."""

    decision: str
    """As recorded (``approve``, ``reject``, ``escalate``, ...)."""
    call_id: str | None = None
    action: str | None = None
    """The tool name the decision is about."""
    approver: str | None = None
    position: int | None = None
    """How many of the episode's calls had been emitted when it was recorded (an approval
    recorded before call ``N`` has ``position <= N``); None when the format gives no order."""


class EpisodeError(Struct, frozen=True):
    """Something went wrong in the run itself (a crash, a model error), as recorded."""

    kind: str
    """Our name: ``sample_error``, ``model_error``, ``tool_error``, ``limit``, ``crash``."""
    where: str | None = None


class Episode(Struct, frozen=True):
    """One run of an agent on one task: the unit a finding is judged on."""

    id: str
    """The format's own id for it (sample id and epoch, trace id, task path, attempt uuid)."""
    facts: RunFacts
    messages: tuple[Message, ...] = ()
    turns: tuple[ModelTurn, ...] = ()
    calls: tuple[ToolCall, ...] = ()
    errors: tuple[EpisodeError, ...] = ()
    truncations: tuple[Truncation, ...] = ()
    redactions: tuple[Redaction, ...] = ()
    provenance: tuple[Provenance, ...] = ()
    approvals: tuple[Approval, ...] = ()
    losses: tuple[str, ...] = ()
    """Known losses of this format's exporter that apply here, by our names (docs/formats.md,
    "What each format cannot carry"): ``raw_call_sampled``, ``result_cut_16k``,
    ``content_opt_in``, ``arguments_deserialised``, ``results_stringified``, ``text_only``."""


class RunProblem(Struct, frozen=True):
    """What a file records about its run as a whole that puts its episodes in doubt
    (docs/formats.md, "Run status"): the run did not finish, or its own totals disagree with
    the records it holds."""

    kind: str
    """Our name: ``not_finished`` (the tool recorded the run as failed, cancelled or still
    running), ``samples_missing`` (the file claims more samples than it holds),
    ``totals_contradict`` (the file's totals disagree with its records)."""
    where: str
    """Our name for where the claim sits (``results``, ``eval entries``, ``status``)."""
    status: str | None = None
    """For ``not_finished``: ``error``, ``cancelled``, ``started`` or ``unknown``."""
    claimed: int | None = None
    held: int | None = None


class EvidenceFile(Struct, frozen=True):
    """Everything one file holds."""

    format: str
    """The format's identifier (``agentguard``, ``harness``, ``inspect``, ``otel``,
    ``agentdojo``, ``garak``)."""
    format_version: str | None
    episodes: tuple[Episode, ...]
    run_problems: tuple[RunProblem, ...] = ()
    """Run-level evidence against the episodes (docs/formats.md, "Run status")."""


def message_runs(indices: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Message indices, in the order sent, as maximal ``(first, count)`` runs of consecutive
    indices: ``[0, 1, 2, 7]`` is ``((0, 3), (7, 1))``."""
    out: list[tuple[int, int]] = []
    for index in indices:
        if out and out[-1][0] + out[-1][1] == index:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((index, 1))
    return tuple(out)


def clip_runs(runs: Iterable[tuple[int, int]], messages: int) -> tuple[tuple[int, int], ...]:
    """``runs`` cut to the indices ``0 .. messages - 1`` (what an importer's inconsistency put
    outside is left out), neighbouring runs joined."""
    out: list[tuple[int, int]] = []
    for first, count in runs:
        low, high = max(first, 0), min(first + count, messages)
        if high <= low:
            continue
        if out and out[-1][0] + out[-1][1] == low:
            out[-1] = (out[-1][0], high - out[-1][0])
        else:
            out.append((low, high - low))
    return tuple(out)
