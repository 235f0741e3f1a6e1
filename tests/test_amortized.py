"""The amortized variant: it reads a lemma's spelling and known forms (nothing fitted), its
output over its symbols and those it reads is a distribution, a symbol it never saw is copied
where it is read and has no probability where it is not, a lemma with no known form and a
form with new letters are filled by predict, and its readings table lists what each lemma
has."""

import json

import pytest
import torch

from conftest import train_sample
from phonkit.data.encoding import encode
from phonkit.data.lexicon import BOS_ID, LEMMA, Entry, Example
from phonkit.jobs import TrainRequest
from phonkit.model.amortized import reads
from phonkit.model.readings import Readings
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.tasks.fill import FillRequest

SMALL = ["--dim", "16", "--epochs", "2", "--batch-size", "32"]


@pytest.fixture(scope="module")
def amortized_run(tmp_path_factory):
    """A tiny model of the default variant, whole test paradigms held out."""
    return train_sample(tmp_path_factory, "tur-amortized", 12, "--split", "lemmas", *SMALL)


def test_runs_train_it_by_default_and_tables_fill_with_pi():
    assert TrainRequest().variant == "amortized"
    assert FillRequest().variant == "pi"


def test_the_lemma_encoder_is_refused_as_a_setting_it_has_no_use_for(cli, tmp_path):
    result = cli("train", "--lemma-encoder", "--out", str(tmp_path / "r"))
    assert result.code == 2 and not (tmp_path / "r").exists()
    assert result.err == (
        "phonkit: error: --lemma-encoder is a setting of the variants that fit new lemmas "
        "(pi, pd, joint); amortized reads a lemma's spelling itself\n"
    )


def loaded(run_dir):
    run = Run.open(run_dir)
    return run, load_model(run, torch.device("cpu")).eval()


def test_the_variant_is_stored_and_reads(amortized_run):
    config = json.loads((amortized_run / "config.json").read_text())
    assert config["variant"] == "amortized" and config["model"]["dim"] == 16
    _, model = loaded(amortized_run)
    assert reads(model) and type(model).__name__ == "Amortized"


def test_output_is_a_distribution_over_what_it_emits_and_reads(amortized_run):
    run, model = loaded(amortized_run)
    examples = run.examples("train")[:8]
    morphemes, inputs, _ = encode(examples, run.vocabularies()).batch(torch.arange(8))
    with torch.no_grad():
        log_probs = model(morphemes, inputs)
    assert log_probs.shape[-1] == model.size
    assert torch.allclose(log_probs.exp().sum(-1), torch.ones(log_probs.shape[:2]), atol=1e-4)


def test_a_symbol_never_seen_is_copied_where_it_is_read_and_nowhere_else(amortized_run):
    run, model = loaded(amortized_run)
    vocabularies = run.vocabularies()
    assert "q" not in vocabularies.symbols.index and "w" not in vocabularies.symbols.index
    bundle = run.examples("train")[0].entry.features
    known = Entry("qaw", bundle, "qaw")
    evidence = [Example(known, ("q", "a", "w"), run.decomposition().morphemes(known))]
    extended = model.read_lemmas(vocabularies, evidence)
    q, w = extended.symbols.index["q"], extended.symbols.index["w"]
    assert model.size == len(extended.symbols) > len(vocabularies.symbols)
    seen_lemma = run.examples("train")[0].morphemes
    rows = [extended.morphemes.encode(evidence[0].morphemes),
            extended.morphemes.encode(seen_lemma)]  # fmt: skip
    width = max(map(len, rows))
    words = torch.tensor([row + [0] * (width - len(row)) for row in rows])
    with torch.no_grad():
        first, context, state = model.start(words)
        assert (first == BOS_ID).all()
        log_probs, _ = model.step(first, context, state)
    probabilities = log_probs.exp()
    assert probabilities[0, q] > 1e-6  # read: it can be written
    assert probabilities[1, q] < 1e-20 and probabilities[1, w] < 1e-20  # not read: never


def test_predict_fills_a_lemma_alone_and_new_letters_and_keeps_given_cells(amortized_run, cli):
    bundles = sorted({e.entry.features for e in Run.open(amortized_run).examples("train")})
    one, two = (";".join(b) for b in bundles[:2])
    stdin = f"xaqwa\t{one}\t\nkitap\t{one}\tkitap\nkitap\t{two}\t\n".encode()
    result = cli("predict", "-m", str(amortized_run), "--columns", "lemma,features,form",
                 stdin=stdin)  # fmt: skip
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert [row[:2] for row in rows] == [["xaqwa", one], ["kitap", one], ["kitap", two]]
    assert rows[1][2] == "kitap" and rows[0][2] and rows[2][2]
    assert "unfilled" not in result.err
    assert "read the underlying forms of 2 new lemmas" in result.err



def test_a_cell_it_never_saw_is_spelled_from_the_features_it_knows_not_refused(amortized_run, cli):
    bundles = sorted({e.entry.features for e in Run.open(amortized_run).examples("train")})
    half = ";".join(bundles[0][:1] + ("ZZZ",))  # a known feature and one never seen
    stdin = f"kitap\tQQQ;ZZZ\t\nkitap\t{half}\t\n".encode()
    result = cli("predict", "-m", str(amortized_run), "--columns", "lemma,features,form",
                 stdin=stdin)  # fmt: skip
    assert result.code == 0, result.err
    assert all(line.split("\t")[2] for line in result.out.splitlines())
    assert "unfilled" not in result.err
    assert "warning: 2 rows ask for a cell with a feature the model never saw" in result.err
    assert "(the first: <stdin>:1: feature bundle 'QQQ;ZZZ')" in result.err
    # with --all a known row is predicted too, and counted where it has such a feature
    stdin = f"kitap\tQQQ;ZZZ\tkitap\nkitap\t{half}\t\n".encode()
    result = cli("predict", "-m", str(amortized_run), "--columns", "lemma,features,form",
                 "--all", stdin=stdin)  # fmt: skip
    assert result.code == 0, result.err
    assert "warning: 2 rows ask for a cell with a feature the model never saw" in result.err


def test_the_readings_list_each_lemmas_spelling_and_known_forms():
    readings = Readings.empty().extended(
        [(5, (7,), (10, 11)), (5, (8,), (10, 12)), (6, (7,), (13,))], {5: (10,), 6: (13, 14)}, 9
    )
    assert readings.spelling.tolist() == [-1] * 5 + [3, 4, -1, -1]
    assert readings.known[5].tolist() == [0, 1] and readings.known[6].tolist()[0] == 2
    assert (readings.cells[3:] == 0).all()  # a spelling has no cell
    more = readings.extended([(5, (9,), (10,))], {}, 10)
    assert more.known[5].tolist() == [0, 1, 5] and more.spelling.shape == (10,)


def test_hallucinated_stems_join_training_and_read_like_real_ones(amortized_run):
    run, model = loaded(amortized_run)
    model.config.hallucinated = 1.0
    examples = run.examples("train")
    made, vocabularies = model.augmented(examples, run.vocabularies(), seed=1)
    new = [e for e in made[len(examples) :]]
    assert new and all(e.morphemes[0].startswith(LEMMA + "\thallucinated:") for e in new)
    assert all(e.morphemes[0] in vocabularies.morphemes.index for e in new)
    assert len({e.morphemes[0] for e in new}) >= len({e.morphemes[0] for e in examples}) // 2
