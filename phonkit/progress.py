"""Messages for the user. The library logs them to the ``phonkit`` logger (``warning: ...``
at level WARNING, the rest at INFO) and prints nothing; the command line shows them on stderr
(:func:`show_messages`). Bars are drawn only where it shows them, and only on a terminal."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from functools import cache

from rich.console import Console

log = logging.getLogger("phonkit")


@cache
def stderr_console() -> Console:
    return Console(stderr=True)


#: How a message names settings on stderr: the message and the settings it names -> text.
Wording = Callable[[str, Sequence[str]], str]


def say(message: str, setting: str | Sequence[str] = ()) -> None:
    """A message for the user, logged to the ``phonkit`` logger. ``setting`` names the
    settings the message speaks of, as for :class:`phonkit.errors.InputError`."""
    settings = (setting,) if isinstance(setting, str) else tuple(setting)
    level = logging.WARNING if message.startswith("warning:") else logging.INFO
    log.log(level, message, extra={"settings": settings})


class StderrHandler(logging.Handler):
    """Each message as one line (or paragraph) on stderr, as the command line shows it; the
    settings a message names in the words ``wording`` gives them (the command line's options)."""

    def __init__(self, wording: Wording | None = None):
        super().__init__()
        self.wording = wording

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            settings = getattr(record, "settings", ())
            if self.wording is not None and settings:
                text = self.wording(text, settings)
        except Exception:  # a malformed record must not end the command
            self.handleError(record)
            return
        stderr_console().print(text, highlight=False, markup=False, soft_wrap=True)


def bars() -> bool:
    """Whether progress bars are drawn: where the messages are shown on stderr (the command
    line's choice, :func:`show_messages`) and stderr is a terminal."""
    shown = any(isinstance(handler, StderrHandler) for handler in log.handlers)
    return shown and stderr_console().is_terminal


def show_messages(wording: Wording | None = None) -> None:
    """Show the library's messages (level INFO and above) on stderr: the command line's
    choice, with its ``wording`` of settings. They still reach handlers on the root logger
    (a notebook's, pytest's)."""
    shown = [handler for handler in log.handlers if isinstance(handler, StderrHandler)]
    if not shown:
        log.addHandler(StderrHandler(wording))
    elif wording is not None:
        shown[0].wording = wording
    log.setLevel(logging.INFO)


class TrainingProgress:
    """A bar over batches with epoch, loss and dev figures on a terminal; one line per epoch
    otherwise (logs stay readable)."""

    def __init__(self, epochs: int, batches: int, first_epoch: int = 0):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.console = stderr_console()
        self.epochs = epochs
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[figures]}"),
            console=self.console,
            disable=not bars(),
            transient=True,
        )
        self.task = self.progress.add_task(
            f"epoch {first_epoch + 1}/{epochs}", total=batches, figures=""
        )

    def __enter__(self) -> TrainingProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def advance(self) -> None:
        self.progress.advance(self.task)

    def report(self, record) -> None:
        dev = (  # a split without dev (a small table's) has only the training loss
            ""
            if math.isnan(record.dev_acc)
            else f"dev loss {record.dev_loss:.4f}  dev acc {record.dev_acc:.1f}  "
        )
        figures = (
            f"loss {record.train_loss:.4f}  {dev}lr {record.lr:.2g}  "
            f"{record.forms_per_second:,.0f} forms/s{'  *' if record.best else ''}"
        )
        say(f"epoch {record.epoch}/{self.epochs}  {figures}")
        self.progress.update(
            self.task,
            completed=0,
            figures=figures,
            description=f"epoch {record.epoch + 1}/{self.epochs}",
        )


def metrics_table(title: str, scores: dict[str, dict[str, float]]) -> None:
    """Print a table of splits x metrics on stderr; a metric a row lacks shows as a dash."""
    from rich.table import Table

    table = Table(title=title)
    names = list(dict.fromkeys(name for values in scores.values() for name in values))
    table.add_column("split")
    for name in names:
        table.add_column(name.upper(), justify="right")
    for split, values in scores.items():
        table.add_row(split, *(f"{values[name]:.3f}" if name in values else "–" for name in names))
    stderr_console().print(table)
