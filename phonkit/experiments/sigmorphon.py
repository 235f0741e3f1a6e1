"""CoNLL–SIGMORPHON 2017 task 2, paradigm completion (Cotterell et al. 2017, "Universal
Morphological Reinflection in 52 Languages"), as the shared task ran it.

For each language and training size (``low``, ``medium``, ``high``: 10, 50 and 200 full
paradigms), one run trains on the whole train file (``split.protocol=all``), as ``phonkit
train --corpus tsv --path LANG-train-SIZE --split all`` would, and then completes the covered
dev and test files as ``phonkit predict --columns lemma,form,features`` would: every given
cell back as it came, every empty one filled (:class:`Completion`, in the process that
trained the run), after the run's judges' weights are chosen on the dev files as ``phonkit
tune`` chooses them (:mod:`phonkit.tasks.tuning`), where it ranks candidates. The report
scores each completion against its uncovered file as the task's scorer does
(:mod:`phonkit.tasks.completion`): test in ``results.tsv``, dev in ``dev.tsv`` (where the
weights were chosen on dev, its figures are those of the dev the choice was made on).
Settings are chosen on dev; test is read once.

The files are the task's own, ``LANG-train-SIZE``, ``LANG-covered-{dev,test}`` and
``LANG-uncovered-{dev,test}`` (optionally ``.xz`` or ``.gz``) in the folder ``task2`` of
``<data-dir>/[sigmorphon/]conll2017``. Other systems' rows in ``results.tsv`` (the shared
task's baseline, a peer: ``benchmarks/sigmorphon2017.py``) are kept when the report writes
its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from phonkit.data.cells import Layout
from phonkit.data.corpora import LANGUAGES, CorpusRequest
from phonkit.data.tsv import format_rows, open_bytes, read_rows, write_atomic
from phonkit.errors import InputError
from phonkit.experiments.runner import (
    data_folder,
    grouped,
    read_manifest,
    read_outcomes,
    read_plan,
    run_experiment,
)
from phonkit.experiments.tables import markdown, show
from phonkit.jobs import Launch, Outcome, Planned, TrainRequest
from phonkit.model.device import choose_device
from phonkit.progress import say
from phonkit.run.directory import Run
from phonkit.tables.sizes import WIDEST_CONTEXT
from phonkit.tasks.completion import CompletionScores, read_forms, score_completion
from phonkit.tasks.predict import PredictOptions, Predictor
from phonkit.tasks.streaming import predict_stream
from phonkit.tasks.train import check_job
from phonkit.tasks.tuning import tune

SIZES = ("low", "medium", "high")
SPLITS = ("dev", "test")
COLUMNS = "lemma,form,features"  # the task's files: an empty form is a cell to fill
FIELDS = Layout.parse(COLUMNS)
HEADER = (
    "language", "setting", "system", "acc", "lev", "paradigm_acc", "cells", "seconds", "unfilled"
)  # fmt: skip
SYSTEM = "phonkit"  # the defaults' row


def task2_folder(data_dir: Path | None) -> Path:
    """The task-2 folder of the data directory (``[sigmorphon/]conll2017/task2``)."""
    root = CorpusRequest(data_dir=data_dir).root
    for folder in (root / "sigmorphon" / "conll2017" / "task2", root / "conll2017" / "task2"):
        if folder.is_dir():
            return folder
    raise InputError(
        f"no CoNLL-SIGMORPHON 2017 task-2 folder in {root} (looked for "
        "sigmorphon/conll2017/task2 and conll2017/task2); give data_dir, the folder above it",
        setting="data.data_dir",
    )


def task_file(folder: Path, language: str, part: str) -> Path | None:
    """``LANG-PART`` in ``folder``, as it is or compressed; None where it is not there."""
    for suffix in ("", ".xz", ".gz"):
        path = folder / f"{language}-{part}{suffix}"
        if path.is_file():
            return path
    return None


def languages(folder: Path) -> list[str]:
    """The languages with a train file in ``folder``, as the file names spell them."""
    names = {path.name.partition("-train-")[0] for path in folder.glob("*-train-*")}
    return sorted(name for name in names if name)


def chosen_languages(folder: Path, langs: str | Sequence[str]) -> list[str]:
    """``all``, or languages as the file names spell them (``dutch``) or by ISO 639-3 code."""
    found = languages(folder)
    if langs == "all":
        return found
    asked = [langs] if isinstance(langs, str) else list(langs)
    chosen = []
    for one in (part.strip() for text in asked for part in text.split(",") if part.strip()):
        name = LANGUAGES.get(one, one)
        if name not in found:
            raise InputError(
                f"no task-2 train file for {one!r} in {folder}; languages: {', '.join(found)}",
                setting="langs",
            )
        chosen.append(name)
    return list(dict.fromkeys(chosen))


def system_name(base: TrainRequest) -> str:
    """``phonkit`` for the defaults, else the variant and settings given beside it."""
    given = [f"variant={base.variant}"] if base.variant != TrainRequest.variant else []
    given += [f"transcriber={base.transcriber}"] if base.transcriber != "none" else []
    given += [f"morphemes={base.morphemes}"] if base.morphemes != TrainRequest.morphemes else []
    given += [f"{key}={value}" for key, value in sorted(base.settings.items())]
    return f"{SYSTEM}({','.join(given)})" if given else SYSTEM


@dataclass(frozen=True)
class Completion:
    """The covered files of a language, completed by a trained run as ``phonkit predict
    --columns lemma,form,features`` completes them (the defaults of predict), each stored in
    the run directory (:meth:`phonkit.run.directory.Run.write_completion`); first, where the
    run ranks candidates, its judges' weights chosen on the dev files (``tuned_on``: the
    covered file and its gold) as ``phonkit tune`` chooses them."""

    covered: tuple[tuple[str, str], ...]  # (split, covered file)
    tuned_on: tuple[str, str] | None = None  # (covered dev file, uncovered dev file)

    def done(self, run: Path) -> bool:
        found = Run(run)
        return all(found.completion(split) is not None for split, _ in self.covered)

    def __call__(self, run: Path) -> None:
        trained = Run.open(run)
        predictor = Predictor(trained, choose_device("cpu"), PredictOptions())
        chose = {"reliability", "temperature"} <= set(trained.judges(WIDEST_CONTEXT) or {})
        if self.tuned_on is not None and predictor.rewrites is not None and not chose:
            covered, gold = (Path(path) for path in self.tuned_on)
            choice = tune(predictor, covered, gold, FIELDS)
            weights = choice.weights
            say(
                f"{run}: the judges' weights chosen on {covered}: reliability "
                f"{weights.reliability:g}, temperature {weights.temperature:g}"
            )
        for split, path in self.covered:
            if trained.completion(split) is not None:
                continue
            parts: list[str] = []
            with open_bytes(Path(path)) as stream:
                predict_stream(predictor, stream, path, parts.append, FIELDS)
            trained.write_completion(split, "".join(parts))
            say(f"{run}: completed {path}")
        predictor.report()


def plan(
    folder: Path, langs: Sequence[str], sizes: Sequence[str], base: TrainRequest
) -> list[Planned]:
    """One run per language and training size with a train file (and both covered files)."""
    runs = []
    for language in langs:
        covered = {split: task_file(folder, language, f"covered-{split}") for split in SPLITS}
        missing = [split for split, path in covered.items() if path is None]
        if missing:
            raise InputError(
                f"{language}: no covered {' or '.join(missing)} file in {folder}",
                setting="data.data_dir",
            )
        for size in sizes:
            train = task_file(folder, language, f"train-{size}")
            if train is None:  # basque has no high
                continue
            job = TrainRequest(
                corpus="tsv",
                request=CorpusRequest(path=str(train.resolve()), columns=COLUMNS),
                transcriber=base.transcriber,
                variant=base.variant,
                morphemes=base.morphemes,
                settings={**base.settings, "protocol": "all"},
                device=base.device,
                metrics=base.metrics,
            )
            files = tuple((s, str(p.resolve())) for s, p in covered.items() if p)
            gold = task_file(folder, language, "uncovered-dev")
            after = Completion(files, (dict(files)["dev"], str(gold.resolve())) if gold else None)
            labels = {"language": language, "setting": size}
            runs.append(Planned(f"{language}-{size}", job, labels, after))
    return runs


def run(
    out: Path,
    base: TrainRequest,
    langs: str | Sequence[str] = "all",
    sizes: Sequence[str] = SIZES,
    launch: Launch | None = None,
    force: bool = False,
) -> list[Outcome]:
    """Task 2 for ``langs`` at ``sizes`` in ``out``, every run with ``base``'s settings (and
    the split ``all``), then the report; the runs that failed or were skipped."""
    unknown = [size for size in sizes if size not in SIZES]
    if unknown or not sizes:
        raise InputError(
            f"sizes: {', '.join(unknown) or 'none given'}; the task's are {', '.join(SIZES)}",
            setting="sizes",
        )
    folder = task2_folder(base.request.data_dir and Path(base.request.data_dir))
    chosen = chosen_languages(folder, langs)
    runs = plan(folder, chosen, sizes, base)
    for planned in runs[:1]:  # a bad setting fails before out is looked at
        check_job(planned.job)
    settings = {
        "folder": str(folder),
        "system": system_name(base),
        "transcriber": base.transcriber,
        "variant": base.variant,
        "morphemes": base.morphemes,
        "settings": dict(base.settings),
    }
    return run_experiment(
        out, "sigmorphon2017", settings, runs, launch or Launch(), force,
        lambda: report(out, folder),
    )  # fmt: skip


@dataclass(frozen=True)
class Row:
    """One line of ``results.tsv``: a system's scores on one language and size."""

    language: str
    setting: str
    system: str
    scores: CompletionScores | None  # None for a row read back from the file
    seconds: float
    fields: tuple[str, ...] = ()  # as read back

    def values(self) -> tuple[str, ...]:
        if self.scores is None:
            return self.fields
        s = self.scores
        return (
            self.language, self.setting, self.system, f"{s.acc:.2f}", f"{s.lev:.4f}",
            f"{s.paradigm_acc:.2f}", str(s.cells), f"{self.seconds:.1f}", str(s.unguessed),
        )  # fmt: skip


def scored(root: Path, folder: Path, split: str) -> list[Row]:
    """Each finished run's completion of ``split`` scored against the task's gold."""
    system = read_manifest(root)["settings"]["system"]
    outcomes = read_outcomes(root)
    plan = read_plan(root)
    names = {(labels["language"], labels["setting"]): name for name, labels in plan.items()}
    rows = []
    for (language, size), group in grouped(
        root, lambda labels: (labels["language"], labels["setting"])
    ).items():
        completed = group.runs[0].completion(split) if group.runs else None
        gold = task_file(folder, language, f"uncovered-{split}")
        covered = task_file(folder, language, f"covered-{split}")
        if completed is None or gold is None or covered is None:
            continue
        scores = score_completion(
            read_forms(completed, FIELDS),
            read_forms(gold, FIELDS, gold=True),
            read_forms(covered, FIELDS),
        )
        outcome = outcomes.get(names[language, size])
        rows.append(Row(language, size, system, scores, outcome.seconds if outcome else 0.0))
    return rows


def merged(path: Path, rows: list[Row]) -> list[Row]:
    """``rows`` beside the rows of other systems already in ``path``, ordered by language,
    setting and system."""
    systems = {row.system for row in rows}
    kept = []
    if path.is_file():
        found = list(read_rows(path))
        if found and tuple(found[0][1]) != HEADER[: len(found[0][1])]:
            raise InputError(f"not a task-2 results table (header {found[0][1]})", str(path))
        for _, fields in found[1:]:
            if len(fields) >= 3 and fields[2] not in systems:
                kept.append(Row(fields[0], fields[1], fields[2], None, 0.0, tuple(fields)))
    order = {size: number for number, size in enumerate(SIZES)}
    return sorted(
        [*rows, *kept], key=lambda row: (row.language, order.get(row.setting, 9), row.system)
    )


def report(root: Path, folder: Path | None = None) -> None:
    """Write ``results.tsv`` (test) and ``dev.tsv`` (dev) — this experiment's rows beside
    the other systems' already there — and ``results.md``, the per-language table of every
    system's test ACC with the means; the table on stderr. ``folder``: the task-2 folder
    (else the one the experiment stored)."""
    folder = data_folder(root, folder, "the task's gold files")
    tables: dict[str, list[Row]] = {}
    for split, name in (("test", "results.tsv"), ("dev", "dev.tsv")):
        rows = merged(root / name, scored(root, folder, split))
        write_atomic(root / name, format_rows([HEADER, *(row.values() for row in rows)]))
        tables[split] = rows
    header, lines = accuracy_table(tables["test"])
    write_atomic(root / "results.md", _document(header, lines))
    show(f"{root}: CoNLL-SIGMORPHON 2017 task 2, test ACC", header, lines)


def accuracy_table(rows: Sequence[Row]) -> tuple[list[str], list[list[str]]]:
    """Test ACC by language (rows) and size and system (columns), then the mean of each
    column over the languages it has, with their number."""
    values: dict[tuple[str, str], dict[str, float]] = {}
    for row in rows:
        fields = row.values()
        values.setdefault((row.setting, row.system), {})[row.language] = float(fields[3])
    columns = sorted(values, key=lambda key: (SIZES.index(key[0]), key[1] != SYSTEM, key[1]))
    header = ["language", *(f"{size} {system}" for size, system in columns)]
    names = sorted({row.language for row in rows})
    lines = [
        [name, *(f"{values[key][name]:.1f}" if name in values[key] else "" for key in columns)]
        for name in names
    ]
    means = ["mean"]
    for key in columns:
        found = list(values[key].values())
        means.append(f"{sum(found) / len(found):.1f} ({len(found)})")
    return header, [*lines, means]


def _document(header: list[str], lines: list[list[str]]) -> str:
    return (
        "# CoNLL-SIGMORPHON 2017 task 2: paradigm completion, test\n\n"
        "Exact-match accuracy (%) of the cells empty in each covered test file, scored as "
        "the task's scorer scores them; the mean is over the languages a column has (their "
        "number in brackets). `results.tsv` has LEV, paradigm accuracy, cells, seconds and "
        "unfilled cells too; `dev.tsv` the same on dev.\n\n" + markdown(header, lines, labels=1)
    )
