"""The views as people read them: rich tables on stderr (stdout carries the TSV). Every
value goes in as ``Text``, never as markup, so a form with brackets prints as it is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from rich import box
from rich.console import JustifyMethod
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from phonkit.progress import stderr_console
from phonkit.views.concordance import Line
from phonkit.views.error_analysis import END, Analysis, Group
from phonkit.views.stats import Description, mean, median

if TYPE_CHECKING:  # a paradigm is made with the model: its module imports torch
    from phonkit.views.paradigm import Paradigm

EMPTY = "∅"  # an empty ending


def show(table: Table) -> None:
    """Print a table whole: on a terminal long values fold within their column; elsewhere
    (a log, a file) the table takes the width it needs, so no value is ever cut short."""
    console = stderr_console()
    for column in table.columns:
        column.overflow = "fold"
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    wide = console.options.update(width=10_000)
    console.width = max(width, Measurement.get(console, wide, table).maximum)
    try:
        console.print(table)
    finally:
        console.width = width


def rows_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows of text under their header, as they are (``[-son]`` is no markup)."""
    table = Table(title=title, box=box.SIMPLE_HEAD)
    for name in header:
        table.add_column(Text(name))
    for row in rows:
        table.add_row(*(Text(value) for value in row))
    show(table)


def stats_summary(descriptions: Sequence[Description], title: str, top: int = 8) -> None:
    # One description is named in its column; several (a run's splits) share the title.
    table = Table(title=title if len(descriptions) > 1 else None, box=box.SIMPLE_HEAD)
    table.add_column("")
    for description in descriptions:
        table.add_column(description.name, justify="right")
    rows = [
        (key, [_count(d.size().get(key, math.nan)) for d in descriptions])
        for key in ("entries", "lemmas", "forms", "bundles", "features", "symbols", "tokens")
        if any(key in d.size() for d in descriptions)
    ]
    rows += [
        ("paradigm size (median)", [_figure(median(d.paradigm_sizes)) for d in descriptions]),
        ("paradigm size (mean)", [_figure(mean(d.paradigm_sizes)) for d in descriptions]),
        ("paradigm size (max)", [str(max(d.paradigm_sizes, default=0)) for d in descriptions]),
        ("morphemes per word", [_figure(mean(d.morphemes_per_word)) for d in descriptions]),
        ("form length (symbols)", [_figure(mean(d.form_lengths)) for d in descriptions]),
    ]
    for label, values in rows:
        table.add_row(Text(label), *(Text(value) for value in values))
    show(table)
    widest = max(descriptions, key=lambda d: d.entries)
    console = stderr_console()
    for label, counter in (
        ("parts of speech (lemmas)", widest.pos),
        ("bundles", widest.bundles),
        ("features", widest.features),
        ("alphabet", widest.alphabet),
    ):
        shown = ", ".join(f"{key} {value:,}" for key, value in counter.most_common(top))
        more = f", … ({len(counter):,} in all)" if len(counter) > top else ""
        console.print(Text(f"{label} ({widest.name}): {shown}{more}"), soft_wrap=True)


def _count(value: float) -> str:
    if math.isnan(value):
        return "–"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


def _figure(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}"


def paradigm_tables(paradigms: Sequence[Paradigm], joiner: str, run: str) -> None:
    for paradigm in paradigms:
        right, scored = paradigm.tally(("train", "dev", "test", "known"))
        held_right, held = paradigm.tally(("dev", "test"))
        how = "underlying form fitted to the known cells" if paradigm.fitted else "in the model"
        title = (
            f"{paradigm.lemma} ({paradigm.pos}; {how}): {len(paradigm.cells)} cells, "
            f"{right}/{scored} right where the gold is known"
            + (f", {held_right}/{held} of the held-out cells" if held else "")
        )
        table = Table(title=Text(title), box=box.SIMPLE_HEAD, title_justify="left")
        for column in ("features", "gold", "from", "model", "surprisal", "gold surprisal"):
            table.add_column(column, justify="right" if "surprisal" in column else "left")
        for cell in paradigm.cells:
            golds = " / ".join(dict.fromkeys(joiner.join(gold.surface) for gold in cell.golds))
            style = {True: "green", False: "bold red", None: ""}[cell.correct]
            table.add_row(
                Text(cell.bundle),
                Text(golds or "–"),
                Text("/".join(cell.sources) or "–", style="dim"),
                Text(joiner.join(cell.prediction), style=style),
                Text(f"{cell.surprisal:.3f}"),
                Text("–" if cell.gold_surprisal is None else f"{cell.gold_surprisal:.3f}"),
            )
        show(table)


def errors_summary(analysis: Analysis, joiner: str, title: str, examples: int, top: int) -> None:
    cells = len(analysis.cells)
    wrong = cells - analysis.right
    console = stderr_console()
    accuracy = 100 * analysis.right / cells if cells else math.nan
    console.print(
        Text(f"{title}: {cells:,} test cells, {wrong:,} errors, accuracy {accuracy:.1f}%"),
        soft_wrap=True,
    )
    if not cells:
        return
    wrong_bundles = [g for g in analysis.bundles if g.right < g.cells]
    worst = sorted(wrong_bundles, key=lambda g: (g.right - g.cells, g.accuracy, g.key))[:top]
    if worst:
        title = f"bundles with errors: {len(wrong_bundles)} of {len(analysis.bundles)}"
        if len(worst) < len(wrong_bundles):
            title += f", the {len(worst)} with most"
        show(_groups(worst, title))
    show(_groups(analysis.bands, "by lemma frequency (training cells of the lemma)"))
    if not analysis.types:
        return
    table = Table(
        title=(
            f"the {top} most frequent of {len(analysis.types):,} error types"
            if len(analysis.types) > top
            else f"the {len(analysis.types):,} error types"
        )
        + " (gold → predicted; -x an ending, x- a beginning)",
        box=box.SIMPLE_HEAD,
    )
    for column, justify in (("gold", "right"), ("", "center"), ("predicted", "left")):
        table.add_column(column, justify=cast(JustifyMethod, justify))
    table.add_column("errors", justify="right")
    table.add_column("e.g.")
    for kind in analysis.types[:top]:
        at, gold_part, predicted_part = kind.kind
        table.add_row(
            Text(_part(at, gold_part, joiner)),
            Text("→"),
            Text(_part(at, predicted_part, joiner)),
            Text(f"{len(kind.errors):,}"),
            Text(kind.examples(joiner)),
        )
    show(table)
    if examples <= 0:
        return
    listing = Table(
        title=f"{min(examples, wrong):,} of {wrong:,} errors, aligned where prediction and gold "
        "part (gold in green, prediction in red)",
        box=box.SIMPLE_HEAD,
    )
    for number, column in enumerate(("lemma", "", "gold", "predicted", "", "features")):
        listing.add_column(column, justify="right" if number < 2 else "left")  # lemma, before
    for item, change in analysis.errors[:examples]:
        listing.add_row(
            Text(item.lemma, style="dim"),
            Text(joiner.join(change.before)),
            Text(joiner.join(change.gold_part) or EMPTY, style="green"),
            Text(joiner.join(change.predicted_part) or EMPTY, style="bold red"),
            Text(joiner.join(change.after)),
            Text(item.bundle, style="dim"),
        )
    show(listing)


def _part(at: str, symbols: Sequence[str], joiner: str) -> str:
    """``-ste`` for an ending, ``ge-`` for a beginning, ``∅`` for nothing."""
    if not symbols:
        return EMPTY
    return f"-{joiner.join(symbols)}" if at == END else f"{joiner.join(symbols)}-"


def _groups(groups: Sequence[Group], title: str) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD)
    for column in ("", "test cells", "errors", "ACC", "MLD", "lemmas", "training cells"):
        table.add_column(column, justify="right" if column else "left")
    for group in groups:
        table.add_row(
            Text(group.key),
            Text(f"{group.cells:,}"),
            Text(f"{group.cells - group.right:,}"),
            Text(f"{group.accuracy:.1f}"),
            Text(f"{group.mld:.3f}"),
            Text(f"{len(group.lemmas):,}"),
            Text(f"{group.train:,}"),
        )
    return table


def concordance_lines(lines: Sequence[Line], show_lines: int, title: str) -> None:
    console = stderr_console()
    console.print(Text(title), soft_wrap=True)
    if show_lines <= 0 or not lines:
        return
    # No padding, so that the form reads as one word across its three columns; without
    # colour the match is marked with brackets instead of reverse video.
    plain = console.color_system is None
    table = Table(box=None, show_header=False, padding=0)
    for justify, style in (
        ("right", "dim"),
        ("left", ""),
        ("right", ""),
        ("left", "" if plain else "bold reverse"),
        ("left", ""),
        ("left", ""),
        ("left", "dim"),
        ("left", "dim"),
    ):
        table.add_column(justify=cast(JustifyMethod, justify), style=style)
    several = len({line.part for line in lines}) > 1
    for line in lines[:show_lines]:
        match = f"[{line.match}]" if plain else line.match
        table.add_row(
            Text(line.entry.lemma),
            Text("   "),
            Text(line.before),
            Text(match),
            Text(line.after),
            Text("   "),
            Text(line.entry.bundle),
            Text(f"   {line.part}" if several else ""),
        )
    show(table)
