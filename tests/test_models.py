import copy
import math

import pytest
import torch

from phonkit.data.encoding import encode
from phonkit.data.lexicon import Entry, Example, PerFeature, Vocabularies, segment
from phonkit.model.decoding import decode, token_nll
from phonkit.model.training import Trainer
from phonkit.plugins import lookup
from phonkit.settings import ModelConfig, TrainConfig

WORDS = [
    ("ev", "N;SG", "ev"),
    ("ev", "N;PL", "evler"),
    ("kol", "N;SG", "kol"),
    ("kol", "N;PL", "kollar"),
    ("göz", "N;SG", "göz"),
    ("göz", "N;PL", "gözler"),
]


def data():
    entries = [Entry(lemma, tuple(f.split(";")), w) for lemma, f, w in WORDS]
    examples = [Example(e, segment(e.form), PerFeature().morphemes(e)) for e in entries]
    vocabularies = Vocabularies.build(examples)
    return vocabularies, encode(examples, vocabularies)


def build(variant, **config):
    vocabularies, encoded = data()
    model = lookup("models", variant)(
        len(vocabularies.symbols), len(vocabularies.morphemes), ModelConfig(dim=16, **config)
    )
    return model, vocabularies, encoded


@pytest.mark.parametrize("variant", ["pi", "pd", "joint"])
def test_each_step_is_a_distribution_over_symbols(variant):
    model, vocabularies, encoded = build(variant)
    model.eval()
    morphemes, inputs, targets = encoded.batch(torch.arange(len(encoded)))
    log_probs = model(morphemes, inputs)
    assert log_probs.shape == (len(WORDS), inputs.shape[1], len(vocabularies.symbols))
    assert torch.allclose(log_probs.exp().sum(-1), torch.ones(log_probs.shape[:2]), atol=1e-5)


@pytest.mark.parametrize("variant", ["pi", "pd", "joint"])
def test_noise_is_drawn_in_training_and_off_at_evaluation(variant):
    model, _, encoded = build(variant, sigma=1.0, dropout=0.0)
    morphemes, inputs, _ = encoded.batch(torch.arange(len(encoded)))
    model.eval()
    assert torch.equal(model(morphemes, inputs), model(morphemes, inputs))
    model.train()
    assert not torch.equal(model(morphemes, inputs), model(morphemes, inputs))


def trained(variant):
    """A tiny model fitted to WORDS (150 full-batch Adam steps) and its data."""
    torch.manual_seed(0)
    model, vocabularies, encoded = build(variant, sigma=0.0, dropout=0.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    morphemes, inputs, targets = encoded.batch(torch.arange(len(encoded)))
    model.train()
    for _ in range(150):
        loss = token_nll(model, morphemes, inputs, targets).sum() / (targets != 0).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval(), vocabularies, morphemes


@pytest.mark.parametrize("variant", ["pi", "pd", "joint"])
def test_training_learns_the_forms(variant):
    model, vocabularies, morphemes = trained(variant)
    predicted = ["".join(vocabularies.symbols.decode(ids)) for ids in decode(model, morphemes, 12)]
    assert predicted == [form for _, _, form in WORDS]


def test_the_prior_pulls_morpheme_vectors_towards_zero():
    model, _, encoded = build("pi")
    config = TrainConfig(prior_weight=2.0, uf_lr_scale=10.0)
    trainer = Trainer(model, encoded, encoded, config, torch.device("cpu"), 9)
    rest, vectors = trainer.optimizer.param_groups
    assert vectors["params"] == [model.morphemes.weight]
    assert vectors["lr"] == pytest.approx(10 * rest["lr"])
    symbols = float(encoded.lengths.sum())
    assert vectors["weight_decay"] == pytest.approx(2.0 / symbols)
    assert rest["weight_decay"] == 0


@pytest.mark.parametrize("variant", ["pi", "pd", "joint"])
def test_every_variant_fits_the_underlying_form_of_a_new_lemma(variant):
    from phonkit.model.fitting import fit_lemmas
    from phonkit.settings import FitConfig

    cells = [("SG", "kuş"), ("PL", "kuşlar")]
    entries = [Entry("kuş", ("N", bundle), w) for bundle, w in cells]
    new = [Example(e, segment(e.form), PerFeature().morphemes(e)) for e in entries]
    totals = []
    for steps in (0, 40):
        model, vocabularies, _ = trained(variant)
        from_state = model.from_state
        fitted = fit_lemmas(model, vocabularies, new, FitConfig(steps=steps, lr=0.1))
        assert model.from_state is from_state  # the remembering wrapper is gone
        batch = encode(new, fitted).batch(torch.arange(2))
        totals.append(float(token_nll(model, *batch).sum()))
    assert totals[1] < 0.9 * totals[0]


def test_the_trainer_hands_each_epoch_to_its_checkpoint_callback(monkeypatch):
    """The trainer stores nothing itself: after an epoch (every epoch, when KEEP_EVERY
    seconds pass between them) its callback gets the training state, the weights when the
    epoch is the best so far, and the history."""
    from phonkit.model import training

    monkeypatch.setattr(training, "KEEP_EVERY", 0.0)
    torch.manual_seed(0)
    model, _, encoded = build("pi")
    kept = []
    config = TrainConfig(epochs=3, batch_size=4, lr=0.01)
    trainer = Trainer(model, encoded, encoded, config, torch.device("cpu"), 9, kept.append)
    trainer.fit(lambda: None, lambda record: None)
    assert [len(c.history) for c in kept] == [1, 2, 3]
    assert [c.state["epoch"] for c in kept] == [1, 2, 3]
    for checkpoint in kept:
        assert (checkpoint.best is not None) == checkpoint.history[-1].best
    assert kept[0].best is not None and set(kept[0].best) == set(model.state_dict())


def test_quick_epochs_are_kept_first_and_at_the_end_or_when_training_stops(monkeypatch):
    from phonkit.model import training

    monkeypatch.setattr(training, "KEEP_EVERY", math.inf)  # however slow the machine
    torch.manual_seed(0)
    model, _, encoded = build("pi")
    kept = []
    config = TrainConfig(epochs=4, batch_size=4, lr=0.01, patience=100)
    trainer = Trainer(model, encoded, encoded, config, torch.device("cpu"), 9, kept.append)
    snapshots = []
    trainer.fit(lambda: None, lambda record: snapshots.append(copy.deepcopy(model.state_dict())))
    assert [c.state["epoch"] for c in kept] == [1, 4] and len(kept[1].history) == 4
    best = max(r.epoch for r in kept[1].history if r.best)  # its weights, not the live ones
    assert best > 1 and kept[1].best is not None
    assert all(torch.equal(kept[1].best[k], v) for k, v in snapshots[best - 1].items())

    torch.manual_seed(0)
    model, _, encoded = build("pi")
    kept, batches = [], []

    def interrupt():  # Ctrl-C in the third epoch
        batches.append(1)
        if len(batches) == 2 * trainer.batches_per_epoch() + 1:
            raise KeyboardInterrupt

    trainer = Trainer(model, encoded, encoded, config, torch.device("cpu"), 9, kept.append)
    snapshots = []
    with pytest.raises(KeyboardInterrupt):
        trainer.fit(interrupt, lambda record: snapshots.append(copy.deepcopy(model.state_dict())))
    assert [c.state["epoch"] for c in kept] == [1, 2]
    held = kept[1].state["model"]  # the second epoch's weights, not those the third moved on
    assert all(torch.equal(held[k], v) for k, v in snapshots[1].items())
