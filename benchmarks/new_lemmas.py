"""Filling the paradigms of new lemmas: time and accuracy of the fit, per number of steps.

    python benchmarks/new_lemmas.py -m RUN [--lemmas 1000] [--known 2] [--steps 0,15,30,60]
                                   [--lr 0.1] [--prior-weight 1]

Takes --lemmas lemmas of the run's training split with more than --known cells, renames them
so the model does not know them (their trained vectors are not used), reveals --known cells
of each and leaves the others as gaps: the input of ``phonkit predict``. Then, for each
number of fit steps, runs the whole predict path (transcription, fit, greedy decoding of
every gap) and prints a Markdown table: wall time, forms per second, and the exact-match
accuracy on the gaps. Lemmas the model was trained on: the accuracy is a convergence check
for choosing --fit-steps and --fit-lr, not a result on unseen lemmas (evaluate
--unseen-lemmas measures that).
"""

from __future__ import annotations

import argparse
import io
import platform
import time
from pathlib import Path

import torch

from phonkit.data.cells import read_cells
from phonkit.model.device import choose_device
from phonkit.run.directory import Run
from phonkit.settings import FitConfig
from phonkit.tasks.predict import PredictOptions, fill


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", type=Path, required=True)
    parser.add_argument("--lemmas", type=int, default=1000)
    parser.add_argument("--known", type=int, default=2)
    parser.add_argument("--steps", default="0,15,30,60")
    parser.add_argument("--lr", type=float, default=FitConfig.lr)
    parser.add_argument("--prior-weight", type=float, default=FitConfig.prior_weight)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="auto")
    args = parser.parse_args()

    run = Run.open(args.model)
    paradigms: dict[str, list[tuple[str, str]]] = {}
    for example in run.examples("train"):
        paradigms.setdefault(example.entry.lemma, []).append(
            (example.entry.bundle, example.entry.form)
        )
    chosen = [lemma for lemma, cells in paradigms.items() if len(cells) > args.known]
    chosen = chosen[: args.lemmas]
    lines, gold = [], []
    for lemma in chosen:
        for number, (bundle, form) in enumerate(paradigms[lemma]):
            shown = form if number < args.known else "--"
            lines.append(f"new:{lemma}\t{bundle}\t{shown}\n")
            gold.append(None if number < args.known else form)
    data = "".join(lines).encode()
    device = choose_device(args.device)
    gaps = sum(form is not None for form in gold)
    print(
        f"{run.path} ({run.config.variant}, {run.config.data.corpus} {run.config.lang}): "
        f"{len(chosen):,} new lemmas, {args.known} known cells each, {gaps:,} gaps; "
        f"{platform.processor() or platform.machine()}, {device.type}, "
        f"{torch.get_num_threads()} threads, torch {torch.__version__}\n"
    )
    print("| fit steps | wall time (s) | gaps filled per s | ACC on the gaps |")
    print("|---:|---:|---:|---:|")
    for steps in (int(s) for s in args.steps.split(",")):
        options = PredictOptions(
            precision=args.precision, fit=FitConfig(steps, args.lr, args.prior_weight)
        )
        started = time.perf_counter()
        cells = read_cells(io.BytesIO(data), "<benchmark>")
        rows = fill(run, cells, "<benchmark>", device, options)
        seconds = time.perf_counter() - started
        right = sum(row[2] == form for row, form in zip(rows, gold, strict=True) if form)
        print(f"| {steps} | {seconds:.2f} | {gaps / seconds:,.0f} | {100 * right / gaps:.1f} |")


if __name__ == "__main__":
    main()
