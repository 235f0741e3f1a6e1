"""Build an openly available lexicon with token counts, shaped like CELEX, for the learning
curve of docs/results/celex.md: UniMorph forms (Kirov et al. 2018) with the word frequencies of the
wordfreq package (Robyn Speer, wordfreq 3, data CC BY-SA 4.0).

Each row is ``lemma<TAB>form<TAB>affix<TAB>count``: the affix is the whole feature bundle as
one morpheme (``V+IND+PST+3+SG``), as CELEX has one inflection type per wordform; the count
is the form's frequency per 10^9 words, shared equally by the cells that have that form (a
corpus count cannot tell syncretic cells apart), rounded.

    pip install wordfreq
    python benchmarks/wordfreq_lexicon.py ../shared/data/unimorph/nld.tsv.xz nl > nld-wordfreq.tsv
"""

from __future__ import annotations

import argparse
import lzma
import sys
from collections import Counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", help="a UniMorph table: lemma<TAB>form<TAB>features (.xz ok)")
    parser.add_argument("language", help="wordfreq's language code, e.g. nl")
    args = parser.parse_args()
    from wordfreq import word_frequency

    opener = lzma.open if args.table.endswith(".xz") else open
    with opener(args.table, "rt", encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    rows = list(dict.fromkeys(tuple(row[:3]) for row in rows if len(row) >= 3))
    cells = Counter(form for _, form, _ in rows)
    frequency = {form: word_frequency(form, args.language) for form in cells}
    for lemma, form, features in rows:
        count = round(frequency[form] * 1e9 / cells[form])
        affix = "+".join(value for value in features.split(";") if value)
        sys.stdout.write(f"{lemma}\t{form}\t{affix}\t{count}\n")


if __name__ == "__main__":
    main()
