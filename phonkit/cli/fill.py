"""``phonkit fill TABLE``: a paradigm table in, the same table with its gaps filled out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from phonkit.cli.options import Beam, Device, Transcribers, Variant, at_least_one
from phonkit.cli.settings import setting_options
from phonkit.errors import InputError
from phonkit.jobs import TABLE_VARIANT


@setting_options("model", "training", "copy")
def fill(
    table: Annotated[
        str, typer.Argument(help="The table: a .csv or .tsv file, one row per stem, or - (stdin).")
    ],
    delimiter: Annotated[
        str | None,
        typer.Option(
            help="Field delimiter (tab, comma, or one character) \\[default: by "
            "extension; stdin: tab]."
        ),
    ] = None,
    header: Annotated[
        bool, typer.Option("--header", help="The first row names the cells.")
    ] = False,
    stem_column: Annotated[
        int | None, typer.Option(help="The column (from 1) that names the stems.")
    ] = None,
    long: Annotated[
        bool,
        typer.Option(
            "--long",
            help="Write stem, cell, form, score, underlying rows of the filled cells "
            "(score: surprisal in nats per symbol; underlying: the stem's underlying "
            "string) instead of the table.",
        ),
    ] = False,
    nbest: Annotated[int, typer.Option(help="Alternatives per gap (with --long).")] = 1,
    beam: Beam = 1,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Keep the run directory here (then predict, uf, paradigm... work on it)."
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace a run in --out.")] = False,
    resume: Annotated[
        bool,
        typer.Option(
            help="Go on with the run in --out that a stopped fill of this table left, then "
            "fill the gaps."
        ),
    ] = False,
    variant: Variant = TABLE_VARIANT,
    transcriber: Transcribers = "none",
    device: Device = "auto",
    settings: dict[str, Any] | None = None,
) -> None:
    """Learn from a paradigm table's filled cells and write the table with every empty cell
    filled (same delimiter, rows and columns) on stdout. Settings are chosen from the
    table's size (docs/results/tables.md; the defaults shown are those of large data); every
    option given overrides them, and --set copy.NAME=VALUE the copy models' settings."""
    from phonkit.data.table import read_table
    from phonkit.tasks.fill import FillRequest
    from phonkit.tasks.fill import fill as fill_table

    at_least_one(nbest=nbest, beam=beam)
    if nbest > 1 and not long:
        raise InputError("--nbest N needs --long: a table holds one form per cell")
    paradigm = read_table(table, delimiter, header, stem_column)
    request = FillRequest(variant, dict(settings or {}), nbest, beam, device, transcriber)
    filled = fill_table(paradigm, request, out, force, table, resume)
    if long:
        write = sys.stdout.write
        write("stem\tcell\tform\tscore\tunderlying\n")
        for one in filled.fillings:
            score = "" if one.surprisal is None else f"{one.surprisal:.4f}"
            stem, cell = paradigm.stems[one.gap.row], paradigm.cells[one.gap.column]
            underlying = filled.underlying.get(stem, "")
            write(f"{stem}\t{cell}\t{one.form}\t{score}\t{underlying}\n")
    else:
        sys.stdout.write(paradigm.format(filled.forms()))
