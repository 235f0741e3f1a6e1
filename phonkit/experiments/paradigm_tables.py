"""The paradigm-table benchmark: every table of a folder cross-validated over its stems.

Five folds over stems (:func:`phonkit.data.table.fold_split`): each test stem with at least
two known cells loses one of them, the rest of the table trains, with the settings its size
gives (:func:`phonkit.tables.sizes.sized`) — as ``phonkit fill`` would fill it. One run per
(table, fold, variant); the baselines of :mod:`phonkit.tasks.baseline` (the affix-rewrite
analogy, copying the nearest known form) fill the same held-out cells. The report pools each
table's folds: ACC and MLD per table and system, the mean over tables, the tables each
variant wins and loses against the analogy, and a paired permutation test over tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein

from phonkit.analysis.significance import PERMUTATIONS, permutation_test
from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import segment
from phonkit.data.table import FOLDS, ParadigmTable, fold_split, read_table
from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.experiments.runner import (
    Group,
    Launch,
    data_folder,
    grouped,
    read_manifest,
    run_experiment,
)
from phonkit.experiments.tables import markdown, mean_std, p_value, show, write_table
from phonkit.jobs import Outcome, Planned, TrainRequest
from phonkit.plugins import lookup
from phonkit.tasks.baseline import TABLE_BASELINES
from phonkit.tasks.train import check_job

SUFFIXES = (".csv", ".tsv")
REFERENCE = "analogy"  # the baseline every variant is judged against


def tables(folder: Path) -> dict[str, Path]:
    """The tables of ``folder`` (``*.csv``, ``*.tsv``) by name, in name order."""
    if not folder.is_dir():
        raise InputError("no such folder of tables", str(folder))
    found = {
        path.name.removesuffix(path.suffix): path
        for path in sorted(folder.iterdir())
        if path.suffix in SUFFIXES and path.is_file()
    }
    if not found:
        raise InputError("no .csv or .tsv table in the folder", str(folder))
    return found


def run(
    out: Path,
    folder: Path,
    base: TrainRequest,
    variants: Sequence[str] = ("pi", "pd", "joint"),
    launch: Launch | None = None,
    permutations: int = PERMUTATIONS,
    force: bool = False,
) -> list[Outcome]:
    """The table benchmark of ``folder`` in ``out``: every variant on every fold of every
    table, each run with the settings of its size and ``base.settings`` on top (its seed:
    also the held-out cells'), then the report; the runs that failed or were skipped."""
    given = {key: value for key, value in base.settings.items() if key != "seed"}
    names = [lookup("models", v).name for v in variants]
    for variant in names:  # a bad setting fails before the tables or out are looked at
        check_job(table_job(folder, 1, variant, base, given))
    runs = plan(tables(folder), names, base, given)
    settings = {
        "folder": str(folder),
        "transcriber": base.transcriber,
        "seed": base.seed,
        "settings": given,
    }
    return run_experiment(
        out, "tables", settings, runs, launch or Launch(), force,
        lambda: report(out, permutations, folder),
    )  # fmt: skip


def plan(
    found: Mapping[str, Path],
    variants: Sequence[str],
    base: TrainRequest,
    given: Mapping[str, Any],
) -> list[Planned]:
    """One run per (table, fold, variant) for every fold that holds out a cell; each run has
    the settings of its training size with ``given`` on top, and ``base``'s seed."""
    runs = []
    for name, path in found.items():
        entries = read_table(path).entries()
        for fold in range(1, FOLDS + 1):
            split = fold_split(entries, fold, base.seed)
            if not split.test:
                continue
            for variant in variants:
                job = table_job(path, fold, variant, base, given)
                labels = {"table": name, "fold": fold, "variant": variant}
                runs.append(Planned(f"{name}-f{fold}-{variant}", job, labels))
    return runs


def table_job(
    path: Path, fold: int, variant: str, base: TrainRequest, given: Mapping[str, Any]
) -> TrainRequest:
    """The run of ``variant`` on fold ``fold`` of the table in ``path``."""
    return TrainRequest(
        corpus="table",
        request=CorpusRequest(path=str(path.resolve())),
        transcriber=base.transcriber,
        variant=variant,
        settings={**given, "seed": base.seed, "protocol": "folds", "fold": fold},
        device=base.device,
        metrics=["acc", "mld"],
    )


@dataclass
class Scores:
    """One system's held-out cells of one table (all folds): exact match and edit distance."""

    hits: list[float]
    distances: list[float]

    @property
    def acc(self) -> float:
        return 100.0 * sum(self.hits) / len(self.hits) if self.hits else float("nan")

    @property
    def mld(self) -> float:
        return sum(self.distances) / len(self.distances) if self.distances else float("nan")


def baseline_scores(table: ParadigmTable, seed: int) -> dict[str, Scores]:
    """Each baseline's scores on the held-out cells of every fold of ``table``."""
    scores = {name: Scores([], []) for name in TABLE_BASELINES}
    entries = table.entries()
    for fold in range(1, FOLDS + 1):
        split = fold_split(entries, fold, seed)
        paradigms: dict[str, dict[str, tuple[str, ...]]] = {}
        for entry in split.train:
            paradigms.setdefault(entry.lemma, {})[entry.bundle] = segment(entry.form)
        for name, kind in TABLE_BASELINES.items():
            system = kind(paradigms)
            for entry in split.test:
                guess = system.fill(paradigms.get(entry.lemma, {}), entry.bundle)
                gold = segment(entry.form)
                scores[name].hits.append(float(guess == gold))
                scores[name].distances.append(float(Levenshtein.distance(guess, gold)))
    return scores


def report(root: Path, permutations: int = PERMUTATIONS, folder: Path | None = None) -> None:
    """Write ``results.tsv`` (table, system, test cells, ACC, MLD) and ``results.md`` from
    the finished runs and the baselines (scored on the tables of ``folder``, else of the
    folder the experiment stored)."""
    settings = read_manifest(root)["settings"]
    folder = data_folder(root, folder, "the tables that the baselines are scored on")
    groups = grouped(root, lambda labels: (labels["table"], labels["variant"]))
    names = list(dict.fromkeys(name for name, _ in groups))
    systems = [*dict.fromkeys(variant for _, variant in groups), *TABLE_BASELINES]
    scores: dict[tuple[str, str], Scores] = {}
    for key, group in groups.items():
        items = [item for run in group.runs for item in run.item_scores().values()]
        scores[key] = Scores([i["acc"] / 100.0 for i in items], [i["mld"] for i in items])
    for name in names:
        for system, found in baseline_scores(
            read_table(folder / _file(folder, name)), settings["seed"]
        ).items():
            scores[(name, system)] = found
    complete = {key for key in scores if not groups.get(key, Group()).notes}
    long_rows = [
        [name, system, len(scores[(name, system)].hits),
         f"{scores[(name, system)].acc:.2f}", f"{scores[(name, system)].mld:.4f}"]
        for name in names for system in systems if (name, system) in complete
    ]  # fmt: skip
    write_table(root / "results.tsv", ["table", "system", "test_cells", "acc", "mld"], long_rows)
    text = _document(root, names, systems, scores, complete, permutations)
    write_atomic(root / "results.md", text)
    header = ["table", *[f"{s} ACC" for s in systems]]
    rows = [
        [name, *(f"{scores[(name, s)].acc:.1f}" if (name, s) in complete else "" for s in systems)]
        for name in names
    ]
    show(
        f"{root}: held-out cells, ACC by table",
        header,
        rows + [_mean_row(names, systems, scores, complete)],
    )


def _file(folder: Path, name: str) -> str:
    """The file of table ``name`` in ``folder``: the baselines are scored on the tables
    themselves, so the report needs the folder the experiment read."""
    for suffix in SUFFIXES:
        if (folder / f"{name}{suffix}").is_file():
            return f"{name}{suffix}"
    raise InputError(
        f"no table {name} (.csv or .tsv) to score the baselines on; the experiment read it "
        "from this folder",
        str(folder),
    )


def _mean_row(names, systems, scores, complete) -> list[str]:
    row = ["mean"]
    for system in systems:
        done = [scores[(name, system)].acc for name in names if (name, system) in complete]
        row.append(f"{mean_std(done)[0]:.1f} ({len(done)})" if done else "")
    return row


def _document(root, names, systems, scores, complete, permutations) -> str:
    header = ["table", "test cells", *[f"{s} ACC" for s in systems], *[f"{s} MLD" for s in systems]]
    rows = []
    for name in names:
        cells = next((len(scores[(name, s)].hits) for s in systems if (name, s) in complete), 0)
        rows.append(
            [name, cells,
             *(f"{scores[(name, s)].acc:.1f}" if (name, s) in complete else "" for s in systems),
             *(f"{scores[(name, s)].mld:.3f}" if (name, s) in complete else "" for s in systems)]
        )  # fmt: skip
    mean = _mean_row(names, systems, scores, complete)
    rows.append([mean[0], "", *mean[1:], *[""] * len(systems)])
    text = f"# Paradigm tables: {root.name}\n\n"
    text += (
        "Held-out cells of five folds over stems (one known cell of each test stem), pooled "
        "per table; ACC in %, MLD in symbols. The mean is over the tables a system finished "
        "(their number in brackets).\n\n"
    )
    text += markdown(header, rows)
    text += f"\n## Against the {REFERENCE} baseline\n\n"
    verdicts = []
    for system in systems:
        if system == REFERENCE:
            continue
        shared = [n for n in names if (n, system) in complete and (n, REFERENCE) in complete]
        ours = [scores[(n, system)].acc for n in shared]
        theirs = [scores[(n, REFERENCE)].acc for n in shared]
        won = sum(a > b for a, b in zip(ours, theirs, strict=True))
        lost = sum(a < b for a, b in zip(ours, theirs, strict=True))
        p = permutation_test(ours, theirs, permutations) if shared else float("nan")
        mean_ours, mean_theirs = mean_std(ours)[0], mean_std(theirs)[0]
        verdicts.append([system, len(shared), f"{mean_ours:.1f}", f"{mean_theirs:.1f}",
                         won, len(shared) - won - lost, lost, p_value(p)])  # fmt: skip
    text += markdown(
        ["system", "tables", "mean ACC", f"{REFERENCE} mean ACC", "won", "tied", "lost",
         "p (paired permutation test over tables)"], verdicts,
    )  # fmt: skip
    return text
