"""Memory and latency of ``phonkit predict`` as a pipeline stage.

    python benchmarks/predict_memory.py -m runs/sample-tur-pi [--rows 100000,1000000]
                                        [--slow-rows 20] [--interval 1.0]

Peak memory: for each row count, a ``phonkit predict -m RUN`` subprocess is fed that many gap
rows (``lemma<TAB>features`` of the run's test cells, cycled) on stdin by this script, which
generates them as it writes (so the input never exists whole anywhere), and its output is
read and counted; the peak resident set size of the subprocess comes from ``wait4``
(``ru_maxrss``). Streaming holds it flat: the figures at 100,000 and 1,000,000 rows should be
within 10% of each other.

Latency: a slow producer writes one gap row and waits, with its input left open, for the
answer; then it writes ``--slow-rows`` - 1 more rows ``--interval`` seconds apart, waiting
for each answer, and closes the input last. The script reports when the first output line
came (the process's start and model loading included) and how long the later rows took
from being written to being answered (median). A predict that waits for the end of its
input never answers: the script says so after 600 s.

Prints one Markdown table row per measurement and the machine it ran on.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import select
import statistics
import subprocess
import sys
import threading
import time
from itertools import cycle, islice
from pathlib import Path


def gap_rows(run: Path) -> list[bytes]:
    rows = []
    for line in (run / "test.tsv").read_text(encoding="utf-8").splitlines():
        lemma, _, bundle, _ = line.split("\t")
        rows.append(f"{lemma}\t{bundle}\n".encode())
    return rows


def start(run: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "phonkit", "predict", "-m", str(run)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def peak_memory(run: Path, rows: int) -> tuple[float, int, float]:
    """Peak RSS (MB) of a predict subprocess given ``rows`` gap rows, its output line count,
    and its wall time (s)."""
    process = start(run)
    lines = 0

    def count() -> None:
        nonlocal lines
        for _ in process.stdout:
            lines += 1

    reader = threading.Thread(target=count)
    reader.start()
    began = time.perf_counter()
    block = []
    for row in islice(cycle(gap_rows(run)), rows):
        block.append(row)
        if len(block) == 4096:
            process.stdin.write(b"".join(block))
            block = []
    process.stdin.write(b"".join(block))
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    reader.join()
    error = process.stderr.read().decode()
    if process.returncode:
        raise SystemExit(f"predict failed ({process.returncode}): {error}")
    # Linux reports ru_maxrss in KiB, macOS in bytes
    kib = usage.ru_maxrss / 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return kib / 1024, lines, seconds


def latency(run: Path, rows: int, interval: float, patience: float = 600.0) -> tuple:
    """A slow producer. It writes one gap row and waits for its answer with the input left
    open, then writes the other rows ``interval`` seconds apart, each time waiting for the
    answer, and closes the input last. Returns the seconds to the first output line (process
    start and model loading included; None if it did not come within ``patience`` seconds
    while the input was open) and the median seconds from writing a later row to reading its
    output line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "phonkit", "predict", "-m", str(run)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,  # no read-ahead buffer that select() cannot see
    )
    source = cycle(gap_rows(run))

    def answer(written: float) -> float | None:
        if not select.select([process.stdout], [], [], patience)[0]:
            return None
        line = process.stdout.readline()
        return time.perf_counter() - written if line else None

    began = time.perf_counter()
    process.stdin.write(next(source))
    first = answer(began)
    later = []
    for _ in range(rows - 1 if first is not None else 0):
        time.sleep(interval)
        written = time.perf_counter()
        process.stdin.write(next(source))
        took = answer(written)
        if took is not None:
            later.append(took)
    process.stdin.close()
    process.stdout.read()
    process.wait()
    return first, statistics.median(later) if later else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", type=Path, default=Path("runs/sample-tur-pi"))
    parser.add_argument("--rows", default="100000,1000000")
    parser.add_argument("--slow-rows", type=int, default=20)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, run {args.model}\n"
    )
    print("| rows | output lines | peak RSS (MB) | wall time (s) |")
    print("|---:|---:|---:|---:|")
    for rows in (int(n) for n in args.rows.split(",")):
        megabytes, lines, seconds = peak_memory(args.model, rows)
        print(f"| {rows:,} | {lines:,} | {megabytes:,.0f} | {seconds:,.1f} |", flush=True)
    first, typical = latency(args.model, args.slow_rows, args.interval)
    if first is None:
        print("\nslow producer: no output line while the input was open")
    else:
        print(
            f"\nslow producer: the first output line came {first:.1f} s after the process "
            f"started (model loading included) with the input still open; the next "
            f"{args.slow_rows - 1} rows, written {args.interval:g} s apart, were answered "
            f"{typical * 1000:.0f} ms after they were written (median)"
        )


if __name__ == "__main__":
    main()
