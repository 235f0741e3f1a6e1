"""The driver's side: each run still to do becomes a Ray task, and what the tasks send back
is written into the experiment directory on this machine.

The driver reads each run's corpus and makes its split (:func:`~phonkit.experiments.runner
.prepare`) just before submitting it, so the workers need phonkit and the plugins the runs
use, not the data. Runs are submitted a few more than the cluster can hold at once, so a
worker that frees up finds the next run waiting. A task that raises is a failed run; a task
whose worker or node is lost is submitted again from the run's last checkpoint, up to
``retries`` times, and the other runs go on.
"""

from __future__ import annotations

import io
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray

from phonkit.plugin import Outcome, Planned, prepare, say, write_atomic
from phonkit_ray import worker
from phonkit_ray.cluster import Cluster, RaySettings

WAIT_SECONDS = 10.0  # how often the driver looks at the cluster's size while runs train
QUEUED = 2  # runs submitted beyond what the cluster can train at once


@dataclass
class Attempt:
    planned: Planned
    number: int  # 1 for the first try, 2 for the first retry...


class RaySession:
    """Trains the runs of an experiment as Ray tasks on a connected cluster."""

    def __init__(self, settings: RaySettings, cluster: Cluster):
        self.settings = settings
        self.cluster = cluster
        self.task = ray.remote(worker.train)

    def summary(self, runs: int) -> str:
        return f"as Ray tasks on {self.cluster.describe()}, {self.settings.per_run()} each"

    def close(self) -> None:
        self.cluster.close()

    def train(
        self, pending: Sequence[Planned], root: Path, record: Callable[[Outcome], None]
    ) -> None:
        # Ray prints what its nodes report about this job (a worker that died...) on stdout,
        # which carries data only: those reports go to logs/ray.log instead.
        with redirect_stdout(AppendOnWrite(root / "logs" / "ray.log")):
            self.loop(pending, root, record)

    def loop(
        self, pending: Sequence[Planned], root: Path, record: Callable[[Outcome], None]
    ) -> None:
        waiting = deque(pending)
        running: dict[Any, Attempt] = {}  # each task's generator, and which run it trains
        try:
            while waiting or running:
                room = self.settings.fits(ray.cluster_resources()) + QUEUED
                while waiting and len(running) < room:
                    planned = waiting.popleft()
                    outcome = prepare(planned, root)
                    if outcome is not None:
                        record(outcome)
                    else:
                        attempt = Attempt(planned, 1)
                        running[self.submit(attempt, root)] = attempt
                if not running:
                    continue
                ready, _ = ray.wait(list(running), num_returns=1, timeout=WAIT_SECONDS)
                for task in ready:
                    attempt = running.pop(task)
                    follow = self.receive(task, attempt, root, record)
                    if follow is not None:
                        running[follow[0]] = follow[1]
        except BaseException:
            for task in running:  # the driver is going: so are its tasks
                ray.cancel(task, force=True)
            raise

    def submit(self, attempt: Attempt, root: Path) -> Any:
        """Send the run's directory as the driver has it to a new task."""
        planned = attempt.planned
        path = root / "runs" / planned.name
        files = {
            file.name: file.read_bytes()
            for file in sorted(path.iterdir())
            if file.is_file() and not file.name.startswith(".")
        }
        threads = max(1, int(self.settings.num_cpus))
        whole = self.settings.transfer == "run"
        task = self.task.options(
            name=f"phonkit {planned.name}",
            num_cpus=self.settings.num_cpus,
            num_gpus=self.settings.num_gpus,
            max_retries=0,  # retried here instead, from the checkpoint the driver holds
        )
        return task.remote(planned, files, threads, whole, str(root))

    def receive(
        self, task: Any, attempt: Attempt, root: Path, record: Callable[[Outcome], None]
    ) -> tuple[Any, Attempt] | None:
        """Take the task's next update; the task (or its retry) when it goes on."""
        name = attempt.planned.name
        try:
            update = ray.get(next(task))
        except StopIteration:
            return self.lost(attempt, root, record, "its task ended without an outcome")
        except ray.exceptions.RayTaskError as error:  # phonkit_ray's own code raised
            message = f"{type(error.cause).__name__}: {error.cause}"
            self.log(root, name, f"phonkit-ray: the task failed: {error}\n")
            record(Outcome(name, "failed", message))
            return None
        except ray.exceptions.RayError as error:  # the worker, its node or an object was lost
            return self.lost(attempt, root, record, f"{type(error).__name__}: {_first_line(error)}")
        write(root, name, update)
        if update.outcome is not None:
            record(update.outcome)
            return None
        return task, attempt

    def lost(
        self, attempt: Attempt, root: Path, record: Callable[[Outcome], None], why: str
    ) -> tuple[Any, Attempt] | None:
        """A run whose worker went away: again from its last checkpoint, or failed when it
        has used its retries."""
        name, retries = attempt.planned.name, self.settings.retries
        self.log(root, name, f"phonkit-ray: the worker was lost ({why})\n")
        if attempt.number > retries:
            tries = f"{attempt.number} tries" if attempt.number > 1 else "no retries"
            record(Outcome(name, "failed", f"worker lost ({tries}): {why}"))
            return None
        say(
            f"{name}: worker lost ({why.split(':')[0]}); trying again from its last checkpoint "
            f"(retry {attempt.number} of {retries}; Ray's report in {root / 'logs' / 'ray.log'})"
        )
        retry = Attempt(attempt.planned, attempt.number + 1)
        return self.submit(retry, root), retry

    @staticmethod
    def log(root: Path, name: str, text: str) -> None:
        with (root / "logs" / f"{name}.log").open("a", encoding="utf-8") as stream:
            stream.write(text)


def write(root: Path, name: str, update: worker.Update) -> None:
    """Write what a task sent into the run's directory and log, each file atomically and in
    the order sent (``metrics.json``, which marks the run finished, last)."""
    path = root / "runs" / name
    for file, data in update.files.items():
        write_atomic(path / file, data)
    if update.log:
        log = root / "logs" / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as stream:
            stream.write(update.log)


class AppendOnWrite(io.TextIOBase):
    """A text stream that appends to a file, created only when something is written."""

    def __init__(self, path: Path):
        self.path = path

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as stream:
                stream.write(text)
        return len(text)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0]
