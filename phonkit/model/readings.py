"""The forms a model reads a lemma from: its spelling, and its known forms with their cells.

A lemma's known forms are those of its training cells (and, for a lemma new to the model, the
cells its user gives); its spelling is the lemma transcribed as the forms are. Each form is a
row of symbol ids with a slot for its tag first and EOS last; a form's cell is the affix
morphemes of its word (none for a spelling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from phonkit.data.encoding import pad
from phonkit.data.lexicon import EOS_ID, UNK_ID

Form = tuple[int, tuple[int, ...], tuple[int, ...]]  # lemma id, affix ids, symbol ids


def widened(table: Tensor, width: int, fill: int) -> Tensor:
    """``table`` ``(rows, w)`` padded with ``fill`` to ``width`` columns."""
    if table.shape[1] >= width:
        return table
    extra = torch.full((table.shape[0], width - table.shape[1]), fill, dtype=table.dtype)
    return torch.cat([table, extra], 1)


@dataclass
class Readings:
    """Every form the model can read, and which of them each morpheme id's lemma has."""

    symbols: Tensor  # (S, L) a tag slot (UNK), the symbols, EOS, then PAD
    cells: Tensor  # (S, A) the affix ids of each form's word (PAD after; all PAD: a spelling)
    spelling: Tensor  # (N,) the form that spells each morpheme id's lemma (-1: none)
    known: Tensor  # (N, R) the known forms of each morpheme id's lemma (-1 after)

    @classmethod
    def empty(cls) -> Readings:
        nothing = torch.zeros(0, 1, dtype=torch.long)
        return cls(nothing, nothing.clone(), torch.zeros(0, dtype=torch.long),
                   torch.zeros(0, 1, dtype=torch.long))  # fmt: skip

    def extended(
        self, forms: Sequence[Form], spellings: dict[int, tuple[int, ...]], size: int
    ) -> Readings:
        """These readings and ``forms``, the ``spellings`` of lemmas by id, for ``size``
        morpheme ids (at least as many as before)."""
        first = self.symbols.shape[0]
        rows = [[UNK_ID, *symbols, EOS_ID] for _, _, symbols in forms]
        rows += [[UNK_ID, *symbols, EOS_ID] for symbols in spellings.values()]
        cells = [list(affixes) for _, affixes, _ in forms] + [[] for _ in spellings]
        new_symbols, new_cells = pad(rows) if rows else None, pad(cells) if cells else None
        symbols, cells_table = self.symbols, self.cells
        if new_symbols is not None and new_cells is not None:
            width = max(symbols.shape[1], new_symbols.shape[1])
            symbols = torch.cat([widened(symbols, width, 0), widened(new_symbols, width, 0)])
            width = max(cells_table.shape[1], new_cells.shape[1])
            cells_table = torch.cat([widened(cells_table, width, 0),
                                     widened(new_cells, width, 0)])  # fmt: skip
        spelling = torch.cat([self.spelling, torch.full((size - len(self.spelling),), -1)])
        for number, lemma in enumerate(spellings):
            spelling[lemma] = first + len(forms) + number
        by_lemma: dict[int, list[int]] = {}
        for number, (lemma, _, _) in enumerate(forms):
            by_lemma.setdefault(lemma, []).append(first + number)
        known = self.known
        known = torch.cat([known, torch.full((size - known.shape[0], known.shape[1]), -1)])
        if by_lemma:
            had = {lemma: [i for i in known[lemma].tolist() if i >= 0] for lemma in by_lemma}
            width = max(known.shape[1], *(len(had[lemma]) + len(found)
                                          for lemma, found in by_lemma.items()))  # fmt: skip
            known = widened(known, width, -1)
            for lemma, found in by_lemma.items():
                kept = had[lemma] + found
                known[lemma] = torch.tensor(kept + [-1] * (width - len(kept)))
        return Readings(symbols, cells_table, spelling, known)
