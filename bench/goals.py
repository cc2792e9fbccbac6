#!/usr/bin/env python3
"""The issue's table of goals (docs/performance.md): work | measured | goal | met.

Rows come from bench/goals_startup.py (start-up, the 16 MiB trace) and bench/goals_campaign.py
(campaigns), each ``rows(quick: bool) -> list[Row]`` with ``Row = (work, measured, goal, met)``;
every ratio is a ratio of medians measured in this one run. Without bench/goals_campaign.py its
rows are printed as "not measured". Run by ``make bench``, or alone: ``python bench/goals.py
[--quick]``. Exit status 0 whatever the goals (a benchmark reports; it does not gate).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import goals_startup

Row = goals_startup.Row

CAMPAIGN_WORK = (
    "`verify DIR --jobs 2` vs `--jobs 1`",
    "`audit DIR --jobs 2` vs `--jobs 1`",
    "`audit DIR` vs `verify DIR`",
    "`verify DIR --executor dask`, 2 local workers, vs one local job",
    "peak RSS at 10,000 files vs at 1,000",
)
"""The campaign helper's rows, named here only to say they were not measured."""
NOT_MEASURED = "not measured"
CAMPAIGN_GOALS = (">= 1.7x", ">= 1.7x", "<= 1.5x", ">= 1.5x", "<= 1.2x")


def campaign_rows(quick: bool) -> list[Row]:
    """bench/goals_campaign.py's rows, or each marked "not measured" when it is absent."""
    if importlib.util.find_spec("goals_campaign") is None:
        return [(work, NOT_MEASURED, goal, False) for work, goal in zip(CAMPAIGN_WORK, CAMPAIGN_GOALS, strict=True)]
    import goals_campaign

    found: list[Row] = goals_campaign.rows(quick)
    return found


def render(table: list[Row]) -> str:
    """A Markdown table, as in the issue."""
    lines = ["| work | measured | goal | met |", "|---|---|---|---|"]
    for work, measured, goal, met in table:
        verdict = "-" if measured == NOT_MEASURED else "yes" if met else "NO"
        lines.append(f"| {work} | {measured} | {goal} | {verdict} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    table = campaign_rows(args.quick) + goals_startup.rows(args.quick)
    print(render(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
