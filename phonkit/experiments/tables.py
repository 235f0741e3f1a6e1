"""Writing an experiment's tables: TSV for programs, Markdown for documents, a rich table on
stderr for the person at the terminal."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from phonkit.data.tsv import format_rows, write_atomic
from phonkit.progress import stderr_console

DECIMALS = {"acc": 1, "mld": 3, "nll": 3}


def figure(value: float | None, metric: str) -> str:
    """A metric value as the paper prints it (ACC 1 decimal, MLD and NLL 3); empty if none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{DECIMALS.get(metric, 3)}f}"


def p_value(p: float) -> str:
    return "" if math.isnan(p) else ("<0.0001" if p < 1e-4 else f"{p:.4f}")


def markdown(header: Sequence[str], rows: Sequence[Sequence[object]], labels: int = 2) -> str:
    """A Markdown table; columns after the first ``labels`` are right-aligned (numbers)."""
    align = ["---" if i < labels else "---:" for i in range(len(header))]
    lines = [header, align, *rows]
    return "".join("| " + " | ".join(str(cell) for cell in line) + " |\n" for line in lines)


def write_table(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    write_atomic(path, format_rows([header, *rows]))


def show(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """The table on stderr."""
    table = Table(title=title)
    for number, name in enumerate(header):
        table.add_column(str(name), justify="left" if number < 2 else "right")
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    stderr_console().print(table)


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value; NaN for none)."""
    if not values:
        return float("nan"), float("nan")
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
