"""Hostile input, table-driven: every command given what a careless or hostile user might
give it must end with one line on stderr and its exit code, no traceback, and no file that
existed before changed (nor any new one left behind)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import SHARED, sample_lines

SAMPLE_GAP = "{lemma}\t{bundle}\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, trained_run):
    """A directory of good and damaged inputs: run directories (good, truncated weights,
    random weights, no weights, bad configurations, unfinished, garbled predictions, one
    locked by another process), TSV files good and bad, a directory, a precious file."""
    root = tmp_path_factory.mktemp("hostile")
    lemma, form, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")

    def copy(name: str) -> Path:
        return Path(shutil.copytree(trained_run, root / name))

    copy("run")
    weights = (trained_run / "model.pt").read_bytes()
    (copy("truncated") / "model.pt").write_bytes(weights[: len(weights) // 3])
    (copy("random") / "model.pt").write_bytes(os.urandom(4096))
    (copy("nomodel") / "model.pt").unlink()
    (copy("checkpoint-as-model") / "model.pt").write_bytes(
        (trained_run / "checkpoint.pt").read_bytes()
    )
    (copy("emptyconf") / "config.json").write_text("{}")
    (copy("listconf") / "config.json").write_text("[1, 2]")
    (copy("badjson") / "config.json").write_text('{"variant": ')
    config = json.loads((trained_run / "config.json").read_text())
    config["model"]["dropout"] = 7
    (copy("badsetting") / "config.json").write_text(json.dumps(config))
    (copy("badvocab") / "vocab.json").write_text('{"symbols": 3}')
    (copy("unfinished") / "metrics.json").unlink()
    (copy("badpredictions") / "predictions.tsv").write_text("lemma\tfeatures\tgold\nx\n")
    copy("locked")

    (root / "gold.tsv").write_text(f"{lemma}\t{bundle}\t{form}\n")
    (root / "gaps.tsv").write_text(f"{lemma}\t{bundle}\t--\n")
    (root / "empty.tsv").write_text("")
    (root / "blank.tsv").write_text("\n\n  \n")
    (root / "binary.tsv").write_bytes(b"\x00\xff\xfe" + os.urandom(512))
    (root / "wide.tsv").write_text(f"{lemma}\t{bundle}\t{form}\n{lemma}\t{bundle}\t{form}\tx\ty\n")
    (root / "broken.tsv.gz").write_bytes(gzip.compress(b"kitap\tN;PL\n")[:15])
    (root / "lexicon.tsv").write_text("\n".join(sample_lines(3)) + "\n")
    (root / "badlexicon.tsv").write_text("kitap\tkitaplar\tN;PL\nkitap\tN;PL\n")
    (root / "nocount.tsv").write_text("kitap\tkitaplar\tN;PL\tmany\n")
    (root / "precious").mkdir()
    (root / "precious" / "thesis.tex").write_text("years of work")
    (root / "notes.txt").write_text("a file, not a directory")
    (root / "adir").mkdir()

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time
                from pathlib import Path
                from phonkit.run.lock import RunLock
                RunLock(Path(sys.argv[1])).acquire()
                print("locked", flush=True)
                time.sleep(600)
                """
            ),
            str(root / "locked"),
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout.readline() == b"locked\n"
    yield root, {"lemma": lemma, "bundle": bundle, "form": form}
    holder.kill()
    holder.wait()


def snapshot(root: Path) -> dict[str, object]:
    """Every file's content hash and mode, and every directory, under ``root``."""
    found: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_dir():
            found[key] = "dir"
        else:
            found[key] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
    return found


GAP = b"{lemma}\t{bundle}\n"
TINY_TRAIN = ["train", "--corpus", "tsv", "--path", "lexicon.tsv", "--dim", "8", "--epochs", "1"]

# (id, arguments, stdin, exit code, a fragment of the one-line message)
CASES = [
    # predict: run directories that are missing, damaged or busy
    ("predict-no-run", ["predict", "-m", "nowhere"], GAP, 2, "not a phonkit run directory"),
    ("predict-truncated", ["predict", "-m", "truncated"], GAP, 2, "truncated/model.pt: cannot"),
    ("predict-random", ["predict", "-m", "random"], GAP, 2, "random/model.pt: cannot read"),
    ("predict-no-model", ["predict", "-m", "nomodel"], GAP, 2, "nomodel/model.pt: missing"),
    (
        "predict-wrong-weights",
        ["predict", "-m", "checkpoint-as-model"],
        GAP,
        2,
        "weights do not fit the model",
    ),
    ("predict-empty-config", ["predict", "-m", "emptyconf"], GAP, 2, "'variant' is missing"),
    ("predict-list-config", ["predict", "-m", "listconf"], GAP, 2, "a JSON list"),
    ("predict-bad-json", ["predict", "-m", "badjson"], GAP, 2, "not valid JSON"),
    ("predict-bad-setting", ["predict", "-m", "badsetting"], GAP, 2, "--dropout must be"),
    ("predict-bad-vocab", ["predict", "-m", "badvocab"], GAP, 2, "not phonkit vocabularies"),
    ("predict-unfinished", ["predict", "-m", "unfinished"], GAP, 2, "the run is unfinished"),
    ("predict-locked", ["predict", "-m", "locked"], GAP, 2, "the run is being written by pid"),
    ("predict-run-is-file", ["predict", "-m", "notes.txt"], GAP, 2, "not a phonkit run"),
    # predict: input
    ("predict-missing-file", ["predict", "-m", "run", "nope.tsv"], None, 2, "nope.tsv: no such"),
    ("predict-dir-input", ["predict", "-m", "run", "adir"], None, 2, "adir: is a directory"),
    ("predict-binary", ["predict", "-m", "run", "binary.tsv"], None, 2, "not valid UTF-8"),
    ("predict-bad-gzip", ["predict", "-m", "run", "broken.tsv.gz"], None, 2, "cannot decompress"),
    ("predict-ragged", ["predict", "-m", "run", "wide.tsv"], None, 2, "wide.tsv:2: expected 2 or"),
    ("predict-one-column", ["predict", "-m", "run"], b"kitap\n", 2, "<stdin>:1: expected 2 or 3"),
    ("predict-empty-lemma", ["predict", "-m", "run"], b" \tN;PL\n", 2, "<stdin>:1: empty lemma"),
    ("predict-no-features", ["predict", "-m", "run"], b"ev\t;\n", 2, "empty feature bundle"),
    ("predict-unknown-feature", ["predict", "-m", "run", "--strict"], b"ev\tQQ\n", 2, "is not"),
    (
        "predict-new-lemma-no-form",
        ["predict", "-m", "run", "--strict"],
        b"qqq\tN;NOM;PL\n",
        2,
        "lemma 'qqq' is not",
    ),
    (
        "predict-new-lemma-rows-apart",
        ["predict", "-m", "run", "--strict"],
        b"qqq\t{bundle}\t{form}\n{lemma}\t{bundle}\nqqq\t{bundle}\n",
        2,
        "<stdin>:3: lemma 'qqq' is not in the model",
    ),
    ("predict-beam-0", ["predict", "-m", "run", "--beam", "0"], GAP, 2, "--beam must be"),
    ("predict-nbest-neg", ["predict", "-m", "run", "--nbest", "-2"], GAP, 2, "--nbest must be"),
    ("predict-fit-lr-nan", ["predict", "-m", "run", "--fit-lr", "nan"], GAP, 2, "--fit-lr must"),
    ("predict-fit-lr-neg", ["predict", "-m", "run", "--fit-lr", "-1"], GAP, 2, "--fit-lr must"),
    ("predict-fit-lr-huge", ["predict", "-m", "run", "--fit-lr", "1e6"], GAP, 2, "at most 1"),
    ("predict-fit-steps", ["predict", "-m", "run", "--fit-steps", "-1"], GAP, 2, "--fit-steps"),
    ("predict-precision", ["predict", "-m", "run", "--precision", "fp8"], GAP, 2, "precision"),
    ("predict-device", ["predict", "-m", "run", "--device", "tpu"], GAP, 2, "unknown device"),
    ("predict-terminal", ["predict", "-m", "run"], None, 2, "no input"),
    # evaluate
    ("evaluate-truncated", ["evaluate", "-m", "truncated"], b"", 2, "cannot read it"),
    ("evaluate-no-model", ["evaluate", "-m", "nomodel"], b"", 2, "model.pt: missing"),
    ("evaluate-list-config", ["evaluate", "-m", "listconf"], b"", 2, "a JSON list"),
    ("evaluate-empty-config", ["evaluate", "-m", "emptyconf"], b"", 2, "'variant' is missing"),
    (
        "evaluate-predictions-dir",
        ["evaluate", "-m", "run", "--predictions", "adir"],
        b"",
        2,
        "adir: is a directory",
    ),
    ("evaluate-empty-gold", ["evaluate", "-m", "run", "empty.tsv"], b"", 2, "no rows to score"),
    ("evaluate-blank-gold", ["evaluate", "-m", "run", "blank.tsv"], b"", 2, "no rows to score"),
    ("evaluate-gap-gold", ["evaluate", "-m", "run", "gaps.tsv"], b"", 2, "no gold form"),
    ("evaluate-missing", ["evaluate", "-m", "run", "nope.tsv"], b"", 2, "nope.tsv: no such file"),
    (
        "evaluate-unseen-paradigm-run",
        ["evaluate", "-m", "run", "--unseen-lemmas"],
        b"",
        2,
        "its test lemmas were seen in training",
    ),
    (
        "evaluate-known-0",
        ["evaluate", "-m", "run", "--unseen-lemmas", "--known", "0"],
        b"",
        2,
        "--known takes positive whole numbers",
    ),
    (
        "evaluate-unseen-only-seen",
        ["evaluate", "-m", "run", "gold.tsv", "--unseen-lemmas"],
        b"",
        2,
        "no cells of lemmas new to the model",
    ),
    ("evaluate-locked", ["evaluate", "-m", "locked"], b"", 2, "being written by pid"),
    # train: settings
    ("train-lr-nan", ["train", "--lr", "nan"], b"", 2, "--lr must be a number above 0"),
    ("train-lr-neg", ["train", "--lr", "-1"], b"", 2, "--lr must be"),
    ("train-lr-inf", ["train", "--lr", "inf"], b"", 2, "--lr must be"),
    ("train-dropout-2", ["train", "--dropout", "2"], b"", 2, "--dropout must be"),
    ("train-dropout-neg", ["train", "--dropout", "-0.1"], b"", 2, "--dropout must be"),
    ("train-sigma-nan", ["train", "--sigma", "nan"], b"", 2, "--sigma must be"),
    ("train-init-scale", ["train", "--init-scale", "-1"], b"", 2, "--init-scale must be"),
    ("train-prior", ["train", "--prior-weight", "-1"], b"", 2, "--prior-weight must be"),
    ("train-uf-lr-scale", ["train", "--uf-lr-scale", "0"], b"", 2, "--uf-lr-scale must be"),
    ("train-epochs-0", ["train", "--epochs", "0"], b"", 2, "--epochs must be a whole"),
    ("train-batch-0", ["train", "--batch-size", "0"], b"", 2, "--batch-size must be a"),
    ("train-dim-0", ["train", "--dim", "0"], b"", 2, "--dim must be a whole"),
    ("train-patience", ["train", "--patience", "-1"], b"", 2, "--patience must be"),
    ("train-epochs-text", ["train", "--epochs", "x"], b"", 2, "Invalid value for '--epochs'"),
    ("train-bad-split", ["train", "--split", "nope"], b"", 2, "--split must be paradigms,"),
    ("train-bad-metric", ["train", "--metrics", "nope"], b"", 2, "unknown metric 'nope'"),
    ("train-bad-variant", ["train", "--variant", "nope"], b"", 2, "unknown model variant"),
    # train: corpora
    (
        "train-hf-missing",
        ["train", "--corpus", "hf", "--path", "missing.parquet"],
        b"",
        2,
        "missing.parquet: no such file",
    ),
    (
        "train-tsv-missing",
        ["train", "--corpus", "tsv", "--path", "missing.tsv"],
        b"",
        2,
        "missing.tsv: no such file",
    ),
    (
        "train-tsv-ragged",
        ["train", "--corpus", "tsv", "--path", "badlexicon.tsv"],
        b"",
        2,
        "badlexicon.tsv:2: expected 3 tab-separated columns, found 2",
    ),
    (
        "train-tsv-count",
        [
            "train",
            "--corpus",
            "tsv",
            "--path",
            "nocount.tsv",
            "--columns",
            "lemma,form,features,count",
        ],
        b"",
        2,
        "nocount.tsv:1: count 'many' is not a number",
    ),
    (
        "train-tsv-columns",
        ["train", "--corpus", "tsv", "--path", "lexicon.tsv", "--columns", "lemma,bogus"],
        b"",
        2,
        "unknown column role 'bogus'",
    ),
    ("train-tsv-binary", ["train", "--corpus", "tsv", "--path", "binary.tsv"], b"", 2, "UTF-8"),
    # train: run directories
    ("train-out-file", [*TINY_TRAIN, "--out", "notes.txt"], b"", 2, "notes.txt is a file"),
    (
        "train-force-precious",
        [*TINY_TRAIN, "--out", "precious", "--force"],
        b"",
        2,
        "holds no phonkit run",
    ),
    ("train-existing", [*TINY_TRAIN, "--out", "run"], b"", 2, "pass --force to replace it"),
    ("train-locked-force", [*TINY_TRAIN, "--out", "locked", "--force"], b"", 2, "another phonkit"),
    ("train-locked-resume", ["train", "--resume", "--out", "locked"], b"", 2, "(pid "),
    ("train-resume-no-out", ["train", "--resume"], b"", 2, "--resume needs --out"),
    ("train-resume-finished", ["train", "--resume", "--out", "run"], b"", 2, "already finished"),
    ("train-resume-nowhere", ["train", "--resume", "--out", "new"], b"", 2, "not a phonkit run"),
    ("train-resume-list", ["train", "--resume", "--out", "listconf"], b"", 2, "a JSON list"),
    # uf
    ("uf-neighbours-0", ["uf", "neighbours", "-m", "run", "N", "-n", "0"], b"", 2, "-n must be"),
    ("uf-neighbours-neg", ["uf", "neighbours", "-m", "run", "N", "-n", "-3"], b"", 2, "at least 1"),
    ("uf-neighbours-unknown", ["uf", "neighbours", "-m", "run", "qqqq"], b"", 2, "not in the"),
    (
        "uf-export-xml",
        ["uf", "export", "-m", "run", "-o", "uf", "--format", "xml"],
        b"",
        2,
        "unknown format 'xml'",
    ),
    ("uf-export-no-model", ["uf", "export", "-m", "nomodel", "-o", "uf"], b"", 2, "missing"),
    ("uf-plot-suffix", ["uf", "plot", "-m", "run", "-o", "x.txt"], b"", 2, "choose a .png"),
    (
        "uf-plot-method",
        ["uf", "plot", "-m", "run", "-o", "x.png", "--method", "nope"],
        b"",
        2,
        "unknown method",
    ),
    ("uf-probe-folds-0", ["uf", "probe", "-m", "run", "--folds", "0"], b"", 2, "--folds must"),
    ("uf-probe-folds-1", ["uf", "probe", "-m", "run", "--folds", "1"], b"", 2, "at least 2"),
    (
        "uf-probe-attribute",
        ["uf", "probe", "-m", "run", "--attribute", "nope"],
        b"",
        2,
        "attribute 'nope' cannot be computed",
    ),
    # transcribe, compare, experiment, usage
    (
        "transcribe-column-0",
        ["transcribe", "--lang", "tur", "--column", "0"],
        b"x\n",
        2,
        "--column",
    ),
    (
        "transcribe-unknown",
        ["transcribe", "--lang", "tur", "--transcriber", "nope"],
        b"x\n",
        2,
        "unknown transcriber 'nope'",
    ),
    ("transcribe-binary", ["transcribe", "--lang", "tur"], b"\xff\n", 2, "not valid UTF-8"),
    ("compare-no-run", ["compare", "run", "nowhere"], b"", 2, "nowhere: not a phonkit run"),
    ("compare-perm-0", ["compare", "run", "run", "--permutations", "0"], b"", 2, "at least 1"),
    ("compare-garbled", ["compare", "run", "badpredictions"], b"", 2, "predictions.tsv:2"),
    ("experiment-report", ["experiment", "report", "nowhere"], b"", 2, "not a phonkit experiment"),
    (
        "experiment-set-nan",
        ["experiment", "unimorph", "--langs", "tur", "--data-dir", str(SHARED)]
        + ["--set", "lr=nan", "--out", "exp"],
        b"",
        2,
        "--lr must be",
    ),
    (
        "experiment-set-text",
        ["experiment", "unimorph", "--langs", "tur", "--data-dir", str(SHARED)]
        + ["--set", "epochs=many", "--out", "exp"],
        b"",
        2,
        "epochs takes a whole number",
    ),
    ("usage-option", ["train", "--bogus"], b"", 2, "No such option: --bogus"),
    ("usage-command", ["nosuch"], b"", 2, "No such command 'nosuch'"),
]


def test_there_are_at_least_fifty_cases():
    assert len(CASES) >= 50
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_hostile_input_is_one_line_and_changes_nothing(
    cli, workspace, monkeypatch, args, stdin, code, message
):
    root, names = workspace
    if (
        "experiment" in args
        and not (SHARED / "conll2017").is_dir()
        and not (SHARED / "unimorph").is_dir()
    ):
        pytest.skip("needs the shared data directory")
    monkeypatch.chdir(root)
    before = snapshot(root)
    if stdin is not None:
        for name, value in names.items():
            stdin = stdin.replace(b"{%s}" % name.encode(), value.encode())
    result = cli(*args, stdin=stdin)
    assert (result.code, result.out) == (code, ""), result.err
    assert "Traceback" not in result.err
    # progress messages may come first; the error is one line, the last
    lines = result.err.splitlines()
    assert lines[-1].startswith("phonkit: error: "), result.err
    assert result.err.count("phonkit: error") == 1, result.err
    assert message in lines[-1]
    assert snapshot(root) == before


class Planted:
    """A pickled object that, if unpickled, would make a directory: a stand-in for code a
    shared run directory must not run."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def test_a_checkpoint_that_would_run_code_is_refused_unread(cli, trained_run, tmp_path):
    import torch

    run = Path(shutil.copytree(trained_run, tmp_path / "shared-run"))
    (run / "metrics.json").unlink()  # unfinished: --resume reads the checkpoint
    marker = tmp_path / "code-was-run"
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    torch.save({**state, "history": Planted(marker)}, run / "checkpoint.pt")
    result = cli("train", "--resume", "--out", str(run))
    assert result.code == 2 and result.out == "", result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert "checkpoint.pt: cannot read it: it holds more than the tensors" in result.err
    assert not marker.exists()
