"""The statement's predicate, typed (docs/bundle-format.md section 6). Verification decodes it
strictly so that ``bundle show`` prints only our names, codes, versions and numbers, even for a
bundle an adversary sealed with a key of their own."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from tracekit.bundle.records import Count, FormatName, VersionText
from tracekit.kernel.episode_id import ID_PATTERN

CodeName = Annotated[str, Meta(pattern="^[a-z0-9_]{1,40}\\.[a-z0-9_]{1,60}$")]
ExitCode = Annotated[int, Meta(ge=0, le=255)]
EpisodeId = Annotated[str, Meta(pattern=ID_PATTERN)]
"""An episode id as every report prints it (docs/cli.md, "Episode ids")."""
EpisodeIds = Annotated[tuple[EpisodeId, ...], Meta(max_length=1_000_000)]


class CheckResult(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One of tracekit's checks run on the original at sealing time."""

    exit: ExitCode | None
    """Its exit code; None when the check does not apply to the format."""
    codes: Annotated[tuple[CodeName, ...], Meta(max_length=512)]
    """The distinct diagnostic codes it gave, sorted."""
    result: Literal["pass", "fail", "error", "not_run", "partial"] | None = None
    """For ``check``: the scenario's verdict."""
    mode: Literal["compatible", "strict"] | None = None
    """For ``check`` and ``audit`` with a scenario: the mode it was judged in (docs/cli.md,
    "Verdicts and modes")."""


class FindingResults(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """The checks' results for one finding."""

    verify: CheckResult | None = None
    audit: CheckResult | None = None
    check: CheckResult | None = None


class Results(FindingResults, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A finding's results, or a campaign's: one entry per finding."""

    per_finding: Annotated[tuple[FindingResults, ...], Meta(max_length=100_000)] | None = None


class Predicate(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    tracekit_version: VersionText
    bundle_kind: Literal["finding", "campaign"]
    findings: Count
    format: FormatName | None
    results: Results | None = None
    episodes: Annotated[tuple[EpisodeIds, ...], Meta(max_length=100_000)] | None = None
    """Per finding, the ids of its episodes, as every report prints them (section 6); absent in
    bundles sealed before episode ids were recorded."""
