"""Which judges choose a small table's candidates best: the model, each copy model, together.

    python benchmarks/copy_judges.py EXPERIMENT_DIR [--more N]

Over the finished runs of a ``phonkit experiment tables`` directory made with
``model.candidates=analogy+copy`` (the setting below 2,000 forms: each run keeps its model
and its two copy models), re-chooses every held-out cell under each rule below, without
training (with ``--more N``: N more copy models are trained per run, from the next seeds,
and the rules with them are added): each judge's -log p over the cell's analogy candidates
becomes a posterior, a rule ranks by the mean of its judges' posteriors. A cell with one
candidate takes it; a cell with none takes the first copy model's greedy form under the
rules with a copy model, and counts as wrong under ``model`` (whose own decoding the
experiment would use instead). The ``+ reliability`` rules add, with the weight shown
(against 1 for the judges' mean), how reliable the table finds each candidate's rewrite
(:meth:`phonkit.tables.candidates.Rewrites.reliability`): weight 1 is what ``fill`` does.
The ``+ strings`` rules add to the setting, with the weight shown, a fourth judge: the
candidate's -log p from its stem's underlying string
(:meth:`phonkit.tables.strings.UnderlyingStrings.costs`; the run's stored strings, else
inferred), as a posterior (a form the string cannot make gets 1,000 nats). The ``spell-outs``
rules judge as the setting does, but among more candidates: the analogy's and the
:data:`~phonkit.tables.sizes.SPELLED` forms the stem's string spells out most probably
(:meth:`phonkit.tables.strings.UnderlyingStrings.spell`, what ``--candidates ur`` chooses
among), at every cell or only where the analogy gives two or more. ``any judge's
first choice`` is no rule but a ceiling: a cell counts as right when the first choice of the
model or of either copy model is the gold form (what always taking the right judge's choice
would reach). Prints the mean ACC over tables (each table's folds pooled) of every rule."""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from pathlib import Path

import torch

from phonkit.errors import InputError
from phonkit.run.directory import Run, is_finished
from phonkit.run.factory import load_model
from phonkit.tables.candidates import Rewrites, known_forms
from phonkit.tables.copy_training import train_copy_model
from phonkit.tables.judges import judged, posterior, scored_by
from phonkit.tables.sizes import SPELLED
from phonkit.tables.strings import strings_of

RULE = "model + copy 1 + copy 2"
RULES = {  # rule: judges (0 the model, 1 and 2 the copy models)
    "model": (0,),
    "model + copy 1": (0, 1),
    "model + copy 2": (0, 2),
    RULE: (0, 1, 2),
    "copy 1": (1,),
    "copy 1 + copy 2": (1, 2),
}
STRINGS = {  # rule: weight of the underlying strings' posterior, beside the setting
    "the setting + strings ×0.5": 0.5,
    "the setting + strings ×1": 1.0,
    "the setting + strings ×2": 2.0,
}
UNSPELLABLE = 1000.0  # nats: a form the stem's string cannot make
CEILING = "any judge's first choice (a ceiling, not a rule)"
SETTING = "model + copy 1 + copy 2 + reliability ×1 (the setting)"
RELIABILITY = {  # rule: weight of the rewrites' reliability
    "model + copy 1 + copy 2 + reliability ×0.5": 0.5,
    SETTING: 1.0,
    "model + copy 1 + copy 2 + reliability ×2": 2.0,
}
SPELL_OUTS = {  # rule: the fewest analogy candidates of a cell that gets the spell-outs too
    "the setting among the analogy's candidates and the strings' spell-outs": 0,
    "the same, the spell-outs added where the analogy gives two or more": 2,
}


def more_rules(more: int) -> dict[str, tuple[int, ...]]:
    """The rules with copy models 3 to ``more`` + 2, with the model and without."""
    found = {}
    for last in range(3, more + 3):
        copies = tuple(range(1, last + 1))
        found[f"model + copy 1..{last}"] = (0, *copies)
        found[f"copy 1..{last}"] = copies
    return found


def choices(run: Run, rules: dict[str, tuple[int, ...]], more: int) -> list[dict[str, bool]]:
    """For each held-out cell of ``run``: whether each rule gets it."""
    model = load_model(run, torch.device("cpu"))
    rewrites = Rewrites.of(run)
    if rewrites is None or len(rewrites.copies) != 2:
        raise InputError(f"{run.path} has no two copy models (made with analogy+copy?)")
    paradigms = known_forms(run.examples("train"))
    seed = run.config.training.seed
    rewrites.copies += [train_copy_model(paradigms, seed + n) for n in range(2, more + 2)]
    examples = run.examples("test")
    strings = strings_of(run)
    candidates = [rewrites.candidates(e.entry.lemma, e.entry.bundle) for e in examples]
    spelled = []  # the analogy's candidates and the string's spell-outs
    for e, forms in zip(examples, candidates, strict=True):
        known = rewrites.known(e.entry.lemma)
        made = strings.spell(e.entry.lemma, e.entry.bundle, known, SPELLED)
        spelled.append(list(dict.fromkeys([*forms, *(form for form, _ in made)])))
    spelled_scores = scored_by(model, run.vocabularies(), examples, spelled)
    found = []
    for example, scored in zip(
        examples, scored_by(model, run.vocabularies(), examples, candidates), strict=True
    ):
        known, bundle = rewrites.known(example.entry.lemma), example.entry.bundle
        forms = [form for form, _ in scored]
        by_judge = [[nll for _, nll in scored]] + [
            c.nll(known, bundle, forms) for c in rewrites.copies
        ]
        guess = rewrites.copies[0].greedy(known, bundle) if not forms else None
        votes = {
            rule: [posterior(by_judge[j]) for j in judges if by_judge[j]]
            for rule, judges in rules.items()
        }
        scores = rewrites.reliability(example.entry.lemma, bundle, forms, known) if forms else []
        for rule, weight in RELIABILITY.items():
            weighted = [weight * len(RULES[RULE]) * s for s in scores]
            votes[rule] = [*votes[RULE], *([weighted] if scores else [])]
        costs = strings.costs(example.entry.lemma, bundle, forms) or [0.0] * len(forms)
        finite = [c if math.isfinite(c) else UNSPELLABLE for c in costs]
        spelled = posterior(finite) if forms else []
        for rule, weight in STRINGS.items():
            votes[rule] = [*votes[SETTING], [weight * s for s in spelled]]
        right = {}
        for rule, rule_votes in votes.items():
            if len(forms) == 1:
                chosen = forms[0]
            elif not forms:
                chosen = guess if rule != "model" else None
            else:
                mean = [sum(column) for column in zip(*rule_votes, strict=True)]
                chosen = forms[max(range(len(forms)), key=mean.__getitem__)]
            right[rule] = chosen == example.surface
        for rule, fewest in SPELL_OUTS.items():
            scored_too = spelled_scores[len(found)] if len(forms) >= fewest else scored
            offered = [form for form, _ in scored_too]
            chosen = offered[0] if offered else guess
            if len(offered) > 1:
                reliable = rewrites.reliability(example.entry.lemma, bundle, offered, known)
                judgement = judged(scored_too, rewrites.copies[:2], known, bundle, reliable)
                chosen = judgement.ranked()[0]
            right[rule] = chosen == example.surface
        firsts = [forms[min(range(len(forms)), key=n.__getitem__)] for n in by_judge[:3] if n]
        right[CEILING] = right[RULE] or example.surface in firsts
        found.append(right)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--more", type=int, default=0, help="copy models to train per run")
    args = parser.parse_args()
    root, rules = args.experiment, RULES | more_rules(args.more)
    if not (root / "runs").is_dir():
        parser.error(f"{root}: not a phonkit experiment directory (no runs/ in it)")
    torch.set_num_threads(1)
    per_table: dict[str, list[dict[str, bool]]] = defaultdict(list)
    for path in sorted((root / "runs").iterdir()):
        if is_finished(path):
            try:
                per_table[path.name.rsplit("-f", 1)[0]] += choices(Run(path), rules, args.more)
            except InputError as error:  # a record keeps no weights: the experiment does
                parser.exit(2, f"copy_judges.py: {error}\n")
    print("| judges | mean ACC |\n|---|---:|")
    for rule in [*rules, *RELIABILITY, *STRINGS, *SPELL_OUTS, CEILING]:
        accs = [100 * sum(c[rule] for c in cells) / len(cells) for cells in per_table.values()]
        print(f"| {rule} | {sum(accs) / len(accs):.2f} |")
    print(f"\n{len(per_table)} tables, {sum(map(len, per_table.values()))} held-out cells")


if __name__ == "__main__":
    main()
