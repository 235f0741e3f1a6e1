"""Scoring on lemmas the model has never seen: reveal K cells of each lemma, fit its
underlying form to them (:mod:`phonkit.model.fitting`), predict the other cells and score them,
beside the edit baseline (:mod:`phonkit.tasks.baseline`) on the same cells."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from phonkit.data.lexicon import Example, paradigms
from phonkit.metrics import Scored, mean
from phonkit.model.device import autocast, cpu_threads
from phonkit.model.fitting import fit_lemmas
from phonkit.plugins import registry
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig
from phonkit.tables.candidates import Rewrites, known_forms
from phonkit.tasks.baseline import EditBaseline
from phonkit.tasks.evaluate import evaluate


@dataclass
class Reveal:
    """The known cells of each lemma with more than ``known`` cells, and the rest to score."""

    known: int
    evidence: list[Example]
    held_out: list[Example]
    lemmas: int  # lemmas scored
    too_small: int  # lemmas with at most ``known`` cells, left out


def reveal(examples: Sequence[Example], known: int, seed: int) -> Reveal:
    """Reveal ``known`` random cells of each lemma. Each lemma's cells are shuffled by a seed
    of its own, so the cells revealed for K are among those revealed for any larger K."""
    grouped = paradigms(examples, lambda example: example.entry.lemma)
    evidence: list[Example] = []
    held_out: list[Example] = []
    too_small = 0
    for lemma, cells in grouped.items():
        if len(cells) <= known:
            too_small += 1
            continue
        order = list(cells)
        random.Random(f"{seed}:{lemma}").shuffle(order)
        evidence += order[:known]
        held_out += order[known:]
    return Reveal(known, evidence, held_out, len(grouped) - too_small, too_small)


def baseline_for(run: Run) -> tuple[EditBaseline, dict[str, tuple[str, ...]]]:
    """The edit baseline learned from the run's training cells, and the lemmas' symbols
    (transcribed like the forms, so lemma and form are in one alphabet)."""
    train = run.examples("train")
    lemmas = sorted({example.entry.lemma for example in train})
    spelled = dict(zip(lemmas, spell(run, lemmas), strict=True))
    pairs = ((ex.entry.bundle, spelled[ex.entry.lemma], ex.surface) for ex in train)
    return EditBaseline(pairs), spelled


def spell(run: Run, lemmas: Sequence[str]) -> list[tuple[str, ...]]:
    return run.transcriber().transcribe(run.config.lang or "", list(lemmas))


def score_unseen(
    run: Run,
    examples: Sequence[Example],
    known: int,
    seed: int,
    device: torch.device,
    fit: FitConfig,
    precision: str = "auto",
) -> tuple[Reveal, dict[str, dict[str, float]]]:
    """Scores of the model (UFs fitted to ``known`` cells; where the run ranks analogy
    candidates, made from those cells and ranked as ``predict`` ranks them, the rewrites
    counted over every new lemma's shown cells beside the training paradigms, as ``predict``
    counts its whole input's) and of the baseline on the held-out cells of ``examples``'
    lemmas."""
    shown = reveal(examples, known, seed)
    model = load_model(run, device)
    rewrites = Rewrites.of(run)
    if rewrites is not None:  # the new lemmas' shown cells, as predict reads its input
        rewrites.read(shown.evidence)
    with cpu_threads(device):
        with autocast(device, precision):
            vocabularies = fit_lemmas(model, run.vocabularies(), shown.evidence, fit)
        result = evaluate(
            model,
            shown.held_out,
            vocabularies,
            run.config.max_length,
            precision=precision,
            rewrites=rewrites,
            given=known_forms(shown.evidence),
        )
    baseline, spelled = baseline_for(run)
    new = sorted({ex.entry.lemma for ex in shown.held_out} - set(spelled))
    spelled.update(zip(new, spell(run, new), strict=True))
    guesses = baseline.inflect_all(
        [(ex.entry.bundle, spelled[ex.entry.lemma]) for ex in shown.held_out]
    )
    items = [Scored(g, ex.surface, math.nan) for g, ex in zip(guesses, shown.held_out, strict=True)]
    scores = {name: mean(m.item_scores(items)) for name, m in registry("metrics").items()}
    return shown, {
        "model": result.scores,
        "baseline": {name: value for name, value in scores.items() if not math.isnan(value)},
    }
