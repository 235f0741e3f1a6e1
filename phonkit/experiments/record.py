"""The compact record of an experiment: what its tables are made of, without model weights.

``phonkit experiment export DIR --out RECORD`` copies the experiment's manifest, plan and
outcomes, and from every finished run its ``config.json``, ``metrics.json``, ``history.tsv``
and the per-cell test scores (``predictions.tsv``, xz-compressed). ``phonkit experiment report
RECORD`` then rebuilds the same tables and permutation tests from the record alone.
"""

from __future__ import annotations

import lzma
import shutil
from pathlib import Path

from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.experiments.runner import MANIFEST, OUTCOMES, PLAN, finished_runs, read_manifest
from phonkit.run.directory import PREDICTIONS, RECORD


def export(root: Path, out: Path) -> int:
    """Write the record of ``root`` to ``out`` (finished runs already there are replaced);
    returns the number of runs recorded."""
    read_manifest(root)
    if out.resolve() == root.resolve():
        raise InputError(f"{out}: the record needs a directory of its own, not the experiment")
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise InputError(f"{out} is not empty and holds no phonkit experiment record")
    for name in (MANIFEST, PLAN, OUTCOMES):
        if (root / name).is_file():
            write_atomic(out / name, (root / name).read_bytes())
    runs = finished_runs(root)
    for name, run in runs.items():
        target = out / "runs" / name
        target.mkdir(parents=True, exist_ok=True)
        for file in RECORD:
            if (run.path / file).is_file():
                shutil.copyfile(run.path / file, target / file)
        predictions = run.predictions.read_bytes()
        write_atomic(target / f"{PREDICTIONS}.xz", lzma.compress(predictions, preset=9))
    return len(runs)
