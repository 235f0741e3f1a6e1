"""The learning curve of the paper's CELEX experiment: for each training size k, several
draws of k entries by token frequency (the ``sample`` split), every model variant trained
on each draw; ACC, MLD and NLL as mean ± standard deviation over the draws, in tables and a
three-panel figure (the paper's Figure 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from phonkit.analysis.figures import pyplot, save
from phonkit.data.lexicon import Lexicon
from phonkit.data.split import drawable
from phonkit.data.tsv import write_atomic
from phonkit.experiments.runner import (
    Group,
    Launch,
    grouped,
    reuse_settings,
    run_experiment,
    with_configs,
)
from phonkit.experiments.tables import figure, markdown, mean_std, show, write_table
from phonkit.jobs import Outcome, Planned, TrainRequest
from phonkit.plugins import lookup
from phonkit.progress import say
from phonkit.run.directory import Run

METRICS = ("acc", "mld", "nll")
LABELS = {"acc": "ACC (%)", "mld": "MLD (symbols)", "nll": "NLL (nats per symbol)"}


def check_sizes(lexicon: Lexicon, sizes: Sequence[int]) -> None:
    """Every k must leave entries to draw from (those with a positive count, when the
    corpus has counts); checked once, before any run starts."""
    drawable(lexicon.entries, max(sizes), lexicon.name)
    if not any(entry.count for entry in lexicon.entries):
        say(f"{lexicon.name} has no token counts: each k-sample is drawn uniformly")


def run(
    out: Path,
    base: TrainRequest,
    sizes: Sequence[int] = (200, 400, 600, 800),
    draws: int = 10,
    variants: Sequence[str] = ("pi", "pd", "joint"),
    launch: Launch | None = None,
    force: bool = False,
) -> list[Outcome]:
    """The learning curve in ``out``: for each k of ``sizes``, ``draws`` k-samples of
    ``base``'s corpus, every variant trained on each with the settings of its size
    (:func:`phonkit.tables.sizes.sized`, as ``phonkit train --k`` chooses them) and ``base``'s
    settings on top, then the report; the runs that failed or were skipped."""
    base = with_configs(base, sized=True)
    check_sizes(lookup("corpora", base.corpus).read(base.request), sizes)  # before any run
    runs = plan(sizes, draws, [lookup("models", v).name for v in variants], base)
    request = base.request
    settings = reuse_settings(base, sized=True) | {
        "corpus": base.corpus,
        "lang": request.lang,
        "path": request.path,
        "columns": request.columns,
        "options": request.options,
        "data_dir": str(request.data_dir) if request.data_dir else None,
        "seed": base.seed,
    }
    return run_experiment(
        out, "celex", settings, runs, launch or Launch(), force, lambda: report(out)
    )


def plan(
    sizes: Sequence[int], draws: int, variants: Sequence[str], base: TrainRequest
) -> list[Planned]:
    """One run per (variant, k, draw). Every variant trains on the same draws."""
    return [
        Planned(
            f"{variant}-k{k}-d{draw}",
            replace(
                base,
                variant=variant,
                settings={**base.settings, "protocol": "sample", "k": k, "draw": draw},
            ),
            {"variant": variant, "k": k, "draw": draw},
        )
        for variant in variants
        for k in sizes
        for draw in range(1, draws + 1)
    ]


def report(root: Path) -> None:
    """Write ``curve.{tsv,md}`` and ``curve.{png,svg}`` from the finished runs."""
    groups = grouped(root, lambda labels: (labels["variant"], labels["k"]))
    tests = {key: [run.metrics()["test"] for run in group.runs] for key, group in groups.items()}
    summary = {
        key: {m: mean_std([test[m] for test in found]) for m in METRICS}
        for key, found in tests.items()
    }
    order = list(dict.fromkeys(variant for variant, _ in groups))
    keys = sorted(groups, key=lambda key: (order.index(key[0]), key[1]))
    header = ["variant", "k", "draws", *(f"{m}_{s}" for m in METRICS for s in ("mean", "std"))]
    rows = [
        [variant, k, len(tests[(variant, k)]),
         *(f"{value:.6g}" for m in METRICS for value in summary[(variant, k)][m])]
        for variant, k in keys
    ]  # fmt: skip
    write_table(root / "curve.tsv", header, rows)
    md_header = ["variant", "k", "draws", *(m.upper() for m in METRICS)]
    md_rows = [
        [variant, k, _draws(groups[(variant, k)]),
         *(_plus_minus(summary[(variant, k)][m], m) for m in METRICS)]
        for variant, k in keys
    ]  # fmt: skip
    settings = _settings([run for group in groups.values() for run in group.runs])
    text = (
        "# Learning curve\n\n"
        f"Made by `phonkit experiment report {root}` from the finished runs in `{root}/runs` "
        f"({settings}). Test split of each draw; mean ± sample standard deviation over the "
        "draws; ACC in %, MLD in symbols, NLL in nats per symbol.\n\n"
        + markdown(md_header, md_rows)
        + "\n![learning curve](curve.png)\n"
    )
    write_atomic(root / "curve.md", text)
    plot(summary, root / "curve.png", settings)
    plot(summary, root / "curve.svg", settings)
    show(f"{root}: test mean ± std over draws", md_header, md_rows)


def _draws(group: Group) -> str:
    failed = len(group.notes)
    return f"{len(group.runs)}" + (f" ({failed} not finished)" if failed else "")


def _plus_minus(pair: tuple[float, float], metric: str) -> str:
    mean, std = pair
    return f"{figure(mean, metric)} ± {figure(std, metric)}" if figure(mean, metric) else ""


def _settings(runs: list[Run]) -> str:
    for run in runs:
        config = run.config
        training = config.training
        return (
            f"corpus {config.data.corpus}, language {config.lang}, transcriber "
            f"{config.transcriber}, d = {config.model.dim}, batch "
            f"{training.batch_size}, at most {training.epochs} epochs, patience "
            f"{training.patience}, candidates {config.model.candidates}"
        )
    return "no finished runs yet"


def plot(summary: dict[tuple[str, int], dict], path: Path, title: str) -> None:
    """Three panels (ACC, MLD, NLL) against k, a line per variant, a band of one std."""
    plt = pyplot()

    variants = list(dict.fromkeys(variant for variant, _ in summary))
    figure_, axes = plt.subplots(1, 3, figsize=(12, 3.6), constrained_layout=True)
    for axis, metric in zip(axes, METRICS, strict=True):
        for variant in variants:
            points = sorted(
                (k, *found[metric])
                for (name, k), found in summary.items()
                if name == variant and found[metric][0] == found[metric][0]  # skip NaN
            )
            if not points:
                continue
            ks, means, stds = zip(*points, strict=True)
            axis.plot(ks, means, marker="o", label=variant)
            axis.fill_between(
                ks, [m - s for m, s in zip(means, stds, strict=True)],
                [m + s for m, s in zip(means, stds, strict=True)], alpha=0.2,
            )  # fmt: skip
        axis.set_xlabel("k (training entries)")
        axis.set_ylabel(LABELS[metric])
        axis.grid(alpha=0.3)
    axes[0].legend()
    figure_.suptitle(title, fontsize=9)
    save(figure_, path, dpi=120)
