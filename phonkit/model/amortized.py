"""The amortized model: a stem's underlying form inferred from what is known of it, and a
decoder that copies what it reads.

Each word reads its lemma's spelling and up to ``known_forms`` of its lemma's known forms (in
training, a random number of the others; else those whose cells' vectors are nearest the
target cell's), each tagged with its cell. A BiLSTM encodes them; the stem's underlying form
is amortized inference, ``u = W mean(encoder states) + r``: the mean of q(u | what is known),
refined by a free vector ``r`` where the stem trained (0 for a new one; dropped now and then
in training so that the encoder carries the stem), with the reparameterised noise of the
paper's variational frame. The cell's vector ``c`` is the mean of its affix morphemes'
vectors (the paper's affix underlying forms). An LSTM decoder reads ``[e(y_{t-1}); u; c]``;
a monotonic alignment over the read forms (:mod:`phonkit.model.modules.alignment`) and an
emission that generates or copies the aligned symbol
(:mod:`phonkit.model.modules.emission`) give each next symbol, marginalised exactly over
alignments. A symbol the model never saw is copied where it is read, so nothing a lemma or a
known form spells is refused.

Where data is small, the training stems are joined by hallucinated ones
(:mod:`phonkit.data.hallucination`), which have no residual vector of their own.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import Tensor, nn

from phonkit.data.hallucination import hallucinate
from phonkit.data.lexicon import (
    BOS_ID,
    LEMMA,
    PAD_ID,
    RESERVED,
    UNK_ID,
    Example,
    Vocabularies,
    as_written,
)
from phonkit.model.modules.alignment import MonotonicAlignment, Read
from phonkit.model.modules.emission import CopyingEmission, Scores
from phonkit.model.modules.encoders import SequenceEncoder
from phonkit.model.phonology import Model
from phonkit.model.readings import Form, Readings
from phonkit.settings import ModelConfig

RESIDUAL_DROPOUT = 0.25  # training words whose stem is read from what is known alone
HALLUCINATED = "\thallucinated:"  # a hallucinated stem's lemma (no input has a tab in it)
KEPT_AT_JUNCTION = 1  # symbols a hallucinated stem keeps next to an affix

Speller = Callable[[Sequence[str]], list[tuple[str, ...]]]  # lemmas -> their symbols


@dataclass
class State:
    """Decoding: the LSTM's states, where the alignment was after the last symbol read, and
    where it was predicted at the last step with that step's emission (None at the first)."""

    hidden: Tensor
    cell: Tensor
    posterior: Tensor
    predicted: Tensor | None = None
    scores: Scores | None = None

    def select(self, rows: Tensor) -> State:
        return State(
            self.hidden[:, rows], self.cell[:, rows], self.posterior[rows],
            None if self.predicted is None else self.predicted[rows],
            None if self.scores is None else self.scores.select(rows),
        )  # fmt: skip


@dataclass
class Context:
    """What every step of decoding a batch of words reads."""

    read: Read
    form: Tensor  # (B, 2d): [u; c]
    moves: Tensor  # (B, P, P)
    keys: Tensor  # (B, P, d)

    def select(self, rows: Tensor) -> Context:
        return Context(self.read.select(rows), self.form[rows], self.moves[rows], self.keys[rows])


class Amortized(Model):
    name = "amortized"
    description = (
        "underlying form inferred from the lemma's spelling and the known forms (amortized), "
        "spelled out copying through a monotonic alignment"
    )
    reads = True  # a lemma's spelling and any known form: nothing to fit, no symbol refused
    clip = 5.0  # the forward algorithm's products can make a step's gradient explode

    def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
        super().__init__(n_symbols, n_morphemes, config)
        d = config.dim
        self.n_symbols = n_symbols
        self.size = n_symbols  # the symbol ids it can emit: its own and those it has read
        self.morphemes = nn.Embedding(n_morphemes, d, padding_idx=PAD_ID)
        nn.init.normal_(self.morphemes.weight, std=config.init_scale)
        with torch.no_grad():
            self.morphemes.weight[PAD_ID].zero_()
        self.symbols = nn.Embedding(n_symbols, d, padding_idx=PAD_ID)
        self.lemma_tag = nn.Parameter(torch.zeros(d))
        self.encoder = SequenceEncoder(d, d)
        self.to_form = nn.Linear(2 * d, d)
        self.decoder = nn.LSTM(3 * d, d, batch_first=True)
        self.initial = nn.Linear(2 * d, 2 * d)
        self.alignment = MonotonicAlignment(d, 2 * d, 2 * d, d)
        self.emission = CopyingEmission(3 * d, 2 * d, n_symbols)
        self.readings = Readings.empty()
        self.speller: Speller | None = None
        self.spellings: dict[str, tuple[str, ...]] = {}

    # -- what it reads ----------------------------------------------------------------------
    def know(self, examples: Sequence[Example], vocabularies: Vocabularies, speller: Speller):
        """Read the known forms of ``examples`` (a run's training cells) and the spelling (by
        ``speller``) of every lemma of ``vocabularies`` (held-out ones too: they are read
        from their spelling alone), numbered by ``vocabularies``."""
        self.speller = speller
        self.readings = Readings.empty()
        self.size = self.n_symbols
        self._add(examples, vocabularies)
        self.spell_only([m for m in vocabularies.morphemes.index if m.startswith(LEMMA)],
                        vocabularies)  # fmt: skip

    def _add(self, examples: Sequence[Example], vocabularies: Vocabularies) -> None:
        morphemes, symbols = vocabularies.morphemes, vocabularies.symbols
        lemmas = [item[len(LEMMA) :] for item in dict.fromkeys(e.morphemes[0] for e in examples)]
        self.spell(lemmas)
        forms: list[Form] = [
            (morphemes.index[e.morphemes[0]], tuple(morphemes.encode(e.morphemes[1:])),
             tuple(symbols.encode(e.surface)))
            for e in examples
        ]  # fmt: skip
        spellings = {
            morphemes.index[LEMMA + lemma]: tuple(symbols.encode(self.spellings[lemma]))
            for lemma in lemmas
        }
        self.readings = self.readings.extended(forms, spellings, len(morphemes))
        self.size = max(self.size, len(symbols))

    def spell(self, lemmas: Sequence[str]) -> None:
        """Transcribe the ``lemmas`` not yet spelled (each once), as their input wrote them
        (a new lemma's name is kept apart for each run of rows predict reads it in)."""
        new = [lemma for lemma in lemmas if lemma not in self.spellings]
        if new:
            if self.speller is None:
                raise RuntimeError("the amortized model has no speller (know)")
            spelled = self.speller([as_written(lemma) for lemma in new])
            self.spellings.update(zip(new, spelled, strict=True))

    def read_lemmas(
        self, vocabularies: Vocabularies, evidence: Sequence[Example], wanted: Sequence[str] = ()
    ) -> Vocabularies:
        """The lemmas it has never seen, of ``evidence`` and ``wanted`` (lemma morphemes),
        read from their spellings and the known forms of ``evidence``: the vocabularies
        extended by them and by the symbols they have."""
        asked = [*(e.morphemes[0] for e in evidence), *wanted]
        lemmas = [m for m in dict.fromkeys(asked) if m not in vocabularies.morphemes]
        self.spell([lemma[len(LEMMA) :] for lemma in lemmas])
        new_symbols = [s for e in evidence for s in e.surface] + [
            s for lemma in lemmas for s in self.spellings[lemma[len(LEMMA) :]]
        ]
        extended = Vocabularies(
            vocabularies.symbols.extended(new_symbols), vocabularies.morphemes.extended(lemmas)
        )
        self._add([e for e in evidence if e.morphemes[0] in set(lemmas)], extended)
        self.spell_only(lemmas, extended)
        return extended

    def spell_only(self, lemmas: Sequence[str], vocabularies: Vocabularies) -> None:
        """Give the lemmas (morphemes) that have no spelling yet theirs."""
        index = vocabularies.morphemes.index
        missing = [m for m in lemmas if self.readings.spelling.shape[0] <= index[m]
                   or int(self.readings.spelling[index[m]]) < 0]  # fmt: skip
        if missing:
            self.spell([m[len(LEMMA) :] for m in missing])
            spellings = {
                index[m]: tuple(vocabularies.symbols.encode(self.spellings[m[len(LEMMA) :]]))
                for m in missing
            }
            self.readings = self.readings.extended([], spellings, len(vocabularies.morphemes))

    def lemmas(self) -> Any:
        return self.readings, self.size

    def restore(self, lemmas: Any) -> None:
        self.readings, self.size = lemmas

    def augmented(
        self, examples: Sequence[Example], vocabularies: Vocabularies, seed: int
    ) -> tuple[list[Example], Vocabularies]:
        """The training examples and ``model.hallucinated`` hallucinated stems per real one,
        each with every cell of the stem it is made from; read like the real stems, with no
        residual vector."""
        share = self.config.hallucinated
        paradigms: dict[str, list[Example]] = {}
        for example in examples:
            paradigms.setdefault(example.morphemes[0], []).append(example)
        wanted = round(share * len(paradigms))
        if wanted == 0:
            return list(examples), vocabularies
        rng = random.Random(seed)
        frequency = Counter(s for e in examples for s in e.surface)
        alphabet, weights = list(frequency), list(frequency.values())
        stems = list(paradigms.values())
        made: list[Example] = []
        spellings: dict[str, tuple[str, ...]] = {}
        for number in range(wanted):
            cells = rng.choice(stems)
            spelled = self.spellings[cells[0].morphemes[0][len(LEMMA) :]]
            forms = hallucinate([spelled, *(e.surface for e in cells)], alphabet, weights,
                                KEPT_AT_JUNCTION, rng)  # fmt: skip
            if forms is None:
                continue
            lemma = f"{HALLUCINATED}{number}"
            spellings[lemma] = forms[0]
            for example, surface in zip(cells, forms[1:], strict=True):
                entry = replace(example.entry, lemma=lemma)
                made.append(Example(entry, surface, (LEMMA + lemma, *example.morphemes[1:])))
        self.spellings.update(spellings)
        extended = Vocabularies(
            vocabularies.symbols, vocabularies.morphemes.extended(LEMMA + s for s in spellings)
        )
        self._add(made, extended)
        return [*examples, *made], extended

    # -- the network ------------------------------------------------------------------------
    def dropout(self, vectors: Tensor) -> Tensor:
        rate = self.config.dropout
        if not self.training or rate == 0:
            return vectors
        return vectors * (torch.rand_like(vectors) >= rate) / (1 - rate)

    def cell_vectors(self, affixes: Tensor) -> Tensor:
        """The mean of the affix morphemes' vectors that the model has ``(..., A)``."""
        trained = self.morphemes.num_embeddings
        known = (affixes >= len(RESERVED)) & (affixes < trained)
        vectors = self.morphemes(affixes.masked_fill(~known, PAD_ID)) * known[..., None]
        return vectors.sum(-2) / known.sum(-1, keepdim=True).clamp(min=1)

    def choose(self, morphemes: Tensor) -> Tensor:
        """The forms each word reads ``(B, 1 + known_forms)``: its lemma's spelling, then
        known forms of other cells (-1: none)."""
        readings, wanted = self.readings, self.config.known_forms
        lemma = morphemes[:, 0]
        listed = lemma < readings.known.shape[0]
        row = lemma.clamp(max=max(readings.known.shape[0] - 1, 0))
        spelling = torch.where(listed, readings.spelling[row], -1)[:, None]
        if readings.known.shape[0] == 0 or wanted == 0:
            return spelling
        known = torch.where(listed[:, None], readings.known[row], -1)  # (B, R)
        valid = known >= 0
        cells = readings.cells[known.clamp(min=0)]  # (B, R, A)
        affixes = morphemes[:, 1:]
        width = max(cells.shape[-1], affixes.shape[-1])
        cells = nn.functional.pad(cells, (0, width - cells.shape[-1]))
        target = nn.functional.pad(affixes, (0, width - affixes.shape[-1]))
        valid &= ~(cells == target[:, None, :]).all(-1)  # never the word's own cell
        if self.training:
            scores = torch.rand(known.shape, device=known.device)
            count = (valid.sum(-1, keepdim=True).clamp(max=wanted) + 1).float()
            keep_at_most = (torch.rand(lemma.shape[0], 1, device=known.device) * count).long()
        else:
            similarity = nn.functional.cosine_similarity(
                self.cell_vectors(cells), self.cell_vectors(affixes)[:, None, :], dim=-1
            )
            scores, keep_at_most = similarity, torch.full_like(lemma[:, None], wanted)
        scores = scores.masked_fill(~valid, float("-inf"))
        top, order = scores.topk(min(wanted, known.shape[1]), dim=-1)
        rank = torch.arange(order.shape[1], device=known.device)[None, :]
        chosen = known.gather(1, order).masked_fill((top == float("-inf")) | (rank >= keep_at_most),
                                                    -1)  # fmt: skip
        return torch.cat([spelling, chosen], 1)

    def encode_forms(self, forms: Tensor) -> tuple[Read, Tensor]:
        """The packed reading of the chosen ``forms`` ``(B, F)`` (each distinct form of the
        batch encoded once) and the mean of its encoder states ``(B, 2d)``."""
        readings = self.readings
        present = forms >= 0
        unique, inverse = torch.unique(forms[present], return_inverse=True)
        symbols = readings.symbols[unique]
        width = int((symbols != PAD_ID).sum(-1).max()) if len(unique) else 1
        symbols = symbols[:, :width]
        cells = readings.cells[unique]
        spelled = (cells == PAD_ID).all(-1)
        tag = torch.where(spelled[:, None], self.lemma_tag.expand(len(unique), -1),
                          self.cell_vectors(cells))  # fmt: skip
        inputs = self.symbols(symbols.masked_fill(symbols >= self.n_symbols, UNK_ID))
        inputs = torch.cat([tag[:, None, :], inputs[:, 1:]], 1)
        states = self.encoder.encode(self.dropout(inputs), symbols != PAD_ID)
        slot = torch.full(forms.shape, -1, dtype=torch.long, device=forms.device)
        slot[present] = inverse
        batch, count = forms.shape
        held = slot.clamp(min=0)
        all_states = states[held].view(batch, count * width, -1)
        all_symbols = symbols[held].masked_fill(~present[..., None], PAD_ID).view(batch, -1)
        place = torch.arange(width, device=forms.device).repeat(count)[None].expand(batch, -1)
        form = torch.arange(count, device=forms.device).repeat_interleave(width)
        form = form[None].expand(batch, -1)
        mask = all_symbols != PAD_ID
        mask = mask | ((place == 0) & present.repeat_interleave(width, 1))
        positions = int(mask.sum(-1).max())
        order = torch.argsort((~mask).int(), dim=1, stable=True)[:, :positions]
        kept = mask.gather(1, order)
        packed_symbols = all_symbols.gather(1, order).masked_fill(~kept, PAD_ID)
        packed_place = place.gather(1, order)
        gathered = all_states.gather(1, order[..., None].expand(-1, -1, all_states.shape[-1]))
        read = Read(
            gathered * kept[..., None],
            packed_symbols.masked_fill(packed_place == 0, PAD_ID),  # a tag is not copied
            form.gather(1, order),
            packed_place,
            kept,
        )
        mean = read.states.sum(1) / kept.sum(-1, keepdim=True).clamp(min=1)
        return read, mean

    def context(self, morphemes: Tensor) -> Context:
        read, mean = self.encode_forms(self.choose(morphemes))
        lemma = morphemes[:, 0]
        trained = lemma < self.morphemes.num_embeddings
        residual = self.morphemes(lemma.masked_fill(~trained, PAD_ID)) * trained[:, None]
        if self.training and RESIDUAL_DROPOUT > 0:
            residual = residual * (torch.rand_like(residual[:, :1]) >= RESIDUAL_DROPOUT)
        form = self.to_form(mean) + residual
        if self.training and self.config.sigma > 0:
            form = form + torch.randn_like(form) * self.config.sigma
        cell = self.dropout(self.cell_vectors(morphemes[:, 1:]))
        moves = self.alignment.moves(read, cell)
        return Context(read, torch.cat([form, cell], -1), moves, self.alignment.keys(read))

    def decoder_start(self, context: Context) -> tuple[Tensor, Tensor]:
        hidden, cell = torch.tanh(self.initial(context.form)).chunk(2, -1)
        return hidden[None].contiguous(), cell[None].contiguous()

    def inputs_of(self, symbols: Tensor, context: Context) -> Tensor:
        embedded = self.dropout(self.symbols(symbols.masked_fill(symbols >= self.n_symbols,
                                                                UNK_ID)))  # fmt: skip
        return torch.cat([embedded, context.form[:, None].expand(-1, symbols.shape[1], -1)], -1)

    def step_parts(self, states: Tensor, context: Context) -> tuple[Tensor, Tensor, Scores]:
        """The alignment's content and normaliser, and the emission's scores, for decoder
        states ``(B, T, d)``."""
        steps = states.shape[1]
        d = self.config.dim
        cell = context.form[:, None, d:].expand(-1, steps, -1)
        content = self.alignment.content(context.keys, torch.cat([states, cell], -1),
                                         context.read)  # fmt: skip
        norm = self.alignment.normaliser(context.moves, content)
        given = torch.cat([self.dropout(states), context.form[:, None].expand(-1, steps, -1)], -1)
        return content, norm, self.emission.scores(given, context.read)

    def forward(self, morphemes: Tensor, inputs: Tensor) -> Tensor:
        context = self.context(morphemes)
        states, _ = self.decoder(self.inputs_of(inputs, context), self.decoder_start(context))
        content, norm, scores = self.step_parts(states, context)
        read = context.read
        following = torch.cat([inputs[:, 1:], torch.full_like(inputs[:, :1], PAD_ID)], 1)
        emitted = self.emission.of(scores, following, read)  # p(y_t | t, j): y_t read next
        posterior = self.alignment.start(read)
        predicted = []
        for t in range(inputs.shape[1]):
            now = self.alignment.predict(posterior, context.moves, content[:, t], norm[:, t])
            predicted.append(now)
            after, probability = self.alignment.observe(now, emitted[:, t])
            posterior = torch.where(probability[:, None] > 0, after, now)
        return self.emission.distribution(scores, torch.stack(predicted, 1), read, self.size)

    def start(self, morphemes: Tensor) -> tuple[Tensor, Context, State]:
        context = self.context(morphemes)
        hidden, cell = self.decoder_start(context)
        first = torch.full((morphemes.shape[0],), BOS_ID, dtype=torch.long,
                           device=morphemes.device)  # fmt: skip
        return first, context, State(hidden, cell, self.alignment.start(context.read))

    def step(self, previous: Tensor, context: Context, state: State) -> tuple[Tensor, State]:
        posterior = state.posterior
        if state.predicted is not None and state.scores is not None:
            emitted = self.emission.of(state.scores, previous[:, None], context.read)[:, 0]
            after, probability = self.alignment.observe(state.predicted, emitted)
            posterior = torch.where(probability[:, None] > 0, after, state.predicted)
        states, (hidden, cell) = self.decoder(
            self.inputs_of(previous[:, None], context), (state.hidden, state.cell)
        )
        content, norm, scores = self.step_parts(states, context)
        predicted = self.alignment.predict(posterior, context.moves, content[:, 0], norm[:, 0])
        log_probs = self.emission.distribution(scores, predicted[:, None], context.read,
                                               self.size)[:, 0]  # fmt: skip
        return log_probs, State(hidden, cell, posterior, predicted, scores)

    @torch.no_grad()
    def underlying_vectors(self) -> Tensor:
        """Every morpheme's vector as the model uses it: for a lemma, its underlying form
        read from its spelling and known forms (nearest its first cell's), plus its residual;
        for an affix morpheme, its own vector. What ``phonkit uf`` shows."""
        vectors = self.morphemes.weight.clone()
        readings = self.readings
        lemmas = [n for n in range(min(len(vectors), len(readings.spelling)))
                  if int(readings.spelling[n]) >= 0]  # fmt: skip
        for chunk in torch.tensor(lemmas, dtype=torch.long).split(512):
            first = readings.known[chunk, 0].clamp(min=0)
            affixes = readings.cells[first]
            words = torch.cat([chunk[:, None], affixes], 1)
            form = self.context(words).form[:, : self.config.dim]
            vectors[chunk] = form
        return vectors


def reads(model: object) -> bool:
    """The model reads a lemma's spelling and any known form (it needs no fit)."""
    return getattr(model, "reads", False)
