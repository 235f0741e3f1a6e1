"""Shared fixtures: a small real lexicon (Turkish paradigms from the bundled sample), a
trained tiny run, and ways to call the CLI in-process with stdin, stdout and stderr apart
or as its own process."""

from __future__ import annotations

import io
import lzma
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import pytest

from phonkit.cli import main

ROOT = Path(__file__).resolve().parents[1]  # the repository
SHARED = ROOT.parent / "shared" / "data"
# Tiny runs decode on their own: below 2,000 training forms a run would otherwise rank
# analogy candidates (the settings by size, tested in test_tables.py).
TINY = ["--dim", "32", "--epochs", "2", "--batch-size", "32", "--candidates", "model"]


@dataclass
class Result:
    code: int
    out: str
    err: str


def phonkit_process(*args: str, stdin: int = subprocess.DEVNULL) -> subprocess.Popen:
    """``python -m phonkit ARGS`` with piped output. Ctrl-C reaches it even when the suite runs
    as a background job, whose shell hands its children SIGINT ignored (Python then keeps
    ignoring it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "phonkit", *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        if os.name == "posix"
        else None,
    )


@pytest.fixture(autouse=True, scope="session")
def transcription_cache(tmp_path_factory):
    """Transcriptions are cached in a temporary directory, never the user's cache."""
    import os

    os.environ["PHONKIT_CACHE"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(autouse=True)
def own_directory(tmp_path, monkeypatch):
    """Each test runs in its own empty working directory, as on a fresh clone and after
    README's first command alike: what a command writes by default (``runs/...``,
    ``experiments/...``) lands there, and what the checkout holds (the README's run in
    ``runs/sample-tur-amortized``) cannot change a test's outcome. Files of the repository are
    found from the test file's location (:data:`ROOT`)."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(autouse=True, scope="session")
def messages_on_stderr():
    """The library's messages reach stderr as the command line shows them (it installs the
    same handler), also in tests that call the library directly."""
    from phonkit.progress import show_messages

    show_messages()


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run ``phonkit ARGS`` in-process; ``stdin`` is bytes (None: a terminal)."""

    def invoke(*args: str, stdin: bytes | None = b"") -> Result:
        if stdin is None:
            fake = io.TextIOWrapper(io.BytesIO())
            monkeypatch.setattr(fake, "isatty", lambda: True)
        else:
            fake = io.TextIOWrapper(io.BytesIO(stdin))
        monkeypatch.setattr(sys, "stdin", fake)
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def sample_lines(paradigms: int) -> list[str]:
    """The first ``paradigms`` paradigms of the bundled Turkish sample, as TSV lines."""
    path = Path(str(files("phonkit") / "data" / "tur-sample.tsv.xz"))
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    lemmas: list[str] = []
    kept = []
    for line in lines:
        lemma = line.split("\t")[0]
        if lemma not in lemmas:
            lemmas.append(lemma)
        if len(lemmas) > paradigms:
            break
        kept.append(line)
    return kept


def train_sample(tmp_path_factory, name: str, paradigms: int, *options: str) -> Path:
    """A run trained through the CLI on the first ``paradigms`` paradigms of the sample, in a
    fresh folder, with ``options``."""
    data = tmp_path_factory.mktemp("data") / "tur.tsv"
    data.write_text("\n".join(sample_lines(paradigms)) + "\n", encoding="utf-8")
    out = tmp_path_factory.mktemp("runs") / name
    args = ["train", "--corpus", "tsv", "--lang", "tur", "--path", str(data), "--out", str(out)]
    try:
        main([*args, *options])
    except SystemExit as done:
        assert not done.code, f"training the fixture run {name} failed"
    return out


@pytest.fixture(scope="session")
def lexicon_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("data") / "tur-small.tsv"
    path.write_text("\n".join(sample_lines(12)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory, lexicon_file) -> Path:
    """A tiny pi model trained for two epochs through the CLI."""
    out = tmp_path_factory.mktemp("runs") / "tur-pi"
    try:
        main(
            [
                "train",
                "--corpus",
                "tsv",
                "--lang",
                "tur",
                "--path",
                str(lexicon_file),
                "--out",
                str(out),
                "--variant",
                "pi",
                *TINY,
            ]
        )
    except SystemExit as done:
        assert not done.code, "training the fixture run failed"
    return out
