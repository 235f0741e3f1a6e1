"""Every size rule and tuned constant of small data, each with the measurement that chose it.

The defaults of :mod:`phonkit.settings` were chosen at the paper's scale (tens of thousands of
forms). Below :data:`SMALL` training forms a run takes the settings of :func:`sized` instead,
and the copy models train with those of :func:`copy_config`; the settings a run is given go
on top of either (:func:`settings_for`). The rules read the numbers of training
forms, stems and cells only, never a table's name or language; docs/results/tables.md measures
each on the 33 textbook tables (the section named beside each constant).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from phonkit.jobs import TrainRequest
from phonkit.settings import RUN, CopyConfig, ModelConfig, TrainConfig, by_group

Symbols = tuple[str, ...]

# Training forms below which the settings by size apply, phonkit's own Adam replaces
# torch.optim's (whose import costs more than a small table's training) and a run trains on
# one CPU thread (tiny batches: a second thread only waits). "Settings by size".
SMALL = 2_000

# The sized model: d 128 (d 64: 72.5, d 200: lower), at most 60 epochs (120 were no better),
# batches of 16. "Ablation".
SMALL_DIM = 128
SMALL_EPOCHS = 60
SMALL_BATCH = 16

# Training forms from which batches of 32 (not 16) keep a table's training to seconds: an
# epoch is then still 5 to 60 updates. "A budget of work".
LARGER_BATCHES = 150

# Cells up to which the copy models judge: a copy model's memory holds a place for every cell
# of a stem, so its cost grows with the paradigm (the textbook tables have 2 to 13 cells; a
# UniMorph sample with ~70 took minutes where a table takes seconds). "Settings by size".
COPY_CELLS = 16

# A rewrite that holds between two cells without exception on at least this many stems gives
# the only candidates: any threshold from 2 to 6 gives the same 77.88. "Judges".
EXCEPTIONLESS = 2

# A cell whose training forms are their lemma, this share of them at least (on at least
# EXCEPTIONLESS forms), is the citation cell a stem's lemma fills where its known forms lack
# it (phonkit.tables.citations): all but one in twenty, fixed before measuring. "Citation
# forms".
CITATION_SHARE = 0.95

# The weight of the rewrites' reliability (how often the table's other stems take the rewrite
# that makes a candidate) beside the judges' mean posterior: equal to it. With it, 79.0 on
# the 33 tables (77.8 without) and 48.2 on 18 tables never tuned on (45.6). "Judges". Where
# the model judges alone (no copy models: more than COPY_CELLS cells, or `analogy`), on
# UniMorph Dutch 3,000 forms: seen paradigms 96.00 -> 96.33, new lemmas 85.87 -> 88.10.
# "Citation forms".
RELIABILITY = 1.0

# The most symbols beside a rewritten affix by which the reliability reads the stems like a
# gap's, each count smoothed toward the one a symbol narrower; each table reads as wide as
# ranks the most of its training cells right, each left out in turn (Rewrites.width). With
# every table reading the widest, 4 symbols or any number gave the 33 tables what 3 gave.
# "Context as wide as the table's stems say".
WIDEST_CONTEXT = 3

# Where the run's model judges alone (no copy models: the default model, which ranks
# `analogy` candidates, or more than COPY_CELLS cells), the reliability decides and the model
# breaks its ties: the reliability weighted RELIABILITY_ALONE times the model, whose -log p
# is read at the temperature TEMPERATURE_ALONE. A model trained on a few dozen stems is sure
# of a new stem's form where it is wrong. On CoNLL-SIGMORPHON 2017 task 2's dev, the 28
# languages: low 71.43 -> 76.86 (better in 23 languages, worse in 1), medium 82.06 -> 86.26
# (better in 22, worse in 4); of the gaps with candidates, the reliability alone ranks 76.8
# and 86.3 right, (8, 8) 74.7 and 84.8. With copy models (the tables: pi, `analogy+copy`)
# the copy models are good judges and (32, 16) loses: 77.1 against 79.8 on the 33 tables.
# docs/results/task2.md, "The judges' weights".
RELIABILITY_ALONE = 32.0
TEMPERATURE_ALONE = 16.0

# The weights a run with dev cells chooses among, on them (phonkit.tables.judges.chosen): the
# reliability's weight and the judges' temperature; of those that tie, the nearest to equal
# weights (UniMorph Dutch 3,000 forms: the nearest to 32 and 16 lost 4.1 on new lemmas with
# one known form). A table's run has no dev cells. "Weights chosen on dev".
RELIABILITIES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
JUDGES_TEMPERATURES = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)

# The copy models' work: about COPY_PASSES example passes, at most COPY_UPDATES updates (78 to
# 80 in every fold of the 33 tables). A bound of 16,000 / forms updates, which kept Turkish's
# `fill` under 4 s on a slower machine, cost the 33 tables three Turkish cells and is gone.
# "A budget of work".
COPY_PASSES = 4_000
COPY_UPDATES = 80

# Hallucinated stems for tables under HALLUCINATE_BELOW forms: one per real stem at most,
# HALLUCINATE_BELOW / forms of them. "What fill does".
HALLUCINATE_BELOW = 100

# Batches of whole stems with about FORMS_PER_BATCH forms. "What fill does".
FORMS_PER_BATCH = 48

# Content (q_t . k_j) in the alignment's moves from CONTENT_FORMS_PER_STEM forms per stem on
# CONTENT_STEMS stems or more; never or always gave 64.1 against 66.3 (the prototype, greedy,
# alone). "Judges".
CONTENT_FORMS_PER_STEM = 3.5
CONTENT_STEMS = 10

# The alignment's moves start out favouring "one symbol on": offsets -3..+5 within a form,
# then "to another form". "What fill does".
ALIGNMENT_START = (-1.0, -1.0, -1.0, 0.0, 2.0, -0.5, -1.0, -1.0, -1.0, -2.0)


# The amortized model (phonkit.model.amortized), at every size: d 64, the analogy candidates
# ranked by it, each word reading two known forms besides its lemma; hallucinated stems up
# to HALLUCINATED_FORMS training forms (at most HALLUCINATED_SHARE per real stem); batches
# of 32 forms, 64 from BATCH_64 forms and 128 from BATCH_128; about UPDATES updates, in
# 10 to 60 epochs.
AMORTIZED_DIM = 64
HALLUCINATED_FORMS = 3_000
HALLUCINATED_SHARE = 4.0
BATCH_64, BATCH_128 = 1_000, 10_000
UPDATES = 2_000


def amortized(forms: int) -> dict[str, Any]:
    """The amortized model's settings for ``forms`` training forms."""
    share = min(HALLUCINATED_SHARE, max(0.0, HALLUCINATED_FORMS / max(forms, 1) - 1))
    batch = 32 if forms < BATCH_64 else 64 if forms < BATCH_128 else 128
    epochs = round(UPDATES * batch / (forms * (1 + share)))
    return {
        "candidates": "analogy",
        "dim": AMORTIZED_DIM,
        "known_forms": 2,
        "hallucinated": round(share, 1),
        "batch_size": batch,
        "epochs": min(60, max(10, epochs)),
        "lr": 0.005,
        "patience": 2,
    }


def sized(forms: int, cells: int = 0, variant: str = "") -> dict[str, Any]:
    """The settings for ``forms`` training forms in ``cells`` cells of ``variant`` that
    differ from the defaults."""
    if variant == "amortized":
        return amortized(forms)
    if forms >= SMALL:
        return {}
    return {
        "candidates": "analogy+copy" if cells <= COPY_CELLS else "analogy",
        "dim": SMALL_DIM,
        "epochs": SMALL_EPOCHS,
        "batch_size": SMALL_BATCH if forms < LARGER_BATCHES else 2 * SMALL_BATCH,
    }


def settings_for(job: TrainRequest, forms: int, cells: int = 0) -> tuple[ModelConfig, TrainConfig]:
    """The model and training settings of ``job``'s run with ``forms`` training forms in
    ``cells`` cells (feature bundles): those of its size, the job's ``settings`` on top."""
    sized_ones, given = by_group(sized(forms, cells, job.variant), RUN), job.given()
    return (
        ModelConfig(**sized_ones["model"] | given["model"]),
        TrainConfig(**sized_ones["training"] | given["training"]),
    )


def copy_config(
    table: Sequence[Sequence[Symbols]], given: Mapping[str, Any] | None = None
) -> CopyConfig:
    """The copy models' settings for a table (rows of forms, ``()`` where unknown) by its size
    only, ``given`` (by name) on top: ~:data:`COPY_PASSES` example passes, at most
    :data:`COPY_UPDATES` updates, batches of whole
    stems with ~:data:`FORMS_PER_BATCH` forms, hallucination under :data:`HALLUCINATE_BELOW`
    forms, content in the alignment's moves from :data:`CONTENT_FORMS_PER_STEM` forms per
    stem on :data:`CONTENT_STEMS` stems, and the alignment's moves of
    :data:`ALIGNMENT_START`."""
    forms = sum(1 for row in table for form in row if form)
    stems = sum(1 for row in table if any(row))
    per_stem = forms / max(1, stems)
    hallucinated = min(1.0, HALLUCINATE_BELOW / max(1, forms))
    per_batch = max(1, round(FORMS_PER_BATCH / per_stem))
    epochs = COPY_PASSES / (forms * (1 + hallucinated))
    steps = int(
        min(
            COPY_UPDATES,
            epochs * math.ceil(stems * (1 + hallucinated) / per_batch),
        )
    )
    sized_ones: dict[str, Any] = {
        "stems_per_batch": per_batch,
        "steps": max(1, steps),
        "hallucinated": hallucinated,
        "content": per_stem >= CONTENT_FORMS_PER_STEM and stems >= CONTENT_STEMS,
        "shift": ALIGNMENT_START,
    }
    return CopyConfig(**sized_ones | dict(given or {}))


# Underlying strings (phonkit.tables.underlying): a string's lexicon cost per symbol, in nats
# (the cost of its forms is in nats too); a cell's constant edges are its own material once
# this many stems show the cell; sweeps of the search before it stops.
SYMBOL_COST = 1.0
CONSTANT_EDGE_STEMS = 3
SEARCH_SWEEPS = 8
# A symbol pair (or triple) the table's forms never show is a reason for a change only where
# its parts, were they independent, would show it this many times (phonkit.tables.segments):
# once, fixed before measuring. With it the textbook strings rose from 72.5 % to 74.4 % of
# 888 stems and `--candidates ur` from 48.6 to 54.6 on the 33 tables, 25.7 to 27.2 on 18
# tables never tuned on (0.5 gives 75.9 % of the strings). "Underlying strings".
EXPECTED_GAP = 1.0

# Forms a stem's underlying string spells out for a gap with model.candidates=ur, most
# probable first (fill --nbest takes its best ones; beyond them the model's own follow).
SPELLED = 5
