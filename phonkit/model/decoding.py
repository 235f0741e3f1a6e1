"""Batched greedy and beam-search decoding, and the log-probability of given forms."""

from __future__ import annotations

from functools import partial

import torch
from torch import Tensor

from phonkit.data.encoding import Encoded, bucketed_batches
from phonkit.data.lexicon import EOS_ID, PAD_ID, UNK_ID
from phonkit.model.device import autocast
from phonkit.model.phonology import Model, select

CHECK_EVERY = 4  # steps between checks that every word has ended (each check syncs the device)


def never(log_probs: Tensor, step: int) -> Tensor:
    """``log_probs`` of one step, in place, without what is never a prediction: UNK, and EOS
    as the first symbol (a form has at least one symbol; the empty form no word has)."""
    log_probs[:, UNK_ID] = float("-inf")
    if step == 0:
        log_probs[:, EOS_ID] = float("-inf")
    return log_probs


@torch.no_grad()
def greedy(model: Model, morphemes: Tensor, max_length: int) -> list[list[int]]:
    """The most probable symbol at each step until EOS, for a batch of words ``(B, M)``.

    Every ``CHECK_EVERY`` steps the words that have ended leave the batch, so the work
    follows the number of words still being spelled out."""
    previous, context, state = model.start(morphemes)
    device = morphemes.device
    output = torch.full((morphemes.shape[0], max_length), EOS_ID, dtype=torch.long, device=device)
    active = torch.arange(morphemes.shape[0], device=device)
    ended = torch.zeros_like(active, dtype=torch.bool)
    for step in range(max_length):
        log_probs, state = model.step(previous, context, state)
        never(log_probs, step)
        previous = log_probs.argmax(-1)
        output[active, step] = previous
        ended |= previous == EOS_ID
        if step % CHECK_EVERY == CHECK_EVERY - 1:
            going = ~ended
            if not bool(going.any()):
                break
            active, previous, ended = active[going], previous[going], ended[going]
            context, state = select(context, going), state.select(going)
    rows = output.tolist()
    return [row[: row.index(EOS_ID)] if EOS_ID in row else row for row in rows]


@torch.no_grad()
def beam_search(
    model: Model, morphemes: Tensor, max_length: int, width: int
) -> list[list[tuple[list[int], float]]]:
    """The ``width`` most probable spell-outs of each word ``(B, M)``, best first, each with
    its log-probability (EOS included). A hypothesis that has ended stays in the beam at its
    score, so ended and going hypotheses compete on probability alone."""
    batch, device = morphemes.shape[0], morphemes.device
    rows = torch.arange(batch, device=device).repeat_interleave(width)
    previous, context, state = model.start(morphemes[rows])
    scores = torch.full((batch, width), float("-inf"), device=device)
    scores[:, 0] = 0.0  # one live hypothesis to begin with, so none is repeated
    ended = torch.zeros(batch, width, dtype=torch.bool, device=device)
    history = torch.full((batch * width, max_length), EOS_ID, dtype=torch.long, device=device)
    offsets = torch.arange(batch, device=device)[:, None] * width
    for step in range(max_length):
        log_probs, state = model.step(previous, context, state)
        log_probs = never(log_probs.float(), step)
        n_symbols = log_probs.shape[-1]
        log_probs = log_probs.view(batch, width, n_symbols)
        stay = torch.full_like(log_probs[0, 0], float("-inf"))
        stay[EOS_ID] = 0.0  # an ended hypothesis only repeats EOS, at no cost
        log_probs = torch.where(ended[..., None], stay, log_probs)
        scores, flat = (scores[..., None] + log_probs).view(batch, -1).topk(width, dim=-1)
        parent, previous = flat // n_symbols, flat % n_symbols
        picked = (parent + offsets).view(-1)
        history = history[picked]
        history[:, step] = previous.view(-1)
        ended = ended.gather(1, parent) | (previous == EOS_ID)
        previous, state = previous.view(-1), state.select(picked)
        if step % CHECK_EVERY == CHECK_EVERY - 1 and bool(ended.all()):
            break
    results = []
    for word_scores, word_history in zip(
        scores.tolist(), history.view(batch, width, -1).tolist(), strict=True
    ):
        results.append(
            [
                (row[: row.index(EOS_ID)] if EOS_ID in row else row, score)
                for row, score in zip(word_history, word_scores, strict=True)
                if score > float("-inf")
            ]
        )
    return results


def _in_batches(search, model: Model, morphemes: Tensor, batch_size: int, precision: str):
    """Run ``search(model, batch)`` over ``morphemes`` in batches; results in input order."""
    model.eval()
    device = next(model.parameters()).device
    results: list = []
    with torch.no_grad(), autocast(device, precision):
        for index in torch.arange(morphemes.shape[0]).split(batch_size):
            results.extend(search(model, morphemes[index].to(device)))
    return results


def decode(
    model: Model,
    morphemes: Tensor,
    max_length: int,
    batch_size: int = 1024,
    precision: str = "auto",
) -> list[list[int]]:
    """Greedy decoding of any number of words, in batches, in input order."""
    return _in_batches(
        partial(greedy, max_length=max_length), model, morphemes, batch_size, precision
    )


def decode_nbest(
    model: Model,
    morphemes: Tensor,
    max_length: int,
    width: int,
    batch_size: int = 256,
    precision: str = "auto",
) -> list[list[tuple[list[int], float]]]:
    """Beam search of any number of words, in batches, in input order."""
    search = partial(beam_search, max_length=max_length, width=width)
    return _in_batches(search, model, morphemes, batch_size, precision)


def best(
    model: Model, morphemes: Tensor, max_length: int, beam: int, nbest: int, precision: str
) -> list[list[list[int]]]:
    """The ``nbest`` best spell-outs of each word, best first: greedy where ``beam`` and
    ``nbest`` are 1, else beam search ``max(beam, nbest)`` wide."""
    width = max(beam, nbest)
    if width == 1:
        return [[ids] for ids in decode(model, morphemes, max_length, precision=precision)]
    beams = decode_nbest(model, morphemes, max_length, width, precision=precision)
    return [[ids for ids, _ in found[:nbest]] for found in beams]


def token_nll(model: Model, morphemes: Tensor, inputs: Tensor, targets: Tensor) -> Tensor:
    """Negative log-probability of each target symbol ``(B, T)``; zero on padding."""
    log_probs = model(morphemes, inputs).float()
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return -picked.masked_fill(targets == PAD_ID, 0.0)


@torch.no_grad()
def total_nll(
    model: Model, data: Encoded, batch_size: int = 1024, precision: str = "auto"
) -> Tensor:
    """Per-word ``-log p(form)``, EOS included, with underlying forms at their mean."""
    model.eval()
    device = next(model.parameters()).device
    out = torch.zeros(len(data))
    with autocast(device, precision):
        for index in bucketed_batches(data.lengths, batch_size):
            morphemes, inputs, targets = (t.to(device) for t in data.batch(index))
            out[index] = token_nll(model, morphemes, inputs, targets).sum(-1).float().cpu()
    return out


def surprisal(
    model: Model, data: Encoded, batch_size: int = 1024, precision: str = "auto"
) -> Tensor:
    """Per-word ``-log p(gold) / (length + 1)`` with underlying forms at their mean."""
    return total_nll(model, data, batch_size, precision) / data.lengths.cpu()
