"""Transcribers: epitran IPA segments with phonkit's normalisations, the on-disk cache, the
``transcribe`` command, and IPA runs end to end (train, predict, evaluate)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys

import pytest

from conftest import TINY
from phonkit.default_plugins import epitran_transcriber
from phonkit.default_plugins.epitran_transcriber import Epitran, instance
from phonkit.default_plugins.transcription_cache import TranscriptionCache
from phonkit.errors import InputError


def ipa(lang: str, *words: str) -> list[tuple[str, ...]]:
    return Epitran().transcribe(lang, list(words))


def test_turkish_capitals_are_lowercased_the_turkish_way_and_segments_are_ipa():
    (isik, cocuk) = ipa("tur", "Işık", "çocuk")
    assert isik == ("ɯ", "ʃ", "ɯ", "k")  # I is dotless ı, not i
    assert ipa("tur", "İzmir")[0][0] == "i"  # İ is plain i, with no dot left over
    assert cocuk[0] == "t͡ʃ"  # one segment, several code points


def test_urdu_and_persian_letters_are_normalised_to_epitrans_tables(capsys):
    assert ipa("urd", "کتاب") == [("k", "t̪", "ɑː", "b")]
    assert ipa("fas", "پدر")[0][0] == "p"
    assert "could not map" not in capsys.readouterr().err


def test_russian_dutch_and_multiword_forms():
    assert ipa("rus", "мама") == [("m", "a", "m", "a")]
    assert ipa("nld", "coëfficiënt") == ipa("nld", "coefficient")
    assert "_" in ipa("nld", "aan het werk")[0]  # the word boundary is a segment


def test_unmapped_letters_are_kept_and_warned_once_with_a_count(capsys):
    out = ipa("tur", "wow", "kitap", "wq")
    assert out[0][0] == "w" and out[2] == ("w", "q")
    err = capsys.readouterr().err
    assert err.count("warning") == 1
    assert "could not map 2 tur words fully" in err


def test_a_second_transcription_reads_the_cache(monkeypatch):
    words = ["elmalar", "armutlar"]
    first = ipa("tur", *words)
    cache = TranscriptionCache("epitran", epitran_transcriber.VERSION, "tur")
    assert cache.path.exists() and cache.get("elmalar")[0] == first[0]

    def no_g2p(lang):
        raise AssertionError("epitran was called although the words are cached")

    monkeypatch.setattr(epitran_transcriber, "instance", no_g2p)
    assert ipa("tur", *words) == first


def test_a_language_epitran_does_not_cover_is_exit_2_with_the_covered_list(cli):
    result = cli("transcribe", "--lang", "hye", stdin="բարեւ\n".encode())
    assert result.code == 2 and result.out == ""
    assert "does not cover language 'hye'" in result.err
    assert "nld" in result.err and "tur" in result.err and "urd" in result.err
    assert len(result.err.strip().splitlines()) == 1


@pytest.mark.skipif(not shutil.which("t2p") and not shutil.which("lex_lookup"), reason="no flite")
def test_english_goes_through_flite():
    assert ipa("eng", "cats") == [("k", "æ", "t", "s")]


def test_english_without_flite_says_what_to_install(monkeypatch):
    import epitran

    monkeypatch.setattr(epitran_transcriber.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match="install Debian's package flite"):
        epitran_transcriber._flite(epitran)


def test_transcribe_reads_words_or_a_column_and_writes_word_and_segments(cli, tmp_path):
    result = cli("transcribe", "--lang", "tur", stdin="kitap\n\nçay\n".encode())
    assert result.code == 0
    assert result.out == "kitap\tk i t a p\nçay\tt͡ʃ a j\n"
    table = tmp_path / "tur.tsv"
    table.write_text("kitap\tkitaplar\tN;PL\n", encoding="utf-8")
    result = cli("transcribe", "--lang", "tur", "--column", "2", str(table))
    assert result.out == "kitaplar\tk i t a p l a ɾ\n"
    bad = cli("transcribe", "--lang", "tur", "--column", "4", str(table))
    assert bad.code == 2 and f"{table}:1: no column 4" in bad.err


@pytest.fixture(scope="module")
def ipa_run(tmp_path_factory, lexicon_file):
    from phonkit.cli import main

    out = tmp_path_factory.mktemp("runs") / "tur-ipa"
    args = ["train", "--corpus", "tsv", "--lang", "tur", "--path", str(lexicon_file)]
    try:
        main([*args, "--transcriber", "epitran", "--out", str(out), *TINY])
    except SystemExit as done:
        assert not done.code, "training the IPA run failed"
    return out


def test_an_ipa_run_predicts_segments_and_reads_known_cells_in_orthography(cli, ipa_run):
    import json

    assert json.loads((ipa_run / "config.json").read_text())["transcriber"] == "epitran"
    train = (ipa_run / "train.tsv").read_text(encoding="utf-8").splitlines()
    lemma, _, features, _ = train[0].split("\t")
    result = cli("predict", "-m", str(ipa_run), "--all", stdin=f"{lemma}\t{features}\n".encode())
    assert result.code == 0
    form = result.out.rstrip("\n").split("\t")[2]
    assert " " in form  # segments, space-separated
    assert set(form.split()) <= set(json.loads((ipa_run / "vocab.json").read_text())["symbols"])
    known = cli(
        "predict", "-m", str(ipa_run), "--score",
        stdin=f"yenikelime\t{features}\tyenikelimeler\n".encode(),
    )  # fmt: skip
    assert known.code == 0 and "could not map" not in known.err


def test_evaluate_reads_gold_in_the_runs_transcription_or_in_segments(cli, ipa_run, tmp_path):
    test = (ipa_run / "test.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in test[:20]]
    ortho = tmp_path / "gold.tsv"
    ortho.write_text("".join(f"{r[0]}\t{r[2]}\t{r[1]}\n" for r in rows), encoding="utf-8")
    segmented = tmp_path / "gold-ipa.tsv"
    segmented.write_text("".join(f"{r[0]}\t{r[2]}\t{r[3]}\n" for r in rows), encoding="utf-8")
    first = cli("evaluate", "-m", str(ipa_run), str(ortho))
    second = cli("evaluate", "-m", str(ipa_run), str(segmented), "--transcriber", "segments")
    assert first.code == second.code == 0
    assert first.out == second.out


def test_one_epitran_instance_per_language():
    assert instance("tur") is instance("tur")


def test_epitrans_import_leaves_the_root_logger_alone():
    # epitran calls logging.basicConfig(level=DEBUG) at import: phonkit's messages would
    # then be shown twice. A fresh process, so that epitran is imported for the first time.
    code = (
        "import logging; from phonkit.default_plugins.epitran_transcriber import instance; "
        "instance('nld'); root = logging.getLogger(); print(len(root.handlers), root.level)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", str(logging.WARNING)]
