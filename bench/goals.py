#!/usr/bin/env python3
"""The issue's table of goals (docs/performance.md): work | measured | goal | met.

Rows come from bench/goals_startup.py (start-up, the 16 MiB trace) and bench/goals_campaign.py
(campaigns), each ``rows(quick: bool) -> list[Row]`` with ``Row = (work, measured, goal, met)``;
every ratio is a ratio of medians measured in this one run. Run by ``make bench``, or alone:
``python bench/goals.py [--quick]``. Exit status 0 whatever the goals (a benchmark reports; it does not gate).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import goals_campaign
import goals_startup

Row = goals_startup.Row

def render(table: list[Row]) -> str:
    """A Markdown table, as in the issue."""
    lines = ["| work | measured | goal | met |", "|---|---|---|---|"]
    for work, measured, goal, met in table:
        lines.append(f"| {work} | {measured} | {goal} | {'yes' if met else 'NO'} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    table = goals_campaign.rows(args.quick) + goals_startup.rows(args.quick)
    print(render(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
