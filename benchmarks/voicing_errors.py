"""How many of a learning curve's errors are the voicing of one obstruent, and whether the
training draw could have told it.

    python benchmarks/voicing_errors.py EXPERIMENT [EXPERIMENT ...] [--out TSV]

Reads the runs ``VARIANT-kK-dD`` of each ``phonkit experiment celex`` directory (their
``predictions.tsv`` or ``predictions.tsv.xz``, and ``train.tsv`` where the directory has it:
an experiment's own directory does, an exported record does not). Per language, variant and
k, summed over the draws: the test forms, the errors, the errors whose prediction differs
from the gold form in one segment only and that by voicing (``d`` for ``t``: the pairs of
``PAIRS``), and of those, the ones where the gold segment is voiced and the prediction
voiceless; with ``train.tsv``, how many of these the draw gave no evidence for: no training
form of the lemma holds the voiced segment (the stem was seen only where its voicing is
neutralised, as Dutch hond [hɔnt] beside honden [hɔndən]). Prints a TSV with a header.
"""

from __future__ import annotations

import argparse
import csv
import io
import lzma
import re
import sys
from collections import defaultdict
from pathlib import Path

PAIRS = {  # (voiceless, voiced) obstruents, in the symbols epitran and flite write
    ("p", "b"), ("t", "d"), ("k", "ɡ"), ("k", "g"), ("f", "v"), ("s", "z"), ("x", "ɣ"),
    ("ʃ", "ʒ"), ("θ", "ð"), ("ç", "ʝ"), ("t͡ʃ", "d͡ʒ"), ("ʧ", "ʤ"),
}
VOICED = {voiced for _, voiced in PAIRS}
RUN = re.compile(r"^(?P<variant>[a-z]+)-k(?P<k>\d+)-d(?P<draw>\d+)$")
COLUMNS = ["experiment", "variant", "k", "draws", "test_forms", "errors", "voicing_only",
           "voiced_as_voiceless", "without_evidence"]  # fmt: skip


def predictions(run: Path) -> list[dict[str, str]]:
    plain, packed = run / "predictions.tsv", run / "predictions.tsv.xz"
    if plain.exists():
        text = plain.read_text(encoding="utf-8")
    else:
        with lzma.open(packed, "rt", encoding="utf-8") as handle:
            text = handle.read()
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def training_segments(run: Path) -> dict[str, set[str]] | None:
    """Each lemma's segments over its training forms (None without ``train.tsv``)."""
    path = run / "train.tsv"
    if not path.exists():
        return None
    found: dict[str, set[str]] = defaultdict(set)
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 2:
            found[fields[0]].update(fields[1].split())
    return found


def voicing(gold: list[str], predicted: list[str]) -> tuple[str, str] | None:
    """The (gold, predicted) segments where the two differ in one voicing only, else None."""
    if len(gold) != len(predicted):
        return None
    differ = [(g, p) for g, p in zip(gold, predicted, strict=True) if g != p]
    if len(differ) != 1:
        return None
    g, p = differ[0]
    return (g, p) if (g, p) in PAIRS or (p, g) in PAIRS else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiments", type=Path, nargs="+")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = []
    for experiment in args.experiments:
        tally: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0] * 6)
        for run in sorted((experiment / "runs").iterdir()):
            match = RUN.match(run.name)
            if not match or not any(run.glob("predictions.tsv*")):
                continue
            seen = training_segments(run)
            counts = tally[match["variant"], int(match["k"])]
            counts[0] += 1
            for row in predictions(run):
                gold, predicted = row["gold"].split(), row["prediction"].split()
                counts[1] += 1
                if gold == predicted:
                    continue
                counts[2] += 1
                pair = voicing(gold, predicted)
                if pair is None:
                    continue
                counts[3] += 1
                if pair[0] in VOICED:
                    counts[4] += 1
                    if seen is not None and pair[0] not in seen.get(row["lemma"], set()):
                        counts[5] += 1
        has_train = any((experiment / "runs").glob("*/train.tsv"))
        for (variant, k), counts in sorted(tally.items(), key=lambda item: item[0][::-1]):
            rows.append([experiment.name, variant, str(k), *map(str, counts[:5]),
                         str(counts[5]) if has_train else ""])  # fmt: skip
    text = "\n".join("\t".join(row) for row in [COLUMNS, *rows]) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
