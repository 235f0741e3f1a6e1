"""The compact record of an experiment: what its tables are made of, without model weights.

``phonkit experiment export DIR --out RECORD`` copies the experiment's manifest, plan and
outcomes, and from every finished run its ``config.json``, ``metrics.json``, ``history.tsv``,
the per-cell test scores (``predictions.tsv``) and the completions of covered files where the
experiment made them (``completed-*.tsv``), these two xz-compressed. ``phonkit experiment
report RECORD`` then rebuilds the same tables and permutation tests from the record alone. The
paths the manifest and the configurations store are re-expressed from the record's place
(:func:`phonkit.run.config.moved_path`), so that they still lead to the data.
"""

from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.experiments.runner import (
    MANIFEST,
    OUTCOMES,
    PLAN,
    finished_runs,
    moved_manifest,
    read_manifest,
)
from phonkit.run.config import CONFIG, moved_config, read_json
from phonkit.run.directory import COMPLETED, PREDICTIONS, RECORD


def export(root: Path, out: Path) -> int:
    """Write the record of ``root`` to ``out`` (finished runs already there are replaced);
    returns the number of runs recorded."""
    manifest = read_manifest(root)
    if out.resolve() == root.resolve():
        raise InputError(f"{out}: the record needs a directory of its own, not the experiment")
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise InputError(f"{out} is not empty and holds no phonkit experiment record")
    write_atomic(out / MANIFEST, _json(moved_manifest(manifest, root, out)))
    for name in (PLAN, OUTCOMES):
        if (root / name).is_file():
            write_atomic(out / name, (root / name).read_bytes())
    runs = finished_runs(root)
    for name, run in runs.items():
        target = out / "runs" / name
        target.mkdir(parents=True, exist_ok=True)
        for file in RECORD:
            if file == CONFIG:
                config = moved_config(read_json(run.path / CONFIG), run.path, target)
                write_atomic(target / CONFIG, _json(config))
            elif (run.path / file).is_file():
                shutil.copyfile(run.path / file, target / file)
        if run.predictions.is_file():  # a run with a test split
            predictions = run.predictions.read_bytes()
            write_atomic(target / f"{PREDICTIONS}.xz", lzma.compress(predictions, preset=9))
        for split, file in COMPLETED.items():  # an experiment's completions of covered files
            if (completed := run.completion(split)) is not None:
                data = completed.read_bytes()
                xz = data if completed.suffix == ".xz" else lzma.compress(data, preset=9)
                write_atomic(target / f"{file}.xz", xz)
    return len(runs)


def _json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
