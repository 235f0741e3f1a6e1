"""Library errors and messages name settings (``split.k``, ``data.path``); the command line
writes the option that gives each (``--k``, ``--path``), so what it prints is unchanged."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from phonkit.cli.settings import in_flags, in_options
from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import parse_columns
from phonkit.data.split import drawable
from phonkit.data.transcription import read_words
from phonkit.default_plugins.launchers import Local
from phonkit.errors import InputError
from phonkit.experiments.unimorph import languages
from phonkit.jobs import TrainRequest
from phonkit.progress import StderrHandler, say
from phonkit.run.directory import Run
from phonkit.tasks.corpus import choose_transcriber
from phonkit.tasks.train import split_examples


def raised(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_in_options_writes_each_setting_as_its_option_and_a_value_after_it():
    settings = ("split.protocol", "split.k")
    message = "split.protocol=sample needs split.k=K, the number of training entries to draw"
    assert in_options(message, settings) == (
        "--split sample needs --k K, the number of training entries to draw"
    )
    # A setting the error does not name stays as it is, and so does one inside a longer
    # name or a path.
    assert in_options("split.k and split.protocol", ("split.k",)) == "--k and split.protocol"
    assert (
        in_options("runs/out is a file; out needs", ("out",)) == "runs/out is a file; --out needs"
    )
    assert in_options("a cut.out; outs", ("out",)) == "a cut.out; outs"
    # Replaced once, longest first: launcher.jobs is not read again as jobs.
    assert in_options("jobs=3 and launcher.jobs=2", ("jobs", "launcher.jobs")) == (
        "--jobs 3 and -L jobs=2"
    )
    assert in_options("training.min_lr=2", ("training.min_lr",)) == "--min-lr 2"


def test_in_flags_keeps_the_place_and_writes_a_setting_as_the_place():
    error = in_flags(InputError("split.k goes with", "lexicon.tsv:3", "split.k"))
    assert (error.message, error.where) == ("--k goes with", "lexicon.tsv:3")
    error = in_flags(InputError("empty feature bundle", "bundle", "bundle"))
    assert str(error) == "--bundle: empty feature bundle"
    plain = InputError("no settings here", "f.tsv")
    assert in_flags(plain) is plain


def test_the_library_raises_with_setting_names(tmp_path: Path):
    error = raised(split_examples, [], TrainRequest(settings={"protocol": "sample"}), "tur")
    assert error.message.startswith("split.protocol=sample needs split.k=K")
    assert error.settings == ("split.protocol", "split.k")
    error = raised(split_examples, [], TrainRequest(settings={"protocol": "lemmas", "k": 5}), "tur")
    assert error.message == "split.k goes with the k-sample split, not with split.protocol=lemmas"
    assert raised(drawable, [], 3).message.startswith("split.k=3 is more than the 0 entries")
    error = raised(choose_transcriber, "sample", "epitran", True)
    assert error.message == "ipa and transcriber=epitran ask for two transcribers"
    assert raised(parse_columns, "lemma,form").message == "data.columns='lemma,form' lacks features"
    assert raised(read_words, iter([]), "-", 0).message == "column counts from 1, not 0"
    assert raised(CorpusRequest().require_lang, "unimorph").message == (
        "corpus 'unimorph' needs data.lang"
    )
    assert raised(Local().start, {"jobs": "2"}, 3).message == (
        "jobs=3 and launcher.jobs=2 disagree; give one"
    )
    assert raised(Local().start, {}, 0).message == "jobs must be at least 1"
    assert raised(Local().start, {"jobs": "0"}, 1).message == "launcher.jobs must be at least 1"
    error = raised(Local().start, {"nope": "1"}, 1)
    assert (str(error), error.settings) == (
        "launcher.nope: the local launcher has no such setting; settings: jobs",
        ("launcher.nope",),
    )
    error = raised(Local().start, {"jobs": "two"}, 1)
    assert error.message == "launcher.jobs=two: jobs takes a whole number"
    assert str(in_flags(error)) == "-L jobs=two: jobs takes a whole number"
    assert raised(languages, ",", None).message.startswith("langs needs ISO 639-3 codes")
    (tmp_path / "afile").write_text("")
    assert raised(Run.check_target, tmp_path / "afile", False).message.endswith(
        "is a file; out needs a directory"
    )
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text("{}")
    error = raised(Run.check_target, tmp_path / "run", False)
    assert error.message.endswith("pass force to replace it, or resume to go on")
    assert error.settings == ("force", "resume")


def test_the_command_line_prints_the_options(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lexicon.tsv").write_text("ev\tevler\tN;PL\n", encoding="utf-8")
    for args, line in (
        (
            ["train", "--split", "sample"],
            "--split sample needs --k K, the number of training entries to draw",
        ),
        (
            ["train", "--split", "lemmas", "--k", "5"],
            "--k goes with the k-sample split, not with --split lemmas",
        ),
        (
            ["train", "--ipa", "--transcriber", "epitran"],
            "--ipa and --transcriber epitran ask for two transcribers",
        ),
        (["train", "--corpus", "tsv"], "corpus 'tsv' needs --path FILE"),
        (["train", "--corpus", "unimorph"], "corpus 'unimorph' needs --lang"),
        (
            ["train", "--corpus", "tsv", "--path", "lexicon.tsv", "--split", "sample", "--k", "5"],
            "--k 5 is more than the 1 entries there are to draw",
        ),
        (["transcribe", "--lang", "tur", "--column", "0"], "--column counts from 1, not 0"),
    ):
        result = cli(*args)
        assert (result.err, result.code) == (f"phonkit: error: {line}\n", 2), args


def test_messages_name_settings_and_the_command_line_words_them_as_options(capsys, monkeypatch):
    logger = logging.getLogger("phonkit")
    for wording, shown in ((None, "(split.max_entries)"), (in_options, "(--max-entries)")):
        monkeypatch.setattr(logger, "handlers", [StderrHandler(wording)])
        capsys.readouterr()
        say("kept 50 of 80 entries (split.max_entries)", setting="split.max_entries")
        assert capsys.readouterr().err == f"kept 50 of 80 entries {shown}\n"
