"""The Python API: a trained run as a model object, training, and the plugin registry by name.

Everything the commands do is reachable from here; the CLI builds the same settings and calls
the same functions. Errors are :class:`phonkit.errors.InputError` (bad input: its message
names the setting and the value); messages go to the ``phonkit`` logger (see docs/how-to/python.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from phonkit.analysis.underlying_forms import Inventory
from phonkit.data.cells import Cell
from phonkit.data.corpora import Corpus
from phonkit.data.lexicon import Decomposition, Entry, parse_features, parse_lemma
from phonkit.data.table import ParadigmTable, read_table
from phonkit.data.transcription import Transcriber
from phonkit.errors import InputError
from phonkit.experiments import kinds
from phonkit.jobs import Launch, Outcome, TrainRequest
from phonkit.metrics import Metric
from phonkit.model.device import choose_device, cpu_threads
from phonkit.model.phonology import Model as Network
from phonkit.plugins import lookup, registry
from phonkit.run.config import RunConfig
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig
from phonkit.tasks.evaluate import evaluate_run
from phonkit.tasks.fill import FilledTable, FillRequest
from phonkit.tasks.fill import fill as fill_table
from phonkit.tasks.predict import PredictOptions, Predictor, gold_examples
from phonkit.tasks.train import train as train_job

#: A row given to :meth:`Model.predict`: lemma, features (``"N;PL"`` or a sequence), and the
#: known form, or None (or ``""``) for a gap.
Row = tuple[str, "str | Sequence[str]", "str | None"] | tuple[str, "str | Sequence[str]"]


@dataclass(frozen=True)
class Prediction:
    """One output row of :meth:`Model.predict`: a cell, its form, and where the form is from.

    ``given`` is True for a known form passed through; ``rank`` counts the hypotheses of a
    predicted cell from 1 (several with ``nbest``); ``log_prob`` is the hypothesis's total
    log-probability and ``surprisal`` its -log p per symbol (nats), where asked for."""

    lemma: str
    features: str
    form: str
    given: bool
    rank: int
    log_prob: float | None = None
    surprisal: float | None = None


@dataclass(frozen=True)
class UnderlyingForms:
    """The learned underlying forms of a run's morphemes, as ``phonkit uf export`` writes
    them: each morpheme's name, kind (stem or feature), training frequency and vector."""

    morphemes: list[str]
    kinds: list[str]
    frequency: list[int]
    vectors: Any  # numpy array, one row per morpheme

    def vector(self, morpheme: str, kind: str = "stem") -> Any:
        """The vector of one morpheme (a lemma for ``kind="stem"``, else a feature)."""
        for name, found, vector in zip(self.morphemes, self.kinds, self.vectors, strict=True):
            if name == morpheme and found == kind:
                return vector
        raise InputError(f"morpheme={morpheme!r}: no {kind} of that name in the model")


class Model:
    """A trained run loaded for use: predict gaps, score forms, evaluate, read its UFs."""

    def __init__(self, run: Run, device: str = "cpu", precision: str = "auto"):
        self.run = run
        self.device = choose_device(device)
        self.precision = precision

    def __repr__(self) -> str:
        return f"phonkit.Model({str(self.run.path)!r})"

    @property
    def path(self) -> Path:
        return self.run.path

    @property
    def config(self) -> RunConfig:
        """The run's settings (``config.json``)."""
        return self.run.config

    @cached_property
    def network(self) -> Network:
        """The trained network (loaded once)."""
        return load_model(self.run, self.device)

    def predict(
        self,
        rows: Iterable[Row],
        *,
        beam: int = 1,
        nbest: int = 1,
        every: bool = False,
        scores: bool = False,
        strict: bool = False,
        fit: FitConfig | None = None,
    ) -> list[Prediction]:
        """Fill the gaps of ``rows`` as ``phonkit predict`` does: greedy (``beam=1``) or beam
        search, ``nbest`` hypotheses per cell, every row with ``every``, the surprisal of each
        form with ``scores``. A lemma new to the model gets its underlying form fitted to its
        known cells, which must come in the rows next to its gaps (``fit``: the steps and
        learning rate of that fit); the candidates' rewrites count the known forms of all
        the rows' new lemmas, as ``predict`` counts those of its whole input."""
        if min(beam, nbest) < 1:
            raise InputError(f"beam={beam}, nbest={nbest}: both must be at least 1")
        options = PredictOptions(
            every, beam, nbest, scores, strict, self.precision, fit or FitConfig()
        )
        cells = cells_of(rows)
        predictor = Predictor(self.run, self.device, options, self.network)
        predictor.read_input(cells)  # the rows' new lemmas' known forms, as predict reads them
        with cpu_threads(self.device):  # as phonkit predict decodes
            filled = predictor.predict(cells, "rows")
        predictor.report()
        joiner = predictor.transcriber.joiner
        return [
            Prediction(
                cell.entry.lemma,
                cell.entry.bundle,
                cell.entry.form if one.rank == "given" else joiner.join(one.symbols or ()),
                one.rank == "given",
                one.rank if isinstance(one.rank, int) else 0,
                None if one.nll is None else -one.nll[0],
                None if one.nll is None else one.nll[1],
            )
            for one in filled
            for cell in (cells[one.index],)
        ]

    def score(self, rows: Iterable[Row]) -> list[float | None]:
        """The surprisal (-log p per symbol, in nats) of each row's form, as ``phonkit
        predict --score`` gives it; a gap's surprisal is that of its predicted form.
        None where the model cannot score a form."""
        return [p.surprisal for p in self.predict(rows, scores=True) if p.rank <= 1]

    def evaluate(
        self,
        rows: Iterable[Row] | None = None,
        *,
        metrics: Sequence[str] | None = None,
        transcriber: str | None = None,
    ) -> dict[str, float]:
        """Metric scores on ``rows`` (lemma, features, gold form) or, without rows, on the
        run's test split, as ``phonkit evaluate``; ``metrics`` by name (default: all)."""
        examples = None
        if rows is not None:
            examples = gold_examples(cells_of(rows), "rows", self.run, False, transcriber)
        metrics = list(metrics) if metrics is not None else None
        result = evaluate_run(self.run, examples, self.network, metrics, self.precision)
        return result.scores

    def underlying_forms(self) -> UnderlyingForms:
        """The morphemes and their vectors, as ``phonkit uf export``."""
        inventory = Inventory.of(self.run)
        return UnderlyingForms(
            inventory.morphemes, inventory.kinds, inventory.frequency, inventory.vectors
        )


def cells_of(rows: Iterable[Row]) -> list[Cell]:
    """Predict rows from Python values, checked as the lines of a predict TSV are."""
    cells = []
    for number, row in enumerate(rows, 1):
        if not 2 <= len(row) <= 3:
            raise InputError(f"rows[{number - 1}]: expected (lemma, features[, form]), not {row!r}")
        lemma, features = row[0], row[1]
        form = (row[2] if len(row) == 3 else None) or ""
        where = f"rows[{number - 1}]"
        bundle = features if isinstance(features, str) else ";".join(features)
        entry = Entry(parse_lemma(lemma, where), parse_features(bundle, where), form.strip())
        cells.append(Cell(number, entry, []))
    return cells


def load(run_dir: str | Path, device: str = "cpu", precision: str = "auto") -> Model:
    """The finished run in ``run_dir`` as a :class:`Model` (``device``: cpu, cuda or auto)."""
    return Model(Run.open(Path(run_dir)), device, precision)


def train(
    settings: TrainRequest | None = None,
    out: str | Path | None = None,
    force: bool = False,
    resume: bool = False,
) -> Model:
    """Train a model with ``settings`` (the defaults: the position-independent model on the
    bundled Turkish sample) into the run directory ``out`` (as ``phonkit train``:
    ``runs/CORPUS-LANG-VARIANT`` by default; ``force`` replaces a run there; ``resume`` goes
    on training the unfinished run in ``out``), and load it."""
    run, _ = train_job(
        settings or TrainRequest(), Path(out) if out is not None else None, force, resume
    )
    return load(run.path, "cpu")


def fill(
    table: str | Path | ParadigmTable,
    request: FillRequest | None = None,
    out: str | Path | None = None,
    force: bool = False,
    resume: bool = False,
) -> FilledTable:
    """Fill the empty cells of a paradigm table (a :class:`ParadigmTable`, or a .csv/.tsv
    file read with :func:`phonkit.read_table`'s defaults) as ``phonkit fill`` does:
    settings by the table's size, the user's (``request.settings``) on top; the run goes to
    ``out`` if given (``resume``: go on with the run a stopped fill of the table left
    there). ``FilledTable.forms()`` is the filled table, ``fillings`` each gap's
    hypotheses."""
    source = None if isinstance(table, ParadigmTable) else str(table)
    paradigm = table if isinstance(table, ParadigmTable) else read_table(str(table))
    path = Path(out) if out is not None else None
    return fill_table(paradigm, request, path, force, source, resume)


def experiment(
    kind: str,
    out: str | Path,
    base: TrainRequest | None = None,
    *,
    launch: Launch | None = None,
    force: bool = False,
    **options: Any,
) -> list[Outcome]:
    """Run an experiment into the directory ``out`` as ``phonkit experiment KIND`` does, with
    ``base``'s settings for every run on top of the kind's own defaults (resumable: finished
    runs are reused), and write its report. ``kind`` and its ``options``: ``unimorph``
    (``langs``, ``variants``, ``seeds``, ``permutations``), ``celex`` (``sizes``, ``draws``,
    ``variants``; ``base`` names the corpus; batches of 32, patience 10), ``tables``
    (``folder``, ``variants``, ``permutations``). Returns the runs that failed or were
    skipped."""
    base = base or TrainRequest()
    return kinds.run(kind, Path(out), base, launch=launch, force=force, **options)


def corpus(name: str) -> Corpus:
    """The corpus reader called ``name`` (``unimorph``, ``sample``, ``tsv``, a plugin's)."""
    return lookup("corpora", name)


def transcriber(name: str) -> Transcriber:
    """The transcriber called ``name`` (``none``, ``segments``, ``epitran``, ``disc``...)."""
    return lookup("transcribers", name)


def variant(name: str) -> type[Network]:
    """The model variant called ``name`` (``amortized``, ``pi``, ``pd``, ``joint``, a plugin's)."""
    return lookup("models", name)


def metric(name: str) -> Metric:
    """The metric called ``name`` (``acc``, ``mld``, ``nll``, ``chrf``, a plugin's)."""
    return lookup("metrics", name)


def decomposition(name: str) -> Decomposition:
    """The morpheme decomposition called ``name`` (``features``, ``bundle``, a plugin's)."""
    return lookup("decompositions", name)


def names(kind: str) -> list[str]:
    """The registered names of a kind: corpora, transcribers, models, metrics,
    decompositions or launchers."""
    return list(registry(kind))


__all__ = [
    "Model",
    "Prediction",
    "UnderlyingForms",
    "corpus",
    "decomposition",
    "experiment",
    "fill",
    "load",
    "metric",
    "names",
    "train",
    "transcriber",
    "variant",
]
