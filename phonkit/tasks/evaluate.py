"""Scoring a trained model on held-out cells with the registered metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from phonkit.data.encoding import encode
from phonkit.data.lexicon import Example, Vocabularies
from phonkit.errors import InputError
from phonkit.metrics import Metric, Scored, mean
from phonkit.model.decoding import decode, surprisal
from phonkit.model.device import choose_device, cpu_threads
from phonkit.model.fitting import held_out_lemmas
from phonkit.model.phonology import Model
from phonkit.plugins import lookup, registry
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.tables.candidates import Rewrites
from phonkit.tables.rewrites import Paradigm


def evaluate_run(
    run: Run,
    examples: Sequence[Example] | None = None,
    model: Model | None = None,
    metrics: Sequence[str] | None = None,
    precision: str = "auto",
) -> Evaluation:
    """Score the finished ``run`` (its weights, or ``model`` loaded from them) on
    ``examples``, by default its test split, as its own scores were made: candidates ranked
    where the run ranks them; ``metrics`` by name (default: all)."""
    if examples is None:
        examples = run.examples("test")
        if not examples:
            raise InputError(
                f"{run.path}: the run has no test cells (split {run.config.split.protocol!r}); "
                "give gold forms to score"
            )
    model = model or load_model(run, choose_device("cpu"))
    with cpu_threads(next(model.parameters()).device):
        return evaluate(
            model,
            examples,
            run.vocabularies(),
            run.config.max_length,
            selected_metrics(metrics),
            precision,
            Rewrites.of(run),
        )


def selected_metrics(names: Sequence[str] | None) -> dict[str, Metric]:
    """The registered metrics called ``names`` (all of them for None), in that order."""
    if names is None:
        return dict(registry("metrics"))
    return {name: lookup("metrics", name) for name in names}


@dataclass
class Evaluation:
    examples: list[Example]
    items: list[Scored]
    scores: dict[str, float]
    item_scores: dict[str, list[float]]

    def rows(self, joiner: str) -> list[list[object]]:
        """Per-cell rows: lemma, features, gold, prediction, then each metric's item score."""
        header: list[object] = ["lemma", "features", "gold", "prediction", *self.item_scores]
        rows: list[list[object]] = [header]
        for number, (example, item) in enumerate(zip(self.examples, self.items, strict=False)):
            figures = [f"{scores[number]:.4g}" for scores in self.item_scores.values()]
            rows.append(
                [
                    example.entry.lemma,
                    example.entry.bundle,
                    joiner.join(item.gold),
                    joiner.join(item.prediction),
                    *figures,
                ]
            )
        return rows


def evaluate(
    model: Model,
    examples: Sequence[Example],
    vocabularies: Vocabularies,
    max_length: int,
    metrics: dict[str, Metric] | None = None,
    precision: str = "auto",
    rewrites: Rewrites | None = None,
    given: Mapping[str, Paradigm] | None = None,
) -> Evaluation:
    """Greedy 1-best (with ``rewrites``: the analogy candidate the model finds most
    probable, where there is one, made from each lemma's training forms and its forms in
    ``given``) and gold surprisal for every example, scored by every metric.

    A gold symbol the model never saw is encoded as UNK: it can never be predicted, so the
    cell counts as an error, and its surprisal is the model's (high) surprisal for UNK."""
    metrics = metrics if metrics is not None else selected_metrics(None)
    vocabularies = held_out_lemmas(model, vocabularies, examples)
    data = encode(examples, vocabularies)
    greedy = decode(model, data.morphemes, max_length, precision=precision)
    predictions = [tuple(vocabularies.symbols.decode(p)) for p in greedy]
    if rewrites is not None:
        words = [(example, (given or {}).get(example.entry.lemma)) for example in examples]
        for number, found in enumerate(rewrites.ranked(model, vocabularies, words, precision)):
            if found:
                predictions[number] = found[0]
    nll = surprisal(model, data, precision=precision).tolist() if len(data) else []
    items = [
        Scored(p, example.surface, loss)
        for p, example, loss in zip(predictions, examples, nll, strict=False)
    ]
    per_item = {name: metric.item_scores(items) for name, metric in metrics.items()}
    scores = {name: mean(per_item[name]) for name in metrics}  # never a plugin's own score
    return Evaluation(list(examples), items, scores, per_item)
