"""What must hold when things go wrong: one writer per run directory (stale locks recognised),
Ctrl-C that says what was kept, training that stops on a non-finite loss, files that follow
the umask, byte-order marks, and a word on --split lemmas test figures."""

from __future__ import annotations

import json
import os
import select
import signal
from pathlib import Path

import pytest

from conftest import TINY, phonkit_process
from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.model import training
from phonkit.run.lock import LOCK_NAME, Holder, RunLock, holder

pytestmark = pytest.mark.skipif(os.name != "posix", reason="flock, signals and umask")


def _train_args(lexicon: Path, out: Path, *more: str) -> list[str]:
    return ["train", "--corpus", "tsv", "--path", str(lexicon), "--out", str(out), *more]


def _wait_for(stream, text: bytes, seconds: float = 120) -> bytes:
    """Read ``stream`` line by line until a line contains ``text``."""
    seen = b""
    while True:
        ready, _, _ = select.select([stream], [], [], seconds)
        assert ready, f"no {text!r} within {seconds} s; got {seen!r}"
        line = stream.readline()
        assert line, f"the stream ended before {text!r}; got {seen!r}"
        seen += line
        if text in line:
            return seen


# -- the run-directory lock ---------------------------------------------------------------------


def test_a_lock_is_reentrant_and_leaves_nothing_behind(tmp_path):
    out = tmp_path / "runs" / "r"
    with RunLock(out):
        assert (out / LOCK_NAME).is_file()
        with RunLock(out):
            pass
        assert (out / LOCK_NAME).is_file()  # still held by the outer one
        record = json.loads((out / LOCK_NAME).read_text())
        assert record["pid"] == os.getpid()
        assert holder(out) is None  # this process is not another writer
    assert not out.exists() and not (tmp_path / "runs").exists()  # made by the lock, empty


def test_a_stale_lock_is_taken_over_and_said_so(tmp_path, capsys):
    out = tmp_path / "r"
    out.mkdir()
    dead = Holder(2**22 + 12345, "elsewhere", "2024-01-01T00:00:00", "phonkit train --out r")
    (out / LOCK_NAME).write_text(json.dumps(dead.__dict__))
    assert holder(out) is None  # a file that nobody holds is no writer
    with RunLock(out):
        assert json.loads((out / LOCK_NAME).read_text())["pid"] == os.getpid()
    err = capsys.readouterr().err
    assert "took over the lock of pid 4206649 on elsewhere" in err
    assert "no longer running" in err
    assert not (out / LOCK_NAME).exists() and out.is_dir()


def test_a_second_writer_is_refused_and_a_killed_ones_lock_is_stale(cli, lexicon_file, tmp_path):
    out = tmp_path / "r"
    # Epochs no run reaches and a patience no plateau reaches: the first writer cannot end
    # (at the bound or the learning-rate floor) before the others have been refused.
    endless = ("--dim", "8", "--epochs", "100000", "--patience", "100000")
    first = phonkit_process(*_train_args(lexicon_file, out, *endless))
    try:
        _wait_for(first.stderr, b"epoch 1/100000")
        config = (out / "config.json").read_bytes()
        second = cli(*_train_args(lexicon_file, out, *TINY, "--force"))
        assert second.code == 2
        assert f"pid {first.pid} on " in second.err and "--epochs 100000" in second.err
        assert "another phonkit process is writing this run directory" in second.err
        resume = cli("train", "--resume", "--out", str(out))
        assert resume.code == 2 and f"pid {first.pid}" in resume.err
        reader = cli("evaluate", "-m", str(out))
        assert reader.code == 2 and "being written by" in reader.err
        assert (out / "config.json").read_bytes() == config
        first.send_signal(signal.SIGKILL)
        first.wait()
    finally:
        first.kill()
        first.wait()
    assert (out / LOCK_NAME).is_file()  # left behind by the killed process
    config = json.loads((out / "config.json").read_text())
    config["training"]["epochs"] = config["training"].get("epochs") and 3
    (out / "config.json").write_text(json.dumps(config))
    resumed = cli("train", "--resume", "--out", str(out))
    assert resumed.code == 0, resumed.err
    assert f"took over the lock of pid {first.pid}" in resumed.err
    assert (out / "metrics.json").is_file() and not (out / LOCK_NAME).exists()


# -- Ctrl-C, divergence ---------------------------------------------------------------------------


def test_ctrl_c_in_training_says_what_was_kept(lexicon_file, tmp_path, cli):
    out = tmp_path / "r"
    # Epochs no run reaches and a patience no plateau reaches: the training cannot end (at
    # the bound or the learning-rate floor) before the signal lands, however fast it is.
    args = ("--dim", "8", "--epochs", "100000", "--patience", "100000")
    process = phonkit_process(*_train_args(lexicon_file, out, *args))
    try:
        _wait_for(process.stderr, b"epoch 1/100000")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130
    last = err.decode().strip().splitlines()[-1]
    assert last.startswith(f"phonkit: interrupted: {out} keeps epoch ")
    assert last.endswith(f"go on training it with --resume and --out {out}")
    assert not (out / LOCK_NAME).exists()
    config = json.loads((out / "config.json").read_text())
    epoch = int(last.split(" keeps epoch ")[1].split()[0])
    config["training"]["epochs"] = epoch + 1
    (out / "config.json").write_text(json.dumps(config))
    resumed = cli("train", "--resume", "--out", str(out))
    assert resumed.code == 0, resumed.err
    assert f"resuming after epoch {epoch}" in resumed.err


def test_a_non_finite_loss_stops_training_and_keeps_the_last_good_epoch(
    cli, lexicon_file, tmp_path, monkeypatch
):
    out = tmp_path / "r"
    figures = training.Trainer.dev_figures

    def diverging(self):
        loss, accuracy = figures(self)
        return (float("nan") if self.epoch == 1 else loss), accuracy

    monkeypatch.setattr(training.Trainer, "dev_figures", diverging)
    result = cli(*_train_args(lexicon_file, out, "--dim", "8", "--epochs", "3"))
    assert result.code == 2
    assert result.err.splitlines()[-1] == (
        f"phonkit: error: {out}: training diverged in epoch 2: the dev loss is nan; "
        "epoch 1 is kept and the run is unfinished; train it again with a lower --lr "
        "(it was 0.005) and --force"
    )
    assert (out / "model.pt").is_file() and not (out / "metrics.json").exists()
    import torch

    assert torch.load(out / "checkpoint.pt", weights_only=True)["epoch"] == 1
    monkeypatch.setattr(training.Trainer, "dev_figures", figures)
    resumed = cli("train", "--resume", "--out", str(out))
    assert resumed.code == 0 and "resuming after epoch 1" in resumed.err


def test_a_first_epoch_that_diverges_keeps_no_epoch(cli, lexicon_file, tmp_path, monkeypatch):
    monkeypatch.setattr(training.Trainer, "train_epoch", lambda self, advance: float("inf"))
    out = tmp_path / "r"
    result = cli(*_train_args(lexicon_file, out, "--dim", "8", "--epochs", "2"))
    assert result.code == 2 and "the training loss is inf; no epoch was kept" in result.err
    again = cli("evaluate", "-m", str(out))
    assert again.code == 2 and "unfinished" in again.err


# -- files ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_written_files_follow_the_umask(tmp_path, mask):
    previous = os.umask(mask)
    try:
        write_atomic(tmp_path / "x" / "out.tsv", "a\tb\n")
    finally:
        os.umask(previous)
    assert (tmp_path / "x" / "out.tsv").stat().st_mode & 0o777 == 0o666 & ~mask


def test_run_directories_and_exports_follow_the_umask(cli, trained_run, tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    expected = 0o666 & ~mask
    for name in ("config.json", "model.pt", "checkpoint.pt", "predictions.tsv", "metrics.json"):
        assert (trained_run / name).stat().st_mode & 0o777 == expected, name
    assert cli("uf", "export", "-m", str(trained_run), "-o", str(tmp_path / "uf")).code == 0
    assert (tmp_path / "uf.vectors.tsv").stat().st_mode & 0o777 == expected
    scored = tmp_path / "scored.tsv"
    assert cli("evaluate", "-m", str(trained_run), "--predictions", str(scored)).code == 0
    assert scored.stat().st_mode & 0o777 == expected


def test_a_byte_order_mark_is_not_part_of_the_first_lemma(cli, trained_run, tmp_path):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    row = f"{lemma}\t{bundle}\n".encode()
    plain = cli("predict", "-m", str(trained_run), stdin=row)
    marked = cli("predict", "-m", str(trained_run), stdin=b"\xef\xbb\xbf" + row)
    # The mark is read as no part of the lemma, and given back where it was.
    assert marked.code == 0 and marked.out == "\ufeff" + plain.out and plain.out.startswith(lemma)


def test_a_lexicon_with_a_byte_order_mark_reads_like_one_without(tmp_path):
    from phonkit.data.lexicon import read_tsv

    path = tmp_path / "bom.tsv"
    path.write_bytes(b"\xef\xbb\xbfkitap\tkitaplar\tN;PL\n")
    assert read_tsv(path).entries[0].lemma == "kitap"


def test_write_atomic_refuses_a_directory_and_keeps_the_old_file(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        write_atomic(tmp_path / "d", "x")
    old = tmp_path / "old.tsv"
    old.write_text("kept")
    os.chmod(tmp_path, 0o500)
    try:
        if os.access(tmp_path, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(InputError, match="cannot write"):
            write_atomic(old, "new")
    finally:
        os.chmod(tmp_path, 0o700)
    assert old.read_text() == "kept"


# -- --split lemmas ------------------------------------------------------------------------------


def test_split_lemmas_training_says_why_its_test_figures_are_low(cli, lexicon_file, tmp_path):
    out = tmp_path / "r"
    result = cli(*_train_args(lexicon_file, out, *TINY, "--split", "lemmas", "--variant", "pi"))
    assert result.code == 0, result.err
    assert "the test lemmas of --split lemmas are new to the model" in result.err
    assert f"phonkit evaluate -m {out} --unseen-lemmas" in result.err
    # the default model reads the new lemmas' spellings: its test figures are not low
    read = cli(*_train_args(lexicon_file, tmp_path / "a", *TINY, "--split", "lemmas"))
    assert read.code == 0, read.err
    assert "new to the model" not in read.err
