from conftest import sample_lines
from phonkit.data.lexicon import Entry, Example, PerFeature, segment
from phonkit.data.split import paradigm_completion, unseen_lemmas


def examples(paradigms=30):
    out = []
    for line in sample_lines(paradigms):
        lemma, form, bundle = line.split("\t")
        entry = Entry(lemma, tuple(bundle.split(";")), form)
        out.append(Example(entry, segment(form), PerFeature().morphemes(entry)))
    return out


def test_split_is_80_10_10_and_covers_every_held_out_morpheme():
    data = examples()
    split = paradigm_completion(data, seed=3)
    assert len(split.train) + len(split.dev) + len(split.test) == len(data)
    assert abs(len(split.dev) - len(data) / 10) <= split.moved + 1
    seen = {m for example in split.train for m in example.morphemes}
    for example in split.dev + split.test:
        assert seen.issuperset(example.morphemes)


def test_split_is_seeded():
    data = examples()
    first, again, other = (paradigm_completion(data, seed) for seed in (1, 1, 2))
    assert first.test == again.test
    assert first.test != other.test


def test_entries_with_unseen_morphemes_move_to_train():
    data = examples(5)
    entry = Entry("yepyeni", ("N", "NOM", "SG"), "yepyeni")
    rare = Example(entry, segment("yepyeni"), PerFeature().morphemes(entry))
    splits = [paradigm_completion(data + [rare], seed) for seed in range(20)]
    assert all(rare in split.train for split in splits)
    assert any(split.moved >= 1 for split in splits)


def test_unseen_lemma_split_holds_out_whole_paradigms():
    data = examples(40)
    split = unseen_lemmas(data, seed=3)
    assert split.protocol == "lemmas"
    assert len(split.train) + len(split.dev) + len(split.test) == len(data)
    train_lemmas = {example.entry.lemma for example in split.train}
    test_lemmas = {example.entry.lemma for example in split.test}
    assert test_lemmas and not test_lemmas & train_lemmas
    assert 2 <= len(test_lemmas) <= 6  # a tenth of 40 lemmas, give or take rounding and moves
    features = {m for example in split.train for m in example.morphemes[1:]}
    assert all(features.issuperset(ex.morphemes[1:]) for ex in split.test)
    assert {example.entry.lemma for example in split.dev} <= train_lemmas
