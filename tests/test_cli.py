import json
import os
import shutil
import subprocess
import sys
import unicodedata

import pytest

from conftest import TINY


def test_train_writes_a_complete_run_directory(trained_run):
    for name in (
        "config.json",
        "vocab.json",
        "model.pt",
        "checkpoint.pt",
        "metrics.json",
        "predictions.tsv",
        "train.tsv",
        "dev.tsv",
        "test.tsv",
    ):
        assert (trained_run / name).is_file(), name
    config = json.loads((trained_run / "config.json").read_text())
    assert config["variant"] == "pi" and config["model"]["dim"] == 32
    assert config["split"]["train"] > 8 * config["split"]["test"] // 2
    metrics = json.loads((trained_run / "metrics.json").read_text())
    assert set(metrics) == {"dev", "test"}
    assert {"acc", "mld", "nll", "chrf"} <= set(metrics["test"])
    header = (trained_run / "predictions.tsv").read_text().splitlines()[0].split("\t")
    assert header[:4] == ["lemma", "features", "gold", "prediction"]


def test_predict_fills_gaps_and_passes_extra_columns(cli, trained_run):
    lemma, form, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    stdin = f"{lemma}\t{bundle}\t\tx1\n{lemma}\t{bundle}\t--\tx2\n{lemma}\t{bundle}\tknown\tx3\n"
    result = cli("predict", "-m", str(trained_run), stdin=stdin.encode())
    assert result.code == 0, result.err
    rows = [line.split("\t") for line in result.out.splitlines()]
    assert [row[3] for row in rows] == ["x1", "x2", "x3"]
    assert rows[0][2] and rows[0][2] == rows[1][2]
    assert rows[2][2] == "known"
    assert result.err == ""


def test_predict_gives_its_input_back_as_it_came_but_for_the_gaps(cli, trained_run, tmp_path):
    """A byte-order mark, blank lines (before, between and after the rows), ``\r\n`` line
    endings, a last line without one, fields with spaces or decomposed accents, a ``--``
    gap left unfilled: every byte but the filled gaps comes back."""
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    spaced = " ; ".join(bundle.split(";"))  # the same features, as a person may type them
    known = unicodedata.normalize("NFD", "ağaç ")
    lines = [f"\ufeff\r\n{lemma}\t{bundle}\t\tx\r\n", "\r\n", f" {lemma}\t{spaced}\t{known}\ty\r\n",
             f"{lemma}\t{bundle}\t--\tz\n", "\n", f"{lemma}\t{bundle}\t{known}\tw"]  # fmt: skip
    path = tmp_path / "in.tsv"
    path.write_bytes("".join(lines).encode())
    result = cli("predict", "-m", str(trained_run), str(path))
    assert result.code == 0, result.err
    out = result.out
    filled = out.split("\t")[2]
    assert filled != "--"  # the gap filled (a barely trained model may fill it with nothing)
    assert out == "".join(lines).replace("\t\tx", f"\t{filled}\tx").replace("--", filled)
    two = cli("predict", "-m", str(trained_run), str(path), "--nbest", "2", "--beam", "2")
    assert two.code == 0, two.err
    lines = two.out.split("\r\n")  # a row's hypotheses end as the row does
    assert lines[0] == "\ufeff" and lines[3] == ""
    assert [line.split("\t")[3:5] for line in lines[1:3]] == [["x", "1"], ["x", "2"]]
    assert lines[4].startswith(f" {lemma}\t{spaced}\t{known}\ty\tgiven\t")
    *_, last = two.out.split("\n")  # no line ending after the last, as in the input
    assert last.startswith(f"{lemma}\t{bundle}\t{known}\tw\tgiven\t") and "\r" not in last


def test_a_predicted_form_is_written_in_its_rows_normalization_form():
    from phonkit.data.cells import Cell, in_rows_form
    from phonkit.data.lexicon import Entry

    def cell(*written: str) -> Cell:
        return Cell(1, Entry("x", ("N",), ""), [], written)

    composed = unicodedata.normalize("NFC", "gözler")
    decomposed = unicodedata.normalize("NFD", "gözler")
    nfd = unicodedata.normalize("NFD", "ağaç")
    assert in_rows_form(composed, cell(unicodedata.normalize("NFD", "göz"), "N")) == decomposed
    assert in_rows_form(composed, cell("ev", "N", nfd)) == decomposed  # the known form tells
    assert in_rows_form(decomposed, cell("göz", "N")) == composed
    assert in_rows_form(decomposed, cell("ev", "N")) == composed  # nothing to tell by: NFC


def test_predict_all_replaces_every_form(cli, trained_run, tmp_path):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    path = tmp_path / "in.tsv"
    path.write_text(f"{lemma}\t{bundle}\tknown\n")
    result = cli("predict", "-m", str(trained_run), str(path), "--all")
    assert result.code == 0 and result.out.split("\t")[2].strip() != "known"


def test_empty_input_gives_empty_output(cli, trained_run):
    result = cli("predict", "-m", str(trained_run), stdin=b"")
    assert (result.code, result.out) == (0, "")


OWN, FIELDS = "lemma,features,form", "lemma,form,features"  # predict's columns


@pytest.mark.parametrize(
    ("stdin", "message", "columns"),
    [
        (
            b"ev\tN;PL\ta\tb\nev\tN;SG\n",
            "<stdin>:2: expected 4 (as on the first line) tab-separated columns, found 2",
            OWN,
        ),
        (b"ev\n", "<stdin>:1: expected 2 or 3 tab-separated columns, found 1", OWN),
        (b"\tN;PL\n", "<stdin>:1: empty lemma", OWN),
        (b"ev\t\n", "<stdin>:1: empty feature bundle", OWN),
        (b"\xfe\tN;PL\n", "<stdin>:1: not valid UTF-8 (byte 0xfe at column 1)", OWN),
        (b"ev\tN;PL\n", "<stdin>:1: expected 3 tab-separated columns, found 2", FIELDS),
        (b"N;PL\tev\t\n", "<stdin>:1: empty lemma", "features,form,lemma"),
        (b"ev\tN;PL\tx\n", "--columns 'lemma,form': give lemma, features and form", "lemma,form"),
    ],
)
def test_bad_predict_input_is_one_line_and_exit_2(cli, trained_run, stdin, message, columns):
    result = cli("predict", "-m", str(trained_run), "--columns", columns, stdin=stdin)
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1 and result.out == ""


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"qqqq\tN;NOM;PL\n", "<stdin>:1: lemma 'qqqq' is not in the model"),
        (b"qqqq\tN;ZZZ\n", "<stdin>:1: feature bundle 'N;ZZZ' is not in the model"),
        (b"qqqq\tN;NOM;PL\nqqqq\tN;ACC;SG\n", "(1 more such rows); without --strict"),
    ],
)
def test_a_row_that_cannot_be_filled_is_left_and_named_or_with_strict_an_error(
    cli, trained_run, stdin, message
):
    strict = cli("predict", "-m", str(trained_run), "--strict", stdin=stdin)
    assert strict.code == 2 and message in strict.err
    assert strict.err.count("\n") == 1 and strict.out == ""
    left = cli("predict", "-m", str(trained_run), stdin=stdin)
    assert left.code == 0 and left.out == stdin.decode().replace("\n", "\t\n")
    rows = stdin.count(b"\n")
    assert f"left {rows} row{'s' * (rows > 1)} unfilled" in left.err
    assert "the first: <stdin>:1: " in left.err and "is not in the model" in left.err


def test_terminal_stdin_without_a_file_is_an_error(cli, trained_run):
    result = cli("predict", "-m", str(trained_run), stdin=None)
    assert result.code == 2 and "no input" in result.err


def test_missing_and_unfinished_run_directories(cli, trained_run, tmp_path):
    result = cli("predict", "-m", str(tmp_path / "nowhere"), stdin=b"ev\tN\n")
    assert result.code == 2 and "not a phonkit run directory" in result.err
    unfinished = tmp_path / "unfinished"
    shutil.copytree(trained_run, unfinished)
    (unfinished / "metrics.json").unlink()
    result = cli("evaluate", "-m", str(unfinished))
    assert result.code == 2 and "unfinished" in result.err and "--resume" in result.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--corpus", "nope"],
            "unknown corpus 'nope'; available: unimorph, conll2017, tsv, table, hf, sample",
        ),
        (
            ["--corpus", "sample", "--lang", "xyz"],
            "corpus 'sample' has no language 'xyz'; available: tur",
        ),
        (["--variant", "nope"], "unknown model variant 'nope'; available: pi, pd, joint"),
        (["--device", "tpu"], "unknown device 'tpu'"),
    ],
)
def test_unknown_names_are_usage_errors(cli, tmp_path, args, message):
    result = cli("train", "--out", str(tmp_path / "r"), *args)
    assert result.code == 2 and message in result.err
    assert "Traceback" not in result.err


def test_cuda_request_without_a_gpu_is_a_usage_error(cli, tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    result = cli("train", "--device", "cuda", "--out", str(tmp_path / "r"))
    assert result.code == 2 and "no CUDA GPU" in result.err


def test_evaluate_scores_the_test_split(cli, trained_run):
    result = cli("evaluate", "-m", str(trained_run))
    assert result.code == 0
    rows = dict(line.split("\t") for line in result.out.splitlines()[1:])
    stored = json.loads((trained_run / "metrics.json").read_text())["test"]
    assert float(rows["acc"]) == pytest.approx(stored["acc"], abs=1e-3)
    assert float(rows["nll"]) == pytest.approx(stored["nll"], rel=1e-3)


def test_unseen_gold_symbols_score_as_errors(cli, trained_run, tmp_path):
    lemma, form, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    path = tmp_path / "gold.tsv"
    path.write_text(f"{lemma}\t{bundle}\t{form}Ω\n")
    result = cli("evaluate", "-m", str(trained_run), str(path))
    assert result.code == 0, result.err
    rows = dict(line.split("\t") for line in result.out.splitlines()[1:])
    assert float(rows["acc"]) == 0.0 and float(rows["mld"]) >= 1.0


def test_an_existing_run_is_not_overwritten_without_force(cli, trained_run):
    result = cli("train", "--out", str(trained_run))
    assert result.code == 2 and "--force" in result.err
    assert (trained_run / "metrics.json").is_file()


def test_resume_goes_on_from_the_last_checkpoint(cli, lexicon_file, tmp_path):
    out = tmp_path / "r"
    assert (
        cli("train", "--corpus", "tsv", "--path", str(lexicon_file), "--out", str(out), *TINY).code
        == 0
    )
    config = json.loads((out / "config.json").read_text())
    config["training"]["epochs"] = 3
    (out / "config.json").write_text(json.dumps(config))
    (out / "metrics.json").unlink()  # as if training had been interrupted
    result = cli("train", "--resume", "--out", str(out))
    assert result.code == 0, result.err
    assert "resuming after epoch 2" in result.err
    assert "epoch 3/3" in result.err and "epoch 1/3" not in result.err
    assert (out / "metrics.json").is_file()


def test_embedded_default_trains_on_the_bundled_sample(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("train", "--epochs", "1", "--dim", "16", "--candidates", "model")
    assert result.code == 0, result.err
    assert "sample/tur: 14,352 entries" in result.err
    assert (tmp_path / "runs" / "sample-tur-amortized" / "metrics.json").is_file()


def test_predict_into_a_closed_pipe_ends_quietly(trained_run):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    stdin = f"{lemma}\t{bundle}\n".encode() * 20000
    command = f"{sys.executable} -m phonkit predict -m {trained_run} | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], input=stdin, capture_output=True
    )
    assert done.returncode == 0
    assert done.stdout.count(b"\n") == 1
    assert done.stderr == b""


def test_corpora_and_plugins_list_the_built_ins(cli):
    corpora = cli("corpora")
    assert corpora.code == 0 and "sample\ttur\t" in corpora.out
    plugins = cli("plugins", "--hook", "register_models")
    names = [line.split("\t")[0] for line in plugins.out.splitlines()[1:]]
    assert names[0] == "phonkit.default_plugins.models"
    assert "phonkit.default_plugins.metrics" not in names


def test_stdout_carries_data_only(cli, trained_run):
    result = cli("evaluate", "-m", str(trained_run))
    assert result.out.splitlines()[0] == "metric\tvalue"
    assert "ACC" in result.err


@pytest.mark.skipif(os.name != "posix", reason="uses a shell")
def test_python_dash_m_works(trained_run):
    done = subprocess.run(
        [sys.executable, "-m", "phonkit", "plugins"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "phonkit.default_plugins.corpora.unimorph" in done.stdout


def test_version_prints_the_version_on_stdout_and_exits_0(cli):
    import phonkit

    result = cli("--version")
    assert (result.code, result.out, result.err) == (0, f"phonkit {phonkit.__version__}\n", "")
    done = subprocess.run(
        [sys.executable, "-m", "phonkit", "--version"], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, f"phonkit {phonkit.__version__}\n")


def test_force_never_deletes_a_directory_that_is_not_a_run(cli, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    result = cli("train", "--out", str(precious), "--force")
    assert result.code == 2 and "holds no phonkit run" in result.err
    assert (precious / "thesis.tex").read_text() == "years of work"


def test_bfloat16_prediction_on_the_cpu(cli, trained_run):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    stdin = f"{lemma}\t{bundle}\n".encode()
    fp32 = cli("predict", "-m", str(trained_run), "--precision", "fp32", stdin=stdin)
    bf16 = cli("predict", "-m", str(trained_run), "--precision", "bf16", stdin=stdin)
    assert fp32.code == bf16.code == 0
    assert bf16.out.split("\t")[:2] == [lemma, bundle]
    assert len(bf16.out.rstrip("\n").split("\t")) == len(fp32.out.rstrip("\n").split("\t")) == 3
    bad = cli("predict", "-m", str(trained_run), "--precision", "fp8", stdin=stdin)
    assert bad.code == 2 and "unknown precision 'fp8'; use auto, fp32, bf16" in bad.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "--bogus"], "No such option: --bogus"),
        (["predict"], "Missing option '--model'"),
        (["uf", "neighbours", "-m", "x"], "Missing argument 'morpheme'"),
        (["nosuch"], "No such command 'nosuch'"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(cli, args, message):
    result = cli(*args)
    assert result.code == 2
    assert message in result.err and "Traceback" not in result.err


@pytest.mark.parametrize("command", [["train"], ["stats"], ["plugins"], []])
def test_help_shows_defaults_in_brackets_and_switches_without_a_type(cli, command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    result = cli(*command, "--help")
    assert result.code == 0
    assert "<bool>" not in result.out
    if command == ["train"]:
        assert "Run directory [default: runs/CORPUS-LANG-VARIANT]." in result.out
        assert "comma-separated [default: every installed one]." in result.out


def test_the_program_ends_with_its_commands_code_and_all_its_output(tmp_path):
    """``python -m phonkit`` (as the ``phonkit`` script) skips the interpreter's teardown: what
    the command wrote must still reach a file in full, and its exit code the shell."""
    table = tmp_path / "full.csv"
    table.write_text("stem,form\nother,forms\n")  # less than a buffer: written at the end
    buffered = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    with (tmp_path / "out.csv").open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "phonkit", "fill", str(table)],
            stdout=out, stderr=subprocess.PIPE, text=True, timeout=120, env=buffered,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_text() == table.read_text()
    bad = subprocess.run(
        [sys.executable, "-m", "phonkit", "fill", str(tmp_path / "missing.csv")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("phonkit: error: ") and not bad.stdout
