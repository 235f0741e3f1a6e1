"""The whole path: corpus -> lexicon -> surface symbols -> split -> vocabularies -> model ->
trainer -> run directory -> scores. The CLI commands are thin wrappers of these functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import torch

from phonkit import __version__
from phonkit.data.encoding import encode
from phonkit.data.lexicon import Example, Lexicon, Vocabularies
from phonkit.data.split import HOLDS_NO_DEV, PROTOCOLS, Split, has_counts, stem_folds
from phonkit.data.tsv import format_rows
from phonkit.errors import InputError
from phonkit.jobs import TrainRequest
from phonkit.model.amortized import reads
from phonkit.model.device import choose_device, cpu_threads, resolve_precision
from phonkit.model.fitting import held_out_lemmas
from phonkit.model.training import Checkpoint, Trainer, seed_everything
from phonkit.plugins import installed_feature_table, lookup
from phonkit.progress import TrainingProgress, say
from phonkit.run.config import DataSettings, RunConfig, recorded_path
from phonkit.run.directory import JUDGES, Run, writing
from phonkit.run.factory import load_model, run_model
from phonkit.tables.candidates import Rewrites, keep_width
from phonkit.tables.copy_training import copy_settings, end_copy_models, start_copy_models
from phonkit.tables.sizes import SMALL, settings_for
from phonkit.tasks.corpus import request_of, surface_examples
from phonkit.tasks.evaluate import Evaluation, evaluate, selected_metrics


def default_run_dir(job: TrainRequest) -> Path:
    """Where a run goes when no directory is given: ``runs/CORPUS-LANG-VARIANT`` (the file
    or dataset name for a corpus without a language)."""
    lang = request_of(job).lang
    return (
        Path("runs") / f"{job.corpus}-{lang or Path(job.request.path or 'data').stem}-{job.variant}"
    )


def check_job(job: TrainRequest) -> None:
    """Check every setting of ``job`` that needs no data: the plugins it names, the
    device, the model and training settings, the split's. Called before a run directory or
    the corpus is looked at, so that a bad setting is the error whatever is there."""
    lookup("corpora", job.corpus)
    lookup("models", job.variant)
    lookup("transcribers", job.transcriber)
    lookup("decompositions", job.morphemes)
    selected_metrics(job.metrics)
    choose_device(job.device)
    settings_for(job, SMALL)
    check_split(job)
    if job.given()["model"].get("lemma_encoder") and reads(lookup("models", job.variant)):
        raise InputError(
            "model.lemma_encoder is a setting of the variants that fit new lemmas (pi, pd, "
            f"joint); {job.variant} reads a lemma's spelling itself",
            setting=("model.lemma_encoder",),
        )


def check_split(job: TrainRequest) -> None:
    """The split has the settings its protocol needs and none it does not."""
    protocol, asked = job.protocol, job.split
    if protocol == "sample" and asked.k is None:
        raise InputError(
            "split.protocol=sample needs split.k=K, the number of training entries to draw",
            setting=("split.protocol", "split.k"),
        )
    if protocol != "sample" and asked.k is not None:
        raise InputError(
            f"split.k goes with the k-sample split, not with split.protocol={protocol}",
            setting=("split.k", "split.protocol"),
        )
    if (protocol == "folds") != (asked.fold is not None):
        raise InputError(
            "split.fold goes with split.protocol=folds, and that split needs it",
            setting=("split.fold", "split.protocol"),
        )


def split_examples(examples: list[Example], job: TrainRequest, name: str) -> Split:
    check_split(job)
    protocol, seed, asked = job.protocol, job.seed, job.split
    if protocol == "sample":
        split = PROTOCOLS[protocol](examples, seed, asked.k, asked.draw)
    elif protocol == "folds" and asked.fold is not None:
        split = stem_folds(examples, seed, asked.fold)
    else:
        split = PROTOCOLS[protocol](examples, seed)
    counts = split.counts()
    if protocol == "sample":
        how = "by token count" if has_counts(examples) else "uniformly (the corpus has no counts)"
        say(
            f"{name}: {len(examples):,} entries; draw {asked.draw} of k = {asked.k} took "
            f"{counts['train']:,} training entries {how}; dev {counts['dev']:,} and test "
            f"{counts['test']:,} from the rest whose morphemes were drawn "
            f"({counts['uncovered']:,} others left out)"
        )
    elif protocol == "all":
        say(f"{name}: all {len(examples):,} entries train (no dev split: checkpoints by loss)")
    else:
        unit = {"lemmas": "whole paradigms", "folds": f"fold {asked.fold} of the stems"}
        say(
            f"{name}: {len(examples):,} entries -> train {counts['train']:,}, dev "
            f"{counts['dev']:,}, test {counts['test']:,} ({unit.get(protocol, 'held-out cells')}"
            f"; {counts['moved_to_train']:,} held-out entries with a morpheme unseen in train "
            "moved to train)"
        )
    if (not split.dev and protocol not in HOLDS_NO_DEV) or (not split.test and protocol != "all"):
        raise InputError(f"{name}: too little data to split ({len(examples)} entries)")
    return split


def train(
    job: TrainRequest,
    out: Path | None = None,
    force: bool = False,
    resume: bool = False,
    lexicon: Lexicon | None = None,
    meanwhile: Callable[[Run], None] | None = None,
) -> tuple[Run, dict[str, dict[str, float]]]:
    """Train a run as ``job`` asks into ``out`` (default: :func:`default_run_dir`; ``force``
    replaces a run there; ``lexicon``: the corpus, read already), or with ``resume`` go on
    training the unfinished run in ``out`` (on ``job.device`` unless that is ``auto``); the
    run and its dev and test scores. ``meanwhile``: as :func:`train_run`."""
    check_job(job)  # before the run directory is looked at
    if resume:
        if out is None:
            raise InputError("resume needs out, the run to go on with", setting=("resume", "out"))
        with writing(out):  # one writer at a time; Ctrl-C says what was kept
            run = Run.open(out, finished=False)
            if run.finished:
                raise InputError("the run is already finished", str(out))
            return run, train_run(run, job.device if job.device != "auto" else None, meanwhile)
    out = out or default_run_dir(job)
    with writing(out):
        Run.check_target(out, force)  # before the corpus is read
        run = start_run(job, out, force, lexicon)
        return run, train_run(run, meanwhile=meanwhile)


def start_run(job: TrainRequest, out: Path, force: bool, lexicon: Lexicon | None = None) -> Run:
    """Read the corpus (or take ``lexicon``, read from it already), split it and write a new
    run directory (not yet trained)."""
    check_job(job)  # a bad setting fails before the corpus is read
    variant = lookup("models", job.variant)
    request = request_of(job)
    if lexicon is None:
        lexicon = lookup("corpora", job.corpus).read(request)
    cap = job.split.max_entries
    if cap is not None and len(lexicon) > cap:
        say(
            f"{lexicon.name}: kept {cap:,} of {len(lexicon):,} entries (split.max_entries)",
            setting="split.max_entries",
        )
        lexicon = lexicon.capped(cap, job.seed)
    examples = surface_examples(lexicon, job.transcriber, request.lang, job.morphemes)
    split = split_examples(examples, job, lexicon.name or job.corpus)
    vocabularies = Vocabularies.build(split.train)
    cells = len({example.entry.bundle for example in split.train})
    model, training = settings_for(job, len(split.train), cells)
    copy = copy_settings(job, model, split.train)
    config = RunConfig(
        phonkit_version=__version__,
        data=DataSettings(
            corpus=job.corpus,
            lang=request.lang,
            path=recorded_path(request.path, out),  # the run stores no absolute path
            columns=request.columns,
            options=dict(request.options),
            data_dir=recorded_path(request.data_dir, out),
        ),
        transcriber=job.transcriber,
        variant=variant.name,
        morphemes=job.morphemes,
        model=model,
        training=training,
        copy=copy,
        device=job.device,
        split=job.split,
        counts=split.counts(),
        metrics=job.metrics,
        max_length=2 * max(len(example.surface) for example in split.train) + 2,
        feature_table=installed_feature_table(),
    )
    splits = {"train": split.train, "dev": split.dev, "test": split.test}
    return Run.create(
        out, config, splits, vocabularies, lookup("transcribers", job.transcriber), force
    )


def train_run(
    run: Run, device_name: str | None = None, meanwhile: Callable[[Run], None] | None = None
) -> dict[str, dict[str, float]]:
    """Train (or go on training) the run's model, then score it on dev and test;
    ``meanwhile`` is done with the run once the model is trained, while its copy models, if
    any, finish in their own process (``fill`` infers its table's underlying strings)."""
    config = run.config
    training = config.training
    device = choose_device(device_name or config.device)
    seed_everything(training.seed)
    vocabularies = run.vocabularies()
    model = run_model(run)
    # the examples it trains on: the training cells (and the amortized model's hallucinated
    # stems, numbered after the run's own morphemes)
    examples, numbered = model.augmented(run.examples("train"), vocabularies, training.seed)
    train = encode(examples, numbered)
    dev_examples = run.examples("dev")
    dev = encode(dev_examples, held_out_lemmas(model, numbered, dev_examples))
    trainer = Trainer(
        model,
        train,
        dev,
        training,
        device,
        config.max_length,
        keeper(run),
        str(run.path),
        light=len(train) < SMALL,
    )
    if (state := run.checkpoint()) is not None:
        trainer.restore(state)
        say(f"{run.path}: resuming after epoch {trainer.epoch}")
    say(
        f"{run.path}: training {config.variant} on {device.type} in "
        f"{resolve_precision(device, training.precision)} "
        f"({sum(p.numel() for p in trainer.model.parameters()):,} parameters)"
    )
    copying = start_copy_models(run, device)  # in a forked process, beside the model
    busy = f"{run.path}: other processes keep CPU cores busy: training"
    # beside the copy models, one thread: a second would spin while they compute
    with cpu_threads(device, small=copying is not None, said=busy):
        try:
            epochs = training.epochs, trainer.batches_per_epoch(), trainer.epoch
            with TrainingProgress(*epochs) as progress:
                trainer.fit(progress.advance, progress.report)
        except BaseException:
            if copying is not None:
                copying.stop()
            raise
        if meanwhile is not None:
            meanwhile(run)
        keep_width(run)  # while the copy models finish: it needs no model
        end_copy_models(run, copying)
        return finish_run(run, device)


def keeper(run: Run) -> Callable[[Checkpoint], None]:
    """The trainer's checkpoint callback that stores each epoch in the run directory: the
    best weights (``model.pt``) first, then the training state and the history."""

    def keep(checkpoint: Checkpoint) -> None:
        if checkpoint.best is not None:
            run.save_weights(checkpoint.best)
        run.save_checkpoint(checkpoint.state)
        run.write_history(checkpoint.history)

    return keep


SPLITS = ("dev", "test")  # the splits scored at the end of training


def finish_run(run: Run, device: torch.device) -> dict[str, dict[str, float]]:
    """Score the best checkpoint on dev and test, write predictions and metrics (marks done).
    A run that ranks candidates first chooses its judges' weights on its dev cells."""
    model = load_model(run, device)
    vocabularies = run.vocabularies()
    max_length = run.config.max_length
    joiner = run.transcriber().joiner
    precision = run.config.training.precision
    metrics = selected_metrics(run.config.metrics)
    rewrites = Rewrites.of(run)
    if rewrites is not None and (dev := run.examples("dev")):
        weights = rewrites.choose_weights(model, vocabularies, dev, precision)
        run.write_judges(asdict(weights) | {"width": rewrites.width})
        say(
            f"{run.path}: the judges' weights chosen on {len(dev):,} dev cells: reliability "
            f"{weights.reliability:g}, temperature {weights.temperature:g}; context width "
            f"{rewrites.width} ({JUDGES})"
        )
    results: dict[str, Evaluation] = {
        split: evaluate(model, examples, vocabularies, max_length, metrics, precision, rewrites)
        for split in SPLITS
        if (examples := run.examples(split))
    }
    if "test" in results:
        run.write_predictions(format_rows(results["test"].rows(joiner)))
    scores = {split: found.scores if (found := results.get(split)) else {} for split in SPLITS}
    run.write_metrics(scores)
    return scores
