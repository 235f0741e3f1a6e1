"""Training settings that change what a run is: the morpheme decomposition, the checkpoint
kept, and the per-epoch history a run directory records."""

import json
import shutil

import pytest

from conftest import TINY


def tiny_run(out, lexicon_file, *settings):
    from phonkit.cli import main

    args = ["train", "--corpus", "tsv", "--lang", "tur", "--path", str(lexicon_file)]
    try:
        main([*args, *settings, "--out", str(out), *TINY])
    except SystemExit as done:
        assert not done.code
    return out


@pytest.fixture(scope="session")
def bundle_run(tmp_path_factory, lexicon_file):
    """A tiny pi model whose words are the lemma and the whole feature bundle."""
    out = tmp_path_factory.mktemp("runs") / "tur-pi-bundle"
    settings = ("--variant", "pi", "--morphemes", "bundle", "--select", "acc")
    return tiny_run(out, lexicon_file, *settings)


@pytest.fixture(scope="session")
def features_run(tmp_path_factory, lexicon_file):
    """A tiny pi model whose words are the lemma and each feature."""
    out = tmp_path_factory.mktemp("runs") / "tur-pi-features"
    return tiny_run(out, lexicon_file, "--variant", "pi", "--morphemes", "features")


def history(run):
    lines = (run / "history.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]


def test_the_default_decomposition_is_the_bundle(trained_run):
    assert json.loads((trained_run / "config.json").read_text())["morphemes"] == "bundle"


def test_the_features_decomposition_makes_one_morpheme_per_feature(features_run, cli):
    morphemes = json.loads((features_run / "vocab.json").read_text())["morphemes"]
    assert "feat:N" in morphemes and not any(";" in m for m in morphemes)
    result = cli("uf", "neighbours", "-m", str(features_run), "N", "-n", "2")
    assert result.code == 0 and len(result.out.splitlines()) == 3


def test_the_bundle_decomposition_makes_one_affix_morpheme_per_bundle(bundle_run, cli):
    config = json.loads((bundle_run / "config.json").read_text())
    assert config["morphemes"] == "bundle"
    morphemes = json.loads((bundle_run / "vocab.json").read_text())["morphemes"]
    bundles = {line.split("\t")[2] for line in (bundle_run / "train.tsv").read_text().splitlines()}
    assert {m for m in morphemes if m.startswith("feat:")} == {f"feat:{b}" for b in bundles}
    lemma, _, bundle, _ = (bundle_run / "test.tsv").read_text().splitlines()[0].split("\t")
    result = cli("predict", "-m", str(bundle_run), stdin=f"{lemma}\t{bundle}\n".encode())
    assert result.code == 0 and result.out.split("\t")[2].strip()
    result = cli("uf", "neighbours", "-m", str(bundle_run), bundle, "-n", "2")
    assert result.code == 0 and len(result.out.splitlines()) == 3


def test_a_bundle_never_seen_in_training_is_named(bundle_run, cli):
    lemma = (bundle_run / "train.tsv").read_text().split("\t")[0]
    result = cli("predict", "-m", str(bundle_run), stdin=f"{lemma}\tN;ZZZ\n".encode())
    assert result.code == 0 and result.out == f"{lemma}\tN;ZZZ\t\n"
    assert "<stdin>:1: feature bundle 'N;ZZZ' is not in the model" in result.err
    result = cli("predict", "-m", str(bundle_run), "--strict", stdin=f"{lemma}\tN;ZZZ\n".encode())
    assert result.code == 2
    assert "feature bundle 'N;ZZZ' is not in the model" in result.err
    assert result.err.count("\n") == 1


def test_a_new_lemma_is_fitted_under_the_bundle_decomposition(bundle_run, cli):
    rows = [line.split("\t") for line in (bundle_run / "train.tsv").read_text().splitlines()]
    lemma = rows[0][0]
    cells = [row for row in rows if row[0] == lemma][:3]
    known = "".join(f"yeni{lemma}\t{b}\t{form}\n" for _, form, b, _ in cells[:2])
    gap = f"yeni{lemma}\t{cells[2][2]}\n"
    result = cli("predict", "-m", str(bundle_run), stdin=(known + gap).encode())
    assert result.code == 0, result.err
    assert len(result.out.splitlines()) == 3 and result.out.splitlines()[2].split("\t")[2]
    assert "fitted the underlying forms of 1 new lemma" in result.err


def test_an_unknown_decomposition_lists_the_choices(cli, lexicon_file, tmp_path):
    out = tmp_path / "run"
    result = cli(
        "train", "--corpus", "tsv", "--path", str(lexicon_file), "--morphemes", "words",
        "--out", str(out), *TINY,
    )  # fmt: skip
    assert result.code == 2
    assert "unknown morpheme decomposition 'words'; available: features, bundle" in result.err
    assert result.err.count("\n") == 1 and not out.exists()


def test_an_unknown_checkpoint_selection_is_refused(cli, lexicon_file, tmp_path):
    result = cli(
        "train", "--corpus", "tsv", "--path", str(lexicon_file), "--select", "chrf",
        "--out", str(tmp_path / "run"), *TINY,
    )  # fmt: skip
    assert result.code == 2 and "--select must be loss or acc, not 'chrf'" in result.err


def test_history_has_one_row_per_epoch(trained_run):
    rows = history(trained_run)
    assert [row["epoch"] for row in rows] == ["1", "2"]
    assert {"lr", "train_loss", "dev_loss", "dev_acc", "forms_per_second", "seconds"} <= set(
        rows[0]
    )
    assert all(float(row["seconds"]) > 0 for row in rows)


def test_selection_by_accuracy_keeps_the_best_dev_accuracy(bundle_run):
    rows = history(bundle_run)
    kept = [row for row in rows if row["best"] == "1"][-1]
    assert float(kept["dev_acc"]) == max(float(row["dev_acc"]) for row in rows)


def test_a_run_made_before_the_decomposition_setting_still_predicts(features_run, cli, tmp_path):
    old = tmp_path / "old-run"
    shutil.copytree(features_run, old)
    config = json.loads((old / "config.json").read_text())
    del config["morphemes"]
    (old / "config.json").write_text(json.dumps(config))
    lemma, _, bundle, _ = (old / "test.tsv").read_text().splitlines()[0].split("\t")
    fresh = cli("predict", "-m", str(features_run), stdin=f"{lemma}\t{bundle}\n".encode())
    result = cli("predict", "-m", str(old), stdin=f"{lemma}\t{bundle}\n".encode())
    assert result.code == 0 and result.out == fresh.out
