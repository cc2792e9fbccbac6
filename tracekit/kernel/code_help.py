"""Why each family of codes matters and what to do about it: the second half of the one code
catalogue (tracekit/kernel/errors.py holds each code's severity and fixed text). docs/error-codes.md is
generated from both (tracekit/kernel/docgen.py), and ``tracekit explain CODE`` prints both
(docs/cli.md, "explain")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FamilyHelp:
    """Why the codes of one family matter, and what a user does about them."""

    why: str
    action: str


FAMILY_HELP: dict[str, FamilyHelp] = {
    "load": FamilyHelp(
        "The file could not be read as bounded JSON Lines, so nothing in it can be trusted or judged.",
        "Check that the file is the trace you meant and is complete; a limit named in the message can be raised only with the matching option.",
    ),
    "json": FamilyHelp(
        "A JSON value broke the decoder's bounds or grammar; tracekit reads no further than that value.",
        "Find the named line in the producing tool's output; a trace that needs deeper nesting or longer values than the limits is refused on purpose.",
    ),
    "schema": FamilyHelp(
        "A record does not have the shape its format version requires, so its fields cannot be relied on.",
        "Compare the named line with the format's schema (docs/formats.md); regenerate the trace with a conforming writer.",
    ),
    "structure": FamilyHelp(
        "The records are individually valid but do not form one well-ordered run (headers, sequence, footers).",
        "Look for files concatenated, reordered or cut; a trace must be one run from header to footer.",
    ),
    "canonical": FamilyHelp(
        "The bytes hashed are not the canonical form, so a digest cannot be recomputed independently.",
        "Regenerate the trace with a writer that emits the documented canonical JSON (docs/trace-format.md).",
    ),
    "chain": FamilyHelp(
        "The hash chain that binds events together does not hold: events were edited, removed, inserted or reordered.",
        "Treat the trace as tampered; obtain the original from its producer or its sealed bundle.",
    ),
    "source": FamilyHelp(
        "A source artifact the trace cites is missing or differs from the digest the trace recorded.",
        "Supply the trusted roots (--trusted-root NAME=DIR) that hold the original artifacts, or treat the evidence as changed.",
    ),
    "path": FamilyHelp(
        "A path recorded in the trace could escape its trusted root or is not a plain relative path.",
        "Do not follow such paths; regenerate the trace with relative paths under the run's roots.",
    ),
    "verify": FamilyHelp(
        "The input carries no integrity of its own, so tracekit cannot tell whether it was edited.",
        "Seal such logs when they are made (tracekit seal) and verify the bundle instead.",
    ),
    "replay": FamilyHelp(
        "The recorded policy verdict could not be recomputed from the trace, or the recomputation disagrees.",
        "Read the named check; a divergent replay means the recorded verdict does not follow from the recorded evidence.",
    ),
    "metamorphic": FamilyHelp(
        "A verdict changed under an edit that should not change it (or the study could not run), so the verdict is fragile.",
        "Inspect the named relation and case; a robust policy gives the same verdict on equivalent traces.",
    ),
    "redact": FamilyHelp(
        "Redaction scans each blob's text in every decoded view; past its work budget it cannot say which blobs hold what it looks for, so it writes nothing rather than a bundle that may still expose them.",
        "Raise --work-budget (the scan takes time in proportion to it), or withhold the blobs you know by digest with --blob, which scans nothing.",
    ),
    "harness": FamilyHelp(
        "A scenario, suite or harness trace could not be judged as the OWASP harness defines it.",
        "Fix the scenario or trace named by the code (docs/findings.md); an assertion that errors is never a pass.",
    ),
    "findings": FamilyHelp(
        "A finding could not be located in the evidence the trace holds.",
        "List the trace's episodes with `tracekit show` and name one that exists.",
    ),
    "evidence": FamilyHelp(
        "The common evidence model could not be built from what the reader lifted.",
        "Report the file's format and version; the reader may need to learn a variant.",
    ),
    "format": FamilyHelp(
        "No reader accepts the file, or the forced reader refused it, so it was not judged at all.",
        "Name the format with --input-format if it is supported (docs/formats.md), or leave the file out of the campaign.",
    ),
    "inspect": FamilyHelp(
        "An Inspect AI log or .eval archive is malformed, over a bound, or inconsistent with itself.",
        "Re-export the log with Inspect; an archive over its bounds is refused on purpose.",
    ),
    "otel": FamilyHelp(
        "An OpenTelemetry export does not form the spans and links the GenAI conventions describe.",
        "Check the exporter's output (OTLP JSON); spans must carry ids and parents that resolve.",
    ),
    "agentdojo": FamilyHelp(
        "An AgentDojo run file is malformed or inconsistent with itself.",
        "Compare the run with AgentDojo's own loader; re-run the task if the file was cut.",
    ),
    "garak": FamilyHelp(
        "A garak report or hitlog is malformed, or its records contradict each other.",
        "Compare the report with garak's own report reader; an edited report shows up as a contradiction.",
    ),
    "claude_code": FamilyHelp(
        "A Claude Code session transcript is malformed, over a bound, or threads its messages in a cycle.",
        "Compare the named line with docs/formats.md (Claude Code); a transcript cut or edited by hand is refused at the first line that breaks.",
    ),
    "codex": FamilyHelp(
        "A Codex CLI rollout is malformed, over a bound, or pairs calls and outputs inconsistently.",
        "Compare the named line with docs/formats.md (Codex CLI); the older pre-wrapper layout is not read.",
    ),
    "atif": FamilyHelp(
        "An ATIF trajectory is malformed, over a bound, or its steps do not pair calls and observations.",
        "Validate the trajectory with Harbor's own model; docs/formats.md (ATIF) lists the fields read.",
    ),
    "attest": FamilyHelp(
        "An in-toto attestation file is malformed, unsigned, signed by no trusted key, or records a result that did not pass.",
        "Verify it with --trusted-key naming its signer's public key; a FAILED Test Result names the checks that failed (docs/attest.md).",
    ),
    "audit": FamilyHelp(
        "The trace does not record something a finding needs (seed 003's evidence vocabulary), or records it inconsistently.",
        "Ask the producing harness to record what is missing; until then the finding cannot be checked from the trace alone.",
    ),
    "bundle": FamilyHelp(
        "A sealed bundle is malformed, over a bound, unsigned by a trusted key, or does not match what it claims.",
        "Treat a bundle that fails verification as untrusted; obtain it again from its signer and verify with --trusted-key.",
    ),
    "store": FamilyHelp(
        "The campaign store could not be opened, is locked, or does not hold what it should.",
        "Use a store made by `tracekit audit --db`; re-create it if it was edited or cut.",
    ),
    "cli": FamilyHelp(
        "The command line asks for something tracekit will not do: a usage error, an unsafe output, or an interrupt.",
        "Read the message and `tracekit <command> -h`; docs/cli.md states every rule.",
    ),
    "internal": FamilyHelp(
        "tracekit failed unexpectedly; the command gave no verdict.",
        "Rerun with --debug FILE and report the file; it holds the internal stack, never the input's content.",
    ),
}
