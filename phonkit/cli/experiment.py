"""``phonkit experiment``: the paper's experiments as resumable batches of runs, with tables
and figures. Thin Typer commands over :mod:`phonkit.experiments`."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from phonkit.cli.options import (
    Columns,
    Corpus,
    CorpusOptions,
    CorpusPath,
    DataDir,
    Device,
    Ipa,
    MaxEntries,
    Metrics,
    Morphemes,
    Transcribers,
    at_least_one,
    key_values,
    names,
    numbers,
)
from phonkit.cli.settings import setting_options
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION
from phonkit.errors import InputError
from phonkit.settings import ModelConfig, TrainConfig, split

CELEX = {"batch_size": 32, "patience": 10}  # the learning curve's own defaults

experiment_app = typer.Typer(
    help="Run the paper's experiments: many runs, resumable, with tables and figures."
)

Variants = Annotated[str, typer.Option(help="Model variants, comma-separated.")]
Jobs = Annotated[
    int,
    typer.Option(
        help="Runs trained at once, each in its own process (sharing the CPU cores, or one GPU)."
    ),
]
LauncherName = Annotated[
    str,
    typer.Option(
        "--launcher",
        help="Where the runs train: local (processes on this machine) or an installed "
        "launcher plugin (ray: tasks on a Ray cluster).",
    ),
]
LauncherSettings = Annotated[
    list[str],
    typer.Option(
        "--launcher-setting",
        "-L",
        help="KEY=VALUE for the launcher (ray: address, num_cpus, num_gpus, retries, transfer).",
    ),
]
Force = Annotated[bool, typer.Option(help="Delete the experiment in --out and start over.")]
Permutations = Annotated[int, typer.Option(help="Random swaps in each permutation test.")]


@experiment_app.command("unimorph")
@setting_options("model", "training", skip=("seed",))
def unimorph(
    langs: Annotated[
        str, typer.Option(help="ISO 639-3 codes, comma-separated, or all (the paper's 28).")
    ] = "all",
    variants: Variants = "pi,pd,joint",
    seeds: Annotated[str, typer.Option(help="Seeds, comma-separated: one run each.")] = "1",
    transcriber: Transcribers = "none",
    ipa: Ipa = False,
    max_entries: MaxEntries = None,
    data_dir: DataDir = None,
    out: Annotated[Path, typer.Option(help="Experiment directory.")] = Path("experiments/unimorph"),
    jobs: Jobs = 1,
    launcher: LauncherName = "local",
    launcher_setting: LauncherSettings = [],  # noqa: B006
    device: Device = "auto",
    morphemes: Morphemes = DEFAULT_DECOMPOSITION,
    metrics: Metrics = None,
    permutations: Permutations = 10_000,
    force: Force = False,
    settings: dict[str, Any] | None = None,
) -> None:
    """The UniMorph table: every variant on every language (one run per language, variant
    and seed), then per-language and average ACC/MLD/NLL beside the paper's figures, and
    paired permutation tests between the variants. Finished runs are reused."""
    from phonkit.data.corpora import CorpusRequest
    from phonkit.experiments import unimorph as kind
    from phonkit.tasks.train import TrainRequest, choose_transcriber

    at_least_one(jobs=jobs, max_entries=max_entries, permutations=permutations)
    chosen = kind.languages(langs, data_dir)
    model, training = _configs(settings)
    base = TrainRequest(
        request=CorpusRequest(data_dir=data_dir),
        transcriber=choose_transcriber("unimorph", transcriber, ipa),
        morphemes=morphemes,
        device=device,
        max_entries=max_entries,
        metrics=_metrics(metrics),
        model=model,
        training=training,
    )
    plan = kind.plan(chosen, _variants(variants), numbers(seeds, "--seeds"), base)
    settings = _settings(base) | {"data_dir": str(base.request.root.resolve())}
    launch = (launcher, launcher_setting, jobs)
    _run(out, "unimorph", settings, plan, launch, force, lambda: kind.report(out, permutations))


@experiment_app.command("celex")
@setting_options("model", "training", defaults=CELEX, skip=("seed",))
def celex(
    lang: Annotated[str, typer.Option(help="ISO 639-3 code: nld, eng or deu for CELEX.")],
    corpus: Corpus = "celex",
    k: Annotated[
        str, typer.Option("--k", help="Training sizes, comma-separated.")
    ] = "200,400,600,800",
    draws: Annotated[int, typer.Option(help="Draws of k training entries per size.")] = 10,
    variants: Variants = "pi,pd,joint",
    transcriber: Transcribers = "none",
    ipa: Ipa = False,
    data_dir: DataDir = None,
    path: CorpusPath = None,
    columns: Columns = None,
    corpus_option: CorpusOptions = [],  # noqa: B006
    out: Annotated[
        Path | None, typer.Option(help="Experiment directory \\[default: experiments/celex-LANG].")
    ] = None,
    jobs: Jobs = 1,
    launcher: LauncherName = "local",
    launcher_setting: LauncherSettings = [],  # noqa: B006
    device: Device = "auto",
    morphemes: Morphemes = DEFAULT_DECOMPOSITION,
    seed: Annotated[int, typer.Option(help="Seed of the draws and of training.")] = 1,
    metrics: Metrics = None,
    force: Force = False,
    settings: dict[str, Any] | None = None,
) -> None:
    """The CELEX learning curve: for each k, --draws draws of k training entries by token
    frequency, every variant trained on each; mean ± std of ACC/MLD/NLL per (variant, k) in
    tables and a three-panel figure. Works on any corpus with counts (--corpus tsv --path
    FILE --columns lemma,form,features,count). Finished runs are reused."""
    from phonkit.data.corpora import CorpusRequest
    from phonkit.experiments import curve as kind
    from phonkit.plugins import lookup
    from phonkit.tasks.train import TrainRequest, choose_transcriber

    at_least_one(jobs=jobs, draws=draws)
    lookup("corpora", corpus)
    out = out or Path("experiments") / f"{corpus}-{lang}"
    model, training = _configs(CELEX | (settings or {}))
    request = CorpusRequest(
        lang, data_dir, path, columns, key_values(corpus_option, "--corpus-option")
    )
    base = TrainRequest(
        corpus=corpus,
        request=request,
        transcriber=choose_transcriber(corpus, transcriber, ipa),
        morphemes=morphemes,
        device=device,
        model=model,
        training=replace(training, seed=seed),
        metrics=_metrics(metrics),
    )
    sizes = numbers(k, "--k")
    kind.check_sizes(lookup("corpora", corpus).read(request), sizes)  # before any run starts
    plan = kind.plan(sizes, draws, _variants(variants), base)
    settings = _settings(base) | {
        "corpus": corpus,
        "lang": lang,
        "path": path,
        "columns": columns,
        "options": request.options,
        "data_dir": str(data_dir.resolve()) if data_dir else None,
        "seed": seed,
    }
    launch = (launcher, launcher_setting, jobs)
    _run(out, "celex", settings, plan, launch, force, lambda: kind.report(out))


@experiment_app.command("tables")
@setting_options("model", "training", skip=("seed",))
def tables(
    folder: Annotated[Path, typer.Argument(help="A folder of paradigm tables (.csv, .tsv).")],
    variants: Variants = "pi,pd,joint",
    out: Annotated[
        Path | None,
        typer.Option(help="Experiment directory \\[default: experiments/tables-FOLDER]."),
    ] = None,
    jobs: Jobs = 1,
    launcher: LauncherName = "local",
    launcher_setting: LauncherSettings = [],  # noqa: B006
    transcriber: Transcribers = "none",
    device: Device = "auto",
    seed: Annotated[int, typer.Option(help="Seed of the held-out cells and of training.")] = 1,
    permutations: Permutations = 10_000,
    force: Force = False,
    settings: dict[str, Any] | None = None,
) -> None:
    """The paradigm-table benchmark: every table of FOLDER in five folds over stems (each
    test stem loses one known cell), one run per table, fold and variant with the settings
    of its size (as phonkit fill), beside the analogy and nearest-form baselines; ACC and
    MLD per table, means, tables won and lost against the analogy. Finished runs are
    reused."""
    from phonkit.experiments import paradigm_tables as kind
    from phonkit.tasks.train import TrainRequest

    at_least_one(jobs=jobs, permutations=permutations)
    found = kind.tables(folder)
    given = dict(settings or {})
    base = TrainRequest(transcriber=transcriber, device=device, training=TrainConfig(seed=seed))
    plan = kind.plan(found, _variants(variants), base, given)
    out = out or Path("experiments") / f"tables-{folder.resolve().name}"
    settings = {
        "folder": str(folder.resolve()),
        "transcriber": transcriber,
        "seed": seed,
        "settings": given,
    }
    launch = (launcher, launcher_setting, jobs)
    _run(out, "tables", settings, plan, launch, force, lambda: kind.report(out, permutations))


@experiment_app.command("report")
def report(
    directory: Annotated[Path, typer.Argument(help="An experiment directory.")],
    permutations: Permutations = 10_000,
) -> None:
    """Rebuild an experiment's tables (and figures) from its finished runs."""
    from phonkit.experiments import curve, paradigm_tables, unimorph
    from phonkit.experiments.runner import read_manifest

    at_least_one(permutations=permutations)
    kind = read_manifest(directory).get("kind")
    if kind == "unimorph":
        unimorph.report(directory, permutations)
    elif kind == "tables":
        paradigm_tables.report(directory, permutations)
    elif kind == "celex":
        curve.report(directory)
    else:
        raise InputError(f"{directory}: unknown kind of experiment {kind!r}")


@experiment_app.command("export")
def export(
    directory: Annotated[Path, typer.Argument(help="An experiment directory.")],
    out: Annotated[Path, typer.Option(help="Directory of the record.")],
) -> None:
    """Write the compact record of an experiment (settings, each finished run's config,
    metrics, history and per-cell test scores; no weights), from which report rebuilds the
    tables."""
    from phonkit.experiments.record import export as write_record
    from phonkit.progress import say

    say(f"{out}: the record of {write_record(directory, out)} finished runs")


def _variants(text: str) -> list[str]:
    from phonkit.plugins import lookup

    found = names(text, "--variants")
    for variant in found:
        lookup("models", variant)
    return found


def _metrics(text: str | None) -> list[str] | None:
    """The metrics to score; the experiments' tables need acc, mld and nll."""
    if text is None:
        return None
    from phonkit.tasks.evaluate import selected_metrics

    chosen = list(selected_metrics(names(text, "--metrics")))
    return chosen + [m for m in ("acc", "mld", "nll") if m not in chosen]


def _configs(settings: dict[str, Any] | None) -> tuple[ModelConfig, TrainConfig]:
    """The model and training configurations of every run of an experiment: the settings
    given, the declared defaults for the others."""
    parts = split(settings or {})
    return ModelConfig(**parts["model"]), TrainConfig(**parts["training"])


def _settings(base) -> dict:
    """What must match for an experiment directory's finished runs to be reused."""
    from phonkit.model.device import choose_device
    from phonkit.plugins import lookup

    choose_device(base.device)  # a device that is not there is a usage error, before any run
    training = asdict(base.training)
    training.pop("seed")
    lookup("decompositions", base.morphemes)
    return {
        "transcriber": base.transcriber,
        "morphemes": base.morphemes,
        "model": base.model.to_json(),
        "training": training,
        "max_entries": base.max_entries,
        "metrics": base.metrics,
    }


def _run(out: Path, kind: str, settings: dict, plan, launch, force: bool, report) -> None:
    """Run the plan in ``out`` with overall progress, write the tables, and exit 1 if any run
    failed (the others are kept; running the command again retries it). ``launch`` is the
    launcher's name, its ``-L`` settings and ``--jobs``."""
    from phonkit.experiments import launchers
    from phonkit.experiments.runner import execute, open_experiment, progress_reporter
    from phonkit.progress import say

    name, launcher_settings, jobs = launch
    # Before anything is written: a bad setting or an unreachable cluster leaves --out alone.
    session = launchers.start(name, key_values(launcher_settings, "-L"), jobs)
    try:
        open_experiment(out, kind, settings, force)
        say(f"{out}: {len(plan)} runs, {session.summary(len(plan))} (logs in {out / 'logs'})")
        bar, on_outcome = progress_reporter(len(plan))
        with bar:
            outcomes = execute(plan, out, on_outcome=on_outcome, session=session)
    finally:
        session.close()
    report()
    names_planned = {planned.name for planned in plan}
    failed = [o for o in outcomes.values() if o.status == "failed" and o.name in names_planned]
    skipped = [o for o in outcomes.values() if o.status == "skipped" and o.name in names_planned]
    if skipped:
        say(
            f"warning: {len(skipped)} runs skipped (their data could not make a run; see the table)"
        )
    if failed:
        say(
            f"{len(failed)} runs failed (see {out / 'logs'}); run the same command again to retry "
            "them"
        )
        raise typer.Exit(1)
