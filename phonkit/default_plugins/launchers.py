"""The built-in launcher ``local``: the runs of an experiment train on this machine, one at a
time in this process, or ``jobs`` (or ``launcher.jobs``) at a time in separate processes that
share its cores (or its one GPU)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl
from phonkit.jobs import read_settings

if TYPE_CHECKING:  # the runner imports torch: only when runs train, not when plugins load
    from phonkit.jobs import Outcome, Planned


@dataclass
class LocalSettings:
    jobs: int = 1  # runs at once, each in its own process when more than one


class LocalSession:
    def __init__(self, jobs: int):
        self.jobs = jobs

    def summary(self, runs: int) -> str:
        return f"{self.jobs} at a time" + (" in local processes" if self.jobs > 1 else "")

    def train(
        self, pending: Sequence[Planned], root: Path, record: Callable[[Outcome], None]
    ) -> None:
        from phonkit.experiments.runner import run_one

        if self.jobs <= 1 or len(pending) <= 1:
            for planned in pending:
                record(run_one(planned, root))
            return
        threads = max(1, (os.cpu_count() or 1) // self.jobs)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context) as pool:
            futures = [pool.submit(run_one, planned, root, threads) for planned in pending]
            try:
                for future in as_completed(futures):
                    record(future.result())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise

    def close(self) -> None:
        pass


class Local:
    name = "local"
    description = "processes on this machine (--jobs N at a time)"

    def start(self, settings: Mapping[str, str], jobs: int) -> LocalSession:
        chosen = read_settings(LocalSettings, settings, self.name)
        if "jobs" in settings and jobs not in (1, chosen.jobs):
            raise InputError(
                f"jobs={jobs} and launcher.jobs={chosen.jobs} disagree; give one",
                setting=("jobs", "launcher.jobs"),
            )
        given = "launcher.jobs" if "jobs" in settings else "jobs"
        jobs = chosen.jobs if "jobs" in settings else jobs
        if jobs < 1:
            raise InputError(f"{given} must be at least 1", setting=given)
        return LocalSession(jobs)


@hookimpl
def register_launchers(register) -> None:
    register(Local())
