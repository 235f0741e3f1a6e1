import json

import pytest
import torch

from phonkit.cli import main
from phonkit.plugins import registry
from phonkit.settings import ModelConfig

pytest.importorskip("phonkit_wsum")

LEXICON = "".join(
    f"{stem}\t{stem}{suffix}\tN;{tag}\n"
    for stem in ("ev", "kol", "göz", "ay", "yol", "el", "at", "dil")
    for suffix, tag in (("", "SG"), ("ler", "PL"), ("e", "DAT"), ("de", "LOC"))
)


def phonkit(*args: str) -> None:
    """Run the phonkit CLI in-process; fail on a non-zero exit."""
    try:
        main(list(args))
    except SystemExit as done:
        assert not done.code


def test_the_variant_is_registered():
    assert "wsum" in registry("models")


def test_weights_are_a_distribution_over_each_words_morphemes():
    model = registry("models")["wsum"](10, 6, ModelConfig(dim=8))
    morphemes = torch.tensor([[4, 5, 0], [4, 5, 3]])
    weights = model.weights(morphemes, model.morphemes(morphemes))
    assert torch.allclose(weights.sum(-1), torch.ones(2))
    assert weights[0, 2] == 0


def test_phonkit_train_variant_wsum_end_to_end(tmp_path, capsys):
    data = tmp_path / "toy.tsv"
    data.write_text(LEXICON)
    out = tmp_path / "run"
    args = ["train", "--corpus", "tsv", "--path", str(data), "--variant", "wsum", "--out", str(out)]
    phonkit(*args, "--dim", "16", "--epochs", "2")
    assert json.loads((out / "config.json").read_text())["variant"] == "wsum"
    gaps = tmp_path / "gaps.tsv"
    gaps.write_text("ev\tN;PL\nkol\tN;DAT\n")
    capsys.readouterr()
    phonkit("predict", "-m", str(out), str(gaps))
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [row[:2] for row in rows] == [["ev", "N;PL"], ["kol", "N;DAT"]]
    assert all(row[2] for row in rows)
