"""The copy model: a judge of a table's candidates beside pi (``model.candidates=analogy+copy``).

pi learns each stem's underlying form as a free vector; with three or four forms per stem
that vector hardly steers the decoder. The copy model infers the stem's underlying form from
the stem's *known forms* instead (amortized inference: a BiLSTM reads each known form, tagged
with its cell; their mean is the stem's UF, averaged with the target cell's vector), and its
decoder may copy from those forms:

    p(x) = (1 - g) softmax(V tanh(W [h; ctx; u]))[x] + g sum_j a_t(j) [c_j = x]

where ``a_t`` is a monotonic alignment, a hidden Markov model over the known forms'
positions: from position i it moves to j with weight exp(shift[j - i]) (offsets -3..+5
within a form, one weight for "another form"), times exp(q_t . k_j) on tables with many
forms per stem, or with shifts that depend on the decoder state on the others. Its
likelihood is exact (the forward algorithm), and ``ctx`` is the expected memory state: an
alignment in the spirit of Wu & Cotterell's exact hard monotonic attention (ACL 2019).

Its settings are :class:`phonkit.settings.CopyConfig`. It trains for a budget of updates set
by the table's size (:func:`phonkit.tables.sizes.copy_config`), on whole stems with now and
then only some of their other forms readable, and on hallucinated stems (the part a real
stem's forms share replaced by random symbols, after Anastasopoulos & Neubig,
EMNLP 2019) for the smallest tables. :mod:`phonkit.tables.judges` averages its posterior
over a gap's analogy candidates with the model's and another copy model's.
docs/results/tables.md measures it.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phonkit.data.hallucination import hallucinate
from phonkit.model.adam import Adam
from phonkit.model.device import one_thread
from phonkit.settings import CopyConfig

Symbols = tuple[str, ...]
Paradigm = Mapping[str, Symbols]  # known forms of a stem by cell
Example = tuple[int, int, Sequence[int]]  # stem, target cell, cells it may read

PAD, BOS, EOS, UNK = 0, 1, 2, 3
TAGS = 4  # the cells' tags follow the specials; the symbols follow the tags
BACK, AHEAD = 3, 5  # alignment moves -3..+5 within a form
OFFSETS = BACK + AHEAD + 2  # and one to another form (settings.ALIGNMENT_MOVES)


@dataclass
class Batch:
    forms: Tensor  # (forms, length) ids of every known form of the batch's stems, tag first
    slots: Tensor  # (forms,) each form's place stem * cells + cell
    stems: int
    stem: Tensor  # (examples,) each example's stem
    cell: Tensor  # (examples,) each example's target cell
    readable: Tensor  # (examples, cells) the cells each example may read


class CopyNet(nn.Module):
    def __init__(self, config: CopyConfig, symbols: int, cells: int):
        super().__init__()
        self.config = config
        e, h, d = config.embedding, config.hidden, config.dim
        self.embed = nn.Embedding(symbols, e, padding_idx=PAD)
        self.cell = nn.Embedding(cells, d)
        nn.init.normal_(self.cell.weight, std=0.1)
        self.encoder = nn.LSTM(e, h, batch_first=True)  # reads each known form forwards
        self.encoder_back = nn.LSTM(e, h, batch_first=True)  # and backwards
        self.to_uf = nn.Linear(2 * h, d)
        self.init = nn.Linear(d, 2 * h)
        self.decoder = nn.LSTM(e + d, h, batch_first=True)
        self.key = nn.Linear(2 * h, h + d, bias=False)
        self.gate = nn.Linear(h + 2 * h + d, 1)
        self.shift = nn.Parameter(torch.tensor(config.shift, dtype=torch.float))
        self.shift_h = nn.Linear(h, OFFSETS)
        nn.init.zeros_(self.shift_h.weight)
        nn.init.zeros_(self.shift_h.bias)
        self.W = nn.Linear(h + 2 * h + d, h)
        self.V = nn.Linear(h, symbols)
        self.drop = nn.Dropout(config.dropout)

    def encode(self, batch: Batch) -> dict[str, Any]:
        """The memory of each example's stem (its readable known forms) and its UF ``u``."""
        cells = batch.readable.size(1)
        length = batch.forms.size(1)
        present = batch.forms != PAD
        states = self.read_forms(self.drop(self.embed(batch.forms)), present)
        width = states.size(-1)
        states = torch.cat([states, self.key(states)], -1)  # keys projected once per form
        slots = batch.stems * cells
        memory = states.new_zeros(slots, length, states.size(-1))
        memory = memory.index_copy(0, batch.slots, states).view(batch.stems, cells * length, -1)
        keys, memory = memory[..., width:], memory[..., :width]
        ids = batch.forms.new_zeros(slots, length).index_copy(0, batch.slots, batch.forms)
        ids = ids.view(batch.stems, cells * length)[batch.stem]
        mask = (ids != PAD) & batch.readable.repeat_interleave(length, 1)
        # examples live on a (stem, cell) grid: attention is a per-stem batched product
        grid = (batch.stem * cells + batch.cell, batch.stems, cells)
        mean = self.per_stem(mask.float().unsqueeze(1), memory, grid)[:, 0]
        mean = mean / mask.sum(1, keepdim=True).clamp(min=1)
        u = 0.5 * (self.to_uf(mean) + self.cell(batch.cell))
        if self.training:
            u = u + self.config.sigma * torch.randn_like(u)
        return {"memory": memory, "keys": keys, "grid": grid, "mask": mask, "ids": ids, "u": u}

    def read_forms(self, x: Tensor, present: Tensor) -> Tensor:
        """The encoder's states over the forms ``x`` (forms, length, embedding), each padded
        at its end where not ``present``, read forwards and backwards (zero at the padding).
        The backward reading reads each form reversed, its padding still after it: the
        LSTM's fused kernel over padded forms, where packed forms took a step at a time."""
        mask = present.unsqueeze(-1)
        reverse = (present.sum(1, keepdim=True) - 1 - torch.arange(x.size(1))).clamp(min=0)

        def reversed_(states: Tensor) -> Tensor:
            return states.gather(1, reverse.unsqueeze(-1).expand_as(states)) * mask

        forwards = self.encoder(x)[0]
        backwards = reversed_(self.encoder_back(reversed_(x))[0])
        return torch.cat([forwards, backwards], -1) * mask

    @staticmethod
    def per_stem(x: Tensor, memory: Tensor, grid: tuple[Tensor, int, int]) -> Tensor:
        """``x`` (examples, T, k) times its stem's ``memory`` (stems, k, n): (examples, T, n)."""
        place, stems, cells = grid
        _, steps, k = x.shape
        spread = x.new_zeros(stems * cells, steps, k).index_copy(0, place, x)
        product = torch.bmm(spread.view(stems, cells * steps, k), memory)
        return product.view(stems * cells, steps, -1)[place]

    def start(self, u: Tensor) -> tuple[Tensor, Tensor]:
        h, c = torch.tanh(self.init(u)).chunk(2, -1)
        return h.unsqueeze(0).contiguous(), c.unsqueeze(0).contiguous()

    def read(self, previous: Tensor, u: Tensor, state: tuple[Tensor, Tensor]):
        x = self.drop(self.embed(previous))
        return self.decoder(torch.cat([x, u.unsqueeze(1).expand(-1, x.size(1), -1)], -1), state)

    def prepare(self, h: Tensor, memory: dict[str, Any], batch: Batch) -> dict[str, Any]:
        """What the alignment's steps over the decoder states ``h`` (examples, T, hidden)
        share: the moves' weights and normalisers, the start, the output's projections."""
        mask, u, grid = memory["mask"], memory["u"], memory["grid"]
        examples, steps, hidden = h.shape
        cells = batch.readable.size(1)
        length = mask.size(1) // cells
        if self.config.content:
            query = torch.cat([h, self.cell(batch.cell).unsqueeze(1).expand(-1, steps, -1)], -1)
            scores = self.per_stem(query, memory["keys"].transpose(1, 2), grid)
        else:
            scores = h.new_zeros(examples, steps, mask.size(1))
        scores = scores.masked_fill(~mask.unsqueeze(1), -1e9)
        content = torch.exp(scores - scores.max(-1, keepdim=True).values)
        offsets = offset_table(cells, length)
        if self.config.content:  # the same moves at every step: one (L, L) transition matrix
            moves = F.pad(torch.exp(self.shift), (0, 1))[offsets]
            norm = content @ moves.t()
        else:  # moves by the decoder state: (examples, steps, 11), gathered at each step
            moves = F.pad(torch.exp(self.shift + self.shift_h(h)), (0, 1))
            kinds = F.one_hot(offsets, OFFSETS + 1).float()  # (L, L, 11)
            reachable = torch.einsum("ej,ijk->eik", mask.float(), kinds)
            norm = torch.einsum("etk,eik->eti", moves, reachable)
        first = ((torch.arange(mask.size(1)) % length == 0).unsqueeze(0) & mask).float()
        weights = torch.cat([self.W.weight, self.gate.weight], 0)  # [W; gate] on [h; ctx; u]
        bias = torch.cat([self.W.bias, self.gate.bias], 0)
        width = memory["memory"].size(-1)
        w_h, w_ctx, w_u = weights.split([hidden, width, weights.size(1) - hidden - width], 1)
        return {
            "content": content,
            "norm": norm,
            "moves": moves,
            "length": length,
            "start": first / first.sum(-1, keepdim=True).clamp(min=1),  # on the cell tags
            "memory_out": memory["memory"] @ w_ctx.t(),  # per stem
            "grid": grid,
            "base": h @ w_h.t() + (u @ w_u.t() + bias).unsqueeze(1),
        }

    def step(self, alpha: Tensor, prepared: dict[str, Any], t: int):
        """The alignment predicted for step ``t`` from ``alpha``, the posterior of the last,
        with the generative distribution and the copy gate."""
        weight = alpha / prepared["norm"][:, t].clamp(min=1e-30)
        moves = prepared["moves"]
        if moves.dim() == 2:
            flow = weight @ moves
        else:
            flow = moved(weight, moves[:, t], prepared["length"])
        predicted = prepared["content"][:, t] * flow
        predicted = predicted / predicted.sum(-1, keepdim=True).clamp(min=1e-30)
        context = self.per_stem(predicted.unsqueeze(1), prepared["memory_out"], prepared["grid"])
        pre = prepared["base"][:, t] + context[:, 0]
        generated = torch.softmax(self.V(torch.tanh(pre[:, :-1])), -1)
        return predicted, generated, torch.sigmoid(pre[:, -1:])

    @staticmethod
    def observe(predicted: Tensor, generated: Tensor, gate: Tensor, ids: Tensor, y: Tensor):
        """p(y) and the alignment's posterior once ``y`` is emitted."""
        hit = (ids == y.unsqueeze(1)).float()
        joint = predicted * ((1 - gate) * generated.gather(1, y.unsqueeze(1)) + gate * hit)
        p = joint.sum(-1)
        return p, joint / p.unsqueeze(1).clamp(min=1e-30)

    @staticmethod
    def distribution(predicted: Tensor, generated: Tensor, gate: Tensor, ids: Tensor) -> Tensor:
        copied = torch.zeros_like(generated).scatter_add_(1, ids, predicted)
        return (1 - gate) * generated + gate * copied

    def forward(self, batch: Batch, inputs: Tensor, targets: Tensor) -> Tensor:
        """log p of each target symbol (examples, T), the previous ones given."""
        return self.decode(batch, self.encode(batch), inputs, targets)

    def judge(self, batch: Batch, inputs: Tensor, targets: Tensor) -> Tensor:
        """:meth:`forward` for the one example of ``batch`` against each target form: its
        stem read once, its memory shared by the targets, each a stem of its own with one
        example (a grid of one cell: the products per stem are the target's alone)."""
        memory = self.encode(batch)
        copies = targets.size(0)
        stems = torch.arange(copies)
        shared = {name: memory[name].expand(copies, *memory[name].shape[1:])
                  for name in ("memory", "keys", "mask", "ids", "u")}  # fmt: skip
        shared["grid"] = (stems, copies, 1)
        cell, readable = batch.cell.expand(copies), batch.readable.expand(copies, -1)
        batch = Batch(batch.forms, batch.slots, copies, stems, cell, readable)
        return self.decode(batch, shared, inputs, targets)

    def decode(
        self, batch: Batch, memory: dict[str, Any], inputs: Tensor, targets: Tensor
    ) -> Tensor:
        """log p of each target symbol (examples, T) given the encoded ``memory``."""
        u = memory["u"]
        h, _ = self.read(inputs, u, self.start(u))
        prepared = self.prepare(h, memory, batch)
        alpha, out = prepared["start"], []
        for t in range(h.size(1)):
            predicted, generated, gate = self.step(alpha, prepared, t)
            p, alpha = self.observe(predicted, generated, gate, memory["ids"], targets[:, t])
            out.append(torch.log(p + 1e-10))
        return torch.stack(out, 1)


class CopyModel:
    """A trained copy model with its symbols and cells."""

    def __init__(self, config: CopyConfig, symbols: Sequence[str], cells: Sequence[str]):
        self.config = config
        self.symbols = list(symbols)
        self.cells = list(cells)
        self.ids = {s: i for i, s in enumerate(["<pad>", "<s>", "</s>", "<unk>"], 0)}
        self.ids.update({s: TAGS + len(cells) + i for i, s in enumerate(self.symbols)})
        self.cell_ids = {c: i for i, c in enumerate(self.cells)}
        self.net = CopyNet(config, TAGS + len(cells) + len(symbols), len(cells))

    # -- training ----------------------------------------------------------------------------
    @classmethod
    def train(cls, cells: Sequence[str], table: list[list[Symbols]], config: CopyConfig, seed: int):
        """A copy model trained from ``seed`` on ``table``, the known forms of each stem (a
        row) in each of ``cells`` (``()`` where unknown)."""
        frequency = Counter(symbol for row in table for form in row for symbol in form)
        with alone(seed):
            model = cls(config, sorted(frequency), cells)
            model.fit(table, frequency, seed)
        return model

    def fit(self, table: list[list[Symbols]], frequency: Counter[str], seed: int) -> None:
        config = self.config
        rng = random.Random(seed)
        rows = list(table)
        sources = [row for row in table if sum(1 for form in row if form) >= 2]
        alphabet, weights = list(frequency), list(frequency.values())
        for _ in range(round(config.hallucinated * len(sources))):
            made = hallucinate(rng.choice(sources), alphabet, weights, config.kept_at_junction, rng)
            if made is not None:
                rows.append(made)
        trained = [i for i, row in enumerate(rows) if sum(1 for form in row if form) >= 2]
        cell_vectors = [self.net.cell.weight]
        others = [p for p in self.net.parameters() if p is not self.net.cell.weight]
        optimiser = Adam(  # phonkit's: torch.optim's import costs more than the training
            [
                {"params": others, "lr": config.lr},
                {"params": cell_vectors, "lr": config.lr * config.cell_lr_scale},
            ]
        )
        self.net.train()
        step = 0
        while step < config.steps and trained:
            rng.shuffle(trained)
            for first in range(0, len(trained), config.stems_per_batch):
                stems = [rows[i] for i in trained[first : first + config.stems_per_batch]]
                examples, targets = [], []
                for number, row in enumerate(stems):
                    filled = [cell for cell, form in enumerate(row) if form]
                    for cell in filled:
                        readable = [c for c in filled if c != cell]
                        if len(readable) > 1 and rng.random() < config.subset:
                            readable = rng.sample(readable, rng.randint(1, len(readable) - 1))
                        examples.append((number, cell, readable))
                        targets.append(row[cell])
                inputs, outputs = self.targets(targets)
                log_p = self.net(self.batch(stems, examples), inputs, outputs)
                loss = -(log_p * (outputs != PAD)).sum() / len(examples)
                loss = loss + config.prior * (self.net.cell.weight**2).sum() / 2
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                step += 1
                if step >= config.steps:
                    break
        self.net.eval()

    # -- reading forms -----------------------------------------------------------------------
    def encode(self, form: Symbols) -> list[int]:
        return [self.ids.get(symbol, UNK) for symbol in form]

    def batch(self, stems: Sequence[Sequence[Symbols]], examples: Sequence[Example]) -> Batch:
        """The model's input for ``examples`` (stem, target cell, readable cells) of ``stems``
        (rows of forms by cell index, ``()`` where unknown)."""
        cells = len(self.cells)
        forms, slots = [], []
        for number, row in enumerate(stems):
            for cell, form in enumerate(row):
                if form:
                    forms.append([TAGS + cell, *self.encode(form), EOS])
                    slots.append(number * cells + cell)
        length = max(len(form) for form in forms)
        readable = torch.zeros(len(examples), cells, dtype=torch.bool)
        for number, (_, _, sources) in enumerate(examples):
            readable[number, list(sources)] = True
        return Batch(
            torch.tensor([form + [PAD] * (length - len(form)) for form in forms]),
            torch.tensor(slots),
            len(stems),
            torch.tensor([stem for stem, _, _ in examples]),
            torch.tensor([cell for _, cell, _ in examples]),
            readable,
        )

    def targets(self, forms: Sequence[Symbols]) -> tuple[Tensor, Tensor]:
        """Decoder inputs (``<s>`` first) and outputs (``</s>`` last) of ``forms``."""
        encoded = [self.encode(form) for form in forms]
        length = max(len(ids) for ids in encoded) + 1
        inputs = [[BOS, *ids] + [PAD] * (length - 1 - len(ids)) for ids in encoded]
        outputs = [[*ids, EOS] + [PAD] * (length - 1 - len(ids)) for ids in encoded]
        return torch.tensor(inputs), torch.tensor(outputs)

    def query(self, known: Paradigm, cell: str) -> tuple[list[Symbols], Example] | None:
        """A stem's row and the example of its ``cell`` read from its other known forms;
        None where the model cannot (a cell it never saw, or no other known form)."""
        if cell not in self.cell_ids:
            return None
        row = [known.get(c, ()) if c != cell else () for c in self.cells]
        sources = [number for number, form in enumerate(row) if form]
        return (row, (0, self.cell_ids[cell], sources)) if sources else None

    # -- judging -----------------------------------------------------------------------------
    @torch.no_grad()
    def nll(self, known: Paradigm, cell: str, forms: Sequence[Symbols]) -> list[float] | None:
        """-log p of each of ``forms`` in ``cell`` of a stem with the ``known`` forms;
        None where the model cannot read the stem."""
        found = self.query(known, cell)
        if found is None or not forms:
            return None
        row, example = found
        inputs, outputs = self.targets(forms)
        log_p = self.net.judge(self.batch([row], [example]), inputs, outputs)
        return (-(log_p * (outputs != PAD)).sum(1)).tolist()

    @torch.no_grad()
    def greedy(self, known: Paradigm, cell: str) -> Symbols | None:
        """The most probable symbol at each step in ``cell`` of a stem with the ``known``
        forms; None where the model cannot read the stem."""
        found = self.query(known, cell)
        if found is None:
            return None
        row, example = found
        batch = self.batch([row], [example])
        memory = self.net.encode(batch)
        u = memory["u"]
        state = self.net.start(u)
        alpha = None
        previous = torch.full((1, 1), BOS)
        symbols: list[str] = []
        names = {i: s for s, i in self.ids.items()}
        longest = max(len(form) for form in row)
        for _ in range(longest + self.config.extra_length):
            h, state = self.net.read(previous, u, state)
            prepared = self.net.prepare(h, memory, batch)
            alpha = prepared["start"] if alpha is None else alpha
            predicted, generated, gate = self.net.step(alpha, prepared, 0)
            p = self.net.distribution(predicted, generated, gate, memory["ids"])
            p[:, [PAD, BOS, UNK]] = 0
            p[:, TAGS : TAGS + len(self.cells)] = 0
            chosen = p.argmax(-1)
            if chosen.item() == EOS:
                break
            symbols.append(names[int(chosen.item())])
            alpha = self.net.observe(predicted, generated, gate, memory["ids"], chosen)[1]
            previous = chosen.unsqueeze(1)
        return tuple(symbols)

    # -- storing -----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "config": self.config.to_json(),
            "symbols": self.symbols,
            "cells": self.cells,
            "weights": self.net.state_dict(),
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> CopyModel:
        # Copy models stored before their settings were declared also stored their seed
        settings = {name: value for name, value in state["config"].items() if name != "seed"}
        model = cls(CopyConfig.from_json(settings), state["symbols"], state["cells"])
        model.net.load_state_dict(
            {read_back(name): value for name, value in state["weights"].items()}
        )
        model.net.eval()
        return model


def read_back(name: str) -> str:
    """The name of a stored weight now: copy models stored before the encoder's backward
    reading had an LSTM of its own kept it in a bidirectional one (``encoder.*_reverse``)."""
    if name.startswith("encoder.") and name.endswith("_reverse"):
        return "encoder_back." + name.removeprefix("encoder.").removesuffix("_reverse")
    return name


def rows_of(paradigms: Mapping[str, Paradigm]) -> tuple[list[str], list[list[Symbols]]]:
    """The cells (sorted) and the rows of forms (``()`` where unknown) of known paradigms."""
    cells = sorted({cell for paradigm in paradigms.values() for cell in paradigm})
    return cells, [[paradigm.get(cell, ()) for cell in cells] for paradigm in paradigms.values()]


@functools.cache
def offset_table(cells: int, length: int) -> Tensor:
    """Which move goes from each position of a stem's memory (``cells`` forms of ``length``)
    to each: offsets -3..+5 within a form are moves 0..8, another form is move 9, and 10
    (weight 0) is no move."""
    position = torch.arange(cells * length)
    form, place = position // length, position % length
    offset = place.unsqueeze(0) - place.unsqueeze(1)  # [i, j]: j - i
    within = torch.where((offset >= -BACK) & (offset <= AHEAD), offset + BACK, OFFSETS)
    return torch.where(form.unsqueeze(0) == form.unsqueeze(1), within, OFFSETS - 1)


def moved(weight: Tensor, moves: Tensor, length: int) -> Tensor:
    """Where the alignment's ``weight`` (examples, cells * length) flows by ``moves``
    (examples, 11), one weight per move of :func:`offset_table`: ``flow[e, j] = sum_i
    weight[e, i] moves[e, offset_table[i, j]]``, without the (positions, positions) table.
    Within a form, position j receives from the window j - AHEAD .. j + BACK around it;
    a move to another form takes the weight of every other form."""
    examples = weight.size(0)
    forms = weight.view(examples, -1, length)
    windows = F.pad(forms, (AHEAD, BACK)).unfold(-1, AHEAD + BACK + 1, 1)  # [e, f, j, q]
    by_window = moves[:, : AHEAD + BACK + 1].flip(-1)  # q = AHEAD - offset
    flow = (windows * by_window[:, None, None, :]).sum(-1)
    per_form = forms.sum(-1, keepdim=True)
    flow = flow + moves[:, OFFSETS - 1, None, None] * (per_form.sum(1, keepdim=True) - per_form)
    return flow.reshape(examples, -1)


@contextmanager
def alone(seed: int) -> Iterator[None]:
    """Torch's random numbers from ``seed`` on one CPU thread, then as they were."""
    with torch.random.fork_rng(devices=[]), one_thread():
        torch.manual_seed(seed)
        yield
