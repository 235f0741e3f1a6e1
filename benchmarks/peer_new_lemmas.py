"""The peer on new lemmas: yoyodyne's soft-attention LSTM on a phonkit run's lemma-disjoint split.

    python benchmarks/peer_new_lemmas.py -m RUN --work DIR [--yoyodyne PATH] [--known 1,2,4,8]
        [--seed 1] [--max-epochs 50] [--max-time 00:00:30:00] [--score-only]

yoyodyne (Wiemerslage, Gorman, Bartley et al.) maps lemma + features to the form; it never
sees the known cells of a new lemma, so one prediction per test cell serves every K. The
script writes the run's train and dev splits (lemma, form, features) and its test split
into --work, trains ``SoftAttentionLSTMModel`` (BiLSTM encoder over the lemma, features
encoded by the same encoder, yoyodyne's defaults otherwise: embeddings 128, hidden 512,
batch 32, Adam 1e-3, the checkpoint of best dev accuracy) for at most --max-epochs epochs
or --max-time, predicts the test split greedily, and scores it on exactly the held-out
cells that ``phonkit evaluate --unseen-lemmas --known K --seed S`` scores (the same
reveal), with phonkit's metrics. yoyodyne runs from its own virtual environment (its
dependencies differ from phonkit's): pass its ``yoyodyne`` executable as --yoyodyne.
Prints a Markdown table on stdout and writes ``scores.tsv`` into --work.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
from pathlib import Path

from peers import BASE  # this folder: the config every peer run shares

from phonkit.metrics import Scored
from phonkit.plugins import registry
from phonkit.run.directory import Run
from phonkit.tasks.unseen import reveal

CONFIG = BASE.format(model="SoftAttentionLSTMModel")


def write_split(run: Run, split: str, path: Path) -> list:
    examples = run.examples(split)
    lines = (f"{ex.entry.lemma}\t{ex.entry.form}\t{ex.entry.bundle}\n" for ex in examples)
    path.write_text("".join(lines), encoding="utf-8")
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--yoyodyne", default="/work/yy-venv/bin/yoyodyne")
    parser.add_argument("--known", default="1,2,4,8")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-epochs", type=int, default=50)
    parser.add_argument("--max-time", default="00:00:30:00", help="DD:HH:MM:SS")
    parser.add_argument("--score-only", action="store_true", help="reuse the predictions")
    args = parser.parse_args()

    run = Run.open(args.model, finished=False)  # only its split is read: it may still train
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    write_split(run, "train", work / "train.tsv")
    write_split(run, "dev", work / "dev.tsv")
    test = write_split(run, "test", work / "test.tsv")
    (work / "config.yaml").write_text(CONFIG, encoding="utf-8")
    common = ["--config", str(work / "config.yaml"), "--data.model_dir", str(work / "model")]
    predictions = work / "predictions.txt"
    if not args.score_only:
        started = time.perf_counter()
        fit = [
            args.yoyodyne,
            "fit",
            *common,
            "--data.train",
            str(work / "train.tsv"),
            "--data.val",
            str(work / "dev.tsv"),
            "--checkpoint.dirpath",
            str(work / "checkpoints"),
            "--trainer.max_epochs",
            str(args.max_epochs),
            "--trainer.max_time",
            args.max_time,
            "--seed_everything",
            str(args.seed),
        ]
        subprocess.run(fit, check=True, cwd=work)
        trained = time.perf_counter() - started
        started = time.perf_counter()
        predict = [
            args.yoyodyne,
            "predict",
            *common,
            "--ckpt_path",
            str(work / "checkpoints" / "best.ckpt"),
            "--data.predict",
            str(work / "test.tsv"),
            "--prediction.path",
            str(predictions),
        ]
        subprocess.run(predict, check=True, cwd=work)
        (work / "timing.tsv").write_text(
            f"train_seconds\t{trained:.0f}\npredict_seconds\t{time.perf_counter() - started:.0f}\n"
        )
    guesses = predictions.read_text(encoding="utf-8").splitlines()
    if len(guesses) != len(test):
        raise SystemExit(f"{predictions}: {len(guesses)} predictions for {len(test)} test cells")
    # The peer writes orthography; transcribed like the run's forms, it is scored on symbols.
    spelled = run.transcriber().transcribe(run.config.lang or "", guesses)
    predicted = dict(zip(test, spelled, strict=True))
    metrics = registry("metrics")
    rows = [["known", "lemmas", "cells", "acc", "mld"]]
    for known in (int(k) for k in args.known.split(",")):
        shown = reveal(test, known, args.seed)
        items = [Scored(predicted[ex], ex.surface, math.nan) for ex in shown.held_out]
        scores = {name: metrics[name].score(items) for name in ("acc", "mld")}
        rows.append(
            [known, shown.lemmas, len(items), f"{scores['acc']:.1f}", f"{scores['mld']:.3f}"]
        )
    (work / "scores.tsv").write_text(
        "".join("\t".join(map(str, row)) + "\n" for row in rows), encoding="utf-8"
    )
    print(f"{run.path} ({run.config.data.corpus} {run.config.lang}), peer: yoyodyne")
    print("| K known | lemmas | cells | ACC | MLD |\n|---:|---:|---:|---:|---:|")
    for row in rows[1:]:
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
