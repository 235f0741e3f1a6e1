"""``phonkit predict`` as a pipeline stage: input read and answered chunk by chunk.

A run that ranks candidates first reads the whole input for its new lemmas' known forms
(:meth:`~phonkit.tasks.predict.Predictor.read_input`: its rewrites are counted over them
beside the training paradigms), a file twice, standard input once into a temporary file;
then, as for every other run, or with ``stream`` (``predict --stream``: the rewrites counted
over the training paradigms alone), the gaps are answered chunk by chunk. Streamed, memory
stays bounded whatever the size of the input, and the output of a chunk is written
as soon as it is decoded, in input order. A reader thread parses rows into a bounded queue;
a chunk is the rows waiting there (at most ``CHUNK_ROWS``), so a slow producer's rows are
answered after a short wait (``LINGER``) instead of once the input ends.

A lemma the model has never seen gets an underlying form fitted to its known cells, so a
chunk never cuts through the rows of such a lemma: a chunk that ends inside a run of
consecutive rows of a new lemma holds that run back until the run ends (at the next lemma or
at the end of the input). A run is fitted on its own known cells (see
:func:`phonkit.tasks.predict.by_run`), so the output does not depend on where chunks are cut; a
gap of a new lemma whose run has no known cell is an error naming its row. A run longer than
``RUN_LIMIT`` rows is an error too: it would have to be held in memory whole.

A bad row ends the stream at once with its error: the output then holds the whole rows of
every chunk decoded before it, and nothing after.
"""

from __future__ import annotations

import os
import queue
import select
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import IO, Any

from phonkit.data.cells import DEFAULT_LAYOUT, Cell, Layout, iter_cells
from phonkit.errors import InputError, at
from phonkit.model.device import cpu_threads
from phonkit.tasks.predict import Predictor

CHUNK_ROWS = 2048  # rows decoded at once: the decoder's batch, and the memory bound's unit
LINGER = 0.02  # seconds to wait for more rows before a partial chunk is decoded
RUN_LIMIT = 100_000  # consecutive rows of one new lemma, held in memory until the run ends
AHEAD = 4 * CHUNK_ROWS  # rows parsed ahead of the decoder
POLL = 0.1  # seconds a reader of standard input waits before it looks whether to stop


@dataclass
class _Failure:
    error: BaseException


END = object()  # what ReadAhead.get returns after the last item


class ReadAhead:
    """Items of an iterator produced by a daemon thread into a bounded queue."""

    def __init__(self, items: Iterable[Any], capacity: int = AHEAD):
        self.queue: queue.Queue[Any] = queue.Queue(capacity)
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self._produce, args=(items,), name="phonkit-read-ahead", daemon=True
        )
        self.thread.start()

    def _produce(self, items: Iterable[Any]) -> None:
        try:
            for item in items:
                if not self._put(item):
                    return
            self._put(END)
        except BaseException as error:  # handed to the consumer, which raises it
            self._put(_Failure(error))

    def _put(self, item: Any) -> bool:
        while not self.stopped.is_set():
            try:
                self.queue.put(item, timeout=POLL)
                return True
            except queue.Full:
                continue
        return False

    def get(self, timeout: float | None = None) -> Any:
        """The next item, or ``END`` after the last; the producer's error is raised here;
        ``queue.Empty`` when ``timeout`` passes first."""
        item = self.queue.get(timeout=timeout)
        if isinstance(item, _Failure):
            raise item.error
        return item

    def close(self) -> None:
        """Stop producing: the producer ends when it next hands on an item (see
        :func:`lines_of` for a producer waiting on its input)."""
        self.stopped.set()


def chunks(
    cells: ReadAhead, is_new: Callable[[str], bool], name: str, size: int | None = None
) -> Iterator[list[Cell]]:
    """Chunks of the rows as they arrive (at most ``size`` new rows each, ``CHUNK_ROWS`` by
    default), never ending inside a run of a new lemma's rows unless the input ends there."""
    size = size or CHUNK_ROWS
    held: list[Cell] = []  # a new lemma's run, waiting for its end
    ended = False
    while not ended:
        chunk, taken = held, 0
        item = cells.get()  # wait as long as it takes for the first row
        while item is not END:
            chunk.append(item)
            taken += 1
            if taken >= size:
                break
            try:
                item = cells.get(timeout=LINGER)
            except queue.Empty:
                break
        ended = item is END
        held = []
        if not ended and chunk and is_new(chunk[-1].entry.lemma):
            lemma, start = chunk[-1].entry.lemma, len(chunk) - 1
            while start and chunk[start - 1].entry.lemma == lemma:
                start -= 1
            chunk, held = chunk[:start], chunk[start:]
            if len(held) > RUN_LIMIT:
                raise InputError(
                    f"lemma {lemma!r} is new to the model and has more than {RUN_LIMIT:,} "
                    "rows in a row; a new lemma's rows are held in memory until they end, so "
                    "split its paradigm or give fewer cells",
                    at(name, held[0].line),
                )
        if chunk:
            yield chunk


def lines_of(stream: IO[bytes], stopped: threading.Event) -> Iterator[bytes]:
    """The lines of ``stream``, ending early once ``stopped`` is set.

    Standard input is read from its file descriptor, waiting at most ``POLL`` seconds at a
    time: a reader thread blocked inside ``sys.stdin``'s buffered reader, waiting on a slow
    producer when the command ends (an error, Ctrl-C, a closed pipe), makes the interpreter
    abort at exit ("could not acquire lock ... at interpreter shutdown"). Files are read as
    they are: a read of a file returns."""
    if os.name != "posix" or stream is not getattr(sys.stdin, "buffer", None):
        yield from stream
        return
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError):  # not a real file (io.UnsupportedOperation)
        yield from stream
        return
    pending = b""
    while not stopped.is_set():
        if not select.select([descriptor], [], [], POLL)[0]:
            continue
        block = os.read(descriptor, 1 << 16)
        if not block:
            break
        *complete, pending = (pending + block).split(b"\n")
        yield from (line + b"\n" for line in complete)
    if pending and not stopped.is_set():
        yield pending


@contextmanager
def read_first(
    predictor: Predictor, stream: IO[bytes], name: str, layout: Layout = DEFAULT_LAYOUT
) -> Iterator[IO[bytes]]:
    """``stream`` from its start again, once the predictor has read the known forms of its
    new lemmas (:meth:`~phonkit.tasks.predict.Predictor.read_input`), for a run that ranks
    candidates; standard input (or any stream that cannot go back) is first copied to a
    temporary file. For another run, ``stream`` as it is: it reads nothing first."""
    if predictor.rewrites is None:
        yield stream
        return
    with ExitStack() as stack:
        # standard input is read by its descriptor (lines_of), past a buffer a seek may keep
        if stream is getattr(sys.stdin, "buffer", None) or not stream.seekable():
            copy = stack.enter_context(tempfile.TemporaryFile(prefix="phonkit-input-"))
            shutil.copyfileobj(stream, copy)
            copy.seek(0)
            stream = copy
        start = stream.tell()
        predictor.read_input(iter_cells(stream, name, layout=layout))
        stream.seek(start)
        yield stream


def predict_stream(
    predictor: Predictor,
    stream: IO[bytes],
    name: str,
    write: Callable[[str], None],
    layout: Layout = DEFAULT_LAYOUT,
    whole: bool = True,
) -> None:
    """Fill the gaps of every row of ``stream`` (its columns as ``layout`` says), calling
    ``write`` with each chunk's output (TSV text, :meth:`Predictor.text`) as soon as it is
    decoded, and last with the blank lines after the last row; the whole input read first
    (:func:`read_first`) unless ``whole`` is false: then the rewrites are counted over the
    training paradigms alone."""
    if not whole:
        predictor.read_input(())
        _answer(predictor, stream, name, write, layout)
        return
    with read_first(predictor, stream, name, layout) as again:
        _answer(predictor, again, name, write, layout)


def _answer(
    predictor: Predictor,
    stream: IO[bytes],
    name: str,
    write: Callable[[str], None],
    layout: Layout,
) -> None:
    """Answer ``stream`` chunk by chunk (:func:`predict_stream`)."""
    stopped = threading.Event()
    tail: list[str] = []
    rows = ReadAhead(iter_cells(lines_of(stream, stopped), name, tail, layout))
    try:
        with cpu_threads(predictor.device):
            for chunk in chunks(rows, lambda lemma: not predictor.knows(lemma), name):
                write(predictor.text(chunk, name))
            write("".join(tail))
    finally:
        stopped.set()
        rows.close()
        # the reader notices within POLL seconds, or its put's timeout: let it end
        rows.thread.join(timeout=1.0)
