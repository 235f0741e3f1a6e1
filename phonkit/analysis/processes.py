"""The processes between a run's underlying strings and its surface forms, as a phonologist
writes them: ``b → p / _#``, with the stems and forms they apply to and examples.

Every change of every stem's analysis (:mod:`phonkit.tables.underlying`: a symbol
substituted or deleted, a symbol inserted) is one application, in its surface context: the
symbols left and right of it as the form shows them, ``#`` at a word's edge. The
applications of one change (``b → p``) are described by the side that conditions it — the
side whose contexts overlap least with those where the same symbol stays as it is — and that
side's contexts are named as one class where one covers them and none of the others: a
natural class of the feature table a plugin registers (``phonkit-panphon``: ``[-son]``),
else ``C`` or ``V``, else the symbols themselves (``{t, l, #}``).

With a feature table, the changes of several segments in the same context that change the
same features (``b → p``, ``d → t``, ``ɡ → k`` before ``#``: voice) are one process over the
class of their inputs, ``[-son, +voi] → [-voi] / _#``; insertions or deletions of several
segments in the same context alike (``∅ → [+hi] / _[-syl]``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest

from phonkit.data.features import Features
from phonkit.tables.processes import COPY, DELETE
from phonkit.tables.segments import EDGE, kind
from phonkit.tables.strings import UnderlyingStrings

NULL = "∅"
HEADER = ("process", "input", "output", "context", "stems", "forms", "examples")
EXAMPLES = 3  # examples per process
LISTED = 6  # context symbols listed before "…"



@dataclass(frozen=True)
class Application:
    """One change in one form: the stem, its string and form, what stood and what came out
    (``""`` for nothing), and the surface symbols left and right of it."""

    stem: str
    string: str
    form: str
    before: str
    after: str
    left: str
    right: str


@dataclass
class Process:
    """One change with the context that conditions it and what it applies to."""

    before: str
    after: str
    context: str
    stems: set[str] = field(default_factory=set)
    forms: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def rule(self) -> str:
        return f"{self.before or NULL} → {self.after or NULL} / {self.context}"

    def row(self) -> list[str]:
        return [
            self.rule, self.before or NULL, self.after or NULL, self.context,
            str(len(self.stems)), str(self.forms), "; ".join(self.examples),
        ]  # fmt: skip


KEPT = None  # what stood underlyingly where a symbol is copied


def pieces(
    string: str, ops: Sequence[str], inserted: Sequence[str]
) -> Iterator[tuple[str | None, str]]:
    """(what stood underlyingly, what surfaces) along a string's analysis: ``(None, x)``
    where ``x`` is copied, ``("", y)`` where ``y`` is inserted, ``(x, "")`` where ``x`` is
    deleted, ``(x, y)`` where ``y`` replaces ``x``."""
    for at, op in enumerate(ops):
        if inserted[at]:
            yield "", inserted[at]
        if op == COPY:
            yield KEPT, string[at]
        else:
            yield string[at], "" if op == DELETE else op
    if inserted[len(string)]:
        yield "", inserted[len(string)]


def applications(strings: UnderlyingStrings) -> tuple[list[Application], Counter]:
    """Every change of every stem's analyses, and how often each underlying symbol is kept
    next to each surface neighbour (``(symbol, side, neighbour)``)."""
    found: list[Application] = []
    kept: Counter[tuple[str, str, str]] = Counter()
    inference = strings.inference
    symbols = strings.alphabet.symbols_of
    for lemma, number in strings.row_of.items():
        stem = inference.stems[number]
        if stem is None:
            continue
        string = inference.strings[number]
        for cell, analysis in inference.chosen[number].items():
            steps = list(pieces(string, analysis.ops, analysis.inserted))
            outputs = [out for _, out in steps]
            for place, (before, after) in enumerate(steps):
                left = "".join(outputs[:place])[-1:] or analysis.prefix[-1:] or EDGE
                right = "".join(outputs[place + 1 :])[:1] or analysis.suffix[:1] or EDGE
                if before is KEPT:
                    kept[after, "left", left] += 1
                    kept[after, "right", right] += 1
                    continue
                found.append(
                    Application(
                        lemma, "".join(symbols(string)), "".join(symbols(stem.known[cell])),
                        *("".join(symbols(x)) for x in (before, after, left, right)),
                    )
                )  # fmt: skip
    return found, kept


def processes(strings: UnderlyingStrings, features: Features | None = None) -> list[Process]:
    """The processes of a run's underlying strings, those that apply to most stems first."""
    found, kept = applications(strings)
    by_change: dict[tuple[str, str, bool], list[Application]] = defaultdict(list)
    for application in found:  # a change next to its own double (degemination) apart
        double = bool(application.before) and application.left == application.before
        by_change[application.before, application.after, double].append(application)
    result = []
    for (before, after, double), group in by_change.items():
        where = f"{before}_" if double else context(before, group, kept, features)
        process = Process(before, after, where)
        for application in group:
            process.stems.add(application.stem)
            process.forms += 1
            example = f"{application.string} → {application.form}"
            if len(process.examples) < EXAMPLES and example not in process.examples:
                process.examples.append(example)
        result.append(process)
    if features is not None:
        segments = {a.before for a in found} | {a.after for a in found} | {s for s, _, _ in kept}
        result = merged(result, sorted(segments - {""}), features)
    return sorted(result, key=lambda p: (-len(p.stems), -p.forms, p.rule))


def merged(found: list[Process], segments: Sequence[str], features: Features) -> list[Process]:
    """The processes with those of one context and one change of features (or one context
    of insertion, or of deletion) made one, over the class of their segments."""
    groups: dict[tuple, list[Process]] = defaultdict(list)
    for process in found:
        how = change(process, features)
        groups["" if how and how[0] == "double" else process.context, how].append(process)
    result = []
    for (_, how), members in groups.items():
        if how is None or len(members) < 2:
            result.extend(members)
            continue
        inputs = [p.before for p in members]
        outputs = [p.after for p in members]
        inside = inputs if how[0] != "insert" else outputs
        named = natural_class(inside, [s for s in segments if s not in inside], features)
        if named is None:
            result.extend(members)
            continue
        before = "" if how[0] == "insert" else named
        after = named if how[0] == "insert" else how[-1] if how[0] == "change" else ""
        context = members[0].context
        if how[0] == "double":  # degemination: a segment after its like
            before, context = f"{named}ᵢ", f"{named}ᵢ_"
        process = Process(before, after, context)
        for member in members:
            process.stems |= member.stems
            process.forms += member.forms
        for examples in zip_longest(*(m.examples for m in members)):  # one of each first
            process.examples.extend(e for e in examples if e)
        del process.examples[EXAMPLES:]
        result.append(process)
    return result


def change(process: Process, features: Features) -> tuple[str, ...] | None:
    """What a process does, to merge it with others: ``("insert",)``, ``("delete",)``,
    ``("double", "delete")`` (a segment deleted after its like), or ``("change",
    "[-voi]")``, the feature values its output takes that its input lacks; None where a
    segment has no features, or for another change next to its own double."""
    if process.context == f"{process.before}_":
        return ("double", "delete") if not process.after else None
    if not process.before or not process.after:
        segment = process.before or process.after
        if features(segment) is None:
            return None
        return ("insert",) if not process.before else ("delete",)
    before, after = features(process.before), features(process.after)
    if before is None or after is None:
        return None
    taken = [f"{v}{f}" for f, v in after.items() if v in "+-" and before.get(f) != v]
    return ("change", "[" + ", ".join(taken) + "]") if taken else None


def context(
    before: str, group: Sequence[Application], kept: Counter, features: Features | None
) -> str:
    """The conditioning context of one change: ``_X`` or ``X_``."""
    sides = []
    for side in ("right", "left"):
        applied = Counter(getattr(a, side) for a in group)
        stayed = Counter({n: c for (s, d, n), c in kept.items() if s == before and d == side})
        overlap = sum(min(count, stayed[n]) for n, count in applied.items())
        sides.append((overlap / sum(applied.values()), side, applied, stayed))
    _, side, applied, stayed = min(sides, key=lambda entry: entry[0])
    named = name(list(applied), list(stayed), features)
    return f"_{named}" if side == "right" else f"{named}_"


def name(inside: Sequence[str], outside: Sequence[str], features: Features | None) -> str:
    """A class that holds the symbols ``inside`` and as few of ``outside`` as it can: ``#``,
    a natural class, ``C`` or ``V``, or the symbols listed."""
    segments = [s for s in inside if s != EDGE]
    edge = EDGE in inside
    if not segments:
        return EDGE
    others = [s for s in outside if s != EDGE]
    found = natural_class(segments, others, features) if features else None
    if found is None:
        kinds = {kind(s) for s in segments}
        if len(kinds) == 1 and not any(kind(s) in kinds for s in outside if s != EDGE):
            found = kinds.pop()
    if found is None:
        listed = sorted(set(segments))
        found = "{" + ", ".join(listed[:LISTED]) + (", …" if len(listed) > LISTED else "") + "}"
        return found[:-1] + ", #}" if edge else found
    return "{" + found + ", #}" if edge else found


def natural_class(
    inside: Sequence[str], outside: Sequence[str], features: Features
) -> str | None:
    """The fewest feature values that every symbol ``inside`` shares and that rule out the
    symbols ``outside`` (as many as they can): ``[-son, -voi]``; None without a feature
    table for the symbols or without a shared value."""
    tables = [table for table in (features(s) for s in inside) if table is not None]
    if len(tables) < len(inside):
        return None
    shared = {
        (f, v) for f, v in tables[0].items() if v in "+-" and all(t.get(f) == v for t in tables)
    }
    if not shared:
        return None
    others = [t for t in (features(s) for s in outside) if t is not None]
    order = {name: number for number, name in enumerate(tables[0])}  # the table's own order
    chosen: list[tuple[str, str]] = []
    left = list(others)
    while left and shared - set(chosen):
        best = max(
            sorted(shared - set(chosen), key=lambda fv: order[fv[0]]),
            key=lambda fv: sum(1 for t in left if t.get(fv[0]) != fv[1]),
        )
        ruled_out = [t for t in left if t.get(best[0]) != best[1]]
        if not ruled_out:
            break
        chosen.append(best)
        left = [t for t in left if t not in ruled_out]
    if not chosen:
        chosen = [min(shared, key=lambda fv: order[fv[0]])]
    return "[" + ", ".join(f"{v}{f}" for f, v in chosen) + "]"
