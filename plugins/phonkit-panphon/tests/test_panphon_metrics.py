import pytest

from phonkit.plugin import Scored
from phonkit.plugins import plugin_infos, registry

pytest.importorskip("phonkit_panphon")


def item(prediction: str, gold: str) -> Scored:
    return Scored(tuple(prediction), tuple(gold), 0.0)


def test_the_plugin_is_installed_and_registers_its_metrics_and_feature_table():
    assert {"fed", "fer"} <= set(registry("metrics"))
    assert "panphon" in registry("feature_tables")
    info = {p.name: p for p in plugin_infos()}["panphon"]
    assert info.version == "0.1.0"
    assert set(info.hooks) == {"register_metrics", "register_feature_tables"}


def test_a_voicing_error_costs_less_than_a_consonant_for_a_vowel():
    fed = registry("metrics")["fed"]
    voicing, vowel = fed.item_scores([item("bat", "pat"), item("aat", "pat")])
    assert 0 < voicing < vowel


def test_a_perfect_prediction_has_no_feature_error():
    fer = registry("metrics")["fer"]
    assert fer.score([item("pat", "pat"), item("kɪt", "kɪt")]) == 0.0


def test_feature_error_rate_is_per_gold_segment():
    fed, fer = registry("metrics")["fed"], registry("metrics")["fer"]
    items = [item("bat", "pat"), item("pata", "pata"), item("kat", "kata")]
    distances = fed.item_scores(items)
    assert fer.item_scores(items) == pytest.approx([distances[0] / 3, 0.0, distances[2] / 4])
    assert fer.item_scores(items) != pytest.approx(distances)
    assert fer.score(items) == pytest.approx((distances[0] / 3 + distances[2] / 4) / 3)


def test_the_feature_table_gives_a_segments_values_and_none_for_a_non_segment():
    table = registry("feature_tables")["panphon"]
    b, p = table.features("b"), table.features("p")
    assert (b["voi"], p["voi"], b["son"]) == ("+", "-", "-")
    assert table.features("ː") is None


def test_affricate_ligatures_and_the_latin_g_read_as_what_they_stand_for():
    table = registry("feature_tables")["panphon"]
    assert table.features("ʧ") == table.features("t͡ʃ") is not None
    assert table.features("ʤ")["voi"] == "+" and table.features("ʧ")["voi"] == "-"
    assert table.features("g") == table.features("ɡ") is not None


def test_processes_name_their_contexts_as_natural_classes():
    from phonkit.analysis.processes import name

    features = registry("feature_tables")["panphon"].features
    assert name(["a", "e", "i"], ["t", "k"], features) == "[+syl]"
    assert name(["t", "#"], ["a"], features) == "{[-syl], #}"
    assert name(["t", "k"], ["a"], None) == "C"


def test_the_features_read_from_panphons_file_are_panphons(monkeypatch):
    import importlib.util

    import panphon.featuretable
    from phonkit_panphon import PanPhonFeatures

    table = panphon.featuretable.FeatureTable()
    sign = lambda v: "+" if v > 0 else "-" if v < 0 else "0"  # noqa: E731
    expected = {
        ipa: {name: sign(v) for name, v in values.items()} for ipa, values in table.seg_dict.items()
    }
    assert PanPhonFeatures().values == expected
    # where panphon keeps its table elsewhere, panphon's own class reads it: the same values
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert PanPhonFeatures().values == expected
