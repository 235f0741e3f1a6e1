"""The Ray task that trains one run of an experiment on a worker.

The worker needs neither the corpus nor the experiment directory: the driver sends the run's
directory as it has it (config, vocabularies and split, and when the run was interrupted its
checkpoint), the task trains it in a scratch directory on its own node with phonkit's
:func:`~phonkit.experiments.runner.run_one`, and streams the files that change back to the
driver while it trains (each epoch's checkpoint and weights, so that a run cut short goes on
from there on any node), then the run's scores and its outcome. Its log follows the same way.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from phonkit.plugin import (
    CHECKPOINT,
    COMPLETED,
    METRICS,
    PREDICTIONS,
    RECORD,
    WEIGHTS,
    Outcome,
    Planned,
    run_one,
)

POLL_SECONDS = 1.0
# The trainer writes the best weights before the checkpoint that names them, and scoring
# writes metrics.json last because it marks the run finished: the driver writes in that order.
FIRST = (WEIGHTS, CHECKPOINT)
LAST = METRICS
# The compact record of a finished run: what the experiment's tables are made of (with the
# completions of covered files an experiment makes after training).
KEPT = (*RECORD, PREDICTIONS, *COMPLETED.values())


@dataclass
class Update:
    """What a task sends its driver: the run's files that changed (name -> contents, in the
    order to write them), what its log gained, and with the last update the run's outcome."""

    files: dict[str, bytes] = field(default_factory=dict)
    log: bytes = b""
    outcome: Outcome | None = None


def train(
    planned: Planned, files: dict[str, bytes], threads: int, whole_run: bool, root: str
) -> Iterator[Update]:
    """Train ``planned`` from ``files`` (its run directory so far); yields an update whenever
    files change (only the log and, at the end, the compact record unless ``whole_run``).
    ``root`` is the experiment directory on the driver, which the log names instead of the
    scratch directory."""
    scratch = Path(tempfile.mkdtemp(prefix="phonkit-ray-"))
    try:
        path = scratch / "runs" / planned.name
        path.mkdir(parents=True)
        for name, data in files.items():
            (path / name).write_bytes(data)
        log = scratch / "logs" / f"{planned.name}.log"
        log.parent.mkdir()
        log.write_text(f"phonkit-ray: on {_node()} (process {os.getpid()})\n", encoding="utf-8")
        watch = Watch(path, log, (str(scratch).encode(), root.encode()))
        ended: list[Outcome] = []
        # Training runs in a thread so that this generator can send what it writes meanwhile.
        worker = threading.Thread(
            target=lambda: ended.append(run_one(planned, scratch, threads)), daemon=True
        )
        worker.start()
        while worker.is_alive():
            worker.join(POLL_SECONDS)
            update = watch.update(whole_run and worker.is_alive())
            if update.files or update.log:
                yield update
        update = watch.update(True, None if whole_run else KEPT)
        update.outcome = (
            ended[0]
            if ended
            else Outcome(planned.name, "failed", "training ended without an outcome")
        )
        yield update
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class Watch:
    """The files of a run directory that changed since the last look, and a log's new text."""

    def __init__(self, path: Path, log: Path, rename: tuple[bytes, bytes]):
        self.path, self.log, self.rename = path, log, rename
        self.seen = self.stamps()  # what the driver sent is there already
        self.log_offset = 0

    def stamps(self) -> dict[str, tuple[int, int, int]]:
        """Each file's inode, modification time and size: phonkit writes through a rename, so
        a rewritten file has a new inode even within the clock's resolution."""
        found = {}
        for file in self.path.iterdir():
            if file.is_file() and not file.name.startswith("."):  # not write_atomic's temporaries
                stat = file.stat()
                found[file.name] = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        return found

    def update(self, files: bool, only: tuple[str, ...] | None = None) -> Update:
        """An update with the log's new text and, if ``files``, the changed files (or, with
        ``only``, those of ``only`` that exist, changed or not)."""
        update = Update(log=self.new_log())
        if not files:
            return update
        now = self.stamps()
        if only is not None:
            changed = [name for name in only if name in now]
        else:
            changed = [name for name, stamp in now.items() if self.seen.get(name) != stamp]
        for name in sorted(changed, key=_write_order):
            try:
                update.files[name] = (self.path / name).read_bytes()
            except FileNotFoundError:  # replaced between the look and the read: next time
                now.pop(name, None)
        self.seen.update(now)
        return update

    def new_log(self) -> bytes:
        try:
            with self.log.open("rb") as stream:
                stream.seek(self.log_offset)
                text = stream.read()
        except FileNotFoundError:
            return b""
        self.log_offset += len(text)
        return text.replace(*self.rename)


def _node() -> str:
    """This worker's node, by host name and Ray's address for it."""
    try:
        import ray

        return f"{socket.gethostname()} ({ray.util.get_node_ip_address()})"
    except Exception:  # outside a Ray worker
        return socket.gethostname()


def _write_order(name: str) -> tuple[int, str]:
    if name == LAST:
        return (2, name)
    return (0, str(FIRST.index(name))) if name in FIRST else (1, name)
