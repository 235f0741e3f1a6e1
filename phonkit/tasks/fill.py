"""Filling a paradigm table: train on its known cells, predict its empty ones.

``phonkit fill TABLE`` and :func:`phonkit.fill` come here. The settings are chosen from the
table's size (:func:`phonkit.tables.sizes.sized`; every setting the user gives
overrides them); the whole table trains (no dev split, the ``all`` protocol), in a run
directory that is kept when ``out`` is given, so that ``predict``, ``uf``, ``paradigm`` and
the other commands work on it as on any run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phonkit.data.cells import Cell
from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import Entry
from phonkit.data.table import Gap, ParadigmTable
from phonkit.errors import InputError
from phonkit.jobs import TABLE_VARIANT, TrainRequest
from phonkit.model.device import choose_device, one_thread, shared_cpu
from phonkit.progress import say
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.tables.sizes import SMALL
from phonkit.tables.strings import keep_strings, stem_strings
from phonkit.tasks.predict import PredictOptions, Predictor
from phonkit.tasks.train import check_job, train


@dataclass
class FillRequest:
    """How to fill a table: the model variant, the settings the user gave (by key, as
    ``--set`` takes them: ``dim``, ``epochs``, ``seed``, ``copy.lr``...; they override the
    sized ones), how many hypotheses per gap, the beam, the device and the transcriber."""

    variant: str = TABLE_VARIANT
    settings: dict[str, Any] = field(default_factory=dict)
    nbest: int = 1
    beam: int = 1
    device: str = "auto"
    transcriber: str = "none"


@dataclass(frozen=True)
class Filling:
    """One hypothesis for a gap: its rank (from 1), form and surprisal (nats per symbol)."""

    gap: Gap
    rank: int
    form: str
    surprisal: float | None


@dataclass
class FilledTable:
    """A filled table: each gap's hypotheses (``fillings``), the gaps no model can fill (a
    stem or a cell without any known form), the underlying string of each stem with a gap
    (``underlying``, by stem), and the forms with the best ones in."""

    table: ParadigmTable
    fillings: list[Filling]
    unfillable: list[Gap]
    underlying: dict[str, str] = field(default_factory=dict)

    def forms(self) -> list[list[str]]:
        """The table's forms with each gap's best hypothesis in it."""
        forms = [list(row) for row in self.table.forms]
        for filling in self.fillings:
            if filling.rank == 1:
                forms[filling.gap.row][filling.gap.column] = filling.form
        return forms


def fill(
    table: ParadigmTable,
    request: FillRequest | None = None,
    out: Path | None = None,
    force: bool = False,
    source: str | None = None,
    resume: bool = False,
) -> FilledTable:
    """Learn from ``table``'s known cells and predict its gaps; the run directory goes to
    ``out`` (kept) or to a temporary directory (removed). ``source`` names the table's file
    in the run's settings. With ``resume``, the run in ``out`` that a stopped ``fill`` of
    the same table left goes on training, if it must, then fills the gaps."""
    request = request or FillRequest()
    job = fill_job(table, request, source)
    check_job(job)  # a bad setting is the error, whatever the table or out holds
    gaps = table.gaps()
    if not gaps:
        say(f"{table.name}: no empty cell to fill; the table is written back unchanged")
        return FilledTable(table, [], [])
    fillable, unfillable = _fillable(table, gaps)
    for gap in unfillable:
        why = (
            "the stem has no known form"
            if not any(table.forms[gap.row])
            else ("no stem has a form in that cell")
        )
        say(
            f"warning: {table.name}: row {gap.row + 1}, cell {table.cells[gap.column]!r} "
            f"is left empty: {why}"
        )
    if not fillable:
        return FilledTable(table, [], unfillable)
    stopped: Run | None = None  # the run a stopped fill left, to go on with
    if resume:
        if out is None:
            raise InputError("resume needs out, the run to go on with", setting=("resume", "out"))
        if force:
            raise InputError("give force or resume, not both", setting=("force", "resume"))
        stopped = Run.open(out, finished=False)
        check_same_table(stopped, table)
    threads = one_thread() if table.known() < SMALL else nullcontext()
    with _run_directory(out) as path, threads:
        if stopped is not None and stopped.finished:  # stopped while it filled the gaps
            run = Run.open(path)
        else:
            run, _ = train(job, path, force, resume, table.lexicon(), keep_strings)
        fillings = predict_gaps(run, table, fillable, request)
        strings = stem_strings(run)
    stems = {table.stems[gap.row] for gap in fillable}
    underlying = {stem: string for stem, string in strings.items() if stem in stems}
    return FilledTable(table, fillings, unfillable, underlying)


def check_same_table(run: Run, table: ParadigmTable) -> None:
    """A run goes on filling only the table it learnt from: the same known forms."""
    learnt = sorted((e.lemma, e.bundle, e.form) for e in (x.entry for x in run.examples("train")))
    known = sorted((e.lemma, e.bundle, e.form) for e in table.entries())
    if learnt != known:
        differ = len(set(learnt) ^ set(known))
        raise InputError(
            f"{run.path} learnt from another table than {table.name} ({differ} known forms "
            "differ); fill it anew with force",
            setting="force",
        )


def fill_job(table: ParadigmTable, request: FillRequest, source: str | None) -> TrainRequest:
    """The training of a table: every known cell trains, with the settings of its size and
    the user's on top."""
    options = {"delimiter": table.delimiter, "header": "yes" if table.header else "no"}
    if table.stem_column is not None:
        options["stem_column"] = str(table.stem_column + 1)
    return TrainRequest(
        corpus="table",
        request=CorpusRequest(path=source or table.name, options=options),
        transcriber=request.transcriber,
        variant=request.variant,
        settings={**request.settings, "protocol": "all"},
        device=request.device,
    )


def predict_gaps(
    run: Run, table: ParadigmTable, gaps: list[Gap], request: FillRequest
) -> list[Filling]:
    """Each gap's ``nbest`` hypotheses (beam search when either is above 1), with their
    surprisal."""
    cells = [
        Cell(number, Entry(table.stems[gap.row], (table.cells[gap.column],), ""), [])
        for number, gap in enumerate(gaps, 1)
    ]
    beam = max(request.beam, request.nbest)
    options = PredictOptions(beam=beam, nbest=request.nbest, score=True,
                             precision=run.config.training.precision)  # fmt: skip
    device = choose_device(request.device)
    predictor = Predictor(run, device, options, load_model(run, device))
    joiner = predictor.transcriber.joiner
    with shared_cpu(device):  # a small table is already on one thread
        predicted = predictor.predict(cells, table.name)
    return [
        Filling(
            gaps[one.index],
            one.rank,
            joiner.join(one.symbols or ()),
            None if one.nll is None else one.nll[1],
        )  # fmt: skip
        for one in predicted
        if isinstance(one.rank, int)
    ]


def _fillable(table: ParadigmTable, gaps: list[Gap]) -> tuple[list[Gap], list[Gap]]:
    """Gaps the model can fill (its stem and its cell each have a known form elsewhere), and
    the others."""
    stems = {row for row, forms in enumerate(table.forms) if any(forms)}
    cells = {column for forms in table.forms for column, form in enumerate(forms) if form}
    fillable = [gap for gap in gaps if gap.row in stems and gap.column in cells]
    return fillable, [gap for gap in gaps if gap not in fillable]


@contextmanager
def _run_directory(out: Path | None) -> Iterator[Path]:
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="phonkit-fill-") as folder:
        yield Path(folder) / "run"
