"""Batched greedy decoding and the surprisal of gold forms."""

from __future__ import annotations

from contextlib import nullcontext

import torch
from torch import Tensor

from phonkit.encoding import Encoded, bucketed_batches
from phonkit.errors import InputError
from phonkit.lexicon import EOS_ID, PAD_ID, UNK_ID
from phonkit.phonology import Phonology, select

CHECK_EVERY = 4  # steps between checks that every word has ended (each check syncs the device)


PRECISIONS = ("auto", "fp32", "bf16")


def check_precision(precision: str) -> None:
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r}; use {', '.join(PRECISIONS)}")


def autocast(device: torch.device, precision: str = "auto"):
    """Mixed precision: ``bf16`` autocasts matrix products to bfloat16, ``fp32`` never does,
    ``auto`` does on CUDA only (on a CPU bf16 pays off only with native bfloat16 units,
    such as AVX-512 BF16 or AMX, and changes results in the last digits)."""
    check_precision(precision)
    if precision == "bf16" or (precision == "auto" and device.type == "cuda"):
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return nullcontext()


@torch.no_grad()
def greedy(model: Phonology, morphemes: Tensor, max_length: int) -> list[list[int]]:
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
        log_probs[:, UNK_ID] = float("-inf")  # UNK is never a prediction
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
def decode(
    model: Phonology,
    morphemes: Tensor,
    max_length: int,
    batch_size: int = 1024,
    precision: str = "auto",
) -> list[list[int]]:
    """Greedy decoding of any number of words, in batches, in input order."""
    model.eval()
    device = next(model.parameters()).device
    results: list[list[int]] = [[] for _ in range(morphemes.shape[0])]
    with autocast(device, precision):
        for index in torch.arange(morphemes.shape[0]).split(batch_size):
            for row, symbols in zip(
                index.tolist(), greedy(model, morphemes[index].to(device), max_length), strict=False
            ):
                results[row] = symbols
    return results


def token_nll(model: Phonology, morphemes: Tensor, inputs: Tensor, targets: Tensor) -> Tensor:
    """Negative log-probability of each target symbol ``(B, T)``; zero on padding."""
    log_probs = model(morphemes, inputs).float()
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return -picked.masked_fill(targets == PAD_ID, 0.0)


@torch.no_grad()
def surprisal(
    model: Phonology, data: Encoded, batch_size: int = 1024, precision: str = "auto"
) -> Tensor:
    """Per-word ``-log p(gold) / (length + 1)`` with underlying forms at their mean."""
    model.eval()
    device = next(model.parameters()).device
    out = torch.zeros(len(data))
    with autocast(device, precision):
        for index in bucketed_batches(data.lengths, batch_size):
            morphemes, inputs, targets = (t.to(device) for t in data.batch(index))
            total = token_nll(model, morphemes, inputs, targets).sum(-1)
            out[index] = (total / data.lengths[index].to(device)).float().cpu()
    return out
