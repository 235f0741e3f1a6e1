import json

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


MANY = [
    Scored(tuple(prediction), tuple(gold), nll)
    for prediction, gold, nll in [
        ("pat", "pat", 0.1),
        ("bat", "pat", 0.4),
        ("kitaplar", "kitaplar", 0.05),
        ("kitablar", "kitaplar", 0.7),
        ("ev", "evler", 1.3),
        ("gözlük", "gözlüğü", 0.9),
        ("ʃip", "tʃip", 0.6),
        ("", "a", 2.0),
    ]
]


@pytest.mark.parametrize("name", sorted(registry("metrics")))
def test_every_metrics_score_is_the_mean_of_its_item_scores(name):
    """What compare, predictions.tsv and the permutation tests rest on, for every installed
    metric (plugins' included)."""
    metric = registry("metrics")[name]
    items = metric.item_scores(MANY)
    assert len(items) == len(MANY)
    assert metric.score(MANY) == pytest.approx(sum(items) / len(items))
    assert metric.score(MANY[:3]) == pytest.approx(sum(metric.item_scores(MANY[:3])) / 3)


def test_per_cell_scores_of_a_run_agree_with_its_metrics(cli, trained_run):
    """Every metric column of predictions.tsv averages to the test figure of metrics.json and
    of evaluate, and compare reports that figure too."""
    lines = (trained_run / "predictions.tsv").read_text().splitlines()
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    test = json.loads((trained_run / "metrics.json").read_text())["test"]
    assert set(header[4:]) == set(test)
    for column, name in enumerate(header[4:], start=4):
        mean = sum(float(row[column]) for row in rows) / len(rows)
        assert mean == pytest.approx(test[name], rel=2e-3, abs=2e-4), name
    evaluated = cli("evaluate", "-m", str(trained_run))
    figures = dict(line.split("\t") for line in evaluated.out.splitlines()[1:])
    compared = cli("compare", str(trained_run), str(trained_run), "--permutations", "10")
    for line in compared.out.splitlines()[1:]:
        name, items, first, second, _ = line.split("\t")
        assert int(items) == len(rows) and first == second
        assert float(first) == pytest.approx(float(figures[name]), rel=2e-3, abs=2e-4), name
