"""How often the gold form is among a held-out cell's candidates, analogy's or the strings'.

    python benchmarks/candidate_coverage.py ../shared/data/textbook [--seed 1] [--candidates C]

For every table of the folder and the held-out cells of its five folds (those of
``phonkit experiment tables``), the candidates that ``model.candidates`` gives a gap, learnt
on the fold's training cells: with ``analogy`` (the default), the rewrites the model chooses
among (:meth:`phonkit.tables.candidates.Rewrites.candidates`, by proportion too where a
feature table is installed, as ``fill`` applies them); with ``ur``, the forms the
stem's underlying string spells out, most probable first, or the lemma in a citation cell;
with ``analogy+ur``, both (the analogy's first, then the spell-outs they do not hold).
Prints a Markdown table, per table: the share of cells whose gold form is a candidate (the
best a model that only chooses can do) and the mean number of candidates; with ``ur`` also
the share whose first candidate is the gold form, which is ``--candidates ur``'s ACC
without training a model (its runs train one that the strings never read). Then the means
over tables. Seconds (a minute with ``ur``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from phonkit.data.lexicon import Example, segment
from phonkit.data.table import FOLDS, fold_split, read_table
from phonkit.errors import InputError
from phonkit.experiments.paradigm_tables import tables
from phonkit.plugins import feature_table
from phonkit.tables.candidates import Rewrites
from phonkit.tables.rewrites import Symbols
from phonkit.tables.strings import UnderlyingStrings


def coverage(path: Path, seed: int, offered_by: str = "analogy") -> tuple[int, int, int, int]:
    """Held-out cells, those whose gold form is a candidate, those whose gold form is the
    first candidate, and candidates in all, with the candidates ``offered_by`` gives."""
    entries = read_table(path).entries()
    cells = covered = first = offered = 0
    for fold in range(1, FOLDS + 1):
        split = fold_split(entries, fold, seed)
        examples = [Example(e, segment(e.form), ()) for e in split.train]
        ur = UnderlyingStrings(examples, features=feature_table()) if "ur" in offered_by else None
        analogy = Rewrites(examples, features=feature_table())
        strings = Rewrites(examples, strings=ur) if ur else None
        for entry in split.test:
            found = candidates(analogy, strings, entry.lemma, entry.bundle, offered_by)
            gold = segment(entry.form)
            cells += 1
            covered += gold in found
            first += found[:1] == [gold]
            offered += len(found)
    return cells, covered, first, offered


def candidates(
    analogy: Rewrites, strings: Rewrites | None, lemma: str, bundle: str, offered_by: str
) -> Sequence[Symbols]:
    """A gap's candidates as ``model.candidates`` (``analogy`` or ``ur``) gives them, or
    both (``analogy+ur``)."""
    found = analogy.candidates(lemma, bundle) if offered_by != "ur" else []
    if strings is None:
        return found
    known = strings.known(lemma)
    cited = strings.citations.form(lemma, bundle, known)
    spelled = [cited] if cited else strings.spelled(lemma, bundle, known)
    return list(dict.fromkeys([*found, *spelled]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--candidates", choices=("analogy", "ur", "analogy+ur"), default="analogy")
    args = parser.parse_args()
    strings = args.candidates == "ur"
    try:  # every table read before anything is printed
        counted = {name: coverage(path, args.seed, args.candidates)
                   for name, path in tables(args.folder).items()}  # fmt: skip
    except InputError as error:  # one line and exit code 2, as phonkit's commands end
        print(error, file=sys.stderr)
        sys.exit(2)
    first = " first candidate right (%) |" if strings else ""
    header = f"| table | held-out cells | gold among the candidates (%) |{first}"
    print(f"{header} candidates per cell |")
    print("|---|---:|---:|" + ("---:|" if strings else "") + "---:|")
    shares, firsts, sizes = [], [], []
    for name, (cells, covered, first_right, offered) in counted.items():
        if not cells:  # no stem with enough known cells to hold one out
            print(f"| {name} | 0 | |{' |' if strings else ''} |")
            continue
        shares.append(100 * covered / cells)
        firsts.append(100 * first_right / cells)
        sizes.append(offered / cells)
        right = f" {firsts[-1]:.1f} |" if strings else ""
        print(f"| {name} | {cells} | {shares[-1]:.1f} |{right} {sizes[-1]:.2f} |")
    right = f" {sum(firsts) / len(firsts):.2f} |" if strings else ""
    print(
        f"| mean over {len(shares)} tables | | {sum(shares) / len(shares):.1f} |{right} "
        f"{sum(sizes) / len(sizes):.2f} |"
    )


if __name__ == "__main__":
    main()
