"""The Python API: docs/how-to/python.md runs as written, and the model object gives what the
commands give on the same run (predict, --score, evaluate, uf export)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import phonkit
from phonkit.errors import InputError

DOC = Path(__file__).resolve().parents[1] / "docs" / "how-to" / "python.md"


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)


def test_every_code_block_of_docs_python_md_runs(tmp_path, monkeypatch, capsys):
    blocks = code_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 6, "docs/how-to/python.md lost its worked example"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_python_md"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/how-to/python.md block {number}", "exec"), namespace)
        except Exception as error:  # name the block that failed
            message = f"docs/how-to/python.md block {number} failed: {error!r}"
            raise AssertionError(message) from error
    assert (tmp_path / "runs" / "tur" / "metrics.json").is_file()
    assert "must be" in capsys.readouterr().out  # the last block prints the error


def test_predict_gives_the_rows_of_phonkit_predict(cli, trained_run):
    rows = [("göç", "N;NOM;PL", None), ("göç", "N;LOC;PL", ""), ("göç", "N;NOM;SG", "göç")]
    text = "".join(f"{lemma}\t{features}\t{form or ''}\n" for lemma, features, form in rows)
    model = phonkit.load(trained_run)
    for extra, options in (([], {}), (["--beam", "3", "--nbest", "2"], {"beam": 3, "nbest": 2})):
        result = cli("predict", "-m", str(trained_run), *extra, stdin=text.encode())
        assert result.code == 0, result.err
        expected = [line.split("\t")[:3] for line in result.out.splitlines()]
        found = [[p.lemma, p.features, p.form] for p in model.predict(rows, **options)]
        assert found == expected
    best = model.predict(rows[:1], beam=3, nbest=2)
    assert [p.rank for p in best] == [1, 2] and best[0].log_prob >= best[1].log_prob
    assert model.predict(rows)[2].given and not model.predict(rows)[0].given


def test_predict_and_evaluate_run_on_the_threads_other_processes_leave(trained_run, monkeypatch):
    import torch

    from phonkit.model import device
    from phonkit.tasks import evaluate
    from phonkit.tasks.predict import Predictor

    seen = []

    def watched(work):
        def call(*args, **kwargs):
            seen.append(torch.get_num_threads())
            return work(*args, **kwargs)

        return call

    monkeypatch.setattr(Predictor, "predict", watched(Predictor.predict))
    monkeypatch.setattr(evaluate, "evaluate", watched(evaluate.evaluate))
    monkeypatch.setattr(device, "free_threads", lambda: 1)  # the other cores are busy
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        model = phonkit.load(trained_run)
        model.predict([("göç", "N;NOM;PL", None)])
        model.evaluate()
        assert seen == [1, 1] and torch.get_num_threads() == 2  # as phonkit predict, evaluate
    finally:
        torch.set_num_threads(before)


def test_score_is_the_surprisal_of_predict_score(cli, trained_run):
    rows = [("göç", "N;NOM;PL", "göçler"), ("göç", "N;LOC;PL", "göçlerde")]
    text = "".join(f"{lemma}\t{features}\t{form}\n" for lemma, features, form in rows)
    result = cli("predict", "-m", str(trained_run), "--score", stdin=text.encode())
    assert result.code == 0, result.err
    expected = [float(line.split("\t")[-1]) for line in result.out.splitlines()]
    found = phonkit.load(trained_run).score(rows)
    assert found == pytest.approx(expected, abs=1e-4)
    assert all(value > 0 for value in found)


def test_evaluate_gives_the_figures_of_phonkit_evaluate(cli, trained_run):
    result = cli("evaluate", "-m", str(trained_run))
    assert result.code == 0, result.err
    expected = {k: float(v) for k, v in (line.split("\t") for line in result.out.splitlines()[1:])}
    found = phonkit.load(trained_run).evaluate()
    assert found == pytest.approx(expected, rel=1e-5)
    assert set(phonkit.load(trained_run).evaluate(metrics=["acc"])) == {"acc"}


def test_evaluate_on_given_rows(trained_run):
    model = phonkit.load(trained_run)
    test = (trained_run / "test.tsv").read_text(encoding="utf-8").splitlines()[:20]
    rows = [(lemma, features, form) for lemma, form, features, _ in (t.split("\t") for t in test)]
    assert 0 <= model.evaluate(rows, metrics=["acc"])["acc"] <= 100
    with pytest.raises(InputError, match="not in the model"):
        model.evaluate([("zzzq", "N;NOM;PL", "zzzq")])


def test_underlying_forms_are_what_uf_export_writes(cli, trained_run, tmp_path):
    result = cli("uf", "export", "-m", str(trained_run), "-o", str(tmp_path / "uf"))
    assert result.code == 0, result.err
    vectors = np.loadtxt(tmp_path / "uf.vectors.tsv", delimiter="\t", ndmin=2)
    metadata = (tmp_path / "uf.metadata.tsv").read_text(encoding="utf-8").splitlines()[1:]
    forms = phonkit.load(trained_run).underlying_forms()
    assert forms.morphemes == [line.split("\t")[0] for line in metadata]
    assert forms.kinds == [line.split("\t")[1] for line in metadata]
    assert np.allclose(forms.vectors, vectors, atol=1e-5)
    stem = forms.morphemes[forms.kinds.index("stem")]
    assert forms.vector(stem).shape == (32,)
    with pytest.raises(InputError, match="no stem"):
        forms.vector("no-such-lemma")


def test_plugins_are_reachable_by_name():
    assert phonkit.corpus("sample").languages(phonkit.CorpusRequest()) == ["tur"]
    assert phonkit.transcriber("segments").transcribe("tur", ["k a"]) == [("k", "a")]
    assert phonkit.variant("pi").name == "pi"
    assert phonkit.metric("mld").higher_is_better is False
    assert phonkit.decomposition("bundle").name == "bundle"
    assert {"pi", "pd", "joint"} <= set(phonkit.names("models"))
    with pytest.raises(InputError, match="unknown corpus 'nope'"):
        phonkit.corpus("nope")


def test_bad_rows_and_settings_name_what_is_wrong(trained_run):
    model = phonkit.load(trained_run)
    with pytest.raises(InputError, match=r"rows\[0\]"):
        model.predict([("göç",)])
    with pytest.raises(InputError, match="beam=0"):
        model.predict([("göç", "N;NOM;PL", None)], beam=0)
    with pytest.raises(InputError, match="not a phonkit run directory"):
        phonkit.load(trained_run / "nowhere")


def test_load_is_light_until_used():
    import subprocess
    import sys

    code = "import sys, phonkit; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_library_logs_and_prints_nothing_itself():
    """Without the command line's handler, INFO messages stay in the ``phonkit`` logger and
    warnings reach stderr through Python's last-resort handler."""
    import subprocess
    import sys

    code = (
        "from phonkit.progress import say; say('trained 3 epochs'); "
        "say('warning: 2 forms left out')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "" and out.stderr == "warning: 2 forms left out\n"


def test_library_errors_name_the_setting_and_the_cli_the_option(cli):
    with pytest.raises(InputError) as raised:
        phonkit.TrainConfig(lr=-1)
    assert str(raised.value) == "training.lr must be a number above 0 and at most 1, not -1"
    assert raised.value.setting == "training.lr"
    with pytest.raises(InputError, match=r"^fit\.steps must be"):
        phonkit.FitConfig(steps=-1)
    result = cli("train", "--lr", "-1")
    assert (
        result.err == ("phonkit: error: --lr must be a number above 0 and at most 1, not -1.0\n")
        and result.code == 2
    )


def test_a_bad_setting_is_the_error_whatever_out_holds(cli, trained_run, tmp_path):
    """README's first command leaves a run in runs/sample-tur-amortized: a bad setting is named
    before a command looks at its directory, for a new run, a resumed one, a filled table
    and the table benchmark alike, and nothing is written."""
    table = tmp_path / "t.csv"
    table.write_text("ka,kai\nto,\nsa,sai\n", encoding="utf-8")
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "t.csv").write_text(table.read_text(encoding="utf-8"), encoding="utf-8")
    nowhere = tmp_path / "nowhere"
    for args in (
        ["train", "--out", str(trained_run)],
        ["train", "--resume", "--out", str(nowhere)],
        ["fill", str(table), "--out", str(trained_run)],
        ["fill", str(table), "--resume", "--out", str(nowhere)],
        ["experiment", "tables", str(folder), "--out", str(trained_run)],
        ["experiment", "tables", str(folder), "--out", str(nowhere)],
    ):
        result = cli(*args, "--lr", "-1")
        assert (result.code, result.err) == (
            2,
            "phonkit: error: --lr must be a number above 0 and at most 1, not -1.0\n",
        ), args
    assert not nowhere.exists()


def test_run_configuration_round_trips_and_reads_old_runs(trained_run):
    import json

    from phonkit.run.config import RunConfig

    data = json.loads((trained_run / "config.json").read_text(encoding="utf-8"))
    config = RunConfig.from_json(data, "config.json")
    assert config.to_json() == data
    assert config.model.dim == 32 and config.training.epochs == 2
    old = {key: value for key, value in data.items() if key not in ("morphemes", "protocol")}
    assert RunConfig.from_json(old, "x").morphemes == "features"
    assert RunConfig.from_json(old, "x").split.protocol == "paradigms"
    older = {key: value for key, value in old.items() if key != "fold"} | {"draw": None}
    read = RunConfig.from_json(older, "x")  # as runs without a k were written, no copy models
    assert (read.split.draw, read.split.fold, read.copy) == (1, None, None)
    with pytest.raises(InputError, match="copy settings: unknown copy setting 'nope'"):
        RunConfig.from_json({**data, "copy": {"nope": 1}}, "x")
    with pytest.raises(InputError, match=r"split settings: split\.k must be a whole number"):
        RunConfig.from_json({**data, "k": 0}, "x")
    with pytest.raises(InputError, match="'max_length' is a string, expected a whole number"):
        RunConfig.from_json({**data, "max_length": "9"}, "x")
    with pytest.raises(InputError, match="'variant' is missing, expected a string"):
        RunConfig.from_json({k: v for k, v in data.items() if k != "variant"}, "x")
    with pytest.raises(InputError, match="'model' is a list, expected an object"):
        RunConfig.from_json({**data, "model": []}, "x")


def test_train_puts_a_run_where_phonkit_train_would():
    from phonkit.tasks.train import default_run_dir

    assert default_run_dir(phonkit.TrainRequest()) == Path("runs/sample-tur-amortized")
    request = phonkit.CorpusRequest(path="data/my-lexicon.tsv")
    job = phonkit.TrainRequest(corpus="tsv", request=request, variant="pd")
    assert default_run_dir(job) == Path("runs/tsv-my-lexicon-pd")
