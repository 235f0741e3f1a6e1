"""The peer, yoyodyne, trained to convergence on phonkit's cells: paradigm tables, Dutch.

    python benchmarks/peers.py tables FOLDER --work DIR --yoyodyne PATH --out TSV
        [--runs TSV] [--architectures soft,pointer] [--tables NAME,...] [--folds 1,2,3,4,5]
        [--seed 1] [--dev-share 0.2] [--patience 5] [--patience-steps 200] [--max-epochs 2000]
        [--jobs 1] [SETTINGS]
    python benchmarks/peers.py nld3k --data-dir DIR --work DIR --yoyodyne PATH --out TSV
        [--phonkit PATH] [--tasks paradigms,lemmas] [--entries 3000] [--architecture soft]
        [--known 1] [--seed 1] [--patience 5] [--max-epochs 500] [SETTINGS]
    python benchmarks/peers.py figure NLD3K.TSV --out FIGURE.png
    python benchmarks/peers.py report TABLES.TSV --phonkit RESULTS.TSV [--runs TSV]

SETTINGS (a tuned peer; each left out keeps yoyodyne's default): [--embedding-size N]
[--hidden-size N] [--layers N] [--dropout P] [--batch-size N] [--learning-rate R]
[--label-smoothing S] [--model-arg KEY=VALUE ...] [--tag NAME]. The sizes, layers and dropout
are the encoder's and the decoder's alike; the learning rate is Adam's; ``--model-arg`` sets
any other argument of the model (``enforce_monotonic=true``: hard attention's monotonic
transitions). ``--tag tuned`` names the system
``yoyodyne-ARCHITECTURE-tuned`` in the rows (and its work folders), so that a tuned run's rows
stand beside the untuned ones in the same files.

**nld3k** (time to accuracy): the UniMorph Dutch table cut to --entries entries (whole
paradigms, seeded: ``train --max-entries``), split by phonkit into train, dev and test cells
of seen paradigms (``paradigms``) or whole new lemmas (``lemmas``). phonkit trains pi with
its defaults (new lemmas: ``--lemma-encoder --candidates analogy``); yoyodyne
(``--architecture``, lemma + features -> form) trains on the same train split with early
stopping on the same dev split (patience --patience epochs), keeping a checkpoint per epoch,
each then decoding dev greedily. A row per epoch and system (``task, system, epoch, wall_s,
dev_acc, test_acc``): the wall time since the command started (phonkit: the epoch's line on
stderr; yoyodyne: its checkpoint's time), dev ACC, and on the row of the epoch each system
keeps, test ACC (new lemmas: the cells ``evaluate --unseen-lemmas --known K`` scores; for
phonkit the UFs fitted and the analogy candidates of the known cells ranked; yoyodyne reads
the lemma). Both run one after the other, one thread each.

**tables**:

The cells are those of ``phonkit experiment tables`` (:mod:`phonkit.experiments.
paradigm_tables`): every table of FOLDER, folds 1-5 of :func:`phonkit.data.table.fold_split`
with ``--seed`` (a fold that holds out nothing is skipped), one held-out cell per test stem,
scored with phonkit's symbols (:func:`phonkit.data.lexicon.segment`): ACC (exact match, %)
and MLD (mean Levenshtein distance), as the experiment scores its baselines.

The task, as a user of the peer would frame it: source = a known form of the stem, with its
cell as a feature, and the target cell as a feature (``SRC=s;TGT=t``); target = the form of
cell t. The fold's training stems other than its test stems are shuffled with ``--seed``,
the table and the fold; ``--dev-share`` of them (at least one) are the dev stems. Every
ordered pair of known cells (s, t), s != t, of the other stems (the test stems' known cells
included) trains; those of the dev stems are yoyodyne's validation set, for its checkpoint
and its early stopping on ``val_accuracy``: exact match, which 0.5.27's soft-attention and
pointer-generator models decode with teacher forcing; the checkpoint is the first epoch of
the best value (a model whose value never leaves 0 keeps epoch 1). Patience: ``max(--patience
epochs, --patience-steps batches)`` (tiny tables have one batch per epoch, and five such
epochs stop a model before it has learnt to emit a form), at most ``--max-epochs``, no cap on
time. The best checkpoint then predicts the dev pairs (greedy, free-running) and, for every
test stem, its known cells towards its held-out cell: per target cell t, the sources rank by
that dev accuracy of s -> t (sources no dev stem showed rank last, in the table's cell
order), and a test cell takes the prediction from the best-ranked source its stem has. The
dev stems are not trained on again after the selection.

yoyodyne 0.5.27 (Wiemerslage, Gorman, Bartley et al.) runs from its own virtual environment,
one thread (``OMP_NUM_THREADS=1``), with its defaults (embeddings 128, hidden 512, one
layer, dropout 0.2, batch 32, Adam 1e-3, tied source/target vocabulary, greedy decoding):

    python -m venv yy-venv; yy-venv/bin/pip install torch==2.13.0
    yy-venv/bin/pip install yoyodyne==0.5.27    # pulls torch 2.15 and Lightning 2.6

Architectures (``--architectures``): ``soft`` = ``SoftAttentionLSTMModel``, ``pointer`` =
``PointerGeneratorLSTMModel``, ``hard`` = ``HardAttentionLSTMModel`` (Wu & Cotterell); a
BiLSTM encoder over the source, the features encoded by the same encoder. One row per (table,
fold, system) is
appended to --out (``table, fold, system, acc, mld``; a row already there is not run
again, so the script resumes), one to --runs (``runs.tsv`` beside --out unless given) with
the pairs, epochs, yoyodyne's best val_accuracy, the free-running dev accuracy and the wall
time, and each run's predictions (stem, cell, source cell, gold, guess) stay in
``WORK/TABLE-fFOLD-SYSTEM/test.tsv``. ``--jobs N`` runs N yoyodyne trainings at once (one
thread each), in the order of the tables; the rows are appended as they finish. A failed
training starts no more, and the rows of those under way are still written. A training
keeps its latest state (``checkpoints/resume.ckpt``, every 50 batches or so) until it ends:
a command stopped mid-training (a session's end) goes on from there when run again on the
same files, and its wall time counts the stopped command's training up to that checkpoint.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from phonkit.analysis.significance import permutation_test
from phonkit.data.lexicon import Entry, segment
from phonkit.data.table import fold_split, read_table
from phonkit.errors import InputError
from phonkit.experiments.paradigm_tables import tables

MODELS = {
    "soft": "SoftAttentionLSTMModel",
    "pointer": "PointerGeneratorLSTMModel",
    "hard": "HardAttentionLSTMModel",
}

# The part of yoyodyne's config every peer run shares ({model}: a key of MODELS' values);
# peer_new_lemmas.py uses it too.
BASE = """\
model:
  class_path: yoyodyne.models.{model}
  init_args:
    source_encoder:
      class_path: yoyodyne.models.modules.LSTMEncoder
    features_encoder: true
data:
  source_col: 1
  target_col: 2
  features_col: 3
  features_sep: ";"
checkpoint:
  monitor: val_accuracy
  mode: max
  filename: best
trainer:
  accelerator: cpu
  devices: 1
  enable_progress_bar: false
"""

CONFIG = BASE + """\
  max_epochs: {max_epochs}
  logger:
    class_path: lightning.pytorch.loggers.CSVLogger
    init_args:
      save_dir: {work}
  callbacks:
    - class_path: lightning.pytorch.callbacks.EarlyStopping
      init_args:
        monitor: val_accuracy
        mode: max
        patience: {patience}
"""

# The tables' trainings also keep their latest state, every ceil(RESUME_BATCHES / batches
# an epoch) epochs, so that a command stopped mid-training goes on from it.
RESUME = """\
    - class_path: lightning.pytorch.callbacks.ModelCheckpoint
      init_args:
        dirpath: {work}/checkpoints
        filename: resume
        every_n_epochs: {every}
"""
RESUME_BATCHES = 50
BATCH = 32  # yoyodyne's default batch size

# Where the settings go in the config: after each of these lines of BASE.
AFTER = {
    "encoder": "      class_path: yoyodyne.models.modules.LSTMEncoder\n",
    "model": "    features_encoder: true\n",
    "data": '  features_sep: ";"\n',
}


def configure(config: str, args) -> str:
    """``config`` with the run's settings (``--embedding-size`` ...): the same text without
    any."""
    sizes = {"embedding_size": args.embedding_size, "hidden_size": args.hidden_size,
             "layers": args.layers, "dropout": args.dropout}  # fmt: skip
    model = {"embedding_size": args.embedding_size, "decoder_hidden_size": args.hidden_size,
             "decoder_layers": args.layers, "decoder_dropout": args.dropout,
             "label_smoothing": args.label_smoothing,
             **dict(arg.split("=", 1) for arg in args.model_arg or [])}  # fmt: skip

    def lines(indent: int, values: dict) -> str:
        return "".join(f"{' ' * indent}{key}: {value}\n" for key, value in values.items()
                       if value is not None)  # fmt: skip

    added = {"encoder": lines(8, sizes), "model": lines(4, model),
             "data": lines(2, {"batch_size": args.batch_size})}  # fmt: skip
    if added["encoder"]:
        added["encoder"] = "      init_args:\n" + added["encoder"]
    if args.learning_rate is not None:
        added["model"] += ("    optimizer:\n      class_path: yoyodyne.optimizers.Adam\n"
                           f"      init_args:\n        lr: {args.learning_rate}\n")  # fmt: skip
    for part, text in added.items():
        config = config.replace(AFTER[part], AFTER[part] + text, 1)
    return config


def named(architecture: str, args) -> str:
    """The system's name in the rows: ``yoyodyne-ARCHITECTURE``, then ``-TAG`` if tagged."""
    return f"yoyodyne-{architecture}" + (f"-{args.tag}" if args.tag else "")


OUT = ["table", "fold", "system", "acc", "mld"]
RUNS = ["table", "fold", "system", "train_pairs", "dev_pairs", "test_cells", "epochs",
        "best_epoch", "patience", "val_accuracy",
        "dev_accuracy", "fit_seconds", "predict_seconds"]  # fmt: skip


def pairs(paradigm: dict[str, str]) -> list[tuple[str, str]]:
    """The ordered pairs of distinct known cells of one stem."""
    return [(s, t) for s in paradigm for t in paradigm if s != t]


def row(source: str, s: str, t: str, target: str) -> str:
    return f"{source}\t{target}\tSRC={s};TGT={t}\n"


def split_dev(paradigms: dict[str, dict[str, str]], test: list[Entry], share: float, rng):
    """The dev stems: ``share`` (at least one) of the stems with two known cells that hold
    out nothing."""
    held = {entry.lemma for entry in test}
    candidates = [stem for stem, known in paradigms.items() if stem not in held and len(known) > 1]
    rng.shuffle(candidates)
    return set(candidates[: max(1, round(share * len(candidates)))])


class PeerFailed(Exception):
    """A yoyodyne command ended with an error; its messages are in its log."""


def yoyodyne(command: list[str], work: Path, env: dict, log: str) -> None:
    """Run a yoyodyne ``command`` in ``work``, its messages kept in ``work/log``."""
    with (work / log).open("w", encoding="utf-8") as messages:
        ended = subprocess.run(command, cwd=work, env=env, stdout=subprocess.DEVNULL,
                               stderr=messages)  # fmt: skip
    if ended.returncode:
        raise PeerFailed(
            f"{command[0]} {command[1]} ended with status {ended.returncode}: see {work / log}"
        )


def fit_and_predict(args, work: Path, system: str, train: str, dev: str, predict: str) -> dict:
    """Train one yoyodyne model on ``train`` (early stopping on ``dev``), predict ``predict``
    with its best checkpoint; the guesses, the epochs and the wall times. A training that an
    earlier command left unfinished in ``work``, on the same files, goes on from its last
    resume checkpoint."""
    batches = math.ceil(train.count("\n") / (args.batch_size or BATCH))
    patience = max(args.patience, math.ceil(args.patience_steps / batches))
    config = configure(
        CONFIG.format(model=MODELS[system], max_epochs=args.max_epochs, work=work,
                      patience=patience), args,
    ) + RESUME.format(work=work, every=math.ceil(RESUME_BATCHES / batches))  # fmt: skip
    files = {"train.tsv": train, "dev.tsv": dev, "predict.tsv": predict, "config.yaml": config}
    resume, clock = work / "checkpoints/resume.ckpt", work / "fit-clock.json"
    resumed = resume.exists() and clock.exists() and all(
        (work / name).is_file() and (work / name).read_text(encoding="utf-8") == text
        for name, text in files.items()
    )
    carried = 0.0  # seconds of training the resume checkpoint holds
    if resumed:
        before = json.loads(clock.read_text(encoding="utf-8"))
        carried = before["carried"] + max(0.0, resume.stat().st_mtime - before["started"])
    else:
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        for name, text in files.items():
            (work / name).write_text(text, encoding="utf-8")
    common = ["--config", str(work / "config.yaml"), "--data.model_dir", str(work)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    started = time.time()
    clock.write_text(json.dumps({"started": started, "carried": carried}), encoding="utf-8")
    yoyodyne(
        [args.yoyodyne, "fit", *common, "--data.train", str(work / "train.tsv"),
         "--data.val", str(work / "dev.tsv"), "--checkpoint.dirpath", str(work / "checkpoints"),
         "--seed_everything", str(args.seed), *(["--ckpt_path", str(resume)] if resumed else [])],
        work, env, "fit.log",
    )  # fmt: skip
    fitted = time.time()
    yoyodyne(
        [args.yoyodyne, "predict", *common, "--ckpt_path", str(work / "checkpoints/best.ckpt"),
         "--data.predict", str(work / "predict.tsv"),
         "--prediction.path", str(work / "predictions.txt")],
        work, env, "predict.log",
    )  # fmt: skip
    done = time.time()
    logged = validated(work)
    best = max(logged, key=lambda line: float(line["val_accuracy"]))  # the first best
    shutil.rmtree(work / "checkpoints")  # 10-50 MB a run; the predictions stay
    return {
        "guesses": (work / "predictions.txt").read_text(encoding="utf-8").splitlines(),
        "epochs": len(logged),
        "best_epoch": int(best["epoch"]) + 1,
        "val_accuracy": float(best["val_accuracy"]),
        "fit_seconds": carried + fitted - started,
        "predict_seconds": done - fitted,
        "patience": patience,
    }


def validated(work: Path) -> list[dict[str, str]]:
    """The validation rows of a training's logs, an epoch each, in order: a resumed training
    logs in a new version, whose rows replace the earlier versions' from its first epoch on."""
    epochs: dict[int, dict[str, str]] = {}
    versions = work.glob("lightning_logs/version_*/metrics.csv")
    for metrics in sorted(versions, key=lambda path: int(path.parent.name.split("_")[1])):
        with metrics.open(encoding="utf-8") as handle:
            rows = [line for line in csv.DictReader(handle) if line.get("val_accuracy")]
        if rows:
            first = min(int(line["epoch"]) for line in rows)
            epochs = {epoch: line for epoch, line in epochs.items() if epoch < first}
            epochs.update((int(line["epoch"]), line) for line in rows)
    return [epochs[epoch] for epoch in sorted(epochs)]


def run_fold(args, name: str, cells: list[str], entries: list[Entry], fold: int, system: str):
    """One (table, fold, system): its OUT row and its RUNS row, or None for an empty fold."""
    split = fold_split(entries, fold, args.seed)
    if not split.test:
        return None
    paradigms: dict[str, dict[str, str]] = {}
    for entry in split.train:
        paradigms.setdefault(entry.lemma, {})[entry.bundle] = entry.form
    dev_stems = split_dev(
        paradigms, split.test, args.dev_share, random.Random(f"{args.seed}:{name}:{fold}")
    )
    train = "".join(
        row(known[s], s, t, known[t])
        for stem, known in paradigms.items() if stem not in dev_stems
        for s, t in pairs(known)
    )  # fmt: skip
    dev = [(stem, s, t) for stem in sorted(dev_stems) for s, t in pairs(paradigms[stem])]
    tried = [(e.lemma, s, e.bundle) for e in split.test for s in paradigms.get(e.lemma, {})]
    # The target column of the predict file is ignored by greedy decoding: the source fills it.
    predict = "".join(
        row(paradigms[stem][s], s, t, paradigms[stem][s]) for stem, s, t in dev + tried
    )
    dev_text = "".join(row(paradigms[stem][s], s, t, paradigms[stem][t]) for stem, s, t in dev)
    work = args.work / f"{name}-f{fold}-{named(system, args).removeprefix('yoyodyne-')}"
    fitted = fit_and_predict(args, work, system, train, dev_text, predict)
    guesses = dict(zip(dev + tried, fitted["guesses"], strict=True))
    right: dict[tuple[str, str], list[bool]] = {}
    for stem, s, t in dev:
        right.setdefault((s, t), []).append(guesses[stem, s, t] == paradigms[stem][t])

    def rank(s: str, t: str) -> tuple[float, int]:
        shown = right.get((s, t))
        return (-sum(shown) / len(shown) if shown else 1.0, cells.index(s))

    hits, distances, lines = [], [], []
    for entry in split.test:
        known = paradigms.get(entry.lemma, {})
        source = min(known, key=lambda s: rank(s, entry.bundle))
        guess = segment(guesses[entry.lemma, source, entry.bundle])
        gold = segment(entry.form)
        hits.append(guess == gold)
        distances.append(Levenshtein.distance(guess, gold))
        lines.append(f"{entry.lemma}\t{entry.bundle}\t{source}\t{entry.form}\t{''.join(guess)}\n")
    (work / "test.tsv").write_text("".join(lines), encoding="utf-8")
    shown = [hit for hits_of in right.values() for hit in hits_of]
    out = [name, fold, named(system, args), f"{100 * sum(hits) / len(hits):.2f}",
           f"{sum(distances) / len(distances):.4f}"]  # fmt: skip
    runs = [name, fold, named(system, args), train.count("\n"), len(dev), len(hits),
            fitted["epochs"], fitted["best_epoch"], fitted["patience"],
            f"{100 * fitted['val_accuracy']:.2f}",
            f"{100 * sum(shown) / len(shown):.2f}", f"{fitted['fit_seconds']:.1f}",
            f"{fitted['predict_seconds']:.1f}"]  # fmt: skip
    return out, runs


def append(path: Path, header: list[str], values: list) -> None:
    new = not path.exists()
    with path.open("a", encoding="utf-8") as handle:
        if new:
            handle.write("\t".join(header) + "\n")
        handle.write("\t".join(map(str, values)) + "\n")


# -- Dutch, 3,000 forms: time to accuracy ----------------------------------------------------

CURVE = ["task", "system", "epoch", "wall_s", "dev_acc", "test_acc"]
TASKS = {  # task: phonkit's split and its settings beyond the defaults
    "paradigms": ["--split", "paradigms"],
    # new lemmas: the analogy candidates of each lemma's known cells, ranked by the model, as
    # docs/results/tables.md fills new lemmas' gaps (a setting of prediction, not of training)
    "lemmas": ["--split", "lemmas", "--lemma-encoder", "--candidates", "analogy"],
}


def timed_lines(command: list[str], env: dict) -> tuple[list[tuple[float, str]], float]:
    """Run ``command``; each stderr line with the seconds since the start when it came, and
    the whole wall time."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               env=env, text=True)  # fmt: skip
    assert process.stderr is not None
    lines = [(time.perf_counter() - started, line) for line in process.stderr]
    if process.wait():
        raise SystemExit(f"{' '.join(command)} failed:\n" + "".join(t for _, t in lines[-5:]))
    return lines, time.perf_counter() - started


def phonkit_curve(args, task: str, env: dict) -> tuple[list[list], Path]:
    """Train pi on the task's split of the subset; a row per epoch: its wall time since the
    command started (the epoch's line on stderr), its dev ACC (greedy; for new lemmas from
    the lemma encoder's UF of each lemma's spelling, no known cell, as the peer reads it),
    and the test ACC on the row of the kept epoch."""
    out = args.work / f"phonkit-{task}"
    command = [args.phonkit, "train", "--corpus", "unimorph", "--lang", "nld", "--data-dir",
               str(args.data_dir), "--max-entries", str(args.entries), "--seed", str(args.seed),
               *TASKS[task], "--out", str(out), "--force"]  # fmt: skip
    lines, _ = timed_lines(command, env)
    ended = [(at, line) for at, line in lines if line.startswith("epoch ")]
    with (out / "history.tsv").open(encoding="utf-8") as handle:
        history = list(csv.DictReader(handle, delimiter="\t"))
    if len(ended) != len(history):
        raise SystemExit(f"{out}: {len(ended)} epoch lines on stderr, {len(history)} in history")
    kept = max(int(r["epoch"]) for r in history if r["best"] == "1")
    if task == "lemmas":
        scored = subprocess.run([args.phonkit, "evaluate", "-m", str(out), "--unseen-lemmas",
                                 "--known", str(args.known), "--seed", str(args.seed)],
                                capture_output=True, text=True, check=True, env=env)  # fmt: skip
        rows = [line.split("\t") for line in scored.stdout.splitlines()]
        test = next(float(r[3]) for r in rows if r[:3] == [str(args.known), "model", "acc"])
    else:
        test = json.loads((out / "metrics.json").read_text())["test"]["acc"]
    return [
        [task, "phonkit-pi", int(r["epoch"]), f"{at:.1f}",
         f"{float(r['dev_acc']):.2f}",
         f"{test:.2f}" if int(r["epoch"]) == kept else ""]
        for (at, _), r in zip(ended, history, strict=True)
    ], out  # fmt: skip


def peer_curve(args, task: str, run: Path, env: dict) -> list[list]:
    """yoyodyne on the same split (lemma + features -> form), early stopping on its
    val_accuracy; a row per epoch: the wall time since ``fit`` started when the epoch's
    checkpoint was written, the free-running (greedy) dev ACC of that checkpoint, and the
    test ACC of the checkpoint it keeps (its first best val_accuracy) on its row. For new
    lemmas the test cells are those ``evaluate --unseen-lemmas --known K`` scores."""
    from phonkit.run.directory import Run
    from phonkit.tasks.unseen import reveal

    tagged = f"{named(args.architecture, args)}-{task}"
    work = args.work / (tagged if args.tag else f"yoyodyne-{task}")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    phonkit_run = Run(run)
    splits = {}
    for split in ("train", "dev", "test"):
        splits[split] = phonkit_run.examples(split)
        (work / f"{split}.tsv").write_text(
            "".join(f"{e.entry.lemma}\t{e.entry.form}\t{e.entry.bundle}\n" for e in splits[split]),
            encoding="utf-8",
        )
    config = configure(CONFIG.format(model=MODELS[args.architecture], max_epochs=args.max_epochs,
                                     work=work, patience=args.patience), args)  # fmt: skip
    (work / "config.yaml").write_text(config, encoding="utf-8")
    common = ["--config", str(work / "config.yaml"), "--data.model_dir", str(work)]
    started = time.time()
    yoyodyne(
        [args.yoyodyne, "fit", *common, "--data.train", str(work / "train.tsv"),
         "--data.val", str(work / "dev.tsv"), "--checkpoint.dirpath", str(work / "checkpoints"),
         "--checkpoint.save_top_k", "-1", "--checkpoint.filename", "{epoch}",
         "--seed_everything", str(args.seed)],
        work, env, "fit.log",
    )  # fmt: skip
    with next(work.glob("lightning_logs/*/metrics.csv")).open(encoding="utf-8") as handle:
        logged = [line for line in csv.DictReader(handle) if line.get("val_accuracy")]
    kept = int(max(logged, key=lambda line: float(line["val_accuracy"]))["epoch"])

    def predict(checkpoint: Path, split: str) -> list[str]:
        path = work / f"{split}-{checkpoint.stem}.txt"
        yoyodyne(
            [args.yoyodyne, "predict", *common, "--ckpt_path", str(checkpoint),
             "--data.predict", str(work / f"{split}.tsv"), "--prediction.path", str(path)],
            work, env, "predict.log",
        )  # fmt: skip
        return path.read_text(encoding="utf-8").splitlines()

    def accuracy(guesses: list[str], examples) -> float:
        return 100 * sum(g == e.entry.form for g, e in zip(guesses, examples, strict=True)) / len(
            examples
        )

    rows = []
    for checkpoint in sorted(work.glob("checkpoints/*.ckpt"), key=lambda p: p.stat().st_mtime):
        epoch = int(checkpoint.stem.split("=")[1])
        test = ""
        if epoch == kept:
            guessed = dict(zip(splits["test"], predict(checkpoint, "test"), strict=True))
            cells = splits["test"]
            if task == "lemmas":
                cells = reveal(cells, args.known, args.seed).held_out
            test = f"{accuracy([guessed[e] for e in cells], cells):.2f}"
        dev = accuracy(predict(checkpoint, "dev"), splits["dev"])
        wall = checkpoint.stat().st_mtime - started
        system = named(args.architecture, args)
        rows.append([task, system, epoch + 1, f"{wall:.1f}", f"{dev:.2f}", test])
        checkpoint.unlink()  # 20-50 MB each
    return rows


def nld3k(args) -> None:
    """Both systems on each task, one after the other; a task already in --out is not run
    again (the rows of a task are appended when both systems have finished it)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    args.work.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        with args.out.open(encoding="utf-8") as handle:
            done = {line["task"] for line in csv.DictReader(handle, delimiter="\t")}
    for task in args.tasks.split(","):
        if task in done:
            continue
        ours, run = phonkit_curve(args, task, env)
        for values in ours + peer_curve(args, task, run, env):
            append(args.out, CURVE, values)
            print("\t".join(map(str, values)), flush=True)


def figure(curve: Path, out: Path) -> None:
    """Dev ACC against wall time (log scale), a panel per task and a line per system, from
    the rows of ``nld3k``; a cross marks the epoch each system keeps."""
    from phonkit.analysis.figures import pyplot, save

    with curve.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    tasks = list(dict.fromkeys(row["task"] for row in rows))
    plt = pyplot()
    fig, axes = plt.subplots(1, len(tasks), figsize=(5 * len(tasks), 3.6), squeeze=False)
    for axis, task in zip(axes[0], tasks, strict=True):
        for system in dict.fromkeys(row["system"] for row in rows if row["task"] == task):
            ours = [row for row in rows if row["task"] == task and row["system"] == system]
            points = [(float(row["wall_s"]), float(row["dev_acc"])) for row in ours]
            line = axis.plot(*zip(*points, strict=True), label=system)
            kept = [point for point, row in zip(points, ours, strict=True) if row["test_acc"]]
            if kept:  # a task cut short has no kept epoch yet
                axis.plot(*zip(*kept, strict=True), "x", color=line[0].get_color())
        axis.set(xscale="log", xlabel="wall time (s), one thread", ylabel="dev ACC (%)",
                 title=f"Dutch, 3,000 forms: {task}", ylim=(0, 100))  # fmt: skip
        axis.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    save(fig, out)


def report(peer: Path, runs: Path, ours: Path) -> None:
    """A Markdown row per table that every peer architecture finished (a row for each fold
    phonkit ran): each system's ACC / MLD with the folds pooled, the peer's weighted by each
    fold's held-out cells; then the mean over those tables, and how far phonkit's first
    system is ahead of each peer architecture (tables ahead, tied, behind; the paired
    permutation test over the tables). ``ours`` is the ``results.tsv`` that ``phonkit
    experiment report`` writes for the phonkit experiment."""

    def rows(path: Path) -> list[dict[str, str]]:
        with path.open(encoding="utf-8") as handle:
            return list(csv.DictReader(handle, delimiter="\t"))

    cells = {(r["table"], r["fold"], r["system"]): int(r["test_cells"]) for r in rows(runs)}
    pooled: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
    for r in rows(peer):
        weight = cells[r["table"], r["fold"], r["system"]]
        pooled.setdefault((r["table"], r["system"]), []).append(
            (weight, float(r["acc"]), float(r["mld"]))
        )
    scores = {(r["table"], r["system"]): (float(r["acc"]), float(r["mld"])) for r in rows(ours)}
    ran = {r["table"]: int(r["test_cells"]) for r in rows(ours)}
    peers = list(dict.fromkeys(system for _, system in pooled))
    for (table, system), found in pooled.items():
        total = sum(weight for weight, _, _ in found)
        if total == ran.get(table):  # every fold's held-out cells: the table is complete
            acc = sum(weight * a for weight, a, _ in found) / total
            scores[table, system] = (acc, sum(weight * m for weight, _, m in found) / total)
    ours_systems = list(dict.fromkeys(r["system"] for r in rows(ours)))
    systems = [*peers, *ours_systems]
    complete = [t for t in ran if all((t, system) in scores for system in systems)]
    print("| table (held-out cells) | " + " | ".join(systems) + " |")
    print("|---|" + "---|" * len(systems))
    for table in complete:
        values = [f"{scores[table, s][0]:.1f} / {scores[table, s][1]:.3f}" for s in systems]
        print(f"| {table}, {ran[table]} | " + " | ".join(values) + " |")
    means = [sum(scores[t, s][0] for t in complete) / max(1, len(complete)) for s in systems]
    print(f"| mean of the {len(complete)} | " + " | ".join(f"{m:.1f}" for m in means) + " |")
    ours_first = ours_systems[0]
    for system in peers:  # phonkit's first system against each peer architecture, by table
        ahead = [scores[t, ours_first][0] - scores[t, system][0] for t in complete]
        p_value = permutation_test(
            [scores[t, ours_first][0] for t in complete], [scores[t, system][0] for t in complete]
        )
        print(
            f"\n{ours_first} - {system}: {sum(ahead) / max(1, len(ahead)):+.1f} points over the "
            f"{len(complete)} tables (ahead on {sum(d > 0 for d in ahead)}, tied on "
            f"{sum(d == 0 for d in ahead)}, behind on {sum(d < 0 for d in ahead)}; paired "
            f"permutation test over the tables, p = {p_value:.4f})"
        )


def keyed(text: str) -> str:
    key, equals, _ = text.partition("=")
    if not (equals and key.isidentifier()):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    return text


def settings(parser: argparse.ArgumentParser) -> None:
    """The options of a tuned peer; each left out keeps yoyodyne's default."""
    told = parser.add_argument_group("settings (default: yoyodyne's)")
    told.add_argument("--embedding-size", type=int)
    told.add_argument("--hidden-size", type=int, help="the encoder's (each way) and the decoder's")
    told.add_argument("--layers", type=int, help="the encoder's and the decoder's")
    told.add_argument("--dropout", type=float)
    told.add_argument("--batch-size", type=int, help=f"default {BATCH}")
    told.add_argument("--learning-rate", type=float, help="Adam's (default 0.001)")
    told.add_argument("--label-smoothing", type=float)
    told.add_argument("--model-arg", action="append", metavar="KEY=VALUE", type=keyed,
                      help="another argument of the model (repeatable)")  # fmt: skip
    told.add_argument("--tag", help="the system is named yoyodyne-ARCHITECTURE-TAG (e.g. tuned)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tasks = parser.add_subparsers(dest="task", required=True)
    table = tasks.add_parser("tables", help="the paradigm tables (a)")
    table.add_argument("folder", type=Path)
    table.add_argument("--work", type=Path, required=True)
    table.add_argument("--yoyodyne", default="yy-venv/bin/yoyodyne")
    table.add_argument("--out", type=Path, required=True)
    table.add_argument("--runs", type=Path, help="default: runs.tsv beside --out")
    table.add_argument("--architectures", default="soft,pointer")
    table.add_argument("--tables", help="NAME,... (default: every table of the folder)")
    table.add_argument("--folds", default="1,2,3,4,5")
    table.add_argument("--seed", type=int, default=1)
    table.add_argument("--dev-share", type=float, default=0.2)
    table.add_argument("--patience", type=int, default=5, help="epochs, at least")
    table.add_argument("--patience-steps", type=int, default=200, help="batches, at least")
    table.add_argument("--max-epochs", type=int, default=2000)
    table.add_argument("--jobs", type=int, default=1, help="yoyodyne trainings at once")
    dutch = tasks.add_parser("nld3k", help="Dutch, a subset of 3,000 forms: time to accuracy (b)")
    dutch.add_argument("--data-dir", type=Path, required=True)
    dutch.add_argument("--work", type=Path, required=True)
    dutch.add_argument("--yoyodyne", default="yy-venv/bin/yoyodyne")
    dutch.add_argument("--phonkit", default="phonkit")
    dutch.add_argument("--out", type=Path, required=True)
    dutch.add_argument("--tasks", default="paradigms,lemmas")
    dutch.add_argument("--entries", type=int, default=3000)
    dutch.add_argument("--architecture", choices=sorted(MODELS), default="soft")
    dutch.add_argument("--known", type=int, default=1, help="known cells of a new lemma")
    dutch.add_argument("--seed", type=int, default=1)
    dutch.add_argument("--patience", type=int, default=5)
    dutch.add_argument("--max-epochs", type=int, default=500)
    for parsed in (table, dutch):
        settings(parsed)
    drawn = tasks.add_parser("figure", help="time to accuracy from the nld3k rows")
    drawn.add_argument("curve", type=Path)
    drawn.add_argument("--out", type=Path, required=True)
    told = tasks.add_parser("report", help="per-table rows of the finished tables")
    told.add_argument("peer", type=Path, help="the tables rows (--out of tables)")
    told.add_argument("--runs", type=Path, help="default: runs.tsv beside the rows")
    told.add_argument("--phonkit", type=Path, required=True, help="phonkit's results.tsv")
    args = parser.parse_args()
    if args.task == "report":
        report(args.peer, args.runs or args.peer.with_name("runs.tsv"), args.phonkit)
        return
    if args.task == "figure":
        figure(args.curve, args.out)
        return
    args.work = args.work.resolve()
    try:
        if args.task == "nld3k":
            nld3k(args)
        else:
            run_tables(args, parser)
    except PeerFailed as error:
        parser.exit(1, f"peers.py: {error}\n")


def run_tables(args, parser: argparse.ArgumentParser) -> None:
    """The tables task: every (table, fold, architecture) not in --out yet, --jobs at once."""
    runs_path = args.runs or args.out.with_name("runs.tsv")
    systems = args.architectures.split(",")
    unknown = set(systems) - set(MODELS)
    if unknown:
        parser.error(f"unknown architectures: {', '.join(sorted(unknown))}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        found = tables(args.folder)
        chosen = args.tables.split(",") if args.tables else list(found)
        missing = [name for name in chosen if name not in found]
        if missing:
            parser.error(f"no such table in {args.folder}: {', '.join(missing)}")
        read = {name: read_table(found[name]) for name in chosen}
    except InputError as error:  # a bad table: one line, before anything runs
        parser.exit(2, f"peers.py: {error}\n")
    done = set()
    if args.out.exists():
        with args.out.open(encoding="utf-8") as handle:
            rows = csv.DictReader(handle, delimiter="\t")
            done = {(r["table"], r["fold"], r["system"]) for r in rows}
    todo = [  # (table, cells, entries, fold, system) not in --out yet
        (name, table.cells, table.entries(), int(fold), system)
        for name, table in read.items()
        for fold in args.folds.split(",")
        for system in systems
        if (name, fold, named(system, args)) not in done
    ]
    failed: BaseException | None = None
    with ThreadPoolExecutor(args.jobs) as pool:  # threads: the work is in yoyodyne's processes
        futures = [pool.submit(run_fold, args, *job) for job in todo]
        for finished in as_completed(futures):
            if finished.cancelled():
                continue
            if finished.exception() is not None:  # stop the rest, keep the runs under way
                failed = failed or finished.exception()
                for future in futures:
                    future.cancel()
                continue
            result = finished.result()
            if result is not None:
                append(args.out, OUT, result[0])
                append(runs_path, RUNS, result[1])
                print("\t".join(map(str, result[1])), flush=True)
    if failed is not None:
        raise failed


if __name__ == "__main__":
    main()
