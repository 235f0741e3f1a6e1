"""One writer per run directory: a lock file that names the process holding it.

``phonkit train`` (new, ``--force`` or ``--resume``) holds ``DIR/.lock`` while it writes a
run directory; a second writer is refused with one line naming the holder, and a reader
(``predict``, ``evaluate``) is told the run is being written. The lock is an ``flock`` on
that file, which the kernel drops when its process ends, however it ends: a lock left behind
by a killed process is stale by construction (the file still names the dead process, but
nobody holds it), and the next writer takes it over and says so. The file is removed when
the writer is done, and the directories the lock created are removed again if nothing else
was written to them.

``phonkit train`` and the experiment runner lock a run around ``start_run`` and
``train_run``; ``Run.create`` locks it again (locks are re-entrant within a process), so that
``--force`` never clears a directory another process is writing. Library callers that train
wrap their calls the same way: ``with RunLock(path): ...`` (or ``rundir.writing``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from phonkit.errors import InputError
from phonkit.progress import say

LOCK_NAME = ".lock"
ATTEMPTS = 5  # a reader probing the lock holds it for an instant: try again before refusing


@dataclass(frozen=True)
class Holder:
    """Who holds a lock: enough for a user to find the process and decide what to do."""

    pid: int
    host: str
    since: str  # local time, ISO 8601, to the second
    command: str

    @classmethod
    def me(cls) -> Holder:
        command = shlex.join(["phonkit", *sys.argv[1:]])
        since = datetime.now().isoformat(timespec="seconds")
        return cls(os.getpid(), socket.gethostname(), since, command)

    def describe(self) -> str:
        if not self.pid:
            return "a process that has not written its name yet"
        return f"pid {self.pid} on {self.host}, since {self.since}: {self.command}"


@dataclass
class _Held:
    descriptor: int
    count: int
    created: list[Path]  # directories the lock made, the run directory first


_held: dict[str, _Held] = {}  # this process's locks by directory: the kernel's flock is per file


def _let_go_in_child() -> None:
    """In a forked child, close the descriptors of the parent's locks: an flock belongs to
    every copy of its descriptor, so a child that kept them would hold the parent's run
    directories locked after the parent ended (the copy model trains in such a child)."""
    for held in _held.values():
        os.close(held.descriptor)
    _held.clear()


os.register_at_fork(after_in_child=_let_go_in_child)


class RunLock:
    """The writer's lock on a run directory, as a context manager (``with RunLock(path):``)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.key = os.path.realpath(self.path)
        self.file = self.path / LOCK_NAME

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        """Take the lock, creating the directory if need be; refuse if another process has it."""
        held = _held.get(self.key)
        if held is not None:
            held.count += 1
            return
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"{self.path} is a file; out needs a directory", setting="out")
        created = [self.path, *self.path.parents]
        created = created[: next(n for n, d in enumerate(created) if d.exists() or d == d.parent)]
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(
                f"cannot create the directory: {error.strerror}", str(self.path)
            ) from None
        try:
            descriptor, previous = self._lock()
        except BaseException:
            _remove_if_empty(created)
            raise
        if previous is not None:
            say(
                f"{self.path}: took over the lock of {previous.describe()} "
                "(that process is no longer running)"
            )
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, json.dumps(asdict(Holder.me())).encode("utf-8"), 0)
        _held[self.key] = _Held(descriptor, 1, created)

    def _lock(self) -> tuple[int, Holder | None]:
        """An open descriptor of the lock file, locked, and the stale holder it named."""
        for attempt in range(ATTEMPTS):
            try:
                descriptor = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as error:
                raise InputError(
                    f"cannot create a lock: {error.strerror}", str(self.file)
                ) from None
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(descriptor)
                os.close(descriptor)
                if holder is not None or attempt == ATTEMPTS - 1:
                    who = (holder or Holder(0, "", "", "")).describe()
                    raise InputError(
                        f"another phonkit process is writing this run directory ({who}); "
                        "wait for it to finish or stop it",
                        str(self.path),
                    ) from None
                time.sleep(0.05)
                continue
            # A holder that is done unlinks the file before unlocking it: make sure the file
            # locked is still the one at the path, not a removed one.
            if _same_file(descriptor, self.file):
                return descriptor, _read_holder(descriptor)
            os.close(descriptor)
        raise InputError("could not take the lock; try again", str(self.file))

    def release(self) -> None:
        held = _held.get(self.key)
        if held is None:
            return
        held.count -= 1
        if held.count:
            return
        del _held[self.key]
        try:
            self.file.unlink(missing_ok=True)
        finally:
            os.close(held.descriptor)
        _remove_if_empty(held.created)


def holder(path: Path) -> Holder | None:
    """The process writing the run directory ``path`` now, if another one is; None if nobody
    (or this process) is."""
    if os.path.realpath(path) in _held:
        return None
    try:
        descriptor = os.open(Path(path) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_holder(descriptor) or Holder(0, "", "", "")
    finally:
        os.close(descriptor)  # closing drops the probe's own lock, if it got one
    return None


def _read_holder(descriptor: int) -> Holder | None:
    size = os.fstat(descriptor).st_size
    try:
        return Holder(**json.loads(os.pread(descriptor, size, 0).decode("utf-8", "replace")))
    except (ValueError, TypeError):  # empty, or not yet (or not) a holder's record
        return None


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(descriptor)
    return (mine.st_dev, mine.st_ino) == (found.st_dev, found.st_ino)


def _remove_if_empty(directories: list[Path]) -> None:
    """Remove the directories a lock made, deepest first, as long as they are empty."""
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:  # not empty: something was written there, and so in its parents
            return
