"""The ``stats``, ``paradigm``, ``errors`` and ``concordance`` commands: thin Typer commands
over :mod:`phonkit.views`. TSV goes to stdout a row at a time (``| head`` stops it quietly);
tables and summaries go to stderr."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Annotated, Any

import typer

from phonkit.cli.options import (
    Beam,
    Device,
    Ipa,
    Lang,
    Precision,
    RunDir,
    Transcribers,
    at_least_one,
    corpus_request,
    figure_file,
)
from phonkit.cli.settings import setting_options
from phonkit.data.corpora import CorpusRequest
from phonkit.errors import InputError
from phonkit.settings import FitConfig

RunSource = Annotated[
    Path | None,
    typer.Option("--model", "-m", help="A run directory: look at its train, dev and test splits."),
]
CorpusName = Annotated[
    str | None,
    typer.Option(help="Corpus reader (see phonkit corpora) \\[default: sample, without -m]."),
]
MorphemesOption = Annotated[
    str | None,
    typer.Option(
        "--morphemes",
        help="How words split into morphemes, for morphemes per word: features, bundle or a "
        "plugin's \\[default: bundle, as train; with -m: the run's].",
    ),
]
StatsPlot = Annotated[
    Path | None,
    typer.Option(
        "--plot", help="Draw paradigm sizes and frequency distributions (.png, .svg or .pdf)."
    ),
]
ErrorsPlot = Annotated[
    Path | None,
    typer.Option(
        "--plot", help="Draw accuracy by bundle and by frequency band (.png, .svg or .pdf)."
    ),
]


def emit(header: Iterable[object], rows: Iterable[Iterable[object]]) -> None:
    """Write a header and TSV rows to stdout as the rows come; a closed pipe ends the command
    quietly (see :func:`phonkit.cli.main`)."""
    write = sys.stdout.write
    for row in chain([header], rows):
        write("\t".join(str(value) for value in row) + "\n")
    sys.stdout.flush()


def _source(model, corpus, request, transcriber="none", ipa=False, morphemes=None):
    from phonkit.data.lexicon import DEFAULT_DECOMPOSITION
    from phonkit.jobs import TrainRequest
    from phonkit.tasks.corpus import choose_transcriber, request_of
    from phonkit.views.source import corpus_source, run_source

    if model is not None:
        given = [name for name, value in (("--corpus", corpus), ("--path", request.path)) if value]
        given += ["--ipa"] * ipa + ["--transcriber"] * (transcriber != "none")
        given += ["--morphemes"] * (morphemes is not None)
        if given:
            raise InputError(
                f"-m reads a run's splits as the run made them; {', '.join(given)} go with a "
                "corpus, not with -m"
            )
        return run_source(model)
    corpus = corpus or "sample"
    request = request_of(TrainRequest(corpus, request))
    transcriber = choose_transcriber(corpus, transcriber, ipa)
    return corpus_source(corpus, request, transcriber, morphemes or DEFAULT_DECOMPOSITION)


@corpus_request
def stats(
    model: RunSource = None,
    corpus: CorpusName = None,
    lang: Lang = None,
    request: CorpusRequest = CorpusRequest(),  # --data-dir, --path... (corpus_request)
    transcriber: Transcribers = "none",
    ipa: Ipa = False,
    morphemes: MorphemesOption = None,
    section: Annotated[
        str | None,
        typer.Option(
            help="Only this section: size, pos, paradigm_size, morphemes_per_word, "
            "features_per_word, form_length, alphabet, feature or bundle."
        ),
    ] = None,
    plot: StatsPlot = None,
) -> None:
    """Describe a lexicon or a run's splits: sizes, paradigms, alphabet, features.

    Sizes, paradigm sizes, morphemes per word, form lengths, the surface alphabet and the
    feature inventory, with frequencies: section<TAB>key<TAB>value on stdout (for a run:
    split<TAB>section<TAB>key<TAB>value, splits train, dev, test and all)."""
    from phonkit.views.display import stats_summary
    from phonkit.views.stats import SECTIONS, describe
    from phonkit.views.stats import plot as draw

    figure_file(plot)
    if section is not None and section not in SECTIONS:
        raise InputError(f"unknown section {section!r}; sections: {', '.join(SECTIONS)}")
    source = _source(model, corpus, request, transcriber, ipa, morphemes)
    parts = source.parts if source.run is None else [*source.parts, source.whole()]
    descriptions = [describe(part) for part in parts]
    if plot is not None:
        draw(descriptions[-1], plot, source.label)
    sections = (section,) if section else SECTIONS
    if source.run is None:
        emit(("section", "key", "value"), descriptions[0].rows(sections))
    else:
        emit(
            ("split", "section", "key", "value"),
            ((d.name, *row) for d in descriptions for row in d.rows(sections)),
        )
    stats_summary(descriptions, source.label)


@setting_options("fit", with_set=False)
def paradigm(
    model: RunDir,
    lemmas: Annotated[
        list[str] | None, typer.Argument(help="Lemmas \\[default: the lemmas of --known].")
    ] = None,
    known: Annotated[
        Path | None,
        typer.Option(
            help="Known cells, lemma<TAB>features<TAB>form as predict reads them: shown as gold, "
            "and the cells that the underlying forms of lemmas new to the model are fitted to."
        ),
    ] = None,
    beam: Beam = 1,
    device: Device = "cpu",
    precision: Precision = "auto",
    settings: dict[str, Any] | None = None,
) -> None:
    """A lemma's paradigm with the gold forms and the model's forms.

    Every feature bundle of the lemma's part of speech seen in training, the gold form and
    where it is from, the model's form, whether it is right, and the surprisal (nats per
    symbol) of the model's form and of the gold. TSV on stdout, a table on stderr."""
    from phonkit.data.cells import read_cells
    from phonkit.data.tsv import open_bytes
    from phonkit.model.device import choose_device
    from phonkit.run.directory import Run
    from phonkit.views.display import paradigm_tables
    from phonkit.views.paradigm import lay_out

    fit = FitConfig(**settings or {})
    at_least_one(beam=beam)
    run = Run.open(model)
    cells = []
    if known is not None:
        with open_bytes(known) as stream:
            cells = read_cells(stream, str(known))
    wanted = list(lemmas or dict.fromkeys(cell.entry.lemma for cell in cells))
    if not wanted:
        raise InputError("name a LEMMA, or give --known FILE with cells of the lemmas to show")
    paradigms = lay_out(run, wanted, cells, str(known), choose_device(device), fit, precision, beam)
    joiner = run.transcriber().joiner
    header = ("lemma", "features", "gold", "source", "prediction", "correct", "surprisal",
              "gold_surprisal")  # fmt: skip
    emit(
        header,
        (
            (
                p.lemma,
                cell.bundle,
                " / ".join(dict.fromkeys(joiner.join(g.surface) for g in cell.golds)),
                "/".join(cell.sources),
                joiner.join(cell.prediction),
                {True: 1, False: 0, None: ""}[cell.correct],
                f"{cell.surprisal:.4f}",
                "" if cell.gold_surprisal is None else f"{cell.gold_surprisal:.4f}",
            )
            for p in paradigms
            for cell in p.cells
        ),
    )
    paradigm_tables(paradigms, joiner, str(run.path))


TABLES = ("errors", "bundles", "bands", "rewrites")


def errors(
    model: RunDir,
    table: Annotated[
        str, typer.Option(help="The table on stdout: errors, bundles, bands or rewrites.")
    ] = "errors",
    examples: Annotated[
        int, typer.Option(help="Errors listed on stderr, aligned where gold and prediction part.")
    ] = 20,
    bundle: Annotated[
        str | None,
        typer.Option(help="Only cells whose bundle has all these features, e.g. V;PST."),
    ] = None,
    grep: Annotated[
        str | None,
        typer.Option(
            help="Only cells whose gold or predicted form matches this regular expression."
        ),
    ] = None,
    top: Annotated[
        int, typer.Option(help="Bundles and error types shown on stderr, bundles in the plot.")
    ] = 15,
    plot: ErrorsPlot = None,
) -> None:
    """Where the model goes wrong on its test cells.

    Accuracy by feature bundle and by lemma frequency in training, the most frequent errors
    as ending rewrites, and the errors aligned: the table chosen with --table on stdout, a
    summary on stderr."""
    from phonkit.run.directory import Run
    from phonkit.views.display import errors_summary
    from phonkit.views.error_analysis import analyse, read_predictions, select
    from phonkit.views.error_analysis import plot as draw
    from phonkit.views.patterns import compile_pattern

    if table not in TABLES:
        raise InputError(f"unknown table {table!r}; use {', '.join(TABLES)}")
    if examples < 0 or top < 1:
        raise InputError("--examples must be at least 0, --top at least 1")
    figure_file(plot)
    pattern = compile_pattern(grep, "--grep") if grep is not None else None
    run = Run.open(model, finished=False)
    joiner = run.transcriber().joiner
    cells = select(read_predictions(run), bundle, pattern, joiner)
    analysis = analyse(cells, run.examples("train"))
    if plot is not None:
        draw(analysis, plot, f"{run.path}: test accuracy", top=max(top, 30))
    rows = _error_rows(analysis, table, joiner)
    emit(next(rows), rows)
    errors_summary(analysis, joiner, str(run.path), examples, top)


def _error_rows(analysis, table: str, joiner: str) -> Iterator[tuple[object, ...]]:
    if table in ("bundles", "bands"):
        groups = analysis.bundles if table == "bundles" else analysis.bands
        key = "features" if table == "bundles" else "training_cells_of_lemma"
        yield (key, "cells", "lemmas", "training_cells", "right", "acc", "mld")
        for g in groups:
            figures = (f"{g.accuracy:.2f}", f"{g.mld:.4f}")
            yield (g.key, g.cells, len(g.lemmas), g.train, g.right, *figures)
    elif table == "rewrites":
        wrong = len(analysis.errors)
        yield ("at", "gold_part", "predicted_part", "errors", "share", "examples")
        for kind in analysis.types:
            at, gold_part, predicted_part = kind.kind
            share = f"{len(kind.errors) / wrong:.4f}"
            parts = (joiner.join(gold_part), joiner.join(predicted_part))
            yield (at, *parts, len(kind.errors), share, kind.examples(joiner))
    else:
        yield ("lemma", "features", "gold", "prediction", "at", "before", "gold_part",
               "predicted_part", "after", "distance", "surprisal")  # fmt: skip
        for item, change in analysis.errors:
            yield (
                item.lemma,
                item.bundle,
                joiner.join(item.gold),
                joiner.join(item.prediction),
                change.at,
                joiner.join(change.before),
                joiner.join(change.gold_part),
                joiner.join(change.predicted_part),
                joiner.join(change.after),
                item.distance,
                "" if item.nll is None else f"{item.nll:.4f}",
            )


@corpus_request
def concordance(
    pattern: Annotated[
        str, typer.Argument(help="A regular expression (Python syntax), searched in each form.")
    ],
    model: RunSource = None,
    corpus: CorpusName = None,
    lang: Lang = None,
    request: CorpusRequest = CorpusRequest(),  # --data-dir, --path... (corpus_request)
    split: Annotated[
        str | None, typer.Option(help="With -m: only this split (train, dev or test).")
    ] = None,
    sort: Annotated[
        str,
        typer.Option(
            help="form, lemma, ending (a tergo: by the reversed form), frequency (token "
            "count, or without counts the form's cells; most frequent first) or corpus (as read)."
        ),
    ] = "form",
    ignore_case: Annotated[
        bool, typer.Option("--ignore-case", "-i", help="Match regardless of case.")
    ] = False,
    show: Annotated[int, typer.Option(help="Lines shown aligned on stderr.")] = 20,
) -> None:
    """Forms matching a regular expression, key word in context, with lemma and features.

    [split<TAB>]lemma<TAB>before<TAB>match<TAB>after<TAB>features<TAB>frequency on stdout:
    the form is before + match + after (the first match is marked)."""
    from phonkit.views.concordance import SORTS
    from phonkit.views.concordance import concordance as search
    from phonkit.views.display import concordance_lines
    from phonkit.views.patterns import compile_pattern
    from phonkit.views.source import run_source
    from phonkit.views.stats import number

    compiled = compile_pattern(pattern, ignore_case=ignore_case)
    if sort not in SORTS:
        raise InputError(f"unknown sort {sort!r}; use {', '.join(SORTS)}")
    if split is not None and model is None:
        raise InputError("--split goes with -m RUN")
    if model is not None and split is not None:
        if corpus or request.path:
            raise InputError("-m reads a run's splits; --corpus and --path go with a corpus")
        source = run_source(model, (split,))
    else:
        source = _source(model, corpus, request)
    lines = search(source.parts, compiled, sort)
    run = source.run is not None
    header = ("lemma", "before", "match", "after", "features", "frequency")
    emit(
        ("split", *header) if run else header,
        (
            (
                *((line.part,) if run else ()),
                line.entry.lemma,
                line.before,
                line.match,
                line.after,
                line.entry.bundle,
                number(line.frequency),
            )
            for line in lines
        ),
    )
    entries = sum(len(part.examples) for part in source.parts)
    concordance_lines(
        lines,
        show,
        f"{len(lines):,} of {entries:,} entries of {source.label} match {pattern!r} "
        f"(sorted by {sort})",
    )
