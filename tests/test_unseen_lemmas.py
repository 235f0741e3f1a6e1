"""Lemmas the model has never seen: fitting their UFs at predict time, beam search,
scores of the output, and evaluation with --unseen-lemmas beside the edit baseline."""

import math
import random
from difflib import SequenceMatcher

import pytest
import torch

from conftest import TINY, sample_lines
from phonkit.data.encoding import encode, encode_morphemes
from phonkit.data.lexicon import Entry, Example, PerFeature
from phonkit.model.decoding import beam_search, decode, total_nll
from phonkit.model.fitting import fit_lemmas
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig
from phonkit.tables.rewrites import apply, edit
from phonkit.tasks.baseline import EditBaseline
from phonkit.tasks.unseen import reveal, score_unseen


def paradigm(run_dir, split="train"):
    """The cells of the first lemma of ``split`` as (lemma, bundle, form) rows."""
    rows = [line.split("\t") for line in (run_dir / f"{split}.tsv").read_text().splitlines()]
    lemma = rows[0][0]
    return [(r[0], r[2], r[1]) for r in rows if r[0] == lemma]


def renamed(run, cells):
    """A known paradigm under a lemma name the model has never seen, as examples."""
    transcriber, decomposition = run.transcriber(), run.decomposition()
    entries = [
        Entry("yeni-" + lemma, tuple(bundle.split(";")), form) for lemma, bundle, form in cells
    ]
    surfaces = transcriber.transcribe("tur", [entry.form for entry in entries])
    return [
        Example(entry, surface, decomposition.morphemes(entry))
        for entry, surface in zip(entries, surfaces, strict=True)
    ]


def test_fitting_raises_the_likelihood_of_the_known_forms_and_freezes_the_rest(trained_run):
    run = Run.open(trained_run)
    examples = renamed(run, paradigm(trained_run))
    totals = {}
    for steps in (0, 30):
        model = load_model(run, torch.device("cpu"))
        before = {k: v.clone() for k, v in model.state_dict().items() if "morphemes" not in k}
        vocabularies = fit_lemmas(
            model, run.vocabularies(), examples, FitConfig(steps=steps, lr=0.1)
        )
        assert len(vocabularies.morphemes) == len(run.vocabularies().morphemes) + 1
        totals[steps] = float(total_nll(model, encode(examples, vocabularies)).sum())
        after = model.state_dict()
        assert all(torch.equal(before[k], after[k]) for k in before)
    assert totals[30] < 0.98 * totals[0]  # a tiny model: the UF explains little, but some


def test_predict_fits_a_new_lemma_and_fills_its_gaps(cli, trained_run):
    cells = paradigm(trained_run)
    known, gaps = cells[:3], cells[3:6]
    stdin = "".join(f"yeni-{lemma}\t{bundle}\t{form}\n" for lemma, bundle, form in known)
    stdin += "".join(f"yeni-{lemma}\t{bundle}\t--\n" for lemma, bundle, _ in gaps)
    result = cli("predict", "-m", str(trained_run), "--fit-steps", "20", stdin=stdin.encode())
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert [row[2] for row in rows[:3]] == [form for _, _, form in known]
    assert all(row[2] for row in rows[3:])
    assert "fitted the underlying forms of 1 new lemma to 3 known forms" in result.err


def test_a_new_lemma_without_known_forms_is_left_unfilled_or_with_strict_an_error(
    cli, trained_run
):
    stdin = b"yepyeni\tN;ACC;SG\t\nyepyeni\tN;DAT;SG\t--\n"
    failed = cli("predict", "-m", str(trained_run), "--strict", stdin=stdin)
    assert failed.code == 2 and failed.out == ""
    assert "<stdin>:1: lemma 'yepyeni' is not in the model" in failed.err
    assert "no known form" in failed.err and failed.err.count("\n") == 1
    skipped = cli("predict", "-m", str(trained_run), stdin=stdin)
    assert skipped.code == 0
    assert skipped.out == stdin.decode()  # the gaps left as they came
    assert "left 2 rows unfilled" in skipped.err


def test_an_unknown_feature_is_left_unfilled(cli, trained_run):
    lemma, bundle, _ = paradigm(trained_run)[0]
    stdin = f"{lemma}\t{bundle}\n{lemma}\tN;XYZ\n".encode()
    result = cli("predict", "-m", str(trained_run), stdin=stdin)
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert result.code == 0 and rows[0][2] and rows[1] == [lemma, "N;XYZ", ""]
    assert "feature bundle 'N;XYZ' is not in the model" in result.err


def test_unseen_symbols_and_conflicting_cells_are_warned_not_dropped(cli, trained_run):
    (lemma, bundle, form), (_, other, _), (_, gap, _) = paradigm(trained_run)[:3]
    stdin = (
        f"yeni\t{bundle}\t{form}\nyeni\t{bundle}\t{form[:-1]}\n"  # conflicting known cells
        f"yeni\t{other}\t{form}ЖЖ\n"  # symbols the model never saw
        f"yeni\t{gap}\t--\n"
    )
    result = cli("predict", "-m", str(trained_run), "--fit-steps", "5", stdin=stdin.encode())
    assert result.code == 0, result.err
    assert "1 known forms of new lemmas have symbols the model never saw" in result.err
    assert "(the first: <stdin>:3: 'Ж')" in result.err
    assert "1 lemma and feature pairs have different known forms" in result.err
    assert "to 2 known forms" in result.err  # both conflicting cells, not the unseen one
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert [row[2] for row in rows[:3]] == [form, form[:-1], form + "ЖЖ"] and rows[3][2]


def test_beam_hypotheses_are_ranked_and_scored_by_their_log_probability(trained_run):
    run = Run.open(trained_run)
    model = load_model(run, torch.device("cpu"))
    vocabularies = run.vocabularies()
    cells = paradigm(trained_run)
    decomposition = run.decomposition()
    entries = [Entry(lemma, tuple(b.split(";")), f) for lemma, b, f in cells]
    entries = [Example(entry, (), decomposition.morphemes(entry)) for entry in entries]
    morphemes = encode_morphemes([e.morphemes for e in entries], vocabularies)
    beams = beam_search(model, morphemes, run.config.max_length, width=4)
    greedy = decode(model, morphemes, run.config.max_length)
    for entry, beam in zip(entries, beams, strict=True):
        scores = [score for _, score in beam]
        assert len(beam) == 4 and scores == sorted(scores, reverse=True)
        assert len({tuple(ids) for ids, _ in beam}) == 4
        hypotheses = [
            Example(entry.entry, tuple(vocabularies.symbols.decode(ids)), entry.morphemes)
            for ids, _ in beam
        ]
        forced = -total_nll(model, encode(hypotheses, vocabularies), precision="fp32")
        assert forced.tolist() == pytest.approx(scores, abs=1e-3)
        width_one = beam_search(model, morphemes[:1], run.config.max_length, width=1)
    assert width_one[0][0][0] == greedy[0]


def test_nbest_and_score_columns(cli, trained_run):
    lemma, bundle, form = paradigm(trained_run)[0]
    stdin = f"{lemma}\t{bundle}\t--\textra\n{lemma}\t{bundle}\t{form}\tgiven-one\n".encode()
    result = cli("predict", "-m", str(trained_run), "--nbest", "3", "--score", stdin=stdin)
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert len(rows) == 4 and all(len(row) == 7 for row in rows)
    assert [row[4] for row in rows] == ["1", "2", "3", "given"]
    assert [row[3] for row in rows] == ["extra"] * 3 + ["given-one"]
    log_probs = [float(row[5]) for row in rows[:3]]
    assert log_probs == sorted(log_probs, reverse=True) and all(lp < 0 for lp in log_probs)
    for row in rows:  # surprisal per symbol = -log p / (length + 1)
        assert float(row[6]) == pytest.approx(-float(row[5]) / (len(row[2]) + 1), abs=2e-4)
    bad = cli("predict", "-m", str(trained_run), "--beam", "0", stdin=stdin)
    assert bad.code == 2 and "--beam must be at least 1" in bad.err


def test_reveal_is_nested_and_leaves_out_small_paradigms():
    rows = [line.split("\t") for line in sample_lines(6)]
    entries = [Entry(r[0], tuple(r[2].split(";")), r[1]) for r in rows]
    examples = [Example(e, tuple(e.form), PerFeature().morphemes(e)) for e in entries]
    one, four = reveal(examples, 1, seed=2), reveal(examples, 4, seed=2)
    assert set(one.evidence) <= set(four.evidence)
    assert len(one.evidence) == one.lemmas
    assert len(one.evidence) + len(one.held_out) + one.too_small * 0 <= len(examples)
    assert one.lemmas + one.too_small == len({r[0] for r in rows})
    assert not set(four.evidence) & set(four.held_out)


def test_an_edit_keeps_the_longest_common_substring_first_in_the_source_then_the_target():
    """The stem of an edit is the longest common substring that starts first in the source,
    then in the target (as difflib defines it), for symbols of one code point or more."""
    draw = random.Random(0)
    alphabets = ["ab", "abcdef", ["a", "ts", "ʃ", "b"], ["ab", "a", "b", "\U000f0000"]]
    for _ in range(5_000):
        alphabet = draw.choice(alphabets)
        a, b = (tuple(draw.choices(alphabet, k=draw.randint(0, 10))) for _ in "ab")
        match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match()
        stem = slice(match.a, match.a + match.size), slice(match.b, match.b + match.size)
        assert edit(a, b) == (
            (a, b, (), ())
            if match.size == 0
            else (a[: stem[0].start], b[: stem[1].start], a[stem[0].stop :], b[stem[1].stop :])
        )


def test_edit_baseline_learns_prefix_and_suffix_edits():
    assert edit(tuple("werken"), tuple("gewerkt")) == ((), tuple("ge"), tuple("en"), tuple("t"))
    assert apply(((), tuple("ge"), tuple("en"), tuple("t")), tuple("maken")) == tuple(
        "gemaakt"[:0] + "gemakt"
    )
    assert apply(((), (), tuple("en"), ()), tuple("lop")) is None
    baseline = EditBaseline(
        [
            ("PST", tuple(a), tuple(b))
            for a, b in [("walk", "walked"), ("talk", "talked"), ("go", "went")]
        ]
    )
    assert baseline.inflect("PST", tuple("jump")) == tuple("jumped")
    assert baseline.inflect("FUT", tuple("jump")) == tuple("jump")


@pytest.fixture(scope="module")
def lemma_run(tmp_path_factory):
    """A tiny pi model trained on 30 Turkish paradigms with whole test paradigms held out,
    ranking analogy candidates."""
    from phonkit.cli import main

    data = tmp_path_factory.mktemp("data") / "tur.tsv"
    data.write_text("\n".join(sample_lines(30)) + "\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("runs") / "tur-lemmas"
    args = ["train", "--corpus", "tsv", "--lang", "tur", "--path", str(data), "--out", str(out)]
    try:
        main([*args, "--split", "lemmas", *TINY, "--candidates", "analogy"])
    except SystemExit as done:
        assert not done.code
    return out


def test_evaluate_unseen_lemmas_reports_model_and_baseline_per_known(cli, lemma_run):
    result = cli(
        "evaluate", "-m", str(lemma_run), "--unseen-lemmas", "--known", "1,2", "--fit-steps", "5"
    )
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert rows[0] == ["known", "system", "metric", "value"]
    systems = {(row[0], row[1]) for row in rows[1:]}
    assert systems == {
        ("seen", "model"),
        ("1", "model"),
        ("1", "baseline"),
        ("2", "model"),
        ("2", "baseline"),
    }
    metrics = {(row[0], row[1], row[2]): float(row[3]) for row in rows[1:]}
    assert 0 <= metrics["1", "model", "acc"] <= 100 and metrics["1", "model", "nll"] > 0
    assert ("1", "baseline", "nll") not in metrics  # the baseline has no probabilities
    assert not math.isnan(metrics["2", "baseline", "mld"])
    assert "known 1:" in result.err and "lemmas" in result.err


def test_unseen_lemma_evaluation_needs_unseen_lemmas(cli, trained_run, tmp_path):
    result = cli("evaluate", "-m", str(trained_run), "--unseen-lemmas")
    assert result.code == 2 and "train with --split lemmas" in result.err
    bad = cli("evaluate", "-m", str(trained_run), "--unseen-lemmas", "--known", "0,x")
    assert bad.code == 2 and "--known takes positive whole numbers" in bad.err
    gold = tmp_path / "new.tsv"
    lemma, bundle, form = paradigm(trained_run)[0]
    gold.write_text(f"{lemma}\t{bundle}\t{form}\nyeni\t{bundle}\t{form}\nyeni\tN;ZZZ\t{form}\n")
    unknown = cli("evaluate", "-m", str(trained_run), "--unseen-lemmas", str(gold))
    assert (
        unknown.code == 2 and f"{gold}:3: feature bundle 'N;ZZZ' is not in the model" in unknown.err
    )


def test_unseen_lemmas_are_scored_as_predict_fills_them(cli, lemma_run):
    # The run ranks analogy candidates: --unseen-lemmas ranks those made from the revealed
    # cells, as predict does for a new lemma's gaps, so the two agree. (Lemmas written in
    # symbols the tiny model knows: predict refuses to fit a UF to the others.)
    run = Run(lemma_run)
    symbols = set(run.vocabularies().symbols.to_json())
    test = run.examples("test")
    odd = {ex.entry.lemma for ex in test if not set(ex.surface) <= symbols}
    examples = [ex for ex in test if ex.entry.lemma not in odd]
    shown, scores = score_unseen(run, examples, 2, 1, torch.device("cpu"), FitConfig())
    lines, gaps = [], []
    for lemma in dict.fromkeys(ex.entry.lemma for ex in shown.evidence):
        known = [ex for ex in shown.evidence if ex.entry.lemma == lemma]
        held_out = [ex for ex in shown.held_out if ex.entry.lemma == lemma]
        lines += [f"{ex.entry.lemma}\t{ex.entry.bundle}\t{ex.entry.form}\n" for ex in known]
        lines += [f"{ex.entry.lemma}\t{ex.entry.bundle}\t--\n" for ex in held_out]
        gaps += [(len(lines) - len(held_out) + n, ex.entry.form) for n, ex in enumerate(held_out)]
    filled = cli("predict", "-m", str(lemma_run), stdin="".join(lines).encode())
    assert filled.code == 0, filled.err
    out = [line.split("\t")[2] for line in filled.out.splitlines()]
    right = sum(out[row] == gold for row, gold in gaps)
    assert gaps and right > 0
    assert scores["model"]["acc"] == pytest.approx(100 * right / len(gaps), abs=1e-3)
