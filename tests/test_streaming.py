"""``phonkit predict`` streams: bounded read-ahead, output as soon as a chunk is decoded, in
input order, and the same output however the input is cut into chunks."""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import TINY, phonkit_process
from phonkit.data.cells import Cell, iter_cells
from phonkit.data.lexicon import Entry
from phonkit.errors import InputError
from phonkit.tasks import streaming
from phonkit.tasks.predict import by_run
from phonkit.tasks.streaming import END, ReadAhead, chunks


def cell(line: int, lemma: str, form: str = "") -> Cell:
    return Cell(line, Entry(lemma, ("N",), form), [])


def test_read_ahead_is_bounded():
    produced = 0

    def items():
        nonlocal produced
        for number in range(10_000):
            produced += 1
            yield number

    ahead = ReadAhead(items(), capacity=5)
    assert ahead.get() == 0
    time.sleep(0.3)
    assert produced <= 5 + 2  # the queue, the item being put, the one taken
    assert [ahead.get() for _ in range(3)] == [1, 2, 3]
    ahead.close()


def test_read_ahead_hands_on_the_producers_error():
    def items():
        yield 1
        raise InputError("bad row", "x.tsv:2")

    ahead = ReadAhead(items())
    assert ahead.get() == 1
    with pytest.raises(InputError, match="bad row"):
        ahead.get()


def test_chunks_keep_input_order_and_never_cut_a_new_lemmas_run():
    lemmas = list("aabnnnncnndmmm")  # n and m are new to the model
    cells = [cell(number, lemma) for number, lemma in enumerate(lemmas, 1)]
    found = list(chunks(ReadAhead(iter(cells)), lambda lemma: lemma in "nm", "t", size=2))
    assert [c.line for chunk in found for c in chunk] == list(range(1, len(cells) + 1))
    for chunk in found[:-1]:
        last = chunk[-1].entry.lemma
        following = found[found.index(chunk) + 1][0].entry.lemma
        assert not (last in "nm" and last == following), "a new lemma's run was cut"
    assert max(len(chunk) for chunk in found) > 2  # the run of n was held together


def test_a_run_longer_than_the_limit_is_an_error(monkeypatch):
    monkeypatch.setattr(streaming, "RUN_LIMIT", 5)
    cells = [cell(number, "new") for number in range(1, 20)] + [cell(20, "old")]
    with pytest.raises(InputError, match="more than 5 rows in a row") as error:
        list(chunks(ReadAhead(iter(cells)), lambda lemma: lemma == "new", "t.tsv", size=3))
    assert error.value.where == "t.tsv:1"


def test_a_run_at_the_end_of_the_input_is_decoded():
    cells = [cell(1, "old"), cell(2, "new"), cell(3, "new")]
    found = list(chunks(ReadAhead(iter(cells)), lambda lemma: lemma == "new", "t", size=1))
    assert [[c.line for c in chunk] for chunk in found] == [[1], [2, 3]]
    assert END is streaming.END


def test_each_run_of_a_new_lemma_is_fitted_on_its_own():
    cells = list(iter_cells(io.BytesIO(b"x\tN\tf\nx\tPL\nev\tN\nx\tN;PL\tg\n"), "t"))
    entries = [entry for _, entry in by_run(cells, {"lemma:ev"})]
    assert [e.lemma for e in entries] == ["x\t1", "x\t1", "ev", "x\t4"]


def _mixed_input(run: Path) -> bytes:
    """Known lemmas with gaps and known cells, and two new lemmas (copies of test lemmas
    under other names) whose runs are longer than a small chunk."""
    rows = [line.split("\t") for line in (run / "test.tsv").read_text().splitlines()]
    train = [line.split("\t") for line in (run / "train.tsv").read_text().splitlines()]
    lines = [f"{lemma}\t{bundle}\n" for lemma, _, bundle, _ in rows[:7]]
    for name, source in (("yeni1", train[0][0]), ("yeni2", train[-1][0])):
        cells = [row for row in train if row[0] == source][:6]
        lines += [f"{name}\t{cells[0][2]}\t{cells[0][1]}\n"]
        lines += [f"{name}\t{bundle}\t--\n" for _, _, bundle, _ in cells[1:]]
        lines += [f"{lemma}\t{bundle}\n" for lemma, _, bundle, _ in rows[7:9]]
    return "".join(lines).encode()


def test_output_does_not_depend_on_the_chunk_size(cli, trained_run, monkeypatch):
    data = _mixed_input(trained_run)
    # float32: bfloat16 results move in the last digits with the shape of a batch
    whole = cli("predict", "-m", str(trained_run), "--score", "--precision", "fp32", stdin=data)
    assert whole.code == 0, whole.err
    monkeypatch.setattr(streaming, "CHUNK_ROWS", 2)
    small = cli("predict", "-m", str(trained_run), "--score", "--precision", "fp32", stdin=data)
    assert small.code == 0, small.err
    assert small.out == whole.out
    assert [line.split("\t")[:2] for line in whole.out.splitlines()] == [
        line.split("\t")[:2] for line in data.decode().splitlines()
    ]
    assert "fitted the underlying forms of 2 new lemmas" in small.err


def _line_within(stream, seconds: float) -> bytes:
    ready, _, _ = select.select([stream], [], [], seconds)
    return stream.readline() if ready else b""


@pytest.mark.skipif(os.name != "posix", reason="select on pipes")
def test_output_comes_before_the_input_ends(trained_run):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    process = phonkit_process("predict", "-m", str(trained_run), stdin=subprocess.PIPE)
    try:
        process.stdin.write(f"{lemma}\t{bundle}\n".encode())
        process.stdin.flush()
        first = _line_within(process.stdout, 60)
        assert first.startswith(f"{lemma}\t{bundle}\t".encode()), first
        assert process.poll() is None  # still waiting for input
        process.stdin.write(f"{lemma}\t{bundle}\t--\n".encode())
        process.stdin.flush()
        assert _line_within(process.stdout, 60) == first
        process.stdin.close()
        assert process.wait(60) == 0
    finally:
        process.kill()


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_ctrl_c_says_how_much_was_written(trained_run):
    lemma, _, bundle, _ = (trained_run / "test.tsv").read_text().splitlines()[0].split("\t")
    process = phonkit_process("predict", "-m", str(trained_run), stdin=subprocess.PIPE)
    try:
        process.stdin.write(f"{lemma}\t{bundle}\n".encode())
        process.stdin.flush()
        assert _line_within(process.stdout, 60)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err.decode().strip() == (
        "phonkit: interrupted: 1 output rows were written, for the input up to <stdin>:1"
    )


@pytest.mark.skipif(os.name != "posix", reason="select on pipes")
def test_an_error_while_the_producer_is_still_writing_is_one_line(trained_run):
    """The reader thread is waiting on an open pipe when the error ends the command: the
    process must still exit with its one line (a thread blocked in sys.stdin's buffered
    reader makes Python abort at exit)."""
    lemma = (trained_run / "train.tsv").read_text().split("\t")[0]
    process = phonkit_process("predict", "-m", str(trained_run), "--strict", stdin=subprocess.PIPE)
    try:
        process.stdin.write(f"{lemma}\tQQQ\n".encode())
        process.stdin.flush()
        assert process.wait(120) == 2
        err = process.stderr.read().decode()
    finally:
        process.kill()
    assert err.startswith("phonkit: error: <stdin>:1: feature 'QQQ' is not in the model")
    assert err.count("\n") == 1


def test_the_input_s_new_lemmas_known_forms_make_rewrites_for_its_other_gaps(
    cli, tmp_path, monkeypatch
):
    """A run that ranks candidates reads the whole input first: a cell no training
    paradigm has (``DAT``) is filled by the rewrite the input's other new lemmas show
    (``+ze``), from a file as from standard input, however the input is cut into chunks;
    with ``--stream`` the rewrites are the training paradigms' alone."""
    stems = ["bal", "kor", "tim", "sul", "pen", "dar", "mok", "fis", "lut", "ger", "hon", "vel"]
    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{s}\t{s}\tN;SG\n{s}\t{s}lo\tN;PL\n" for s in stems))
    run = tmp_path / "run"
    trained = cli("train", "--corpus", "tsv", "--path", str(train), "--columns",
                  "lemma,form,features", "--split", "all", "--out", str(run),
                  *TINY[:-1], "analogy")  # fmt: skip
    assert trained.code == 0, trained.err
    shown = "".join(f"{s}\t{s}\tN;SG\n{s}\t{s}ze\tN;DAT\n" for s in ("akal", "ubor", "esin"))
    asked = "".join(f"{s}\t{s}\tN;SG\n{s}\t\tN;DAT\n" for s in ("omar", "ilen"))
    given = tmp_path / "given.tsv"
    given.write_text(shown + asked)
    fields = ("--columns", "lemma,form,features")
    read = cli("predict", "-m", str(run), str(given), *fields)
    assert read.code == 0, read.err
    assert read.out.splitlines()[-3:] == ["omar\tomarze\tN;DAT", "ilen\tilen\tN;SG",
                                          "ilen\tilenze\tN;DAT"]  # fmt: skip
    redirected = cli("predict", "-m", str(run), *fields, stdin=given.read_bytes())
    assert redirected.out == read.out
    process = phonkit_process("predict", "-m", str(run), *fields, stdin=subprocess.PIPE)
    piped, _ = process.communicate(given.read_bytes(), timeout=120)  # copied, then read
    assert process.returncode == 0 and piped.decode() == read.out
    with given.open("rb") as handle:  # `< given.tsv`: standard input from a file
        process = phonkit_process("predict", "-m", str(run), *fields, stdin=handle.fileno())
        from_file, _ = process.communicate(timeout=120)
    assert process.returncode == 0 and from_file.decode() == read.out
    monkeypatch.setattr(streaming, "CHUNK_ROWS", 2)
    assert cli("predict", "-m", str(run), str(given), *fields).out == read.out
    alone = cli("predict", "-m", str(run), str(given), *fields, "--stream")
    assert alone.code == 0, alone.err
    assert "omar\tomarze\tN;DAT" not in alone.out.splitlines()
