import pytest

from phonkit.metrics import Scored
from phonkit.plugins import registry

ITEMS = [
    Scored(tuple("evler"), tuple("evler"), 0.1),
    Scored(tuple("evlar"), tuple("evler"), 0.5),
    Scored(tuple("kol"), tuple("kollar"), 0.9),
]


def score(name, items=ITEMS):
    return registry("metrics")[name].score(items)


def test_accuracy_is_exact_match_in_percent():
    assert score("acc") == pytest.approx(100 / 3)


def test_mean_edit_distance_counts_symbols():
    assert score("mld") == pytest.approx((0 + 1 + 3) / 3)


def test_nll_is_the_mean_surprisal():
    assert score("nll") == pytest.approx(0.5)


def test_chrf_is_perfect_only_for_perfect_output():
    assert score("chrf", ITEMS[:1]) == pytest.approx(100.0)
    assert 0 < score("chrf") < 100


def test_multi_character_segments_are_single_symbols():
    item = Scored(("t͡ʃ", "a"), ("t͡ʃ", "e"), 0.0)
    assert score("mld", [item]) == 1.0
