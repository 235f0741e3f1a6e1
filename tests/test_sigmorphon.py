"""CoNLL–SIGMORPHON 2017 task 2: the field's file layout through predict, its scoring through
evaluate, and the experiment that runs the benchmark (on a task-2 folder made here)."""

from __future__ import annotations

import io
import json
import lzma
from pathlib import Path

import pytest

from conftest import TINY, sample_lines
from phonkit.data.cells import Layout, read_cells
from phonkit.tasks.completion import forms_of, score_completion

GOLD = "a\tax\tX\na\tay\tY\na\taz\tZ\nb\tbx\tX\nb\tby\tY\n"
COVERED = "a\tax\tX\na\t\tY\na\t\tZ\nb\t\tX\nb\tby\tY\n"


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_scores_are_those_of_the_shared_tasks_scorer_on_a_hand_worked_example(cli, tmp_path):
    # the empty cells of COVERED are a:Y (right), a:Z (wrong, one edit) and b:X (right);
    # lemma a has a wrong cell, b none: one paradigm of two right
    guess = write(tmp_path / "guess", "a\tax\tX\na\tay\tY\na\tzz\tZ\nb\tbx\tX\nb\tby\tY\n")
    gold, covered = write(tmp_path / "gold", GOLD), write(tmp_path / "covered", COVERED)
    fields = ("--columns", "lemma,form,features")
    result = cli("evaluate", str(guess), "--gold", str(gold), "--covered", str(covered), *fields)
    assert result.code == 0, result.err
    rows = dict(line.split("\t") for line in result.out.splitlines()[1:])
    assert float(rows["acc"]) == pytest.approx(200 / 3)
    assert float(rows["lev"]) == pytest.approx(1 / 3)
    assert float(rows["paradigm_acc"]) == 50.0
    assert (rows["cells"], rows["unguessed"], rows["paradigms"]) == ("3", "0", "2")
    # without the covered file every gold cell is scored: 4 of 5
    every = cli("evaluate", str(guess), "--gold", str(gold), *fields)
    assert dict(line.split("\t") for line in every.out.splitlines()[1:])["acc"] == "80"


def test_a_missing_guess_is_the_empty_form_and_a_cell_given_twice_counts_its_last_row():
    gold = {("a", "X"): "ax", ("a", "Y"): "ay"}
    scores = score_completion({("a", "X"): "ax"}, gold, {("a", "X"): "ax", ("a", "Y"): ""})
    assert (scores.acc, scores.lev, scores.unguessed, scores.paradigm_acc) == (0.0, 2.0, 1, 0.0)
    rows = b"a\tfirst\tX\na\tsecond\tX\n"
    cells = read_cells(io.BytesIO(rows), "f", Layout.parse("lemma,form,features"))
    assert forms_of(cells) == {("a", "X"): "second"}


def test_bad_guess_or_gold_files_are_one_line_and_exit_2(cli, tmp_path):
    gold, covered = write(tmp_path / "gold", GOLD), write(tmp_path / "covered", COVERED)
    fields = ("--columns", "lemma,form,features")
    gappy = cli("evaluate", str(covered), "--gold", str(covered), *fields)
    assert gappy.code == 2 and "covered:2: no gold form" in gappy.err
    narrow = write(tmp_path / "narrow", "a\tax\n")
    short = cli("evaluate", str(narrow), "--gold", str(gold), *fields)
    assert short.code == 2 and "narrow:1: expected 3 tab-separated columns, found 2" in short.err
    both = cli("evaluate", str(gold), "--gold", str(gold), "-m", str(tmp_path))
    assert both.code == 2 and "give -m or --gold" in both.err
    for result in (gappy, short, both):
        assert result.err.count("\n") == 1 and result.out == ""


def test_predict_reads_and_writes_the_fields_columns(cli, trained_run):
    lemma, form, bundle = (trained_run / "train.tsv").read_text().splitlines()[1].split("\t")[:3]
    others = [
        line.split("\t")[2]
        for line in (trained_run / "train.tsv").read_text().splitlines()[1:]
        if line.split("\t")[0] == lemma and line.split("\t")[2] != bundle
    ]
    rows = f"{lemma}\t{form}\t{bundle}\n{lemma}\t\t{others[0]}\r\n"
    result = cli("predict", "-m", str(trained_run), "--columns", "lemma,form,features",
                 stdin=rows.encode())  # fmt: skip
    assert result.code == 0, result.err
    first, second = result.out.split("\n")[:2]
    assert first == f"{lemma}\t{form}\t{bundle}"  # a given cell back as it came
    filled = second.rstrip("\r").split("\t")
    assert second.endswith("\r") and filled[0] == lemma and filled[2] == others[0]
    assert filled[1]  # the gap filled, in the form's column


def task2_folder(tmp_path):
    """A task-2 folder of one language, ``toy``, from the bundled Turkish sample: 8 train
    paradigms; 2 dev and 2 test paradigms, every second cell given in their covered files."""
    lines = sample_lines(12)
    lemmas = list(dict.fromkeys(line.split("\t")[0] for line in lines))
    by = {lemma: [line for line in lines if line.split("\t")[0] == lemma] for lemma in lemmas}
    folder = tmp_path / "data" / "conll2017" / "task2"
    folder.mkdir(parents=True)

    def put(name, chosen, covered=False):
        rows = [line for lemma in chosen for line in by[lemma]]
        if covered:
            rows = [
                line if number % 2 else "\t".join([line.split("\t")[0], "", line.split("\t")[2]])
                for number, line in enumerate(rows)
            ]
        (folder / f"toy-{name}.xz").write_bytes(lzma.compress(("\n".join(rows) + "\n").encode()))

    put("train-low", lemmas[:8])
    for split, chosen in (("dev", lemmas[8:10]), ("test", lemmas[10:12])):
        put(f"uncovered-{split}", chosen)
        put(f"covered-{split}", chosen, covered=True)
    return folder


def test_the_experiment_trains_completes_and_scores_each_language_and_size(cli, tmp_path):
    folder = task2_folder(tmp_path)
    out = tmp_path / "exp"
    args = ("experiment", "sigmorphon2017", "--data-dir", str(tmp_path / "data"), "--out",
            str(out), "--sizes", "low", *TINY)  # fmt: skip
    result = cli(*args)
    assert result.code == 0, result.err
    header, row = (out / "results.tsv").read_text().splitlines()
    assert header.split("\t") == [
        "language", "setting", "system", "acc", "lev", "paradigm_acc", "cells", "seconds",
        "unfilled",
    ]  # fmt: skip
    fields = row.split("\t")
    assert fields[:3] == ["toy", "low", "phonkit(batch_size=32,candidates=model,dim=32,epochs=2)"]
    covered = lzma.decompress((folder / "toy-covered-test.xz").read_bytes()).decode().splitlines()
    gaps = sum(1 for line in covered if "\t\t" in line)
    assert int(fields[6]) == gaps and 0 <= float(fields[3]) <= 100
    completed = (out / "runs" / "toy-low" / "completed-test.tsv").read_text().splitlines()
    assert len(completed) == len(covered)
    for done, given in zip(completed, covered, strict=True):  # given cells back as they came
        if given.split("\t")[1]:
            assert done == given
    # the baseline's rows stay when the report is rebuilt; an experiment resumed trains nothing
    with (out / "results.tsv").open("a") as table:
        table.write("toy\tlow\tbaseline\t50.00\t1.0000\t0.00\t10\t0.0\t0\n")
    again = cli(*args)
    assert again.code == 0 and "reused" in again.err
    assert "toy\tlow\tbaseline\t50.00" in (out / "results.tsv").read_text()
    assert json.loads((out / "experiment.json").read_text())["kind"] == "sigmorphon2017"
    # the record keeps the completions (no test split, no predictions) and rebuilds the table
    record = tmp_path / "record"
    assert cli("experiment", "export", str(out), "--out", str(record)).code == 0
    kept = record / "runs" / "toy-low" / "completed-test.tsv.xz"
    assert lzma.decompress(kept.read_bytes()).decode().splitlines() == completed
    lines = (out / "results.tsv").read_text().splitlines()
    (record / "results.tsv").write_text(f"{lines[0]}\n{lines[1]}\n")  # the baseline's row
    assert cli("experiment", "report", str(record)).code == 0
    assert (record / "results.tsv").read_text() == (out / "results.tsv").read_text()


def test_the_judges_weights_are_chosen_on_the_dev_files_and_kept_by_the_run(cli, tmp_path):
    folder = task2_folder(tmp_path)
    out = tmp_path / "exp"
    ranks = [*TINY[:-1], "analogy"]  # candidates ranked by judges, whose weights are chosen
    args = ("experiment", "sigmorphon2017", "--data-dir", str(tmp_path / "data"), "--out",
            str(out), "--sizes", "low", *ranks)  # fmt: skip
    assert (result := cli(*args)).code == 0, result.err
    run = out / "runs" / "toy-low"
    assert "the judges' weights chosen on" in (out / "logs" / "toy-low.log").read_text()
    stored = json.loads((run / "judges.json").read_text())
    assert {"reliability", "temperature", "width"} <= set(stored)
    # phonkit tune chooses them as the experiment did, on the same files, and says on how many
    dev = [folder / f"toy-{kind}-dev.xz" for kind in ("covered", "uncovered")]
    fields = ("--columns", "lemma,form,features")
    (run / "judges.json").write_text(json.dumps({"width": stored["width"]}))
    tuned = cli("tune", "-m", str(run), str(dev[0]), "--gold", str(dev[1]), *fields)
    assert tuned.code == 0, tuned.err
    rows = dict(line.split("\t") for line in tuned.out.splitlines())
    assert rows.pop("name") == "value"
    covered = lzma.decompress(dev[0].read_bytes()).decode().splitlines()
    assert int(rows["gaps"]) == sum(1 for line in covered if "\t\t" in line)
    assert int(rows["right_before"]) <= int(rows["right"]) <= int(rows["contested"])
    assert json.loads((run / "judges.json").read_text()) == stored
    assert (float(rows["reliability"]), float(rows["temperature"])) == (
        stored["reliability"], stored["temperature"],
    )  # fmt: skip
    from phonkit.run.directory import Run
    from phonkit.tables.candidates import Rewrites

    rewrites = Rewrites.of(Run.open(run))
    assert rewrites is not None
    assert (rewrites.weights.reliability, rewrites.weights.temperature) == (
        stored["reliability"], stored["temperature"],
    )  # fmt: skip
    # bad input: one line, exit 2, nothing on stdout, the run's weights as they were
    gappy = cli("tune", "-m", str(run), str(dev[0]), "--gold", str(dev[0]), *fields)
    assert gappy.code == 2 and "toy-covered-dev.xz:1: no gold form" in gappy.err
    plain = out.parent / "plain"
    cli("train", "--corpus", "tsv", "--path", str(folder / "toy-train-low.xz"), "--columns",
        "lemma,form,features", "--split", "all", "--out", str(plain), *TINY)  # fmt: skip
    refused = cli("tune", "-m", str(plain), str(dev[0]), "--gold", str(dev[1]), *fields)
    assert refused.code == 2 and "ranks no candidates" in refused.err
    for result in (gappy, refused):
        assert result.err.count("\n") == 1 and result.out == ""
    assert json.loads((run / "judges.json").read_text()) == stored


def test_an_experiment_apart_from_its_data_reports_with_the_data_it_is_given(
    cli, tmp_path, monkeypatch
):
    """An experiment directory that shares no folder but the file system's root with its
    data stores the data's folder by name alone: the command, given the data, still writes
    the report; a later ``report`` says how to get one."""
    from phonkit.experiments import runner

    task2_folder(tmp_path)
    monkeypatch.setattr(runner, "recorded_path", lambda path, record: Path(path).name)
    out = tmp_path / "exp"
    args = ("experiment", "sigmorphon2017", "--data-dir", str(tmp_path / "data"), "--out",
            str(out), "--sizes", "low", *TINY)  # fmt: skip
    done = cli(*args)
    assert done.code == 0, done.err
    assert json.loads((out / "experiment.json").read_text())["settings"]["folder"] == "task2"
    assert (out / "results.tsv").read_text().splitlines()[1].startswith("toy\tlow\tphonkit")
    later = cli("experiment", "report", str(out))
    assert later.code == 2 and "run the experiment's command again with its data" in later.err
    assert cli(*args).code == 0  # the same command: runs reused, the report written


def test_the_experiment_names_what_is_missing(cli, tmp_path):
    missing = cli("experiment", "sigmorphon2017", "--data-dir", str(tmp_path), "--out", "e")
    assert missing.code == 2 and "no CoNLL-SIGMORPHON 2017 task-2 folder" in missing.err
    task2_folder(tmp_path)
    data = ("--data-dir", str(tmp_path / "data"), "--out", "e")
    unknown = cli("experiment", "sigmorphon2017", *data, "--langs", "xyz")
    assert unknown.code == 2 and "no task-2 train file for 'xyz'" in unknown.err
    sizes = cli("experiment", "sigmorphon2017", *data, "--sizes", "huge")
    assert sizes.code == 2 and "the task's are low, medium, high" in sizes.err


def test_the_systems_name_says_what_differs_from_the_defaults():
    from phonkit.experiments.sigmorphon import system_name
    from phonkit.jobs import TrainRequest

    assert system_name(TrainRequest()) == "phonkit"
    named = system_name(TrainRequest(variant="pi", morphemes="bundle+features"))
    assert named == "phonkit(variant=pi,morphemes=bundle+features)"
