"""Underlying strings against the textbook's analysis, table by table.

    python benchmarks/underlying_strings.py ../shared/data/textbook --gold GOLD.tsv [--out TSV]

Infers the underlying string of every stem of every table in the folder from all its known
forms (:func:`phonkit.tables.underlying.infer`, what ``phonkit fill`` and ``phonkit uf
strings`` do) and compares it with the textbook's, exactly (stress marks aside, which some
analyses leave out). GOLD.tsv has a header and the columns ``table`` (the file's name
without its extension), ``row`` (the table's line, from 1) and ``gold_ur`` (the textbook's
string in the table's symbols; several accepted strings are joined by `` | ``); any other
column is ignored. The textbook URs of the 33 problems of ``../shared/data/textbook`` are
those Ellis et al. (2022) typed for grading their system (file ``grading.py`` of the
repository ``ellisk42/bpl_phonology``), in the tables' symbols (docs/results/underlying-forms.md
says how they were matched to the rows).

Prints, per table and over all: the stems, phonkit's exact matches, and those of a baseline,
"the stem of a suffixed form" (the cell whose most frequent suffix the most stems share: a
stem's form there without that suffix, else the stretch its forms share), on all stems and
on the stems whose textbook string is *recoverable* (every symbol of it shows in one of the
stem's forms: the others, such as an underlying vowel no form shows, no reading of the
forms can give). ``--out`` writes a row per stem (table, row, stem, gold, phonkit, right,
baseline, baseline right, recoverable).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

from phonkit.data.table import read_table
from phonkit.data.tsv import format_rows, write_atomic
from phonkit.experiments.paradigm_tables import tables
from phonkit.plugins import feature_table
from phonkit.tables.underlying import Inference, infer

STRESS = "\u0301\u0300"  # acute and grave, which some textbook strings leave out


def plain(text: str) -> str:
    """NFC without stress marks."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if c not in STRESS))


def read_gold(path: Path) -> dict[tuple[str, int], list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return {
            (row["table"], int(row["row"])): [plain(g.strip()) for g in row["gold_ur"].split("|")]
            for row in csv.DictReader(handle, delimiter="\t")
        }


def baseline(rows: list[dict[str, str]], inference: Inference) -> list[str]:
    """The stem of a suffixed form (see the module's docstring)."""
    suffixes: dict[str, Counter[str]] = {}
    for chosen in inference.chosen:
        for cell, analysis in chosen.items():
            suffixes.setdefault(cell, Counter())[analysis.suffix] += 1
    best = max(
        (
            (counts.most_common(1)[0][1], cell, counts.most_common(1)[0][0])
            for cell, counts in suffixes.items()
            if counts.most_common(1)[0][0]
        ),
        default=(0, "", "\0"),  # no cell with a suffix (a table of prefixes): the shared stretch
    )
    _, cell, suffix = best
    found = []
    for known, stem in zip(rows, inference.stems, strict=True):
        form = known.get(cell, "")
        found.append(form[: -len(suffix)] if form.endswith(suffix) else stem.core if stem else "")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--gold", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--no-features",
        action="store_true",
        help="count substitutions by symbol even where a feature table is installed",
    )
    args = parser.parse_args()
    features = None if args.no_features else feature_table()
    gold = read_gold(args.gold)
    record = [["table", "row", "stem", "gold", "phonkit", "right", "baseline", "baseline_right",
               "recoverable"]]  # fmt: skip
    totals: Counter[str] = Counter()
    print("| table | stems | phonkit | baseline | recoverable | phonkit | baseline | s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in tables(args.folder).values():
        table = read_table(path)
        rows = [
            {cell: form for cell, form in zip(table.cells, forms, strict=True) if form}
            for forms in table.forms
        ]
        start = time.process_time()
        inference = infer(rows, features=features)
        seconds = time.process_time() - start
        simple = baseline(rows, inference)
        counts: Counter[str] = Counter()
        for number, (known, string) in enumerate(zip(rows, inference.strings, strict=True)):
            accepted = gold.get((table.name, number + 1))
            if accepted is None:
                continue
            right = plain(string) in accepted
            base = plain(simple[number]) in accepted
            shown = set("".join(plain(f) for f in known.values()))
            recoverable = all(set(g) <= shown for g in accepted[:1])
            counts.update(stems=1, right=right, base=base, recoverable=recoverable,
                          right_recoverable=right and recoverable,
                          base_recoverable=base and recoverable)  # fmt: skip
            record.append([table.name, str(number + 1), table.stems[number], " | ".join(accepted),
                           string, str(int(right)), simple[number], str(int(base)),
                           str(int(recoverable))])  # fmt: skip
        totals.update(counts)
        print(f"| {table.name} | {counts['stems']} | {counts['right']} | {counts['base']} | "
              f"{counts['recoverable']} | {counts['right_recoverable']} | "
              f"{counts['base_recoverable']} | {seconds:.1f} |", flush=True)  # fmt: skip
    share = lambda part, whole: f"{100 * totals[part] / max(1, totals[whole]):.1f}%"  # noqa: E731
    print(f"\nall stems: {totals['stems']}, phonkit {share('right', 'stems')}, baseline "
          f"{share('base', 'stems')}; recoverable: {totals['recoverable']}, phonkit "
          f"{share('right_recoverable', 'recoverable')}, baseline "
          f"{share('base_recoverable', 'recoverable')}")  # fmt: skip
    if args.out:
        write_atomic(args.out, format_rows(record))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
