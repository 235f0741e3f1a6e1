"""The example files under examples/ that the manual's commands use (README.md, the tutorial,
the how-to pages): present, small, and read as the commands read them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from phonkit.data.cells import read_cells
from phonkit.data.corpora import CorpusRequest
from phonkit.plugins import lookup

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def test_every_example_file_the_manual_names_is_there_and_small():
    docs = ROOT / "docs"
    pages = [ROOT / "README.md", docs / "tutorial.md", *(docs / "how-to").glob("*.md")]
    text = "".join(page.read_text(encoding="utf-8") for page in pages)
    named = set(re.findall(r"examples/([\w.-]+\.\w+)", text))
    assert {"gaps.tsv", "gold.tsv", "my-lexicon.tsv", "my-dataset.parquet"} <= named
    for name in named:
        path = EXAMPLES / name
        assert path.is_file(), name
        assert path.stat().st_size < 8_000, name


def test_the_lexicons_read_with_the_readmes_columns():
    tsv = lookup("corpora", "tsv").read(
        CorpusRequest(path=str(EXAMPLES / "my-lexicon.tsv"), columns="lemma,features,form")
    )
    assert len(tsv) == 180 and tsv.lemmas == {"kelime", "sokak"}
    pytest.importorskip("datasets")
    hf = lookup("corpora", "hf").read(
        CorpusRequest(
            path=str(EXAMPLES / "my-dataset.parquet"),
            columns="lemma=lemma,form=word,features=tags",
        )
    )
    assert len(hf) == 144 and hf.lemmas == {"yıldız", "gün"}
    assert all(len(entry.features) >= 2 for entry in hf.entries)


def test_gaps_keep_the_new_lemmas_rows_together_and_gold_has_forms():
    with (EXAMPLES / "gaps.tsv").open("rb") as stream:
        cells = read_cells(stream, "gaps.tsv")
    lemmas = [cell.entry.lemma for cell in cells]
    new = [number for number, lemma in enumerate(lemmas) if lemma == "kalem"]
    assert new == list(range(new[0], new[0] + 6))
    assert sum(cell.gap for cell in cells) == 11
    with (EXAMPLES / "gold.tsv").open("rb") as stream:
        gold = read_cells(stream, "gold.tsv")
    assert len(gold) == 40 and not any(cell.gap for cell in gold)
