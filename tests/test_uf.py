import numpy as np
import pytest

from phonkit.analysis.vowels import attributes, last_vowel


@pytest.mark.parametrize(
    ("lemma", "lang", "vowel", "backness", "rounding"),
    [
        ("kitap", "tur", "a", "back", "unrounded"),
        ("göz", "tur", "ö", "front", "rounded"),
        ("boek", "nld", "oe", "back", "rounded"),
        ("huis", "nld", "ui", "front", "rounded"),
        ("canción", "spa", "o", "back", "rounded"),
    ],
)
def test_last_vowel_and_its_class(lemma, lang, vowel, backness, rounding):
    assert last_vowel(lemma, lang) == vowel
    assert attributes(lemma, lang) == {
        "last_vowel": vowel,
        "backness": backness,
        "rounding": rounding,
    }


def test_export_writes_vectors_and_projector_metadata(cli, trained_run, tmp_path):
    result = cli("uf", "export", "-m", str(trained_run), "-o", str(tmp_path / "uf"))
    assert result.code == 0, result.err
    vectors = (tmp_path / "uf.vectors.tsv").read_text().splitlines()
    metadata = (tmp_path / "uf.metadata.tsv").read_text().splitlines()
    assert metadata[0].split("\t") == [
        "morpheme",
        "kind",
        "frequency",
        "last_vowel",
        "backness",
        "rounding",
    ]
    assert len(metadata) == len(vectors) + 1
    assert len(vectors[0].split("\t")) == 32  # d of the fixture run
    kinds = {row.split("\t")[1] for row in metadata[1:]}
    assert kinds == {"stem", "feature"}
    assert (
        cli(
            "uf", "export", "-m", str(trained_run), "-o", str(tmp_path / "v"), "--format", "npy"
        ).code
        == 0
    )
    assert np.load(tmp_path / "v.npy").shape == (len(vectors), 32)


def test_neighbours_are_sorted_by_cosine(cli, trained_run):
    lemma = (trained_run / "train.tsv").read_text().split("\t")[0]
    result = cli("uf", "neighbours", "-m", str(trained_run), lemma, "-n", "4")
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()[1:]]
    assert len(rows) == 4 and lemma not in [row[0] for row in rows]
    cosines = [float(row[2]) for row in rows]
    assert cosines == sorted(cosines, reverse=True) and all(-1 <= c <= 1 for c in cosines)


def test_unknown_morpheme_suggests_close_spellings(cli, trained_run):
    lemma = (trained_run / "train.tsv").read_text().split("\t")[0]
    result = cli("uf", "neighbours", "-m", str(trained_run), lemma + "x")
    assert result.code == 2
    assert f"morpheme '{lemma}x' is not in the model; closest: {lemma}" in result.err


def test_probe_reports_accuracy_and_majority_baseline(cli, trained_run):
    result = cli("uf", "probe", "-m", str(trained_run), "--attribute", "backness", "--folds", "3")
    assert result.code == 0, result.err
    header, row = (line.split("\t") for line in result.out.splitlines())
    values = dict(zip(header, row, strict=True))
    assert int(values["stems"]) == 12
    assert 0 <= float(values["probe_acc"]) <= 100 and 0 < float(values["majority_acc"]) <= 100


def test_an_attribute_that_does_not_exist_lists_those_that_do(cli, trained_run):
    result = cli("uf", "probe", "-m", str(trained_run), "--attribute", "height")
    assert result.code == 2
    assert "attributes here: kind, frequency, last_vowel, backness, rounding" in result.err


@pytest.mark.parametrize("method", ["pca", "tsne"])
def test_plot_writes_an_image(cli, trained_run, tmp_path, method):
    out = tmp_path / f"uf-{method}.png"
    args = [
        "uf",
        "plot",
        "-m",
        str(trained_run),
        "--method",
        method,
        "--kind",
        "both",
        "-o",
        str(out),
    ]
    result = cli(*args, "--color-by", "backness")
    assert result.code == 0, result.err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_rejects_an_unknown_format(cli, trained_run, tmp_path):
    result = cli("uf", "plot", "-m", str(trained_run), "-o", str(tmp_path / "x.bmp"))
    assert result.code == 2 and "choose a .png, .svg or .pdf" in result.err
