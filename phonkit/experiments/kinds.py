"""The kinds of experiment by name, each with its own defaults: what ``phonkit experiment
KIND`` and :func:`phonkit.experiment` run, and what ``phonkit experiment report`` rebuilds.

``unimorph`` is the paper's UniMorph table (:mod:`phonkit.experiments.unimorph`), ``celex``
its learning curve (:mod:`phonkit.experiments.curve`), ``tables`` the paradigm-table
benchmark (:mod:`phonkit.experiments.paradigm_tables`), ``sigmorphon2017`` the field's
benchmark of paradigm completion, CoNLL–SIGMORPHON 2017 task 2
(:mod:`phonkit.experiments.sigmorphon`). A kind's module is imported when it
runs, so that the command line's help stays light.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from phonkit.errors import InputError
from phonkit.jobs import Launch, Outcome, TrainRequest

#: Each kind's own defaults, under the settings its runs are given: the learning curve
#: trains with batches of 32 and halves the learning rate after 10 epochs without
#: improvement (docs/results/celex.md).
DEFAULTS: dict[str, dict[str, Any]] = {
    "unimorph": {},
    "celex": {"batch_size": 32, "patience": 10},
    "tables": {},
    "sigmorphon2017": {},
}
KINDS = tuple(DEFAULTS)


def run(
    kind: str,
    out: Path,
    base: TrainRequest,
    *,
    launch: Launch | None = None,
    force: bool = False,
    **options: Any,
) -> list[Outcome]:
    """Run the experiment ``kind`` into ``out`` (resumable: finished runs are reused) with
    ``base``'s settings for every run on top of the kind's defaults, and write its report;
    the runs that failed or were skipped. ``options``: ``unimorph`` takes ``langs``,
    ``variants``, ``seeds``, ``permutations``; ``celex`` ``sizes``, ``draws``,
    ``variants`` (``base`` names the corpus); ``tables`` ``folder``, ``variants``,
    ``permutations``."""
    if kind not in DEFAULTS:
        raise InputError(f"unknown experiment {kind!r}; experiments: {', '.join(KINDS)}")
    base = replace(base, settings={**DEFAULTS[kind], **base.settings})
    if kind == "unimorph":
        from phonkit.experiments import unimorph

        return unimorph.run(out, base, launch=launch, force=force, **options)
    if kind == "celex":
        from phonkit.experiments import curve

        return curve.run(out, base, launch=launch, force=force, **options)
    if kind == "sigmorphon2017":
        from phonkit.experiments import sigmorphon

        return sigmorphon.run(out, base, launch=launch, force=force, **options)
    from phonkit.experiments import paradigm_tables

    folder = options.pop("folder", None)
    if folder is None:
        raise InputError("the tables experiment needs folder, a folder of tables")
    return paradigm_tables.run(out, Path(folder), base, launch=launch, force=force, **options)


def report(directory: Path, permutations: int | None = None) -> None:
    """Rebuild the tables (and figures) of the experiment in ``directory`` from its finished
    runs, by its kind; ``permutations``: the random swaps of each permutation test."""
    from phonkit.analysis.significance import PERMUTATIONS
    from phonkit.experiments.runner import read_manifest

    kind = read_manifest(directory).get("kind")
    swaps = PERMUTATIONS if permutations is None else permutations
    if kind == "unimorph":
        from phonkit.experiments import unimorph

        unimorph.report(directory, swaps)
    elif kind == "tables":
        from phonkit.experiments import paradigm_tables

        paradigm_tables.report(directory, swaps)
    elif kind == "celex":
        from phonkit.experiments import curve

        curve.report(directory)
    elif kind == "sigmorphon2017":
        from phonkit.experiments import sigmorphon

        sigmorphon.report(directory)
    else:
        raise InputError(f"{directory}: unknown kind of experiment {kind!r}")
