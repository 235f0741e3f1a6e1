"""Many training runs as one experiment: resumable, trained by a launcher (by default local
processes; see :mod:`phonkit.jobs`), with overall progress on stderr.

An experiment directory holds ``experiment.json`` (its kind and settings, the paths among
them stored relative to the directory: :func:`phonkit.run.config.recorded_path`), ``runs/NAME/``
(one run directory per planned run), ``logs/NAME.log`` (each run's own messages) and
``outcomes.json`` (how each run ended: finished, skipped with a reason, or failed) and
``plan.json`` (every run planned so far, with its labels, for the reports). A run that
finished before is reused; one that was interrupted goes on from its last checkpoint.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.jobs import Launch, Outcome, Planned, Session, TrainRequest
from phonkit.model.device import choose_device
from phonkit.plugins import lookup
from phonkit.progress import bars, say, show_messages
from phonkit.run.config import located_path, moved_path, recorded_path
from phonkit.run.directory import Run, clear, is_finished, is_run
from phonkit.run.lock import RunLock
from phonkit.settings import declared
from phonkit.tables.sizes import SMALL, settings_for
from phonkit.tasks.evaluate import selected_metrics
from phonkit.tasks.train import start_run, train_run

MANIFEST = "experiment.json"
PATH_SETTINGS = ("folder", "data_dir", "path")  # the settings that are paths
OUTCOMES = "outcomes.json"
PLAN = "plan.json"
SCORED = ("acc", "mld", "nll")  # the metrics every experiment's tables need


def run_experiment(
    root: Path,
    kind: str,
    settings: dict[str, Any],
    plan: Sequence[Planned],
    launch: Launch,
    force: bool,
    report: Callable[[], None],
) -> list[Outcome]:
    """Run ``plan`` in the experiment directory ``root`` (of ``kind``, made with
    ``settings``: finished runs are reused only under the same ones; ``force`` starts over)
    with overall progress, then write the tables (``report``). Returns the planned runs that
    failed or were skipped; the others are kept, and running the plan again retries them."""
    # Before anything is written: a bad setting or an unreachable cluster leaves root alone.
    session = lookup("launchers", launch.launcher).start(launch.settings, launch.jobs)
    try:
        open_experiment(root, kind, settings, force)
        say(f"{root}: {len(plan)} runs, {session.summary(len(plan))} (logs in {root / 'logs'})")
        bar, on_outcome = progress_reporter(len(plan))
        with bar:
            outcomes = execute(plan, root, on_outcome, session)
    finally:
        session.close()
    report()
    planned = {one.name for one in plan}
    ended = [o for o in outcomes.values() if o.name in planned and o.status != "finished"]
    skipped = sum(o.status == "skipped" for o in ended)
    if skipped:
        say(f"warning: {skipped} runs skipped (their data could not make a run; see the table)")
    if len(ended) > skipped:
        say(
            f"{len(ended) - skipped} runs failed (see {root / 'logs'}); run the same experiment "
            "again to retry them"
        )
    return ended


def with_configs(base: TrainRequest, sized: bool = False) -> TrainRequest:
    """``base`` with the metrics the tables need and every run's model and training
    settings made explicit (the declared defaults, ``base.settings`` on top), so that each
    run of an experiment has the same settings whatever its data's size; with ``sized``,
    each run takes the settings of its own data's size instead, as ``phonkit train`` would
    (:func:`phonkit.tables.sizes.sized`, ``base.settings`` on top)."""
    metrics = base.metrics
    if metrics is not None:
        chosen = list(selected_metrics(metrics))
        metrics = chosen + [m for m in SCORED if m not in chosen]
    if sized:
        return replace(base, metrics=metrics)
    explicit = {
        one.short: getattr(settings, one.name)
        for settings in settings_for(base, SMALL)
        for one in declared(type(settings))
    }
    return replace(base, settings={**base.settings, **explicit}, metrics=metrics)


def reuse_settings(base: TrainRequest, sized: bool = False) -> dict[str, Any]:
    """What must match for an experiment directory's finished runs to be reused (``sized``:
    each run takes the settings of its size, as :func:`with_configs` says)."""
    choose_device(base.device)  # a device that is not there is a usage error, before any run
    lookup("decompositions", base.morphemes)
    kept = {
        "transcriber": base.transcriber,
        "morphemes": base.morphemes,
        "max_entries": base.split.max_entries,
        "metrics": base.metrics,
    }
    if sized:  # each run's settings by its size
        return kept | {"sized": {k: v for k, v in base.settings.items() if k != "seed"}}
    model, training = settings_for(base, SMALL)
    copy = base.given()["copy"]
    explicit = {"model": model.to_json(), "training": training.to_json()}
    explicit["training"].pop("seed")
    return kept | explicit | ({"copy": copy} if copy else {})


def open_experiment(root: Path, kind: str, settings: dict[str, Any], force: bool) -> None:
    """Create the experiment directory, or check that an existing one was made by the same
    kind of experiment with the same settings (so finished runs can be reused). The paths
    among ``settings`` (:data:`PATH_SETTINGS`) are as given; the manifest stores them
    relative to ``root``, and they match a stored path that leads to the same place."""
    recorded = recorded_settings(settings, root)
    manifest = {"kind": kind, "settings": recorded}
    if root.exists() and not root.is_dir():
        raise InputError(f"{root} is a file; out needs a directory", setting="out")
    if (root / MANIFEST).is_file():
        if force:
            shutil.rmtree(root)
        else:
            found = moved_manifest(read_manifest(root), root, root)
            if found != manifest:
                changed = _differences(found.get("settings", {}), recorded)
                raise InputError(
                    f"{root} holds a {found.get('kind')} experiment made with other settings "
                    f"({changed}); choose another out, or pass force to start it over",
                    setting=("out", "force"),
                )
    elif root.is_dir() and any(root.iterdir()):
        raise InputError(f"{root} is not empty and holds no phonkit experiment")
    root.mkdir(parents=True, exist_ok=True)
    write_atomic(root / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def recorded_settings(settings: dict[str, Any], root: Path) -> dict[str, Any]:
    """``settings`` with the paths among them as the manifest in ``root`` stores them."""
    return {
        key: recorded_path(value, root) if key in PATH_SETTINGS else value
        for key, value in settings.items()
    }


def moved_manifest(manifest: dict[str, Any], root: Path, to: Path) -> dict[str, Any]:
    """The manifest of the experiment in ``root`` as a copy of it in ``to`` stores it: its
    paths re-expressed from there (an absolute path of an older manifest too)."""
    settings = manifest.get("settings")
    if not isinstance(settings, dict):
        return manifest
    moved = {
        key: moved_path(value, root, to) if key in PATH_SETTINGS and isinstance(value, str)
        else value
        for key, value in settings.items()
    }  # fmt: skip
    return {**manifest, "settings": moved}


def read_manifest(root: Path) -> dict[str, Any]:
    try:
        return json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except OSError:
        raise InputError(f"{root}: not a phonkit experiment directory (no {MANIFEST})") from None
    except ValueError as error:
        raise InputError(f"{root / MANIFEST}: not valid JSON ({error})") from None


def data_folder(root: Path, given: Path | None, what: str) -> Path:
    """The folder of data the experiment in ``root`` read (``what`` it holds): ``given`` by
    the command that runs it, else where its manifest stores it (relative to ``root``: by
    its name alone where the two share no folder but the file system's root)."""
    if given is not None:
        return given
    stored = read_manifest(root)["settings"]["folder"]
    folder = located_path(stored, root)
    if folder is None:
        raise InputError(
            f"the folder {stored!r} (relative to the experiment) is not there: the report reads "
            f"{what} from it; run the experiment's command again with its data (finished runs "
            "are reused)",
            str(root / MANIFEST),
        )
    return folder


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    """``training.epochs 1 -> 2; ...``: the settings that differ, nested ones by dotted name."""
    old, new = _flat(old), _flat(new)
    keys = sorted(set(old) | set(new))
    changed = [
        f"{key} {old.get(key)!r} -> {new.get(key)!r}"
        for key in keys
        if old.get(key) != new.get(key)
    ]
    return "; ".join(changed) or "another layout"


def _flat(settings: dict[str, Any]) -> dict[str, Any]:
    flat = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            flat.update({f"{key}.{inner}": item for inner, item in value.items()})
        else:
            flat[key] = value
    return flat


def read_plan(root: Path) -> dict[str, dict[str, Any]]:
    """Every run planned in this experiment directory so far: name -> labels."""
    try:
        return json.loads((root / PLAN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def read_outcomes(root: Path) -> dict[str, Outcome]:
    try:
        data = json.loads((root / OUTCOMES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {name: Outcome(**fields) for name, fields in data.items()}


def finished_runs(root: Path) -> dict[str, Run]:
    """The finished run directories of an experiment, by name."""
    folder = root / "runs"
    if not folder.is_dir():
        return {}
    return {path.name: Run(path) for path in sorted(folder.iterdir()) if is_finished(path)}


Key = TypeVar("Key")


@dataclass
class Group:
    """The planned runs that make one cell of a report: the finished runs, and for each of
    the others what became of it (``status: message``, or ``not run yet``)."""

    runs: list[Run] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def grouped(root: Path, key: Callable[[dict[str, Any]], Key]) -> dict[Key, Group]:
    """The planned runs of an experiment grouped by ``key`` of their labels, in plan order."""
    runs, outcomes = finished_runs(root), read_outcomes(root)
    groups: dict[Key, Group] = {}
    for name, labels in read_plan(root).items():
        group = groups.setdefault(key(labels), Group())
        outcome = outcomes.get(name)
        if name in runs:
            group.runs.append(runs[name])
        elif outcome and outcome.status != "finished":
            group.notes.append(f"{outcome.status}: {outcome.message}")
        else:
            group.notes.append("not run yet")
    return groups


def complete(planned: Planned, root: Path) -> bool:
    """The planned run is trained, and what comes after training is done."""
    path = root / "runs" / planned.name
    return Run(path).finished and (planned.after is None or planned.after.done(path))


def run_one(planned: Planned, root: Path, threads: int | None = None) -> Outcome:
    """Train one planned run (or reuse or resume it), then do what comes after training;
    its messages go to its log file."""
    path = root / "runs" / planned.name
    if complete(planned, root):
        return Outcome(planned.name, "finished", "reused")
    if threads:
        torch.set_num_threads(threads)

    def work() -> None:
        if not Run(path).finished:
            train_run(start_or_open(planned, path))
        if planned.after is not None:
            planned.after(path)

    return _logged(planned, root, work)


def prepare(planned: Planned, root: Path) -> Outcome | None:
    """Read the corpus, split it and write the run's directory (config, vocabularies, split)
    without training, unless it is there already: None when the run is ready to train, else
    how it ended (``skipped``: its data cannot make a run; ``failed``). For launchers whose
    workers train from the run directory alone, without the corpus."""
    outcome = _logged(planned, root, lambda: start_or_open(planned, root / "runs" / planned.name))
    return None if outcome.status == "finished" else outcome


def start_or_open(planned: Planned, path: Path) -> Run:
    """The run's directory: opened where a start wrote its config (an interrupted run goes
    on from there), else made anew."""
    if is_run(path):
        return Run.open(path, finished=False)
    clear(path)  # a start cut short before its config was written
    return start_run(planned.job, path, force=False)


def _logged(planned: Planned, root: Path, work: Callable[[], object]) -> Outcome:
    """Do ``work`` for a run, holding its directory's lock (one writer per run, even with two
    experiments at once), with stderr appended to the run's log; an input error skips the
    run and any other error fails it (traceback in the log), never the caller."""
    log = root / "logs" / f"{planned.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    show_messages()  # in a worker process too: the run's messages belong in its log
    with log.open("a", encoding="utf-8") as stream, redirect_stderr(stream):
        try:
            with RunLock(root / "runs" / planned.name):
                work()
        except InputError as error:
            print(f"skipped: {error}", file=stream)
            return Outcome(planned.name, "skipped", str(error), time.perf_counter() - started)
        except Exception as error:  # one run's failure must not end the others
            traceback.print_exc(file=stream)
            message = f"{type(error).__name__}: {error}"
            return Outcome(planned.name, "failed", message, time.perf_counter() - started)
    return Outcome(planned.name, "finished", "", time.perf_counter() - started)


def execute(
    plan: Sequence[Planned],
    root: Path,
    on_outcome: Callable[[int, Outcome], None],
    session: Session,
) -> dict[str, Outcome]:
    """Run every planned run, recording each outcome in ``outcomes.json`` as it comes (and
    telling ``on_outcome``): the finished ones are reused, the others trained by
    ``session``, a launcher's."""
    planned_so_far = read_plan(root) | {planned.name: planned.labels for planned in plan}
    write_atomic(root / PLAN, json.dumps(planned_so_far, indent=2, ensure_ascii=False) + "\n")
    outcomes = read_outcomes(root)

    done = 0

    def record(outcome: Outcome) -> None:
        nonlocal done
        done += 1
        reused = outcome.message == "reused" and outcome.name in outcomes
        if not reused:  # a reused run keeps the record of when it ran
            outcomes[outcome.name] = outcome
            data = {name: asdict(found) for name, found in outcomes.items()}
            write_atomic(root / OUTCOMES, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        on_outcome(done, outcome)

    pending = []
    for planned in plan:
        if complete(planned, root):
            record(Outcome(planned.name, "finished", "reused"))
        else:
            pending.append(planned)
    if pending:
        session.train(pending, root, record)
    return outcomes


def progress_reporter(total: int) -> tuple[Any, Callable[[int, Outcome], None]]:
    """A rich bar over the runs (on a terminal) and one line per run on stderr."""
    # Bound to today's stderr: runs in this process redirect sys.stderr to their logs.
    console = Console(file=sys.stderr)
    bar = Progress(
        TextColumn("experiment"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not (bars() and console.is_terminal),
        redirect_stdout=False,
        redirect_stderr=False,
    )
    task = bar.add_task("runs", total=total)

    def report(count: int, outcome: Outcome) -> None:
        detail = {
            "finished": "reused" if outcome.message == "reused" else _duration(outcome.seconds),
            "skipped": f"skipped: {outcome.message}",
            "failed": f"FAILED: {outcome.message}",
        }[outcome.status]
        console.print(f"[{count}/{total}] {outcome.name}: {detail}", highlight=False, markup=False)
        bar.update(task, completed=count)

    return bar, report


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"finished in {minutes} min {rest} s" if minutes else f"finished in {rest} s"
