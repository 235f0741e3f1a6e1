"""The lemma encoder setting: stored in config.json (old runs read as off), understood by
train, predict, evaluate --unseen-lemmas and --set; its copy distribution is a distribution;
new lemmas start from the prior mean their spelling gives; unknown characters do not crash."""

import json

import pytest
import torch

from conftest import TINY, sample_lines, train_sample
from phonkit.data.encoding import encode, encode_morphemes
from phonkit.data.lexicon import UNK_ID, Entry, Example, Vocabularies
from phonkit.errors import InputError
from phonkit.model.fitting import fit_lemmas
from phonkit.model.lemma_encoder import has_lemma_encoder
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig, ModelConfig


@pytest.fixture(scope="module")
def encoder_run(tmp_path_factory):
    """A tiny pi model with the lemma encoder, whole test paradigms held out."""
    return train_sample(
        tmp_path_factory, "tur-encoder", 30, "--split", "lemmas", "--lemma-encoder",
        "--variant", "pi", *TINY
    )


def test_the_setting_is_stored_and_old_runs_read_as_off(encoder_run, trained_run):
    config = json.loads((encoder_run / "config.json").read_text())
    assert config["model"]["lemma_encoder"] is True
    assert has_lemma_encoder(load_model(Run.open(encoder_run), torch.device("cpu")))
    old = json.loads((trained_run / "config.json").read_text())
    assert "lemma_encoder" not in old["model"]  # off: the settings of runs made before it
    model = load_model(Run.open(trained_run), torch.device("cpu"))
    assert not has_lemma_encoder(model) and type(model).__name__ == "PositionIndependent"


def test_the_encoder_setting_is_stored_only_when_on():
    assert ModelConfig(lemma_encoder=True).to_json()["lemma_encoder"] is True
    assert "lemma_encoder" not in ModelConfig(lemma_encoder=False).to_json()
    with pytest.raises(InputError, match="lemma_encoder must be true or false"):
        ModelConfig(lemma_encoder="yes")


def new_paradigm(run: Run, lemma: str, cells) -> list[Example]:
    decomposition = run.decomposition()
    entries = [Entry(lemma, tuple(bundle.split(";")), form) for bundle, form in cells]
    surfaces = run.transcriber().transcribe("tur", [entry.form for entry in entries])
    return [
        Example(entry, surface, decomposition.morphemes(entry))
        for entry, surface in zip(entries, surfaces, strict=True)
    ]


def test_output_with_copy_is_a_distribution_and_follows_the_spelling(encoder_run):
    run = Run.open(encoder_run)
    model = load_model(run, torch.device("cpu"))
    vocabularies = run.vocabularies()
    examples = run.examples("train")[:8]
    data = encode(examples, vocabularies)
    morphemes, inputs, _ = data.batch(torch.arange(len(examples)))
    with torch.no_grad():
        log_probs = model(morphemes, inputs)
    assert torch.allclose(log_probs.exp().sum(-1), torch.ones(log_probs.shape[:2]), atol=1e-4)
    # Respelling the lemma changes the output: the spelling is read (a tiny model, but the
    # copy distribution alone sees it).
    changed = model.spellings.clone()
    changed[morphemes[:, 0]] = torch.roll(changed[morphemes[:, 0]], 1, dims=0)
    model.spellings = changed
    model._reading = None
    with torch.no_grad():
        respelled = model(morphemes, inputs)
    assert not torch.allclose(respelled, log_probs, atol=1e-3)


def test_new_lemmas_start_from_the_prior_mean_of_their_spelling(encoder_run):
    run = Run.open(encoder_run)
    cells = [(row[2], row[1]) for row in (r.split("\t") for r in sample_lines(1))][:2]
    model = load_model(run, torch.device("cpu"))
    evidence = new_paradigm(run, "kalem", cells) + new_paradigm(run, "otobüsçü", cells)
    vocabularies = fit_lemmas(model, run.vocabularies(), evidence, FitConfig(steps=0))
    assert torch.equal(model.morphemes.new, torch.zeros_like(model.morphemes.new))
    ids = encode_morphemes([["lemma:kalem"], ["lemma:otobüsçü"]], vocabularies)
    with torch.no_grad():
        vectors = model.morpheme_vectors(ids)[:, 0]
    assert vectors.norm(dim=-1).min() > 0  # the encoder's mean, not the zero residual
    assert not torch.allclose(vectors[0], vectors[1])  # and it depends on the spelling


def test_unknown_characters_in_a_new_lemma_do_not_crash(cli, encoder_run):
    rows = [line.split("\t") for line in sample_lines(1)]
    (_, form, bundle), (_, _, other), (_, _, gap) = rows[:3]
    stdin = (
        f"ЖЖkalem☃\t{bundle}\t{form}\n"
        f"ЖЖkalem☃\t{other}\t{form}ЖЖ\n"  # a known form with symbols the model never saw
        f"ЖЖkalem☃\t{gap}\t--\n"
    )
    result = cli("predict", "-m", str(encoder_run), "--fit-steps", "3", stdin=stdin.encode())
    assert result.code == 0, result.err
    assert "(the first: <stdin>:2: 'Ж')" in result.err
    out = [line.split("\t") for line in result.out.splitlines()]
    assert len(out) == 3 and out[2][2]  # the gap is filled
    model = load_model(Run.open(encoder_run), torch.device("cpu"))
    vocabularies = Run.open(encoder_run).vocabularies()
    fit_lemmas(model, vocabularies, new_paradigm(Run.open(encoder_run), "☃☃☃", [(bundle, form)]))
    extended = Vocabularies(vocabularies.symbols, vocabularies.morphemes.extended(["lemma:☃☃☃"]))
    snowmen = model.spellings[extended.morphemes.index["lemma:☃☃☃"]]
    assert snowmen[:3].tolist() == [UNK_ID] * 3  # the encoder reads unknown symbols as <unk>


def test_evaluate_unseen_lemmas_with_the_encoder(cli, encoder_run):
    result = cli(
        "evaluate", "-m", str(encoder_run), "--unseen-lemmas", "--known", "1", "--fit-steps", "3"
    )
    assert result.code == 0, result.err
    metrics = {tuple(row.split("\t")[:3]): row.split("\t")[3] for row in result.out.splitlines()}
    assert 0 <= float(metrics["1", "model", "acc"]) <= 100
    assert float(metrics["1", "model", "nll"]) > 0


def test_uf_shows_lemma_vectors_with_the_mean_of_their_spelling(encoder_run):
    from phonkit.analysis.underlying_forms import Inventory

    run = Run.open(encoder_run)
    inventory = Inventory.of(run)
    residuals = load_model(run, torch.device("cpu")).morphemes.weight.detach()
    residuals = residuals[-len(inventory.morphemes) :].numpy()
    stems = [n for n, kind in enumerate(inventory.kinds) if kind == "stem"]
    features = [n for n, kind in enumerate(inventory.kinds) if kind == "feature"]
    assert stems and features
    assert abs(inventory.vectors[stems] - residuals[stems]).max() > 1e-3
    assert abs(inventory.vectors[features] - residuals[features]).max() < 1e-6
