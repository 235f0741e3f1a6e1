"""Hallucinated stems: a paradigm whose shared part is replaced by random symbols in every
form (after Anastasopoulos & Neubig, "Pushing the limits of low-resource morphological
inflection", EMNLP 2019). A model that reads a stem's forms learns from them to copy what it
reads rather than to remember the stems it was trained on."""

from __future__ import annotations

import random
from collections.abc import Sequence

Symbols = tuple[str, ...]


def shared_part(forms: Sequence[Symbols]) -> tuple[list[int], int]:
    """Where the longest substring that all ``forms`` share starts in each, and its length."""
    shortest = min(forms, key=len)
    for length in range(len(shortest), 0, -1):
        for start in range(len(shortest) - length + 1):
            part = shortest[start : start + length]
            starts = []
            for form in forms:
                found = next(
                    (o for o in range(len(form) - length + 1) if form[o : o + length] == part),
                    -1,
                )
                if found < 0:
                    break
                starts.append(found)
            else:
                return starts, length
    return [], 0


def hallucinate(
    forms: Sequence[Symbols],
    alphabet: Sequence[str],
    weights: Sequence[float],
    kept: int,
    rng: random.Random,
) -> list[Symbols] | None:
    """``forms`` (a stem's, ``()`` where unknown) with the part the known ones share replaced
    by as many random symbols (drawn by ``weights``) in all of them, but for ``kept``
    symbols where some form has an affix on that side; None where they share too little."""
    known = [number for number, form in enumerate(forms) if form]
    if not known:
        return None
    starts, length = shared_part([forms[number] for number in known])
    if length == 0:
        return None
    chosen = [forms[number] for number in known]
    left = kept if any(start > 0 for start in starts) else 0
    right = kept if any(s + length < len(f) for f, s in zip(chosen, starts, strict=True)) else 0
    if length - left - right < 1:
        return None
    middle = tuple(rng.choices(alphabet, weights, k=length - left - right))
    made: list[Symbols] = [()] * len(forms)
    for number, form, start in zip(known, chosen, starts, strict=True):
        made[number] = form[: start + left] + middle + form[start + length - right :]
    return made
