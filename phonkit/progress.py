"""Everything shown to the user goes to stderr; bars animate only on a terminal."""

from __future__ import annotations

from functools import cache

from rich.console import Console


@cache
def stderr_console() -> Console:
    return Console(stderr=True)


def say(message: str) -> None:
    """A message for the user, on stderr."""
    stderr_console().print(message, highlight=False, markup=False, soft_wrap=True)


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
            disable=not self.console.is_terminal,
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
        figures = (
            f"loss {record.train_loss:.4f}  dev loss {record.dev_loss:.4f}  "
            f"dev acc {record.dev_acc:.1f}  lr {record.lr:.2g}  "
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
