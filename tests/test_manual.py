"""The examples of README.md and docs/tutorial.md cannot rot: every command of their
``console`` blocks runs, in order, from a checkout-like folder (``examples/`` and
``../shared`` beside it), on tiny settings (``train`` and ``fill`` get a few epochs of a
small model, ``train`` at most a few hundred entries and its model's own decoding). What a
command prints is compared with what the page shows: line by line where no model is
involved, by shape where one is (the same lines, the same fields, the same first field: the
lemma, stem, morpheme or metric that the row is about)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PAGES = ("README.md", "docs/tutorial.md")
#: What the tiny settings add to the commands that train (and nothing else changes): a few
#: epochs of a small model, and at most a few hundred entries of a corpus named with
#: ``--corpus`` (the bundled sample stays whole: the example files hold its test cells).
#: ``train`` ranks no analogy candidates (``--candidates model``, as the other tests'
#: tiny settings): on the whole sample, choosing their context width and judges' weights
#: took two minutes of the page's three and a half. The default's ranking has tests of
#: its own (test_experiments.py, test_unseen_lemmas.py, test_tables.py), and CI runs
#: README's first command, the defaults on the whole sample, before the tests.
WRAPPER = """#!/bin/sh
case "$1" in
    train) shift; case " $* " in *" --corpus "*) cap="--max-entries 300" ;; *) cap="" ;; esac
        exec "{python}" -m phonkit train "$@" --epochs 1 --dim 16 --candidates model $cap ;;
    fill) shift; exec "{python}" -m phonkit fill "$@" --epochs 3 --dim 16 ;;
    *) exec "{python}" -m phonkit "$@" ;;
esac
"""
MODEL = re.compile(r"phonkit (train|fill|predict|evaluate|uf|paradigm|errors|compare)\b")


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    command: str
    output: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: $ {self.command}"


def examples(page: str) -> list[Example]:
    """The commands of a page's ``console`` blocks, each with the lines shown after it."""
    found: list[Example] = []
    inside, command, line, output = False, None, 0, []
    for number, text in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), 1):
        if text.startswith("```"):
            if inside and command is not None:
                found.append(Example(page, line, command, tuple(output)))
            inside, command = text.strip() == "```console", None
        elif inside and text.startswith("$ "):
            if command is not None:
                found.append(Example(page, line, command, tuple(output)))
            command, line, output = text[2:], number, []
        elif inside and command is not None:
            output.append(text)
    return found


@pytest.fixture
def checkout(tmp_path):
    """A folder laid out as the pages assume: the repository's ``examples/`` in it and the
    shared data beside it, with a ``phonkit`` on PATH that trains on tiny settings."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"the shared data is not beside the checkout ({SHARED})")
    base = tmp_path
    (base / "shared").symlink_to(SHARED)
    repo, bin_dir = base / "repo", base / "bin"
    repo.mkdir()
    bin_dir.mkdir()
    (repo / "examples").symlink_to(ROOT / "examples")
    wrapper = bin_dir / "phonkit"
    wrapper.write_text(WRAPPER.format(python=sys.executable))
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.update(CUDA_VISIBLE_DEVICES="", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env.pop("PHONKIT_DATA", None)
    return repo, env


def fields(line: str) -> list[str]:
    return re.split(r"\t|,", line)


def check(example: Example, out: str) -> None:
    """The output ``out`` of ``example`` against what its page shows."""
    shown, got = list(example.output), out.splitlines()
    if not MODEL.search(example.command):
        assert got == shown, f"{example} printed {got}"
        return
    if not shown:
        return  # the page shows no output (training prints on stderr)
    assert len(got) == len(shown), f"{example}: {len(got)} lines, the page shows {len(shown)}"
    for want, have in zip(shown, got, strict=True):
        assert len(fields(have)) == len(fields(want)), f"{example}: {have!r} against {want!r}"
        assert fields(have)[0] == fields(want)[0], f"{example}: {have!r} against {want!r}"


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_and_prints_what_it_shows(checkout, page):
    repo, env = checkout
    shown = examples(page)
    assert len(shown) >= 5, f"{page} lost its worked examples"
    for example in shown:
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", example.command],
            cwd=repo, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, f"{example} failed: {done.stderr[-2000:]}"
        check(example, done.stdout)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_of_the_manual_finds_its_page_and_heading():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    prose = {
        page: re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for page in pages
    }
    headings = {
        page.resolve(): {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
        for page, text in prose.items()
    }
    broken = []
    for page, text in prose.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http:", "https:", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            found = (page.parent / path).resolve() if path else page.resolve()
            if not found.exists() or (anchor and anchor not in headings.get(found, {anchor})):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken
