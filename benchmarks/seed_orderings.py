"""Which orderings of the variants are significant in every seed.

    python benchmarks/seed_orderings.py results/unimorph results/unimorph-seeds [--out TSV]

Reads the runs ``LANG-VARIANT-sSEED`` of the experiment records given (their
``predictions.tsv`` or ``predictions.tsv.xz``); for each language, seed and pair of variants
(pi/pd, pi/joint, pd/joint) whose two runs of that seed are finished, the paired permutation
test of ``phonkit experiment report`` (10,000 swaps, two-sided) on that seed's test cells (a
seed draws its own split, so seeds are compared each on its own cells), on ACC, MLD and NLL.
Prints, per language and pair and metric, the direction and p-value in each seed, and
whether one ordering is significant (p < 0.05) in every seed the language has (languages
with runs of one seed only are left out of the printout); ``--out``
writes the rows as TSV.
"""

from __future__ import annotations

import argparse
import lzma
import re
from collections import defaultdict
from pathlib import Path

from phonkit.analysis.significance import permutation_test
from phonkit.data.tsv import format_rows, write_atomic

PAIRS = (("pi", "pd"), ("pi", "joint"), ("pd", "joint"))
METRICS = {"acc": 1, "mld": -1, "nll": -1}  # +1: higher is better
RUN = re.compile(r"^(?P<lang>[a-z]+)-(?P<variant>pi|pd|joint)-s(?P<seed>\d+)$")
LEVEL = 0.05


def scores(run: Path) -> dict[tuple[str, str], dict[str, float]] | None:
    """Per test cell (lemma, features), each metric's score; None for an unfinished run."""
    plain, packed = run / "predictions.tsv", run / "predictions.tsv.xz"
    if plain.exists():
        text = plain.read_text(encoding="utf-8")
    elif packed.exists():
        with lzma.open(packed, "rt", encoding="utf-8") as handle:
            text = handle.read()
    else:
        return None
    header, *rows = [line.split("\t") for line in text.splitlines() if line]
    at = {name: header.index(name) for name in METRICS}
    return {(r[0], r[1]): {m: float(r[i]) for m, i in at.items()} for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, nargs="+")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    runs: dict[tuple[str, int], dict[str, Path]] = defaultdict(dict)
    for record in args.records:
        for run in sorted((record / "runs").iterdir()):
            if found := RUN.match(run.name):
                key = (found["lang"], int(found["seed"]))
                runs[key][found["variant"]] = run
    rows = [["language", "seed", "variant_a", "variant_b", "metric", "items", "mean_a",
             "mean_b", "p_value"]]  # fmt: skip
    seen: dict[tuple[str, str, str, str], list[tuple[int, float, float, float]]] = defaultdict(list)
    for (lang, seed), variants in sorted(runs.items()):
        loaded = {v: s for v, run in variants.items() if (s := scores(run)) is not None}
        for a, b in PAIRS:
            if a not in loaded or b not in loaded:
                continue
            cells = sorted(set(loaded[a]) & set(loaded[b]))
            for metric in METRICS:
                xs = [loaded[a][c][metric] for c in cells]
                ys = [loaded[b][c][metric] for c in cells]
                p = permutation_test(xs, ys)
                mean_a, mean_b = sum(xs) / len(xs), sum(ys) / len(ys)
                rows.append([lang, str(seed), a, b, metric, str(len(cells)), f"{mean_a:.4f}",
                             f"{mean_b:.4f}", f"{p:.4g}"])  # fmt: skip
                seen[lang, a, b, metric].append((seed, mean_a, mean_b, p))
    print("| language | pair | metric | per seed: better (p) | significant in every seed |")
    print("|---|---|---|---|---|")
    held = 0
    for (lang, a, b, metric), found in sorted(seen.items()):
        sign = METRICS[metric]
        winners = [a if sign * (x - y) > 0 else b if x != y else "=" for _, x, y, _ in found]
        if len(found) < 2:  # a language of one seed: its record says it
            continue
        pairs = zip(found, winners, strict=True)
        cells = ", ".join(f"s{seed}: {w} ({p:.3g})" for (seed, _, _, p), w in pairs)
        every = len(set(winners)) == 1 and winners[0] != "=" and all(p < LEVEL for *_, p in found)
        held += every and len(found) == 3
        verdict = f"{winners[0]} > {b if winners[0] == a else a}" if every else "no"
        print(f"| {lang} | {a}/{b} | {metric} | {cells} | {verdict} ({len(found)} seeds) |")
    print(f"\n(language, pair, metric) significant one way in all three seeds: {held}")
    if args.out:
        write_atomic(args.out, format_rows(rows))


if __name__ == "__main__":
    main()
