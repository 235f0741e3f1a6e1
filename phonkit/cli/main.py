"""The ``phonkit`` command line: thin Typer commands over the library."""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from phonkit.cli.experiment import experiment_app
from phonkit.cli.fill import fill
from phonkit.cli.options import (
    Beam,
    Corpus,
    DataDir,
    Device,
    Ipa,
    Lang,
    Metrics,
    Morphemes,
    OptionalRunDir,
    Precision,
    PredictColumns,
    RunDir,
    Transcribers,
    Variant,
    at_least_one,
    corpus_request,
    figure_file,
    names,
    numbers,
)
from phonkit.cli.settings import in_flags, in_options, setting_options
from phonkit.cli.views import concordance, errors, paradigm, stats
from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION
from phonkit.errors import InputError
from phonkit.jobs import DEFAULT_VARIANT
from phonkit.settings import FitConfig

app = typer.Typer(
    help="Learn underlying forms of morphemes and predict the surface forms of paradigms "
    "(differentiable generative phonology). Data on stdout, everything else on stderr.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _print_version(asked: bool) -> None:
    if asked:
        from phonkit import __version__

        print(f"phonkit {__version__}")
        raise typer.Exit()


@app.callback()
def program(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print phonkit's version and exit.",
        ),
    ] = False,
) -> None:
    """The program's own options, before any command (``phonkit --version``)."""


@app.command()
@setting_options("model", "training", "split", "copy")
@corpus_request
def train(
    corpus: Corpus = "sample",
    lang: Lang = None,
    variant: Variant = DEFAULT_VARIANT,
    morphemes: Morphemes = DEFAULT_DECOMPOSITION,
    out: Annotated[
        Path | None, typer.Option(help="Run directory \\[default: runs/CORPUS-LANG-VARIANT].")
    ] = None,
    request: CorpusRequest = CorpusRequest(),  # --data-dir, --path... (corpus_request)
    transcriber: Transcribers = "none",
    ipa: Ipa = False,
    metrics: Metrics = None,
    device: Device = "auto",
    force: Annotated[bool, typer.Option(help="Replace an existing run directory.")] = False,
    resume: Annotated[
        bool, typer.Option(help="Go on training the unfinished run in --out.")
    ] = False,
    settings: dict[str, Any] | None = None,
) -> None:
    """Train a model and write a run directory; prints dev/test metrics on stderr.

    With no arguments: the amortized model on the bundled Turkish sample. The settings not
    given follow the data's size: the amortized model's by one rule at every size
    (docs/method.md), the other variants' below 2,000 training forms (docs/results/tables.md)."""
    from phonkit.api import variant as variant_of
    from phonkit.jobs import TrainRequest
    from phonkit.model.amortized import reads
    from phonkit.progress import metrics_table, say
    from phonkit.tasks.corpus import choose_transcriber
    from phonkit.tasks.train import train as train_job

    job = TrainRequest(
        corpus=corpus,
        request=request,
        transcriber="none" if resume else choose_transcriber(corpus, transcriber, ipa),
        variant=variant,
        morphemes=morphemes,
        metrics=names(metrics, "--metrics") if metrics else None,
        settings=dict(settings or {}),
        device=device,
    )
    run, scores = train_job(job, out, force, resume)
    metrics_table(f"{run.path}", scores)
    if run.config.split.protocol == "lemmas" and not reads(variant_of(run.config.variant)):
        say(
            "test: the test lemmas of --split lemmas are new to the model, and these figures "
            "spell them with no underlying form of their own (so ACC is near 0); score them "
            f"with their UFs fitted: phonkit evaluate -m {run.path} --unseen-lemmas"
        )
    say(f"run directory: {run.path}")


@app.command()
@setting_options("fit", with_set=False)
def predict(
    model: RunDir,
    file: Annotated[Path | None, typer.Argument(help="Predict TSV (default: stdin).")] = None,
    all_rows: Annotated[
        bool, typer.Option("--all", help="Predict every row, not only gaps.")
    ] = False,
    beam: Beam = 1,
    nbest: Annotated[
        int,
        typer.Option(help="Hypotheses per predicted cell, one row each, with rank and log-prob."),
    ] = 1,
    score: Annotated[
        bool, typer.Option("--score", help="Add the surprisal (nats per symbol) of each form.")
    ] = False,
    columns: PredictColumns = "lemma,features,form",
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Stop at the first row that cannot be filled, exit 2; by default such rows "
            "are left as written and counted on stderr. The default model fills every row; "
            "pi, pd and joint cannot fill a row with an unknown feature, or a new lemma with "
            "no known form to fit.",
        ),
    ] = False,
    stream: Annotated[
        bool,
        typer.Option(
            "--stream",
            help="Answer the rows chunk by chunk as they arrive, in bounded memory, the "
            "candidates' rewrites counted over the training paradigms alone; by default a "
            "run that ranks candidates reads the whole input first and counts its new "
            "lemmas' known forms too.",
        ),
    ] = False,
    device: Device = "cpu",
    precision: Precision = "auto",
    settings: dict[str, Any] | None = None,
) -> None:
    """Fill paradigm gaps: reads lemma<TAB>features[<TAB>form|--] (or the columns of
    --columns), writes TSV to stdout.

    A lemma the model has never seen is read from its spelling and its known cells, which
    come in the rows next to its gaps (the default model); pi, pd and joint fit its
    underlying form to those cells (the fit settings). A run that ranks candidates (the
    default model) makes them by the rewrites of the training paradigms and of the input's
    other new lemmas: it reads the whole input first (a file twice, standard input into a
    temporary file), then output follows input chunk by chunk; a run that decodes on its
    own, or --stream, answers as rows arrive."""
    from phonkit.data.cells import Layout
    from phonkit.data.tsv import open_bytes, stdin_bytes
    from phonkit.errors import Interrupted
    from phonkit.model.device import choose_device
    from phonkit.run.directory import Run
    from phonkit.tasks.predict import PredictOptions, Predictor
    from phonkit.tasks.streaming import predict_stream

    at_least_one(beam=beam, nbest=nbest)
    layout = Layout.parse(columns)
    run = Run.open(model)
    name = str(file) if file else "<stdin>"
    options = PredictOptions(
        all_rows, beam, nbest, score, strict, precision, FitConfig(**settings or {})
    )
    rows = open_bytes(file) if file else stdin_bytes("predict TSV")
    predictor = Predictor(run, choose_device(device), options)

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        with rows:
            predict_stream(predictor, rows, name, write, layout, whole=not stream)
    except KeyboardInterrupt:
        tally = predictor.tally
        raise Interrupted(
            f"{tally.rows_out:,} output rows were written, for the input up to "
            f"{name}:{tally.last_line}"
            if tally.rows_out
            else "no output row was written"
        ) from None
    predictor.report()


@app.command()
@setting_options("fit", with_set=False)
def evaluate(
    model: OptionalRunDir = None,
    file: Annotated[
        Path | None,
        typer.Argument(
            help="TSV lemma<TAB>features<TAB>gold form (default: the run's test split); "
            "with --gold, the guesses to score (default: stdin)."
        ),
    ] = None,
    gold: Annotated[
        Path | None,
        typer.Option(
            help="Score the guesses in FILE against this file of gold forms, as the "
            "CoNLL-SIGMORPHON 2017 scorer scores task 2 (no -m)."
        ),
    ] = None,
    covered: Annotated[
        Path | None,
        typer.Option(
            help="With --gold: the covered file that was completed; only its empty cells "
            "are scored \\[default: every gold cell]."
        ),
    ] = None,
    columns: PredictColumns = "lemma,features,form",
    predictions: Annotated[
        Path | None, typer.Option(help="Also write per-cell predictions here.")
    ] = None,
    unseen_lemmas: Annotated[
        bool,
        typer.Option(
            "--unseen-lemmas",
            help="Score lemmas new to the model: reveal --known cells of each, fit their UFs, "
            "score the other cells, beside an edit baseline (needs a run trained with "
            "--split lemmas, or FILE with new lemmas).",
        ),
    ] = False,
    known: Annotated[
        str, typer.Option(help="With --unseen-lemmas: cells revealed per lemma, e.g. 1,2,4,8.")
    ] = "1,2,4,8",
    seed: Annotated[int, typer.Option(help="Seed of the cells revealed.")] = 1,
    transcriber: Annotated[
        str | None,
        typer.Option(
            help="Transcriber of the gold forms in FILE \\[default: the run's]; e.g. segments "
            "for gold already written as space-separated segments."
        ),
    ] = None,
    device: Device = "cpu",
    precision: Precision = "auto",
    settings: dict[str, Any] | None = None,
) -> None:
    """Score a run on its test split or on a TSV with gold forms, or (--gold) a file of
    guesses; metric<TAB>value on stdout (with --unseen-lemmas:
    known<TAB>system<TAB>metric<TAB>value)."""
    from phonkit.data.tsv import format_rows, write_atomic
    from phonkit.model.device import choose_device
    from phonkit.progress import metrics_table
    from phonkit.run.directory import Run
    from phonkit.run.factory import load_model
    from phonkit.tasks.evaluate import evaluate_run
    from phonkit.tasks.predict import read_gold

    if gold is not None:
        if model is not None:
            raise InputError("--gold scores a file of guesses, not a run: give -m or --gold")
        _score_guesses(file, gold, covered, columns)
        return
    if model is None:
        raise InputError("give -m RUN (a run to score) or --gold FILE (guesses to score)")
    if covered is not None:
        raise InputError("--covered goes with --gold")
    if predictions is not None and predictions.is_dir():
        raise InputError(f"--predictions {predictions}: is a directory; give a file name")
    run = Run.open(model)
    if unseen_lemmas:
        counts = numbers(known, "--known")
        examples = (
            run.examples("test")
            if file is None
            else read_gold(file, run, True, transcriber, columns)
        )
        if file is None and run.config.split.protocol != "lemmas":
            raise InputError(
                f"{run.path}: its test lemmas were seen in training (split "
                f"{run.config.split.protocol!r}); train with --split lemmas, "
                "or give a TSV of new lemmas"
            )
        fit = FitConfig(**settings or {})
        _evaluate_unseen(run, examples, counts, seed, fit, device, precision)
        return
    given = None if file is None else read_gold(file, run, False, transcriber, columns)
    result = evaluate_run(run, given, load_model(run, choose_device(device)), None, precision)
    label = "test" if file is None else str(file)
    if predictions:
        write_atomic(predictions, format_rows(result.rows(run.transcriber().joiner)))
    forms = len(result.examples)
    metrics_table(f"{run.path} on {label} ({forms:,} forms)", {label: result.scores})
    sys.stdout.write(
        format_rows([("metric", "value")] + [(k, f"{v:.6g}") for k, v in result.scores.items()])
    )


@app.command()
def tune(
    model: RunDir,
    covered: Annotated[
        Path,
        typer.Argument(
            help="Rows as predict reads them: new lemmas, some of their cells given, the "
            "others empty (the gaps judged)."
        ),
    ],
    gold: Annotated[Path, typer.Option(help="The gold form of every cell of COVERED.")],
    columns: PredictColumns = "lemma,features,form",
    device: Device = "cpu",
    precision: Precision = "auto",
) -> None:
    """Choose a run's judges' weights on the gaps of COVERED, scored against --gold, and
    store them in the run (judges.json): predict ranks with them from then on;
    name<TAB>value on stdout.

    As a run with dev cells chooses them on those at the end of training; for a run trained
    on everything (split all), e.g. on the CoNLL-SIGMORPHON 2017 task-2 dev files."""
    from phonkit.data.cells import Layout
    from phonkit.data.tsv import format_rows
    from phonkit.model.device import choose_device
    from phonkit.progress import say
    from phonkit.run.directory import Run
    from phonkit.tasks.predict import PredictOptions, Predictor
    from phonkit.tasks.tuning import tune as tune_run

    run = Run.open(model)
    predictor = Predictor(run, choose_device(device), PredictOptions(precision=precision))
    choice = tune_run(predictor, covered, gold, Layout.parse(columns))
    weights, before = choice.weights, choice.before
    say(
        f"{run.path}: the judges' weights chosen on {choice.gaps:,} gaps of {covered} "
        f"({choice.contested:,} contested): reliability {weights.reliability:g}, temperature "
        f"{weights.temperature:g} (before: {before.reliability:g}, {before.temperature:g}; "
        f"right first {choice.right_before:,} -> {choice.right:,})"
    )
    sys.stdout.write(format_rows([("name", "value"), *choice.rows()]))


def _score_guesses(file: Path | None, gold: Path, covered: Path | None, columns: str) -> None:
    from phonkit.data.cells import Layout
    from phonkit.data.tsv import format_rows, stdin_bytes
    from phonkit.progress import metrics_table
    from phonkit.tasks.completion import read_forms, score_completion

    layout = Layout.parse(columns)
    stream = None if file is not None else stdin_bytes("guesses")
    guesses = read_forms(file, layout, stream=stream)
    scores = score_completion(
        guesses,
        read_forms(gold, layout, gold=True),
        read_forms(covered, layout) if covered else None,
    )
    label = f"{file or '<stdin>'} against {gold}"
    figures = {"acc": scores.acc, "lev": scores.lev, "paradigm_acc": scores.paradigm_acc}
    metrics_table(f"{label} ({scores.cells:,} cells, {scores.paradigms:,} paradigms)",
                  {"guesses": figures})  # fmt: skip
    sys.stdout.write(format_rows([("metric", "value"), *scores.rows()]))


def _evaluate_unseen(run, examples, counts, seed, fit, device, precision) -> None:
    from phonkit.data.tsv import format_rows
    from phonkit.model.device import choose_device
    from phonkit.progress import metrics_table, say
    from phonkit.tasks.unseen import score_unseen

    rows: list[tuple[object, ...]] = [("known", "system", "metric", "value")]
    dev = run.metrics().get("dev", {}) if run.config.split.protocol == "lemmas" else {}
    tables = {}
    if dev:
        tables["seen lemmas (dev)"] = dev
        rows += [("seen", "model", name, f"{value:.6g}") for name, value in dev.items()]
    for known in counts:
        shown, scores = score_unseen(
            run, examples, known, seed, choose_device(device), fit, precision
        )
        say(
            f"known {known}: {shown.lemmas:,} lemmas, {len(shown.held_out):,} cells scored "
            f"({shown.too_small:,} lemmas with at most {known} cells left out)"
        )
        if not shown.lemmas:
            continue
        for system, figures in scores.items():
            tables[f"{system}, {known} known"] = figures
            rows += [(known, system, name, f"{value:.6g}") for name, value in figures.items()]
    metrics_table(f"{run.path} on unseen lemmas", tables)
    sys.stdout.write(format_rows(rows))


@app.command()
def transcribe(
    lang: Annotated[str, typer.Option(help="ISO 639-3 language code.")],
    file: Annotated[
        Path | None, typer.Argument(help="Words, one per line, or a TSV (default: stdin).")
    ] = None,
    transcriber: Transcribers = "epitran",
    column: Annotated[
        int | None,
        typer.Option(help="Read the words from this tab-separated column (1 = first)."),
    ] = None,
) -> None:
    """Transcribe words: word<TAB>space-separated segments on stdout, one line per word."""
    from phonkit.data.transcription import read_words
    from phonkit.data.tsv import format_rows, open_bytes, stdin_bytes
    from phonkit.plugins import lookup

    chosen = lookup("transcribers", transcriber)
    name = str(file) if file else "<stdin>"
    with open_bytes(file) if file else stdin_bytes("words") as stream:
        words = read_words(stream, name, column)
    segments = chosen.transcribe(lang, words)
    rows = zip(words, (" ".join(symbols) for symbols in segments), strict=True)
    sys.stdout.write(format_rows(rows))


@app.command()
def plugins(
    hook: Annotated[str | None, typer.Option(help="Only plugins implementing this hook.")] = None,
) -> None:
    """Loaded plugins: name<TAB>version<TAB>hooks<TAB>registers (what each registers, by
    kind: variants, metrics, corpora, transcribers, decompositions, launchers, commands)."""
    from phonkit.data.tsv import format_rows
    from phonkit.plugins import plugin_infos

    rows = [
        (
            p.name,
            p.version,
            ",".join(p.hooks),
            "; ".join(f"{kind}: {','.join(names)}" for kind, names in p.registers.items()),
        )
        for p in plugin_infos()
        if not hook or hook in p.hooks
    ]
    sys.stdout.write(format_rows([("name", "version", "hooks", "registers"), *rows]))


@app.command()
def corpora(data_dir: DataDir = None) -> None:
    """Corpus readers and the languages each has available: name<TAB>languages<TAB>description."""
    from phonkit.data.tsv import format_rows
    from phonkit.plugins import registry

    request = CorpusRequest(data_dir=data_dir)
    rows = [
        (name, ",".join(reader.languages(request)) or "-", reader.description)
        for name, reader in registry("corpora").items()
    ]
    sys.stdout.write(format_rows([("corpus", "languages", "description"), *rows]))


@app.command()
def compare(
    first: Annotated[Path, typer.Argument(help="A run directory.")],
    second: Annotated[Path, typer.Argument(help="Another run on the same test split.")],
    permutations: Annotated[int, typer.Option(help="Random swaps in the test.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the swaps.")] = 0,
) -> None:
    """Paired permutation test between two runs on the test cells both scored:
    metric<TAB>items<TAB>first<TAB>second<TAB>p_value on stdout."""
    from phonkit.analysis.significance import compare as test
    from phonkit.data.tsv import format_rows
    from phonkit.run.directory import Run

    at_least_one(permutations=permutations)
    a, b = Run.open(first).item_scores(), Run.open(second).item_scores()
    shared = [key for key in a if key in b]
    if not shared:
        raise InputError(f"{first} and {second} share no test cells; compare runs of one split")
    metrics = [m for m in next(iter(a.values())) if m in b[shared[0]]]
    rows = [
        (c.metric, c.items, f"{c.mean_a:.6g}", f"{c.mean_b:.6g}", f"{c.p_value:.6g}")
        for c in test(a, b, metrics, permutations, seed)
    ]
    sys.stdout.write(format_rows([("metric", "items", "first", "second", "p_value"), *rows]))


uf_app = typer.Typer(help="Look at the learned underlying forms (UFs) of a run's morphemes.")
app.add_typer(uf_app, name="uf")
app.add_typer(experiment_app, name="experiment")
for command in (stats, paradigm, errors, concordance, fill):
    app.command()(command)


@uf_app.command("export")
def uf_export(
    model: RunDir,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output prefix: PREFIX.vectors.tsv etc.")
    ],
    format: Annotated[str, typer.Option(help="tsv (TensorBoard projector) or npy.")] = "tsv",
) -> None:
    """Write the morpheme vectors and a metadata table (morpheme, kind, frequency, attributes)."""
    import numpy as np

    from phonkit.analysis.underlying_forms import Inventory
    from phonkit.data.tsv import format_rows, write_atomic

    if format not in ("tsv", "npy"):
        raise InputError(f"unknown format {format!r}; use tsv or npy")
    inventory = Inventory.of(model)
    names = inventory.attribute_names()
    columns = [inventory.attribute(name) for name in names]
    metadata = [["morpheme", *names]] + [
        [morpheme, *(column[i] for column in columns)]
        for i, morpheme in enumerate(inventory.morphemes)
    ]
    write_atomic(Path(f"{out}.metadata.tsv"), format_rows(metadata))
    if format == "tsv":
        rows = ([f"{value:.6g}" for value in vector] for vector in inventory.vectors)
        write_atomic(Path(f"{out}.vectors.tsv"), format_rows(rows))
    else:
        buffer = io.BytesIO()
        np.save(buffer, inventory.vectors)
        write_atomic(Path(f"{out}.npy"), buffer.getvalue())


@uf_app.command("plot")
def uf_plot(
    model: RunDir,
    out: Annotated[Path, typer.Option("--out", "-o", help="Figure file: .png, .svg or .pdf.")],
    method: Annotated[str, typer.Option(help="pca or tsne.")] = "tsne",
    kind: Annotated[str, typer.Option(help="stems, features or both.")] = "stems",
    color_by: Annotated[str, typer.Option(help="Attribute that colours the points.")] = "kind",
    labels: Annotated[int, typer.Option(help="At most this many labels.")] = 25,
    seed: Annotated[int, typer.Option(help="Seed of the projection.")] = 0,
) -> None:
    """Project the UFs to 2-D and draw them, coloured by an attribute."""
    from phonkit.analysis.underlying_forms import Inventory, plot

    figure_file(out)
    plot(Inventory.of(model), out, method, kind, color_by, labels, seed)


@uf_app.command("neighbours")
def uf_neighbours(
    model: RunDir,
    morpheme: Annotated[
        str, typer.Argument(help="A lemma (kitap), a feature (PL) or lemma:/feat: names.")
    ],
    n: Annotated[int, typer.Option("-n", help="How many neighbours.")] = 10,
) -> None:
    """Nearest morphemes by cosine similarity of their UFs: morpheme<TAB>kind<TAB>cosine."""
    from phonkit.analysis.underlying_forms import Inventory, neighbours
    from phonkit.data.tsv import format_rows

    if n < 1:
        raise InputError(f"-n must be at least 1, not {n}")

    rows = neighbours(Inventory.of(model), morpheme, n)
    sys.stdout.write(
        format_rows([("morpheme", "kind", "cosine"), *((m, k, f"{c:.4f}") for m, k, c in rows)])
    )


@uf_app.command("probe")
def uf_probe(
    model: RunDir,
    attribute: Annotated[str, typer.Option(help="Attribute of the stems to predict.")] = "backness",
    folds: Annotated[int, typer.Option(help="Cross-validation folds.")] = 5,
) -> None:
    """Cross-validated logistic-regression accuracy of an attribute from the stem UFs, against
    the majority-class baseline: TSV on stdout."""
    from phonkit.analysis.underlying_forms import Inventory, probe
    from phonkit.data.tsv import format_rows

    if folds < 2:
        raise InputError(f"--folds must be at least 2 (cross-validation), not {folds}")

    result = probe(Inventory.of(model), attribute, folds)
    classes = ",".join(f"{name}:{count}" for name, count in sorted(result.classes.items()))
    header = ("attribute", "stems", "classes", "probe_acc", "probe_std", "majority_acc")
    row = (
        attribute,
        result.items,
        classes,
        f"{result.accuracy:.1f}",
        f"{result.accuracy_std:.1f}",
        f"{result.baseline:.1f}",
    )
    sys.stdout.write(format_rows([header, row]))


@uf_app.command("strings")
def uf_strings(model: RunDir) -> None:
    """The underlying string of every morpheme of the run: TSV on stdout (morpheme, kind,
    underlying, score, surface). A table run keeps them; another run's are inferred from its
    training split (seconds for a table, minutes for a whole UniMorph language)."""
    from phonkit.data.tsv import format_rows
    from phonkit.run.directory import Run
    from phonkit.tables.strings import HEADER, strings_of

    run = Run.open(model)
    joiner = run.transcriber().joiner
    rows = [morpheme.row() for morpheme in strings_of(run).morphemes(joiner)]
    sys.stdout.write(format_rows([HEADER, *rows]))


@uf_app.command("processes")
def uf_processes(model: RunDir) -> None:
    """The processes between the run's underlying strings and its surface forms, each a
    change in its context with its stems, forms and examples: TSV on stdout, a table on
    stderr (the contexts as natural classes where a plugin registers phonological features,
    e.g. phonkit-panphon)."""
    from phonkit.analysis.processes import HEADER, processes
    from phonkit.data.tsv import format_rows
    from phonkit.plugins import feature_table
    from phonkit.run.directory import Run
    from phonkit.tables.strings import strings_of
    from phonkit.views.display import rows_table

    run = Run.open(model)
    rows = [process.row() for process in processes(strings_of(run), feature_table())]
    sys.stdout.write(format_rows([HEADER, *rows]))
    rows_table(f"processes of {model}", HEADER, rows)


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """Click's exception class ``name`` and, where Typer ships its own copy of Click (Typer
    0.2x), that copy's too: usage errors raised by either must end without a traceback."""
    classes = [getattr(click.exceptions, name), getattr(typer, name, None)]  # Exit, Abort
    with contextlib.suppress(ImportError, AttributeError):
        from typer._click import exceptions as vendored

        classes.append(getattr(vendored, name))
    return tuple(dict.fromkeys(c for c in classes if c is not None))


EXITS = _click_classes("Exit")
ABORTS: tuple[type[BaseException], ...] = (*_click_classes("Abort"), KeyboardInterrupt)
USAGE_ERRORS = _click_classes("ClickException")


def _pipe_closed() -> bool:
    """Whether Click found stdout's reader gone: it then wraps stdout to keep it quiet."""
    return type(sys.stdout).__name__ == "PacifyFlushWrapper"


def main(argv: list[str] | None = None) -> None:
    """Entry point: one clear line and exit 2 for bad input, quiet on a closed pipe."""
    from phonkit.errors import Interrupted
    from phonkit.plugins import PluginError, add_commands
    from phonkit.progress import show_messages

    show_messages(in_options)  # the library logs; the command line shows it on stderr
    try:
        add_commands(app)
        # Outside standalone mode Click returns the code of a ``typer.Exit`` instead of
        # exiting with it (our commands themselves return None); Typer turns Ctrl-C that a
        # command did not catch into code 130.
        command = plain_flags(typer.main.get_command(app))
        try:
            code = command.main(args=argv, prog_name="phonkit", standalone_mode=False)
        except SystemExit:
            if _pipe_closed():  # Click ends a write into a closed pipe with exit code 1
                raise BrokenPipeError from None
            raise
    except EXITS as done:
        code = getattr(done, "exit_code", 1)
    except ABORTS:
        sys.exit(_interrupted())
    except Interrupted as what:
        print(f"phonkit: interrupted: {in_options(str(what), what.settings)}", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except USAGE_ERRORS as error:
        print(f"phonkit: error: {_usage_message(error)}", file=sys.stderr)
        sys.exit(getattr(error, "exit_code", 2))
    except InputError as error:
        print(f"phonkit: error: {in_flags(error)}", file=sys.stderr)
        sys.exit(2)
    except PluginError as error:
        print(f"phonkit: plugin error: {error}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from
        # complaining when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    if code == INTERRUPTED:
        sys.exit(_interrupted())
    if isinstance(code, int) and code:
        sys.exit(code)


def command_line() -> None:
    """The ``phonkit`` program (and ``python -m phonkit``): :func:`main`, then the exit
    handlers, then the end of the process without the interpreter's teardown. With torch
    loaded that teardown takes 0.3 to 0.5 s on a 2-core CPU, a tenth of a small table's
    ``phonkit fill``, and does nothing a command needs: the outputs are closed and the
    run directories written by then."""
    try:
        main()
        code: Any = 0
    except SystemExit as done:
        code = done.code
    if not isinstance(code, int):  # None, or a message for stderr as Python prints it
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # reader gone, or closed
            stream.flush()
    os._exit(code)


def plain_flags(command: Any) -> Any:
    """Switches (``--ipa``, ``--force``, ``--help``) take no value: their help shows no
    ``<bool>`` type, as options with a value show theirs. For the Click ``command`` (Typer's
    own copy of Click, or Click) and its subcommands."""
    for param in command.params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    help_option = command.get_help_option(command.context_class(command))
    if help_option is not None and help_option.metavar is None:
        help_option.metavar = ""
    for subcommand in getattr(command, "commands", {}).values():
        plain_flags(subcommand)
    return command


def _usage_message(error: BaseException) -> str:
    """Click's usage error as one line, with where to find help."""
    message = " ".join(error.format_message().split()).rstrip(".")  # type: ignore[attr-defined]
    context = getattr(error, "ctx", None)
    if context is not None:
        message += f" (see: {context.command_path} --help)"
    return message


INTERRUPTED = 130  # the exit code of a command ended by SIGINT, as shells report it


def _interrupted() -> int:
    print(
        "phonkit: interrupted (a training run goes on with: phonkit train --resume --out DIR; "
        "an experiment with the same command again)",
        file=sys.stderr,
    )
    return INTERRUPTED
