"""``phonkit experiment``: the paper's experiments as resumable batches of runs, with tables
and figures. Thin Typer commands over :mod:`phonkit.experiments`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from phonkit.cli.options import (
    Corpus,
    DataDir,
    Device,
    Ipa,
    Metrics,
    Morphemes,
    Transcribers,
    Variant,
    at_least_one,
    corpus_request,
    gathered,
    key_values,
    names,
    numbers,
)
from phonkit.cli.settings import setting_options
from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION
from phonkit.experiments.kinds import DEFAULTS
from phonkit.jobs import DEFAULT_VARIANT, Launch

SPLIT = ("protocol", "k", "draw", "fold")  # the experiments' own: their runs' split

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
#: Where an experiment's runs train (:data:`launch_options`): name, type, default.
LAUNCH: list[tuple[str, Any, Any]] = [
    ("jobs", Jobs, 1),
    ("launcher", LauncherName, "local"),
    ("launcher_setting", LauncherSettings, []),
]


def _launch(_: dict[str, Any], jobs: int, launcher: str, launcher_setting: list[str]) -> Launch:
    at_least_one(jobs=jobs)
    return Launch(launcher, key_values(launcher_setting, "-L"), jobs)


#: Gives a command the options of :data:`LAUNCH` in the place of its parameter ``launch``,
#: which receives them as a :class:`~phonkit.jobs.Launch`.
launch_options = gathered("launch", LAUNCH, _launch)


@experiment_app.command("unimorph")
@launch_options
@setting_options("model", "training", "split", "copy", skip=("seed", *SPLIT))
def unimorph(
    langs: Annotated[
        str, typer.Option(help="ISO 639-3 codes, comma-separated, or all (the paper's 28).")
    ] = "all",
    variants: Variants = "pi,pd,joint",
    seeds: Annotated[str, typer.Option(help="Seeds, comma-separated: one run each.")] = "1",
    transcriber: Transcribers = "none",
    ipa: Ipa = False,
    data_dir: DataDir = None,
    out: Annotated[Path, typer.Option(help="Experiment directory.")] = Path("experiments/unimorph"),
    launch: Launch = Launch(),  # --jobs, --launcher, -L (launch_options)
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
    from phonkit.experiments import kinds
    from phonkit.jobs import TrainRequest
    from phonkit.tasks.corpus import choose_transcriber

    at_least_one(permutations=permutations)
    base = TrainRequest(
        request=CorpusRequest(data_dir=data_dir),
        transcriber=choose_transcriber("unimorph", transcriber, ipa),
        morphemes=morphemes,
        device=device,
        metrics=names(metrics, "--metrics") if metrics else None,
        settings=dict(settings or {}),
    )
    options = {"langs": langs, "variants": _variants(variants), "seeds": numbers(seeds, "--seeds")}
    _exit(
        kinds.run(
            "unimorph", out, base, launch=launch, force=force, permutations=permutations, **options
        )
    )


@experiment_app.command("celex")
@launch_options
@setting_options("model", "training", "copy", defaults=DEFAULTS["celex"], skip=("seed",))
@corpus_request
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
    request: CorpusRequest = CorpusRequest(),  # --data-dir, --path... (corpus_request)
    out: Annotated[
        Path | None, typer.Option(help="Experiment directory \\[default: experiments/celex-LANG].")
    ] = None,
    launch: Launch = Launch(),  # --jobs, --launcher, -L (launch_options)
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
    from phonkit.experiments import kinds
    from phonkit.jobs import TrainRequest
    from phonkit.tasks.corpus import choose_transcriber

    at_least_one(draws=draws)
    base = TrainRequest(
        corpus=corpus,
        request=request,
        transcriber=choose_transcriber(corpus, transcriber, ipa),
        morphemes=morphemes,
        device=device,
        settings=(settings or {}) | {"seed": seed},
        metrics=names(metrics, "--metrics") if metrics else None,
    )
    out = out or Path("experiments") / f"{corpus}-{lang}"
    options = {"sizes": numbers(k, "--k"), "draws": draws, "variants": _variants(variants)}
    _exit(kinds.run("celex", out, base, launch=launch, force=force, **options))


@experiment_app.command("tables")
@launch_options
@setting_options("model", "training", "copy", skip=("seed",))
def tables(
    folder: Annotated[Path, typer.Argument(help="A folder of paradigm tables (.csv, .tsv).")],
    variants: Variants = "pi,pd,joint",
    out: Annotated[
        Path | None,
        typer.Option(help="Experiment directory \\[default: experiments/tables-FOLDER]."),
    ] = None,
    launch: Launch = Launch(),  # --jobs, --launcher, -L (launch_options)
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
    from phonkit.experiments import kinds
    from phonkit.jobs import TrainRequest

    at_least_one(permutations=permutations)
    given = (settings or {}) | {"seed": seed}
    base = TrainRequest(transcriber=transcriber, device=device, settings=given)
    out = out or Path("experiments") / f"tables-{folder.resolve().name}"
    options = {"folder": folder, "variants": _variants(variants), "permutations": permutations}
    _exit(kinds.run("tables", out, base, launch=launch, force=force, **options))


@experiment_app.command("sigmorphon2017")
@launch_options
@setting_options("model", "training", "copy", skip=("seed",))
def sigmorphon2017(
    langs: Annotated[
        str,
        typer.Option(
            help="Languages as the task's files spell them (dutch) or ISO 639-3 codes, "
            "comma-separated, or all (every language with a train file)."
        ),
    ] = "all",
    sizes: Annotated[
        str, typer.Option(help="The task's training sizes, comma-separated: low, medium, high.")
    ] = "low,medium,high",
    variant: Variant = DEFAULT_VARIANT,
    data_dir: DataDir = None,
    out: Annotated[
        Path, typer.Option(help="Experiment directory.")
    ] = Path("experiments/sigmorphon2017"),
    launch: Launch = Launch(),  # --jobs, --launcher, -L (launch_options)
    transcriber: Transcribers = "none",
    device: Device = "auto",
    morphemes: Morphemes = DEFAULT_DECOMPOSITION,
    seed: Annotated[int, typer.Option(help="Seed of training.")] = 1,
    force: Force = False,
    settings: dict[str, Any] | None = None,
) -> None:
    """CoNLL-SIGMORPHON 2017 task 2 (paradigm completion): per language and training size,
    a run on the train file (--split all), then the covered dev and test files completed as
    phonkit predict --columns lemma,form,features completes them, scored as the task's
    scorer does (ACC, LEV, paradigm ACC); results.tsv (test), dev.tsv, results.md. The data
    directory holds [sigmorphon/]conll2017/task2/. Finished runs are reused."""
    from phonkit.experiments import kinds
    from phonkit.jobs import TrainRequest

    given = dict(settings or {}) | ({"seed": seed} if seed != 1 else {})
    base = TrainRequest(
        request=CorpusRequest(data_dir=data_dir),
        transcriber=transcriber,
        variant=variant,
        morphemes=morphemes,
        device=device,
        settings=given,
    )
    options = {"langs": langs, "sizes": names(sizes, "--sizes")}
    _exit(kinds.run("sigmorphon2017", out, base, launch=launch, force=force, **options))


@experiment_app.command("report")
def report(
    directory: Annotated[Path, typer.Argument(help="An experiment directory.")],
    permutations: Permutations = 10_000,
) -> None:
    """Rebuild an experiment's tables (and figures) from its finished runs."""
    from phonkit.experiments import kinds

    at_least_one(permutations=permutations)
    kinds.report(directory, permutations)


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


def _exit(ended) -> None:
    """Exit 1 when a run failed (the others are kept; the same command retries it)."""
    if any(outcome.status == "failed" for outcome in ended):
        raise typer.Exit(1)
