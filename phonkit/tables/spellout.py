"""Spelling out an underlying string in a cell: the surface forms the table's processes
(:mod:`phonkit.tables.processes`) make of it, most probable first, and the cost of a form
another source proposes (the underlying strings as a judge).

The cell's prefix and suffix are the shapes the table shows in it, their vowels chosen by the
string's nearest vowel; each symbol of the string is then copied, deleted or substituted (by
one of its attested alternants), and a symbol inserted where the processes would, each
choice the cheapest in its context. Choices in different places do not depend on each other
(a context reads the string and the affixes' edges, not the other choices), so the cheapest
form is the cheapest choice everywhere; the next ones change one choice, or the affixes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from phonkit.tables.processes import (
    COPY,
    DELETE,
    Evidence,
    Processes,
    affix_events,
    affix_vowel_event,
    analyses,
    insertion_events,
    nearest_vowel,
    op_events,
    padded,
)
from phonkit.tables.segments import EDGE, kind

AFFIXES = 3  # prefixes and suffixes tried per form


@dataclass(frozen=True)
class Spelled:
    """A form of a string in a cell, and its cost (-log p, nats)."""

    form: str
    cost: float


def affixes(
    underlying: str, cell: str, side: str, evidence: Evidence, processes: Processes
) -> list[tuple[float, str]]:
    """The cell's affixes on one side that the table shows, each with its cost for this
    string (the cheapest vowels in its slots), cheapest first."""
    found = []
    for shape in processes.seen(("k" + side, cell)):
        affix = with_vowels(underlying, shape, cell, side, evidence, processes)
        if affix is not None:
            events = affix_events(underlying, affix, side, cell, evidence)
            found.append((_cost(events, processes), affix))
    return sorted(found)[:AFFIXES] or [(0.0, "")]


def with_vowels(
    underlying: str, shape: str, cell: str, side: str, evidence: Evidence, processes: Processes
) -> str | None:
    """The affix of ``shape`` with, in each vowel slot, the vowel that costs least after this
    string's vowels: one the table shows there, or in a slot it reads by harmony, any of its
    vowels or the string's (None where it shows no vowel in the slot)."""
    nearest = nearest_vowel(underlying, side)
    affix, place = "", 0
    for symbol in shape:
        if symbol != "V":
            affix += symbol
            continue
        slot = (side, cell, place)
        vowels = processes.seen(("v" + side, cell, place))
        if not vowels:
            return None
        if slot in evidence.harmonic:  # any vowel, the string's own included
            vowels = sorted({*evidence.vowels, nearest} - {EDGE})
        affix += min(
            vowels,
            key=lambda v: _cost([affix_vowel_event(nearest, v, slot, evidence)], processes),
        )
        place += 1
    return affix


def _cost(found, processes: Processes) -> float:
    return sum(processes.cost(processes.counted(event)) for event in found)


def choices(
    underlying: str, prefix: str, suffix: str, evidence: Evidence, processes: Processes
) -> list[list[tuple[float, str]]]:
    """For each symbol of the string and each gap before it (and after the last), the
    choices (cost, what comes out), cheapest first."""
    around = padded(underlying, prefix, suffix)
    found = []
    for gap in range(len(underlying) + 1):
        options = [(_cost(insertion_events(around, gap, "", evidence), processes), "")]
        for symbol in _inserted(around, gap, processes):
            cost = _cost(insertion_events(around, gap, symbol, evidence), processes)
            options.append((cost, symbol))
        found.append(sorted(options))
        if gap == len(underlying):
            break
        symbol = underlying[gap]
        outs = [(COPY, symbol), (DELETE, "")]
        outs += [(y, y) for x, y in sorted(evidence.alternations) if x == symbol]
        options = [
            (_cost(op_events(around, gap, op, evidence), processes), out) for op, out in outs
        ]
        found.append(sorted(options))
    return found


def _inserted(around: str, gap: int, processes: Processes) -> list[str]:
    """The symbols the table inserts in a gap like this one (by its classes)."""
    left, right = around[gap], around[gap + 1]
    return processes.seen(("w", kind(left), kind(right)))


def spell(
    underlying: str, cell: str, evidence: Evidence, processes: Processes, nbest: int = 1
) -> list[Spelled]:
    """The ``nbest`` most probable surface forms of ``underlying`` in ``cell``."""
    found: dict[str, float] = {}
    for prefix_cost, prefix in affixes(underlying, cell, "p", evidence, processes):
        for suffix_cost, suffix in affixes(underlying, cell, "s", evidence, processes):
            options = choices(underlying, prefix, suffix, evidence, processes)
            base = prefix_cost + suffix_cost
            for cost, middle in _best(options, nbest):
                form = prefix + middle + suffix
                if form and (form not in found or base + cost < found[form]):
                    found[form] = base + cost
    return [Spelled(form, cost) for form, cost in sorted(found.items(), key=lambda p: p[1])][
        :nbest
    ]


def _best(options: list[list[tuple[float, str]]], nbest: int) -> list[tuple[float, str]]:
    """The cheapest way through the choices, then the ways that change one choice, cheapest
    first: ``nbest`` in all."""
    outs = [choice[0][1] for choice in options]
    base = sum(choice[0][0] for choice in options)
    ways = [(base, "".join(outs))]
    changes = sorted(
        (choice[k][0] - choice[0][0], place, k)
        for place, choice in enumerate(options)
        for k in range(1, len(choice))
    )
    for extra, place, k in changes[: nbest - 1]:
        changed = list(outs)
        changed[place] = options[place][k][1]
        ways.append((base + extra, "".join(changed)))
    return ways


def cost(
    underlying: str, form: str, cell: str, core: str, reach: tuple[int, int],
    evidence: Evidence, processes: Processes,
) -> float:  # fmt: skip
    """-log p of ``form`` in ``cell`` from ``underlying``: its cheapest analysis."""
    anchor = core if core and core in form and core in underlying else ""
    found = analyses(underlying, form, cell, anchor, reach, evidence, processes)
    return min((processes.costs(a.events) for a in found), default=math.inf)


def costs(
    underlying: str, forms: Sequence[str], cell: str, core: str, reach: tuple[int, int],
    evidence: Evidence, processes: Processes,
) -> list[float]:  # fmt: skip
    """:func:`cost` of each of ``forms``."""
    return [cost(underlying, form, cell, core, reach, evidence, processes) for form in forms]
