"""Seconds the analogy's reliabilities take on a finished run, one thread.

    python benchmarks/reliability_speed.py RUN [--dev N]

Two figures, each with what it chose, so that two versions of the code can be compared on
the same run and shown to choose the same: the context width chosen over the run's training
cells, each left out in turn (``Rewrites.width``, what training does when it first ranks
candidates), and the judges' weights chosen on its first ``--dev`` dev cells (all by
default; what training does last, ``Rewrites.choose_weights``). Say what else ran on the
machine when quoting it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from phonkit.errors import InputError
from phonkit.plugins import feature_table
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.tables.candidates import Rewrites


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished run that ranks analogy candidates")
    parser.add_argument("--dev", type=int, default=None, help="dev cells to choose on")
    args = parser.parse_args()
    torch.set_num_threads(1)
    try:
        run = Run.open(args.run)
        rewrites = Rewrites.of(run)
        if rewrites is None:
            raise InputError(f"{args.run}: its model ranks no candidates (model.candidates)")
    except InputError as error:  # one line and exit code 2, as phonkit's commands end
        print(error, file=sys.stderr)
        sys.exit(2)
    began = time.perf_counter()
    width = Rewrites(run.examples("train"), features=feature_table()).width
    print(f"width\t{width}\t{time.perf_counter() - began:.1f} s")
    dev = run.examples("dev")[: args.dev]
    model = load_model(run, torch.device("cpu"))
    began = time.perf_counter()
    weights = rewrites.choose_weights(model, run.vocabularies(), dev)
    print(
        f"weights\treliability {weights.reliability:g}, temperature {weights.temperature:g}"
        f"\t{time.perf_counter() - began:.1f} s ({len(dev):,} dev cells)"
    )


if __name__ == "__main__":
    main()
