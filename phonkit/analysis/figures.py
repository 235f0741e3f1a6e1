"""Figures written to files (.png, .svg, .pdf) with matplotlib, which loads on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend: files only, no display needed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(figure: Any, out: Path, dpi: int = 110) -> None:
    """Write ``figure`` to ``out``, making its folder, and free it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=dpi)
    pyplot().close(figure)
