"""The k-sample split, capped corpora, the permutation test, run comparison and the two
experiments (UniMorph table, CELEX learning curve) end to end with tiny settings."""

import json
import random
from dataclasses import asdict
from pathlib import Path

import pytest
from celex_files import write_celex

from conftest import sample_lines
from phonkit.analysis.significance import permutation_test
from phonkit.data.lexicon import Entry, Example, Lexicon, PerFeature, segment
from phonkit.data.split import frequency_sample
from phonkit.errors import InputError
from phonkit.experiments import curve
from phonkit.experiments.runner import with_configs
from phonkit.jobs import TrainRequest
from phonkit.run.directory import Run
from phonkit.tables.candidates import Rewrites
from phonkit.tables.judges import Weights
from phonkit.tables.sizes import (
    JUDGES_TEMPERATURES,
    RELIABILITIES,
    WIDEST_CONTEXT,
    settings_for,
    sized,
)

TINY = ["--dim", "16", "--epochs", "1", "--batch-size", "32"]


def counted(paradigms=30, zero_every=0):
    """Sample entries with Zipf-like counts (every ``zero_every``-th entry has count 0)."""
    out = []
    for number, line in enumerate(sample_lines(paradigms)):
        lemma, form, bundle = line.split("\t")
        count = 0 if zero_every and number % zero_every == 0 else 1000 / (number + 1)
        entry = Entry(lemma, tuple(bundle.split(";")), form, count)
        out.append(Example(entry, segment(form), PerFeature().morphemes(entry)))
    return out


def test_k_sample_draws_k_by_frequency_and_covers_dev_and_test():
    data = counted(zero_every=5)
    split = frequency_sample(data, seed=1, k=100)
    assert split.protocol == "sample" and len(split.train) == 100
    assert all(example.entry.count > 0 for example in split.train)  # count 0: never drawn
    seen = {m for example in split.train for m in example.morphemes}
    assert split.dev and split.test and abs(len(split.dev) - len(split.test)) <= 1
    assert all(seen.issuperset(e.morphemes) for e in split.dev + split.test)
    assert len(data) == 100 + len(split.dev) + len(split.test) + split.uncovered
    assert not set(split.train) & set(split.dev + split.test)


def test_k_sample_prefers_frequent_entries_and_draws_are_seeded():
    data = counted()
    frequent = set(data[:50])
    draws = [frequency_sample(data, seed=1, k=60, draw=d).train for d in range(1, 6)]
    assert draws[0] == frequency_sample(data, seed=1, k=60, draw=1).train
    assert draws[0] != draws[1]
    share = sum(len(frequent & set(train)) for train in draws) / (5 * 60)
    # numpy's weighted choice without replacement gives 0.35 here; uniform draws 0.02
    assert 0.25 < share < 0.45


def test_k_sample_without_counts_is_uniform_and_k_is_checked():
    data = [
        Example(Entry(e.entry.lemma, e.entry.features, e.entry.form), e.surface, e.morphemes)
        for e in counted(5)
    ]
    assert len(frequency_sample(data, seed=2, k=len(data)).train) == len(data)
    with pytest.raises(InputError, match=f"more than the {len(data):,} entries"):
        frequency_sample(data, seed=2, k=len(data) + 1)
    with pytest.raises(InputError, match="entries with a positive count"):
        frequency_sample(counted(5, zero_every=2), seed=2, k=len(data))


def test_capped_lexicon_keeps_whole_paradigms_and_is_seeded():
    rows = (line.split("\t") for line in sample_lines(20))
    entries = [Entry(lemma, tuple(bundle.split(";")), form) for lemma, form, bundle in rows]
    lexicon = Lexicon.of(entries)
    capped = lexicon.capped(300, seed=1)
    assert len(capped) == 300 and capped.entries == lexicon.capped(300, seed=1).entries
    lemmas = [entry.lemma for entry in capped.entries]
    complete = [lemma for lemma in dict.fromkeys(lemmas)][:-1]  # the last may be cut short
    full = {lemma: sum(e.lemma == lemma for e in entries) for lemma in complete}
    assert all(lemmas.count(lemma) == n for lemma, n in full.items())
    assert capped.entries != lexicon.capped(300, seed=2).entries


def test_permutation_test_tells_real_differences_from_noise():
    rng = random.Random(0)
    a = [rng.gauss(0, 1) for _ in range(300)]
    assert permutation_test(a, a) == 1.0
    assert permutation_test(a, [x + 0.5 for x in a], permutations=2000) < 0.001
    noisy = [x + rng.gauss(0, 0.01) for x in a]
    assert permutation_test(a, noisy, permutations=2000) > 0.01
    assert permutation_test([1, 0, 1, 1], [0, 1, 1, 1], seed=3) == permutation_test(
        [0, 1, 1, 1], [1, 0, 1, 1], seed=3
    )


@pytest.fixture
def counts_file(tmp_path):
    path = tmp_path / "counts.tsv"
    rows = [f"{line}\t{1000 // (n + 1)}" for n, line in enumerate(sample_lines(20))]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_train_with_k_draws_from_a_tsv_with_counts(cli, counts_file, tmp_path):
    args = ["train", "--corpus", "tsv", "--path", str(counts_file), "--lang", "tur",
            "--columns", "lemma,form,features,count", *TINY]  # fmt: skip
    result = cli(*args, "--k", "200", "--draw", "2", "--out", str(tmp_path / "run"))
    assert result.code == 0, result.err
    assert "draw 2 of k = 200 took 200 training entries by token count" in result.err
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (config["protocol"], config["k"], config["draw"]) == ("sample", 200, 2)
    assert config["split"]["train"] == 200
    too_many = cli(*args, "--k", "100000", "--out", str(tmp_path / "big"))
    assert too_many.code == 2 and "entries with a positive count there are to draw" in too_many.err
    assert too_many.err.count("\n") == 1


def test_compare_tests_two_runs_on_shared_cells(cli, counts_file, tmp_path):
    args = ["train", "--corpus", "tsv", "--path", str(counts_file), "--lang", "tur",
            "--columns", "lemma,form,features,count", *TINY, "--metrics", "acc,nll"]  # fmt: skip
    for variant in ("pi", "pd"):
        result = cli(*args, "--variant", variant, "--out", str(tmp_path / variant))
        assert result.code == 0, result.err
    header = (tmp_path / "pi" / "predictions.tsv").read_text().splitlines()[0]
    assert header.split("\t")[4:] == ["acc", "nll"]  # only the metrics asked for
    result = cli("compare", str(tmp_path / "pi"), str(tmp_path / "pd"), "--permutations", "200")
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert rows[0] == ["metric", "items", "first", "second", "p_value"]
    assert [row[0] for row in rows[1:]] == ["acc", "nll"]
    assert all(0 < float(row[4]) <= 1 and int(row[1]) > 0 for row in rows[1:])


def test_ipa_picks_the_corpus_transcriber(cli, tmp_path):
    result = cli("train", "--ipa", "--transcriber", "segments", "--out", str(tmp_path / "x"))
    assert result.code == 2 and "ask for two transcribers" in result.err
    from phonkit.tasks.corpus import choose_transcriber

    assert choose_transcriber("celex", "none", True) == "disc"
    assert choose_transcriber("unimorph", "none", True) == "epitran"
    assert choose_transcriber("unimorph", "segments", False) == "segments"


@pytest.fixture
def data_root(tmp_path):
    """A data root with a UniMorph table for tur (20 paradigms), a tiny one for nld (too
    little to split) and CoNLL-2017 files for Albanian (sqi) made of Turkish lines."""
    root = tmp_path / "data"
    (root / "unimorph").mkdir(parents=True)
    (root / "unimorph" / "tur.tsv").write_text("\n".join(sample_lines(20)) + "\n")
    (root / "unimorph" / "nld.tsv").write_text("lopen\tloop\tV;SG\n")
    task2 = root / "conll2017" / "task2"
    task2.mkdir(parents=True)
    (task2 / "albanian-train-low").write_text("\n".join(sample_lines(15)[100:]) + "\n")
    return root


def test_unimorph_experiment_runs_resumes_and_reports(cli, data_root, tmp_path):
    out = tmp_path / "exp"
    args = ["experiment", "unimorph", "--langs", "tur,sqi,nld", "--variants", "pi,pd",
            "--data-dir", str(data_root), "--out", str(out), *TINY,
            "--metrics", "acc,mld,nll", "--permutations", "200"]  # fmt: skip
    result = cli(*args)
    assert result.code == 0, result.err
    assert "[6/6]" in result.err and "nld-pi-s1: skipped" in result.err
    rows = [line.split("\t") for line in (out / "results.tsv").read_text().splitlines()]
    header, body = (
        rows[0],
        {(row[0], row[2]): dict(zip(rows[0], row, strict=True)) for row in rows[1:]},
    )
    assert header[:8] == [
        "language",
        "source",
        "variant",
        "seeds",
        "test_cells",
        "acc",
        "mld",
        "nll",
    ]
    assert (
        body[("tur", "pi")]["source"] == "UniMorph"
        and body[("sqi", "pd")]["source"] == "CoNLL-2017"
    )
    assert body[("tur", "pi")]["paper_acc"] == "89.8"
    assert 0 <= float(body[("sqi", "pi")]["acc"]) <= 100
    assert "too little data" in body[("nld", "pi")]["note"] and body[("nld", "pi")]["acc"] == ""
    tests = [line.split("\t") for line in (out / "significance.tsv").read_text().splitlines()[1:]]
    assert {(row[0], row[3]) for row in tests} == {
        (lang, m) for lang in ("tur", "sqi") for m in ("acc", "mld", "nll")
    }
    assert all(0 < float(row[7]) <= 1 for row in tests)
    markdown = (out / "results.md").read_text()
    assert "| tur | UniMorph |" in markdown
    acc = [row for row in tests if row[3] == "acc"]
    won = sum(float(row[5]) > float(row[6]) and float(row[7]) < 0.05 for row in acc)
    lost = sum(float(row[5]) < float(row[6]) and float(row[7]) < 0.05 for row in acc)
    assert (
        f"pi better than pd on ACC with p < 0.05 in {won} of 2 languages, "
        f"pd better than pi in {lost}\n"
    ) in markdown

    # A second invocation reuses finished runs; an interrupted one goes on.
    (out / "runs" / "sqi-pd-s1" / "metrics.json").unlink()
    again = cli(*args)
    assert again.code == 0, again.err
    assert "tur-pi-s1: reused" in again.err and "sqi-pd-s1: finished" in again.err
    assert "resuming after epoch 1" in (out / "logs" / "sqi-pd-s1.log").read_text()

    # Other settings in the same directory are refused, and report rebuilds the tables.
    changed = cli(*args[:-6], "--epochs", "2", "--metrics", "acc,mld,nll")
    assert changed.code == 2 and changed.err.count("\n") == 1
    assert "training.epochs 1 -> 2" in changed.err
    before = (out / "results.tsv").read_text()
    (out / "results.tsv").unlink()
    assert cli("experiment", "report", str(out), "--permutations", "200").code == 0
    assert (out / "results.tsv").read_text() == before

    # The compact record (no weights) rebuilds the same tables and tests.
    record = tmp_path / "record"
    exported = cli("experiment", "export", str(out), "--out", str(record))
    assert exported.code == 0 and "the record of 4 finished runs" in exported.err
    assert not list(record.rglob("*.pt")) and list(record.rglob("predictions.tsv.xz"))
    assert cli("experiment", "report", str(record), "--permutations", "200").code == 0
    assert (record / "results.tsv").read_text() == before
    assert (record / "significance.tsv").read_text() == (out / "significance.tsv").read_text()
    results = (record / "results.md").read_text()
    assert "89.8" in results and "## Against the paper" in results

    # The records name the data relative to themselves, never by the machine's paths.
    assert json.loads((out / "experiment.json").read_text())["settings"]["data_dir"] == "../data"
    config = json.loads((record / "runs" / "tur-pi-s1" / "config.json").read_text())
    assert config["corpus_request"]["data_dir"] == "../../../data"
    for path in [*out.rglob("*.json"), *record.rglob("*.json")]:
        assert str(tmp_path) not in path.read_text(), path


def test_records_store_paths_relative_to_themselves(tmp_path, monkeypatch):
    from phonkit.run.config import located_path, moved_path, recorded_path

    data = tmp_path / "data" / "nld.tsv"
    data.parent.mkdir()
    data.write_text("")
    run = tmp_path / "runs" / "nld"
    assert recorded_path(data, run) == "../../data/nld.tsv"
    monkeypatch.chdir(tmp_path / "data")
    assert recorded_path("nld.tsv", run) == "../../data/nld.tsv"  # as given, from the run
    far = Path(tmp_path.anchor, "elsewhere", "nld.tsv")  # shares only the root with the run
    assert recorded_path(far, run) == "nld.tsv"
    assert recorded_path("user/dataset", run) == "user/dataset"  # not a file: a dataset's name
    assert recorded_path(None, run) is None
    assert located_path("../../data/nld.tsv", run) == data
    assert located_path(str(data), run) == data  # a record made before the rule
    moved = tmp_path / "results" / "nld" / "runs" / "nld"
    assert moved_path("../../data/nld.tsv", run, moved) == "../../../../data/nld.tsv"
    assert moved_path(str(data), run, moved) == "../../../../data/nld.tsv"
    assert moved_path("user/dataset", run, moved) == "user/dataset"


def test_cells_reach_the_permutation_test_in_file_order():
    """Set order changes between processes (string hashing), and the test pairs its random
    swaps with the cells in order: the cells must come in the order of the files."""
    from phonkit.experiments.unimorph import _item_means

    class Scored:
        def __init__(self, keys):
            self.keys = keys

        def item_scores(self):
            return {key: {"acc": 1.0, "mld": 0.0, "nll": 0.1} for key in self.keys}

    keys = [(f"lemma{i}", "N;PL", f"form{i}") for i in range(200)]
    seeds = [Scored(keys), Scored(list(reversed(keys[5:])))]
    assert list(_item_means(seeds)) == keys[5:]


def test_unimorph_experiment_rejects_unknown_languages(cli, data_root, tmp_path):
    result = cli("experiment", "unimorph", "--langs", "tur,xyz", "--data-dir", str(data_root),
                 "--out", str(tmp_path / "exp"))  # fmt: skip
    assert result.code == 2 and result.err.count("\n") == 1
    assert "no UniMorph table or CoNLL-2017 files for xyz" in result.err
    assert "available: nld, sqi, tur" in result.err
    assert not (tmp_path / "exp").exists()


def test_experiment_runs_in_parallel_processes(cli, data_root, tmp_path):
    out = tmp_path / "exp"
    result = cli("experiment", "unimorph", "--langs", "tur", "--variants", "pi,pd",
                 "--data-dir", str(data_root), "--out", str(out), *TINY, "--jobs", "2",
                 "--metrics", "acc,mld,nll", "--permutations", "100")  # fmt: skip
    assert result.code == 0, result.err
    assert all((out / "runs" / f"tur-{v}-s1" / "metrics.json").is_file() for v in ("pi", "pd"))


def test_celex_learning_curve_end_to_end(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("PHONKIT_CELEX", raising=False)
    root = write_celex(tmp_path / "celex", languages=("nld",))
    out = tmp_path / "curve"
    result = cli("experiment", "celex", "--lang", "nld", "--data-dir", str(root), "--k", "40,80",
                 "--draws", "2", "--variants", "pi,pd", *TINY, "--out", str(out),
                 "--metrics", "acc,mld,nll", "--candidates", "analogy")  # fmt: skip
    assert result.code == 0, result.err
    assert "[8/8]" in result.err
    rows = [line.split("\t") for line in (out / "curve.tsv").read_text().splitlines()]
    assert rows[0][:4] == ["variant", "k", "draws", "acc_mean"]
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("pi", "40", "2"),
        ("pi", "80", "2"),
        ("pd", "40", "2"),
        ("pd", "80", "2"),
    ]
    train = (out / "runs" / "pi-k40-d1" / "train.tsv").read_text().splitlines()
    assert len(train) == 40
    assert train == (out / "runs" / "pd-k40-d1" / "train.tsv").read_text().splitlines()
    assert train != (out / "runs" / "pi-k40-d2" / "train.tsv").read_text().splitlines()
    config = json.loads((out / "runs" / "pi-k40-d1" / "config.json").read_text())
    assert config["model"]["candidates"] == "analogy" and config["model"]["dim"] == 16
    assert config["training"]["patience"] == 10  # the curve's own default
    # each run chose its judges' weights on its dev cells, and ranks its candidates with them
    run = Run.open(out / "runs" / "pi-k40-d1")
    weights = json.loads((run.path / "judges.json").read_text())
    assert weights["reliability"] in RELIABILITIES
    assert weights["temperature"] in JUDGES_TEMPERATURES
    assert weights["width"] in range(1, WIDEST_CONTEXT + 1)  # chosen on the training cells
    rewrites = Rewrites.of(run)
    assert rewrites is not None
    assert asdict(rewrites.weights) | {"width": rewrites.width} == weights
    assert "judges' weights chosen on" in (out / "logs" / "pi-k40-d1.log").read_text()
    for bad in ('{"reliability": -1, "temperature": 1}', '{"reliability": true, "temperature": 1}',
                '{"reliability": 1}', "[1, 2]", '{"reliability": 1, "temperature": 1, "width": 0}',
                '{"reliability": 1, "temperature": 1, "width": 1.5}',
                '{"reliability": 1, "temperature": 1, "width": 4}'):  # fmt: skip
        (run.path / "judges.json").write_text(bad)
        damaged = cli("evaluate", "-m", str(run.path))
        assert damaged.code == 2 and "judges.json: expected positive numbers" in damaged.err
    # a file of the weights alone (written before the width was stored) still reads, and the
    # width is chosen again from the training cells
    (run.path / "judges.json").write_text('{"reliability": 2, "temperature": 1}')
    older = Rewrites.of(run)
    assert older is not None and older.weights == Weights(2.0, 1.0)
    assert older.width == weights["width"]
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "curve.svg").read_text().lstrip().startswith("<?xml")
    assert "| pi | 40 | 2 |" in (out / "curve.md").read_text()
    before = (out / "curve.tsv").read_text()
    assert cli("experiment", "report", str(out)).code == 0
    assert (out / "curve.tsv").read_text() == before
    # From Python the curve has the command's defaults (patience 10): every run is reused.
    import phonkit

    request = phonkit.CorpusRequest(lang="nld", data_dir=root)
    given = {"dim": 16, "epochs": 1, "candidates": "analogy"}
    base = TrainRequest(corpus="celex", request=request, settings=given, metrics=["acc", "mld"])
    ended = phonkit.experiment("celex", out, base, sizes=[40, 80], draws=2, variants=["pi", "pd"])
    assert ended == [] and (out / "curve.tsv").read_text() == before


def test_the_curves_runs_take_the_settings_of_their_size():
    base = with_configs(TrainRequest(settings={"patience": 10, "dim": 16}), sized=True)
    job = curve.plan([400], 1, ["pi"], base)[0].job
    model, training = settings_for(job, 400, 25)  # as its run counts them
    assert (model.candidates, model.dim) == ("analogy", 16)
    assert (training.patience, training.epochs) == (10, sized(400)["epochs"])
    model, _ = settings_for(job, 3_000, 25)
    assert model.candidates == "model"


def test_celex_experiment_without_celex_is_one_line(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("PHONKIT_CELEX", raising=False)
    monkeypatch.setenv("PHONKIT_DATA", str(tmp_path / "nothing"))
    result = cli("experiment", "celex", "--lang", "nld", "--out", str(tmp_path / "curve"))
    assert result.code == 2, result.err
    assert "LDC96L14" in result.err and "PHONKIT_CELEX" in result.err
    assert result.err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "--max-entries", "0"], "--max-entries must be a whole number at least 1"),
        (["train", "--k", "0"], "--k must be a whole number at least 1, not 0"),
        (["train", "--set", "copy.lr=0"], "--set copy.lr must be a number above 0"),
        (["train", "--set", "copy.shift=1,2"], "--set copy.shift must be 10 numbers"),
        (["train", "--split", "sample"], "--split sample needs --k K"),
        (["train", "--k", "5", "--split", "lemmas"], "--k goes with the k-sample split"),
        (["experiment", "unimorph", "--langs", "tur", "--max-entries", "0"], "--max-entries must"),
        (["experiment", "unimorph", "--langs", "tur", "--set", "sigma=x"], "sigma takes a number"),
        (["experiment", "unimorph", "--langs", "tur", "--set", "nope=1"], "unknown setting 'nope'"),
        (["experiment", "celex", "--lang", "nld", "--draws", "0"], "--draws must be at least 1"),
        (
            ["experiment", "unimorph", "--langs", "tur", "--launcher", "nope"],
            "unknown launcher 'nope'; available: local",
        ),
        (
            ["experiment", "unimorph", "--langs", "tur", "-L", "nope=1"],
            "-L nope: the local launcher has no such setting; settings: jobs",
        ),
        (
            ["experiment", "unimorph", "--langs", "tur", "-L", "jobs=two"],
            "jobs takes a whole number",
        ),
        (["experiment", "unimorph", "--langs", "tur", "-L", "jobs"], "-L expects KEY=VALUE"),
        (["experiment", "unimorph", "--langs", "tur", "-L", "jobs=0"], "-L jobs must be at"),
        (
            ["experiment", "unimorph", "--langs", "tur", "--jobs", "2", "-L", "jobs=3"],
            "--jobs 2 and -L jobs=3 disagree",
        ),
    ],
)
def test_bad_options_are_one_line_exit_2_and_write_nothing(cli, data_root, tmp_path, args, message):
    out = tmp_path / "out"
    result = cli(*args, "--data-dir", str(data_root), "--out", str(out))
    assert result.code == 2, result.err
    assert message in result.err and result.err.count("\n") == 1
    assert not out.exists()


def test_a_failing_run_ends_with_exit_1_keeps_the_others_and_is_retried(
    cli, data_root, tmp_path, monkeypatch
):
    from phonkit.experiments import runner

    out = tmp_path / "exp"
    args = ["experiment", "unimorph", "--langs", "tur", "--variants", "pi,pd",
            "--data-dir", str(data_root), "--out", str(out), *TINY, "--set", "sigma=0.1",
            "--select", "acc", "--min-lr", "1e-6", "--metrics", "acc,mld,nll",
            "--permutations", "100"]  # fmt: skip
    real = runner.train_run

    def broken(run, *rest):
        if run.path.name == "tur-pd-s1":
            raise RuntimeError("disk on fire")
        return real(run, *rest)

    monkeypatch.setattr(runner, "train_run", broken)
    result = cli(*args)
    assert result.code == 1
    assert "tur-pd-s1: FAILED: RuntimeError: disk on fire" in result.err
    assert "disk on fire" in (out / "logs" / "tur-pd-s1.log").read_text()
    rows = {row.split("\t")[2]: row for row in (out / "results.tsv").read_text().splitlines()}
    assert "failed: RuntimeError: disk on fire" in rows["pd"] and rows["pi"].split("\t")[5]
    config = json.loads((out / "runs" / "tur-pi-s1" / "config.json").read_text())
    assert config["model"]["sigma"] == 0.1  # --set reached the run, and the options
    assert config["training"]["select"] == "acc" and config["training"]["min_lr"] == 1e-6

    monkeypatch.setattr(runner, "train_run", real)
    again = cli(*args)
    assert again.code == 0, again.err
    assert "tur-pi-s1: reused" in again.err and "tur-pd-s1: finished" in again.err
