"""The UniMorph table of Wu, Ponti & Cotterell: the model variants on the paper's 28
languages, ACC / MLD / NLL per language and on average, beside the paper's figures, with
paired permutation tests between the variants.

Each language reads the full UniMorph table when ``<data-dir>/unimorph/<iso3>`` exists,
else the CoNLL-SIGMORPHON 2017 files (task 1 and task 2 merged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import Any

from phonkit.analysis.significance import PERMUTATIONS, compare
from phonkit.data.corpora import LANGUAGES, CorpusRequest
from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.experiments.paper import PAPER
from phonkit.experiments.runner import (
    Launch,
    grouped,
    reuse_settings,
    run_experiment,
    with_configs,
)
from phonkit.experiments.tables import figure, markdown, mean_std, p_value, show, write_table
from phonkit.jobs import Outcome, Planned, TrainRequest
from phonkit.plugins import lookup

METRICS = ("acc", "mld", "nll")
SOURCES = {"unimorph": "UniMorph", "conll2017": "CoNLL-2017"}
ORDER = ("pi", "pd", "joint")  # the paper's ranking of its variants


def source(lang: str, data_dir: Path | None) -> str | None:
    """The corpus a language's row reads: the full UniMorph table if it is on disk, else the
    CoNLL-2017 files; None when neither is there."""
    request = CorpusRequest(lang, data_dir)
    if lookup("corpora", "unimorph").table(request, lang) is not None:
        return "unimorph"
    if lang in lookup("corpora", "conll2017").languages(request):
        return "conll2017"
    return None


def languages(spec: str, data_dir: Path | None) -> dict[str, str]:
    """The languages of ``spec`` (codes, comma-separated; ``all``: the paper's 28) with the
    corpus each reads."""
    wanted = (
        list(LANGUAGES)
        if spec.strip() == "all"
        else [code.strip() for code in spec.split(",") if code.strip()]
    )
    if not wanted:
        raise InputError("langs needs ISO 639-3 codes separated by commas, or all", setting="langs")
    found = {lang: source(lang, data_dir) for lang in dict.fromkeys(wanted)}
    missing = [lang for lang, corpus in found.items() if corpus is None]
    if missing:
        available = sorted(
            code
            for code in set(LANGUAGES) | {lang for lang in found if found[lang]}
            if source(code, data_dir)
        )
        raise InputError(
            f"no UniMorph table or CoNLL-2017 files for {', '.join(missing)} under "
            f"{CorpusRequest(data_dir=data_dir).root}; available: {', '.join(available) or 'none'}"
        )
    return {lang: corpus for lang, corpus in found.items() if corpus}


def run(
    out: Path,
    base: TrainRequest,
    langs: str = "all",
    variants: Sequence[str] = ("pi", "pd", "joint"),
    seeds: Sequence[int] = (1,),
    launch: Launch | None = None,
    permutations: int = PERMUTATIONS,
    force: bool = False,
) -> list[Outcome]:
    """The UniMorph table in ``out``: ``variants`` on ``langs`` (ISO codes, comma-separated,
    or ``all``) with ``base``'s settings, one run per seed, then the report; the runs that
    failed or were skipped."""
    base = with_configs(base)
    chosen = languages(langs, base.request.data_dir)
    runs = plan(chosen, [lookup("models", v).name for v in variants], seeds, base)
    settings = reuse_settings(base) | {"data_dir": str(base.request.root)}
    return run_experiment(
        out, "unimorph", settings, runs, launch or Launch(), force,
        lambda: report(out, permutations),
    )  # fmt: skip


def plan(
    langs: dict[str, str], variants: Sequence[str], seeds: Sequence[int], base: TrainRequest
) -> list[Planned]:
    """One run per (language, variant, seed), languages in the order given."""
    runs = []
    for lang, corpus in langs.items():
        for variant in variants:
            for seed in seeds:
                job = replace(
                    base,
                    corpus=corpus,
                    request=replace(base.request, lang=lang),
                    variant=variant,
                    settings={**base.settings, "seed": seed},
                )
                labels = {"lang": lang, "variant": variant, "seed": seed, "source": corpus}
                runs.append(Planned(f"{lang}-{variant}-s{seed}", job, labels))
    return runs


def report(root: Path, permutations: int = PERMUTATIONS) -> None:
    """Write ``results.{tsv,md}`` and ``significance.tsv`` from the finished runs."""
    groups = grouped(root, lambda labels: (labels["lang"], labels["variant"], labels["source"]))
    cells: dict[tuple[str, str], dict[str, Any]] = {
        (lang, variant): {
            "source": source, "runs": group.runs, "notes": group.notes,
            "test": group.runs[-1].config.counts["test"] if group.runs else None,
        }
        for (lang, variant, source), group in groups.items()
    }  # fmt: skip
    langs = list(dict.fromkeys(lang for lang, _ in cells))
    variants = list(dict.fromkeys(variant for _, variant in cells))
    sources = {lang: cell["source"] for (lang, _), cell in cells.items()}
    for lang in langs:  # a variant planned for some languages only: the others say so
        for variant in variants:
            empty = {"source": sources[lang], "runs": [], "notes": ["not run yet"], "test": None}
            cells.setdefault((lang, variant), empty)
    scores = {key: _means(cell["runs"]) for key, cell in cells.items()}

    long_rows = []
    for (lang, variant), cell in cells.items():
        figures = scores[(lang, variant)]
        long_rows.append(
            [lang, SOURCES.get(cell["source"], cell["source"]), variant, len(cell["runs"]),
             cell["test"] or "", *(f"{figures[m]:.6g}" if figures else "" for m in METRICS),
             *_paper(variant, lang),
             "; ".join(dict.fromkeys(cell["notes"])) if not cell["runs"] else ""]
        )  # fmt: skip
    header = ["language", "source", "variant", "seeds", "test_cells", *METRICS,
              *(f"paper_{m}" for m in METRICS), "note"]  # fmt: skip
    write_table(root / "results.tsv", header, long_rows)

    comparisons = _significance(cells, variants, langs, permutations)
    write_table(
        root / "significance.tsv",
        ["language", "variant_a", "variant_b", "metric", "items", "mean_a", "mean_b", "p_value"],
        [[lang, a, b, c.metric, c.items, f"{c.mean_a:.6g}", f"{c.mean_b:.6g}", f"{c.p_value:.6g}"]
         for (lang, a, b), found in comparisons.items() for c in found],
    )  # fmt: skip
    header, rows = _wide(langs, variants, cells, scores)
    text = _document(root, markdown(header, rows), langs, variants, cells)
    text += _against_paper(langs, variants, cells, scores)
    write_atomic(root / "results.md", text + _tests(comparisons, permutations, variants))
    show(f"{root}: test ACC / MLD / NLL", *_compact(header, rows, variants))


def _means(runs: list) -> dict[str, float]:
    """Each metric's mean over a cell's finished seeds."""
    if not runs:
        return {}
    tests = [run.metrics()["test"] for run in runs]
    return {m: mean_std([test[m] for test in tests])[0] for m in METRICS}


def _paper(variant: str, lang: str) -> list[str]:
    paper = PAPER.get((variant, lang), (None, None, None))
    return [figure(v, m) for v, m in zip(paper, METRICS, strict=True)]


def _beside(ours: dict[str, float], variant: str, lang: str) -> list[str]:
    """Each metric as ``ours (paper's)``, or ours alone where the paper has no figure."""
    paper = _paper(variant, lang)
    return [
        f"{figure(ours[m], m)} ({theirs})" if theirs else figure(ours[m], m)
        for m, theirs in zip(METRICS, paper, strict=True)
    ]


def _wide(langs, variants, cells, scores) -> tuple[list[str], list[list[str]]]:
    """One row per language: each variant's three figures beside the paper's; then the
    average over the languages every variant finished, with the paper's average over the
    same languages, and the paper's average over its 28."""
    header = ["language", "source", "test cells"]
    header += [f"{v} {m.upper()} (paper)" for v in variants for m in METRICS]
    rows = []
    for lang in langs:
        first = cells[(lang, variants[0])]
        tests = [cells[(lang, v)]["test"] for v in variants if cells[(lang, v)]["test"]]
        row = [lang, SOURCES.get(first["source"], first["source"])]
        row.append(f"{tests[0]:,}" if tests else "")
        for variant in variants:
            if figures := scores[(lang, variant)]:
                row += _beside(figures, variant, lang)
            else:
                row += [f"({'; '.join(dict.fromkeys(cells[(lang, variant)]['notes']))})", "", ""]
        rows.append(row)
    complete = [lang for lang in langs if all(scores[(lang, v)] for v in variants)]
    if complete:
        average = [f"average ({_languages(len(complete))})", "", ""]
        for variant in variants:
            for number, m in enumerate(METRICS):
                ours = figure(mean_std([scores[(x, variant)][m] for x in complete])[0], m)
                theirs = [PAPER[(variant, x)][number] for x in complete if (variant, x) in PAPER]
                paper = figure(mean_std(theirs)[0], m) if len(theirs) == len(complete) else ""
                average.append(f"{ours} ({paper})" if paper else ours)
        rows.append(average)
    average_of_paper = ["paper average (28 languages)", "", ""]
    rows.append(average_of_paper + [value for v in variants for value in _paper(v, "average")])
    return header, rows


def _languages(count: int) -> str:
    return f"{count} language{'s' * (count != 1)}"


def _compact(header, rows, variants) -> tuple[list[str], list[list[str]]]:
    """The wide table with each variant's three figures in one column, for a terminal."""
    width = len(METRICS)
    compact = [header[:3] + [f"{name} ACC / MLD / NLL (paper)" for name in variants]]
    for row in rows:
        figures = [row[3 + i * width : 3 + (i + 1) * width] for i in range(len(variants))]
        compact.append(row[:3] + [" / ".join(f for f in part if f) for part in figures])
    return compact[0], compact[1:]


def _against_paper(langs, variants, cells, scores) -> str:
    """How many languages each variant matches or beats the paper's ACC on, by data source."""
    lines = []
    for variant in variants:
        for label, wanted in (("all", None), *((name, key) for key, name in SOURCES.items())):
            measured = [
                lang
                for lang in langs
                if scores[(lang, variant)]
                and (variant, lang) in PAPER
                and wanted in (None, cells[(lang, variant)]["source"])
            ]
            if not measured:
                continue
            gaps = [scores[(lang, variant)]["acc"] - PAPER[(variant, lang)][0] for lang in measured]
            at_or_above = sum(round(gap, 1) >= 0 for gap in gaps)
            within = sum(round(gap, 1) >= -1 for gap in gaps)
            lines.append(
                f"- {variant}, {label} languages: ACC at or above the paper's in {at_or_above} "
                f"of {len(measured)}, within 1 point or above in {within}; mean difference "
                f"{sum(gaps) / len(gaps):+.1f} points\n"
            )
    return "\n## Against the paper\n\n" + "".join(lines) if lines else ""


def _item_means(runs: list) -> dict[tuple, dict[str, float]]:
    """Per test cell, each metric averaged over the seeds that scored it."""
    per_run = [run.item_scores() for run in runs]
    # in file order, not set order: the permutation test pairs its random swaps with the
    # cells in order, and set order changes with Python's string hashing between processes
    shared = [key for key in per_run[0] if all(key in scores for scores in per_run[1:])]
    return {
        key: {m: sum(scores[key][m] for scores in per_run) / len(per_run) for m in METRICS}
        for key in shared
    }


def _significance(cells, variants, langs, permutations) -> dict[tuple, list]:
    found = {}
    for lang in langs:
        runs = {v: cells[(lang, v)]["runs"] for v in variants}
        items = {v: _item_means(found_runs) for v, found_runs in runs.items() if found_runs}
        for a, b in combinations(variants, 2):
            if a in items and b in items:
                found[(lang, a, b)] = compare(items[a], items[b], METRICS, permutations)
    return found


def _document(root, table: str, langs, variants, cells) -> str:
    return (
        f"# UniMorph paradigm completion: {_languages(len(langs))} × {', '.join(variants)}\n\n"
        f"Made by `phonkit experiment report {root}` from the finished runs in `{root}/runs` "
        f"({_settings_line(cells)}). Test split; ACC in %, MLD in symbols, NLL in nats per "
        "symbol; a variant's figures are the mean over its finished seeds. In parentheses, the "
        "figures of Table 2 of Wu, Ponti & Cotterell, measured on UniMorph 2.0: rows read from "
        "CoNLL-2017 files are not like for like with them.\n\n" + table
    )


def _tests(comparisons, permutations: int, variants) -> str:
    """The permutation tests as a Markdown section, with a count of significant wins."""
    if not comparisons:
        return ""
    header = ["language", "pair"]
    header += [label for m in METRICS for label in (f"Δ{m.upper()}", "p")]
    rows = []
    wins: dict[tuple, list[int]] = {}
    for (lang, a, b), found in comparisons.items():
        row = [lang, f"{a} − {b}"]
        for c in found:
            row += [figure(c.mean_a - c.mean_b, c.metric), p_value(c.p_value)]
            better, significant = _better(c), c.p_value < 0.05
            tally = wins.setdefault((a, b, c.metric), [0, 0, 0])
            tally[0] += better and significant
            tally[1] += (not better) and significant and c.mean_a != c.mean_b
            tally[2] += 1
        rows.append(row)
    summary = "".join(
        f"- {a} better than {b} on {metric.upper()} with p < 0.05 in {won} of {total} "
        f"languages, {b} better than {a} in {lost}\n"
        for (a, b, metric), (won, lost, total) in wins.items()
    )
    return (
        f"\n## Paired permutation tests\n\nTwo-sided, {permutations:,} random swaps of each "
        "test cell's pair of scores (per-cell scores averaged over seeds); Δ is the first "
        "variant's mean minus the second's.\n\n"
        + markdown(header, rows)
        + "\n"
        + summary
        + _ordering(comparisons, variants)
    )


def _ordering(comparisons, variants) -> str:
    """In how many languages the paper's ranking pi > pd > joint holds with every adjacent
    pair significantly ordered (p < 0.05), per metric."""
    ranked = [v for v in ORDER if v in variants]
    pairs = list(zip(ranked, ranked[1:], strict=False))
    if len(ranked) < 2 or not all(any(k[1:] == p for k in comparisons) for p in pairs):
        return ""
    langs = [lang for lang in dict.fromkeys(k[0] for k in comparisons)
             if all((lang, *pair) in comparisons for pair in pairs)]  # fmt: skip
    lines = []
    for number, metric in enumerate(METRICS):
        holds = [
            lang
            for lang in langs
            if all(_significantly_better(comparisons[(lang, *pair)][number]) for pair in pairs)
        ]
        lines.append(
            f"- {' > '.join(ranked)} on {metric.upper()}, every step with p < 0.05: "
            f"{len(holds)} of {_languages(len(langs))}\n"
        )
    return "\n" + "".join(lines)


def _better(c) -> bool:
    """Whether the first run of a comparison scored better, in the metric's direction."""
    higher = lookup("metrics", c.metric).higher_is_better
    return c.mean_a > c.mean_b if higher else c.mean_a < c.mean_b


def _significantly_better(c) -> bool:
    return _better(c) and c.p_value < 0.05


def _settings_line(cells) -> str:
    for cell in cells.values():
        for run in cell["runs"]:
            config = run.config
            training, model = config.training, config.model
            cap = config.split.max_entries
            return (
                f"transcriber {config.transcriber}, morphemes "
                f"{config.morphemes}, d = {model.dim}, σ = {model.sigma}, "
                f"batch {training.batch_size}, at most {training.epochs} epochs, "
                f"patience {training.patience}, precision {training.precision}, checkpoint "
                f"by dev {training.select}"
                + (f", at most {cap:,} entries per language" if cap else "")
                + (", lemma encoder" if model.lemma_encoder else "")
            )
    return "no finished runs yet"
