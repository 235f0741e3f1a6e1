"""Underlying strings: every stem's most probable underlying string, given its known forms and a
phonology of local changes learned from the whole table (:mod:`phonkit.tables.processes`).

A stem's candidates are the strings its forms are built from: every stretch of one of its forms that
keeps the stem's core (the part all of them share, once each cell's constant edges — material every
stem shows in that cell — are set aside), that leaves no more around it than the table's affixes
reach, and that two of the stem's forms show (any, for a stem with two forms), less those that leave
out a segment all its forms show (:func:`spanning`: Somali /ʔul/, not /ʔu/ with a suffix *-l*). The
string chosen for a stem minimises its length (a lexicon's cost,
:data:`~phonkit.tables.sizes.SYMBOL_COST` per symbol) plus the cost of its forms under the processes
counted over the *other* stems (leave one stem out), so what the string explains must be what the
rest of the table shares: the stem's own forms cannot vouch for it.

The search is coordinate ascent over stems, from two starts (each stem's core, a candidate or not,
and its longest candidate), with *moves* between its sweeps: the same change of string (by class:
"add a consonant at the end", "drop the last vowel before a consonant") tried on every stem that has
it as a candidate at once, and kept where the table's cost falls. A phonological pattern shared by
several stems (final devoicing, velar deletion) is then taken or left as a whole, not stem by stem,
where each stem alone would stay with its neighbours.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from phonkit.data.features import Features
from phonkit.tables.processes import (
    Analysis,
    Classes,
    Evidence,
    Processes,
    Slot,
    alternations,
    analyses,
    feature_classes,
    harmonic_slots,
)
from phonkit.tables.rewrites import edit
from phonkit.tables.segments import Phonotactics, kind
from phonkit.tables.sizes import (
    CONSTANT_EDGE_STEMS,
    SEARCH_SWEEPS,
    SYMBOL_COST,
)

Known = Mapping[str, str]  # a stem's known forms by cell, a form as a string of symbols
Usual = frozenset[tuple[str, bool, str]]  # (cell, at its end, symbol): :func:`usual_edges`


@dataclass
class Stem:
    """A stem's known forms, its core, its candidate strings and their analyses."""

    known: Known
    core: str
    candidates: list[str]
    analyses: dict[str, dict[str, list[Analysis]]] = field(default_factory=dict)


@dataclass
class Inference:
    """The underlying string of each stem (by row), the probability of that string among the
    stem's candidates, and the processes counted over every stem's analyses."""

    strings: list[str]
    scores: list[float]
    processes: Processes
    evidence: Evidence
    reach: tuple[int, int]  # how far a table's affixes reach from a stem's core
    edges: dict[str, tuple[int, int]]  # each cell's constant edges
    usual: Usual  # the symbols most of a cell's forms start or end with
    stems: list[Stem | None]  # by row; None for a row with no known form
    chosen: list[dict[str, Analysis]]  # by row

    def fit(self, known: Known) -> str | None:
        """The string of a stem the table never showed: the cheapest of its candidates under
        the table's processes (None without a known form)."""
        if not known:
            return None
        core = core_of(known, self.edges)
        found = candidates(known, core, self.reach)
        spans = spanning(found, known, self.edges, self.usual, self.evidence.alternations)
        stem = Stem(known, core, spans)
        add_analyses(stem, self.reach, self.evidence, self.processes)
        known_costs: dict = {}
        return min(stem.candidates, key=lambda s: cost_of(stem, s, self.processes, known_costs)[0])


def longest_shared(forms: Sequence[str]) -> str:
    """The longest stretch every one of ``forms`` has (the first of equal ones)."""
    if not forms:
        return ""
    shortest = min(forms, key=len)
    for length in range(len(shortest), 0, -1):
        for start in range(len(shortest) - length + 1):
            part = shortest[start : start + length]
            if all(part in form for form in forms):
                return part
    return ""


def _cells(rows: Sequence[Known]) -> dict[str, list[str]]:
    """The forms of each cell shown by at least :data:`CONSTANT_EDGE_STEMS` stems."""
    by_cell: dict[str, list[str]] = {}
    for known in rows:
        for cell, form in known.items():
            by_cell.setdefault(cell, []).append(form)
    return {cell: forms for cell, forms in by_cell.items() if len(forms) >= CONSTANT_EDGE_STEMS}


def constant_edges(rows: Sequence[Known]) -> dict[str, tuple[int, int]]:
    """For each cell shown by at least :data:`CONSTANT_EDGE_STEMS` stems, how many symbols at
    its start and its end every one of its forms shares (the cell's own material)."""
    edges = {}
    for cell, forms in _cells(rows).items():
        start = len(_common_start(forms))
        end = len(_common_start([form[::-1] for form in forms]))
        shortest = min(len(form) for form in forms)
        edges[cell] = (min(start, shortest - 1), min(end, shortest - 1))
    return edges


def usual_edges(rows: Sequence[Known]) -> Usual:
    """For each cell shown by at least :data:`CONSTANT_EDGE_STEMS` stems, the symbol that
    more than half of its forms end with, and the one they start with, if any: (cell, at
    its end, symbol). Material most stems show there is the cell's, as all of them show
    its constant edges (Dutch adjectives' *-e*, beside the few that take none)."""
    found = set()
    for cell, forms in _cells(rows).items():
        for end, at in ((True, -1), (False, 0)):
            symbol, times = Counter(form[at] for form in forms).most_common(1)[0]
            if 2 * times > len(forms):
                found.add((cell, end, symbol))
    return frozenset(found)


def _common_start(forms: Sequence[str]) -> str:
    first = forms[0]
    size = 0
    while size < len(first) and all(len(f) > size and f[size] == first[size] for f in forms):
        size += 1
    return first[:size]


def core_of(known: Known, edges: Mapping[str, tuple[int, int]]) -> str:
    """The longest stretch a stem's forms share once each cell's constant edges are set
    aside; nothing for a stem with one form (which shows no stretch as its own)."""
    return longest_shared(inner_forms(known, edges)) if len(known) >= 2 else ""


def inner_forms(known: Known, edges: Mapping[str, tuple[int, int]]) -> list[str]:
    """A stem's forms, each less its cell's constant edges (whole where nothing is left)."""
    return [
        form[start : len(form) - end] or form
        for cell, form in known.items()
        for start, end in [edges.get(cell, (0, 0))]
    ]


def candidates(known: Known, core: str, reach: tuple[int, int]) -> list[str]:
    """The strings a stem's forms are built from: stretches of a form that keep the core,
    leave at most ``reach`` (before, after) symbols of it aside, and that two of the stem's
    forms show (any for a stem with at most two forms). The core itself is always one."""
    forms = list(known.values())
    found: dict[str, None] = {core: None} if core else {}
    for form in forms:
        for start in range(min(reach[0], len(form) - 1) + 1):
            for end in range(max(start + 1, len(form) - reach[1]), len(form) + 1):
                part = form[start:end]
                if core in part:
                    found.setdefault(part)
    if len(forms) > 2:
        found = {s: None for s in found if s == core or sum(s in f for f in forms) >= 2}
    return list(found)


def spanning(
    strings: list[str], known: Known, edges: Mapping[str, tuple[int, int]], usual: Usual,
    alternations: set[tuple[str, str]],
) -> list[str]:  # fmt: skip
    """``strings`` (a stem's candidates) less those that leave out a segment its forms all
    show: one more symbol beside the string, the same in every form (its cell's constant
    edges set aside) or an attested alternant of it, that ends (or starts) one of the forms,
    where the string with it is a candidate too and the symbol is not what most forms of
    that form's cell end (start) with (``usual``). A segment every form shows is the stem's,
    not a suffix that is the whole of what follows the stem in one cell and an alternant of
    itself in the others: Somali *ʔul*, *ʔuʃa*, *ʔulo* are /ʔul/, not /ʔu/ and *-l*, *-ʃa*,
    *-lo*."""
    inner = inner_forms(known, edges)
    if len(inner) < 2:
        return strings

    def shown(string: str, longer: str) -> bool:
        after = longer.startswith(string)
        symbol = longer[-1] if after else longer[0]

        def beside(form: str) -> bool:
            at = form.find(string)
            while at >= 0:
                place = at + len(string) if after else at - 1
                if 0 <= place < len(form) and (
                    form[place] == symbol or (symbol, form[place]) in alternations
                ):
                    return True
                at = form.find(string, at + 1)
            return False

        edge = str.endswith if after else str.startswith
        return all(map(beside, inner)) and any(
            edge(form, longer) and (cell, after, symbol) not in usual
            for cell, form in known.items()
        )

    return [
        string for string in strings
        if not any(
            len(longer) == len(string) + 1
            and (longer.startswith(string) or longer.endswith(string))
            and shown(string, longer)
            for longer in strings
        )
    ]  # fmt: skip


@dataclass
class Table:
    """A table prepared for the search: its stems, what the events read, empty processes
    that number their events' contexts, how far affixes reach, the cells' constant edges and
    the symbols most of their forms start or end with."""

    stems: list[Stem]
    evidence: Evidence
    processes: Processes
    reach: tuple[int, int]
    edges: dict[str, tuple[int, int]]
    usual: Usual


def prepare(
    rows: Sequence[Known],
    fixed: Sequence[str | None] | None = None,
    features: Features | None = None,
    harmonic: frozenset[Slot] = frozenset(),
    classes: Classes | None = None,
) -> Table:
    """The stems of a table (rows of known forms by cell); with ``fixed``, a stem's one
    candidate is its string there (where not None); ``features``, a symbol's features where
    a feature table knows it; ``harmonic``, the affix vowel slots read by harmony."""
    edges, usual = constant_edges(rows), usual_edges(rows)
    cores = [core_of(known, edges) for known in rows]
    reach = [0, 0]
    for known, core in zip(rows, cores, strict=True):
        for form in known.values():
            at = form.find(core)
            reach = [max(reach[0], at), max(reach[1], len(form) - at - len(core))]
    symbols = {symbol for known in rows for form in known.values() for symbol in form}
    featured = {} if features is None else {s: features(s) for s in symbols}
    evidence = Evidence(
        Phonotactics(form for known in rows for form in known.values()),
        alternations((core, list(known.values())) for known, core in zip(rows, cores, strict=True)),
        {symbol: frozenset(found.items()) for symbol, found in featured.items() if found},
        harmonic,
        classes,
    )
    alphabet = len(symbols)
    processes = Processes(alphabet)
    stems = []
    for number, (known, core) in enumerate(zip(rows, cores, strict=True)):
        given = fixed[number] if fixed is not None else None
        if given is not None and core not in given:
            core = ""  # a stored string that does not keep the core: align it whole
        strings = (
            [given] if given is not None
            else spanning(candidates(known, core, (reach[0], reach[1])), known, edges, usual,
                          evidence.alternations)
        )  # fmt: skip
        stem = Stem(known, core, strings)
        add_analyses(stem, (reach[0], reach[1]), evidence, processes, given is None)
        stems.append(stem)
    return Table(stems, evidence, processes, (reach[0], reach[1]), edges, usual)


def add_analyses(
    stem: Stem, reach: tuple[int, int], evidence: Evidence, processes: Processes,
    start: bool = False,
) -> None:  # fmt: skip
    """The analyses of each of the stem's known forms from each of its candidates, and with
    ``start`` from its core too (where the search starts, a candidate or not)."""
    strings = [*stem.candidates, stem.core] if start and stem.core else stem.candidates
    stem.analyses = {
        string: {
            cell: analyses(string, form, cell, stem.core, reach, evidence, processes)
            for cell, form in stem.known.items()
        }
        for string in dict.fromkeys(strings)
    }


def cost_of(
    stem: Stem, string: str, processes: Processes, known: dict | None = None
) -> tuple[float, dict[str, Analysis]]:
    """A string's cost for a stem (its length and its forms' cheapest analyses) and those
    analyses (``known``: event costs already computed under these counts)."""
    total = SYMBOL_COST * len(string)
    chosen = {}
    for cell, options in stem.analyses[string].items():
        best, argument = math.inf, options[0]
        for option in options:
            cost = processes.costs(option.events, known)
            if cost < best:
                best, argument = cost, option
        total += best
        chosen[cell] = argument
    return total, chosen


class Search:
    """Coordinate ascent over the stems' strings, leave-one-stem-out, with moves."""

    def __init__(self, stems: list[Stem], processes: Processes):
        self.stems = stems
        self.processes = processes

    def start(self, strings: list[str]) -> tuple[Processes, list[dict[str, Analysis]]]:
        processes = self.processes.empty()
        chosen = []
        for stem, string in zip(self.stems, strings, strict=True):
            first = {cell: options[0] for cell, options in stem.analyses[string].items()}
            chosen.append(first)
            for analysis in first.values():
                processes.add(analysis)
        return processes, chosen

    def sweep(
        self, strings: list[str], processes: Processes, chosen: list[dict[str, Analysis]]
    ) -> tuple[int, float]:
        """One pass over the stems, each taking its cheapest candidate given the others';
        the number of stems that changed, and the table's cost."""
        changed, total = 0, 0.0
        for number, stem in enumerate(self.stems):
            for analysis in chosen[number].values():
                processes.add(analysis, -1)
            best = None
            known: dict = {}
            for string in stem.candidates:
                cost, analyses_ = cost_of(stem, string, processes, known)
                if best is None or cost < best[0]:
                    best = (cost, string, analyses_)
            assert best is not None
            cost, string, chosen[number] = best
            changed += string != strings[number]
            strings[number] = string
            total += cost
            for analysis in chosen[number].values():
                processes.add(analysis)
        return changed, total

    def ascend(
        self, strings: list[str], moves: bool = True
    ) -> tuple[float, list[str], Processes, list]:
        """Sweeps until no stem changes, then moves while one lowers the cost."""
        processes, chosen = self.start(strings)
        costs = self._settle(strings, processes, chosen)
        while moves:
            moved = self._move(strings, processes, chosen, costs)
            if moved is None:
                break
            costs, strings, processes, chosen = moved
        return sum(costs), strings, processes, chosen

    def _settle(self, strings, processes, chosen) -> list[float]:
        """Sweeps until no stem changes (at most :data:`SEARCH_SWEEPS`); each stem's cost
        then, given all the others (the table's is their sum; a sweep's sum is not: it costs
        each stem before the stems after it have moved)."""
        for _ in range(SEARCH_SWEEPS):
            changed, _ = self.sweep(strings, processes, chosen)
            if not changed:
                break
        return self._cost_of_stems(range(len(self.stems)), strings, processes, chosen)

    def _move(self, strings, processes, chosen, costs):
        """The first move, most frequent first, that lowers the cost of the stems it changes
        (each given the others, the other moved stems moved too) and then, settled, the
        table's (``costs``: each stem's now)."""
        patterns: Counter[tuple[str, ...]] = Counter()
        options: dict[tuple[str, ...], dict[int, list[str]]] = {}  # each stem's, by change
        for number, (stem, string) in enumerate(zip(self.stems, strings, strict=True)):
            for other in stem.candidates:
                if other != string:
                    change = pattern(string, other)
                    patterns[change] += 1
                    options.setdefault(change, {}).setdefault(number, []).append(other)
        for change, count in patterns.most_common():
            if count < 2:
                break
            moved = {number: found[0] for number, found in options[change].items()
                     if len(found) == 1}  # fmt: skip
            if len(moved) < 2 or not self._gains(moved, strings, processes, chosen, costs):
                continue
            trial = [moved.get(number, string) for number, string in enumerate(strings)]
            trial_processes, trial_chosen = self.start(trial)
            trial_costs = self._settle(trial, trial_processes, trial_chosen)
            if sum(trial_costs) < sum(costs) - 1e-9:
                return trial_costs, trial, trial_processes, trial_chosen
        return None

    def _gains(self, moved, strings, processes, chosen, costs) -> bool:
        """Whether the moved stems cost less together in their new strings than in their
        old ones (``costs``; each leave-one-out, given the rest)."""
        before = sum(costs[number] for number in moved)
        after_chosen = list(chosen)
        for number, string in moved.items():
            for analysis in chosen[number].values():
                processes.add(analysis, -1)
            after_chosen[number] = {
                cell: options[0] for cell, options in self.stems[number].analyses[string].items()
            }
            for analysis in after_chosen[number].values():
                processes.add(analysis)
        after_strings = [moved.get(number, string) for number, string in enumerate(strings)]
        after = sum(self._cost_of_stems(moved, after_strings, processes, after_chosen))
        for number in moved:  # back as they were
            for analysis in after_chosen[number].values():
                processes.add(analysis, -1)
            for analysis in chosen[number].values():
                processes.add(analysis)
        return after < before - 1e-9

    def _cost_of_stems(self, numbers, strings, processes, chosen) -> list[float]:
        """The cost of each of the stems ``numbers``, given all the others."""
        found = []
        for number in numbers:
            for analysis in chosen[number].values():
                processes.add(analysis, -1)
            found.append(cost_of(self.stems[number], strings[number], processes, {})[0])
            for analysis in chosen[number].values():
                processes.add(analysis)
        return found


def pattern(string: str, other: str) -> tuple[str, ...]:
    """The change from ``string`` to ``other`` at their edges, by class (``C`` for any
    consonant), as :func:`~phonkit.tables.rewrites.edit` finds it."""
    return tuple("".join(kind(s) for s in part) for part in edit(tuple(string), tuple(other)))


def infer(
    rows: Sequence[Known],
    fixed: Sequence[tuple[str, float] | None] | None = None,
    features: Features | None = None,
) -> Inference:
    """The underlying strings of a table's stems (rows of known forms by cell, forms as
    strings of symbols; a row may be empty). With ``fixed`` (a stem's string and score, or
    None to infer it), no search: the processes are those strings' analyses. Where the
    strings' analyses show affix vowel slots that harmony describes in fewer nats
    (:func:`~phonkit.tables.processes.harmonic_slots`), or events that a feature of a symbol
    they read tells about (:func:`~phonkit.tables.processes.feature_classes`), the processes
    are counted again with those read so; the strings and their scores stay."""
    present = [number for number, known in enumerate(rows) if known]
    given = None if fixed is None else [fixed[number] for number in present]
    table = prepare(
        [rows[number] for number in present],
        None if given is None else [g[0] if g else None for g in given],
        features,
    )
    stems = table.stems
    search = Search(stems, table.processes)
    if given is not None:
        _, strings, processes, chosen = search.ascend(
            [stem.candidates[0] for stem in stems], moves=False
        )
        scores = [g[1] if g else 1.0 for g in given]
    else:
        best = None
        starts = (
            [stem.core if stem.core in stem.analyses else stem.candidates[0] for stem in stems],
            [max(stem.candidates, key=len) for stem in stems],
        )
        for start in starts:
            found = search.ascend(list(start))
            if best is None or found[0] < best[0]:
                best = found
        assert best is not None
        _, strings, processes, chosen = best
        scores = [
            probability(stem, strings[number], chosen[number], processes)
            for number, stem in enumerate(stems)
        ]
    readings = [
        (string, analysis, cell)
        for string, analyses_ in zip(strings, chosen, strict=True)
        for cell, analysis in analyses_.items()
    ]
    harmonic = table.evidence.harmonic = harmonic_slots(readings, table.evidence)
    classes = feature_classes(readings, table.evidence)  # the affix vowels read as harmony is
    if harmonic or classes:  # the same strings, their events read so
        table = prepare([rows[number] for number in present], strings, features, harmonic, classes)
        stems = table.stems
        _, strings, processes, chosen = Search(stems, table.processes).ascend(
            [stem.candidates[0] for stem in stems], moves=False
        )
    by_row = [""] * len(rows)
    score_by_row = [0.0] * len(rows)
    stem_by_row: list[Stem | None] = [None] * len(rows)
    chosen_by_row: list[dict[str, Analysis]] = [{} for _ in rows]
    for number, row in enumerate(present):
        by_row[row], score_by_row[row] = strings[number], scores[number]
        stem_by_row[row], chosen_by_row[row] = stems[number], chosen[number]
    return Inference(
        by_row, score_by_row, processes, table.evidence, table.reach, table.edges, table.usual,
        stem_by_row, chosen_by_row,
    )  # fmt: skip


def probability(
    stem: Stem, string: str, chosen: dict[str, Analysis], processes: Processes
) -> float:
    """The probability of ``string`` among the stem's candidates, leave-one-out."""
    for analysis in chosen.values():
        processes.add(analysis, -1)
    known: dict = {}
    costs = {other: cost_of(stem, other, processes, known)[0] for other in stem.candidates}
    for analysis in chosen.values():
        processes.add(analysis)
    low = min(costs.values())
    return math.exp(low - costs[string]) / sum(math.exp(low - c) for c in costs.values())
