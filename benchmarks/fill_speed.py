"""Wall time of ``phonkit fill``, start to end, as a phonologist waits for it.

    python benchmarks/fill_speed.py TABLE.csv [--gaps 12] [--repeats 5] [FILL OPTIONS]

Empties ``--gaps`` cells of the table (spread over rows and columns, one per row, always
leaving a row at least one known form), writes it to a temporary file, and runs the
``phonkit`` command on it ``--repeats`` times in a fresh process each, timing each run from
start to exit. Prints the median, the fastest and the slowest in seconds, and the share of
the gaps filled with the table's own form. Say what else ran on the machine when quoting it.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def with_gaps(rows: list[list[str]], gaps: int) -> tuple[list[list[str]], dict[tuple, str]]:
    """The rows with ``gaps`` cells emptied (row i*step, column i mod width), and the gold."""
    width = len(rows[0])
    step = max(1, len(rows) // max(gaps, 1))
    emptied, gold = [list(row) for row in rows], {}
    for number in range(gaps):
        row = (number * step) % len(rows)
        column = number % width
        if emptied[row][column] and sum(bool(form) for form in emptied[row]) > 1:
            gold[row, column] = emptied[row][column]
            emptied[row][column] = ""
    return emptied, gold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=Path)
    parser.add_argument("--gaps", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=5)
    args, options = parser.parse_known_args()
    args.options = [option for option in options if option != "--"]
    with args.table.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    emptied, gold = with_gaps(rows, args.gaps)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / args.table.name
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(emptied)
        command = [sys.executable, "-m", "phonkit", "fill", str(path), *args.options]
        times, right = [], []
        for _ in range(args.repeats):
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            times.append(time.perf_counter() - started)
            filled = list(csv.reader(done.stdout.splitlines()))
            right.append(sum(filled[r][c] == form for (r, c), form in gold.items()))
    print(
        f"{args.table.name}: {len(rows)} stems x {len(rows[0])} cells, {len(gold)} gaps; "
        f"phonkit fill {' '.join(args.options)}: median {statistics.median(times):.2f} s "
        f"(fastest {min(times):.2f}, slowest {max(times):.2f}, {args.repeats} runs); "
        f"gaps filled with the table's form: {min(right)}-{max(right)} of {len(gold)}"
    )


if __name__ == "__main__":
    main()
