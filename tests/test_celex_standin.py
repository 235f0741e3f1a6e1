"""benchmarks/celex_standin.py, the open CELEX-shaped lexicon: on a tiny table with a made-up
transcription and made-up frequencies, which paradigms and words it keeps (obstruent-final
stems, stem + at most one affix), how it tells alternating stems, the counts, the size, and
that phonkit reads what it writes."""

from __future__ import annotations

import importlib.util
import lzma
import sys
from pathlib import Path

from phonkit.data.lexicon import read_tsv

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("celex_standin", ROOT / "benchmarks/celex_standin.py")
standin = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # for its dataclasses
spec.loader.exec_module(standin)

CELLS = ("V;1;IND;PRS;SG", "V;NFIN", "V;3;IND;PRS;SG", "V;3;IND;PST;SG")
DUTCHISH = standin.Language("xx", (), {"V": CELLS}, merge_geminates=True)

# spelling -> IPA (space-separated segments), as epitran would give them
IPA = {
    "hond": "h ɔ n t", "honden": "h ɔ n d ɛ n", "hondt": "h ɔ n t", "hondde": "h ɔ n d eː",
    "kat": "k ɑ t", "katten": "k ɑ t t ɛ n", "katte": "k ɑ t eː",  # geminate, merged
    "geef": "ɣ eː f", "geven": "ɣ eː v ɛ n", "geeft": "ɣ eː f t", "gaf": "ɣ ɑ f",  # ablaut
    "bel": "b ɛ l", "bellen": "b ɛ l ɛ n", "belt": "b ɛ l t",  # sonorant-final
    "ga": "ɣ aː", "gaan": "ɣ aː n", "gaat": "ɣ aː t",  # the stem ends in a vowel
    "heb": "h ɛ p", "hebben": "h ɛ p b ɛ n", "heeft": "h eː f t", "had": "h ɑ t",
    "zeg": "z ɛ x", "zeg op": "z ɛ x _ ɔ p", "zeggen": "z ɛ x ɣ ɛ n",  # a form with a space
    "dog": "d ɑ ɡ", "dogz": "d ɑ ɡ z",  # voiced in every form: English-like
}  # fmt: skip
FREQUENCY = {"hond": 2e-5, "honden": 1e-5, "kat": 3e-5, "hebben": 1e-4, "heb": 5e-5}
ROWS = [
    ("honden", "hond", "V;IND;PRS;1;SG"), ("honden", "honden", "V;NFIN"),
    ("honden", "hondt", "V;IND;PRS;3;SG"), ("honden", "hondde", "V;IND;PST;3;SG"),
    ("honden", "gehond", "V.PTCP;PST"),  # a prefixed cell, not among CELLS
    ("katten", "kat", "V;IND;PRS;1;SG"), ("katten", "katten", "V;NFIN"),
    ("katten", "kat", "V;IND;PRS;3;SG"), ("katten", "katte", "V;IND;PST;3;SG"),
    ("geven", "geef", "V;IND;PRS;1;SG"), ("geven", "geven", "V;NFIN"),
    ("geven", "geeft", "V;IND;PRS;3;SG"), ("geven", "gaf", "V;IND;PST;3;SG"),
    ("bellen", "bel", "V;IND;PRS;1;SG"), ("bellen", "bellen", "V;NFIN"),
    ("bellen", "belt", "V;IND;PRS;3;SG"),
    ("gaan", "ga", "V;IND;PRS;1;SG"), ("gaan", "gaan", "V;NFIN"),
    ("gaan", "gaat", "V;IND;PRS;3;SG"),
    ("hebben", "heb", "V;IND;PRS;1;SG"), ("hebben", "hebben", "V;NFIN"),
    ("hebben", "heeft", "V;IND;PRS;3;SG"), ("hebben", "had", "V;IND;PST;3;SG"),
    ("opzeggen", "zeg op", "V;IND;PRS;1;SG"), ("opzeggen", "zeggen", "V;NFIN"),
    ("doggen", "dog", "V;IND;PRS;1;SG"), ("doggen", "dogz", "V;IND;PRS;3;SG"),
    ("katje", "kat", "N;SG"),  # a second lemma spelt kat: it takes half of kat's count
]  # fmt: skip
ROWS = [(lemma, form, standin.canonical(features)) for lemma, form, features in ROWS]


def transcribe(spellings):
    return [tuple(IPA[spelling].split()) for spelling in spellings]


def build(words=1000, seed=1):
    found = standin.build(ROWS, DUTCHISH, transcribe, lambda s: FREQUENCY.get(s, 0.0), words, seed)
    return {paradigm.lemma: paradigm for paradigm in found}


def test_obstruent_final_stems_with_a_partner_only():
    found = build()
    # bellen ends in l, gaan in a vowel, opzeggen keeps one word once "zeg op" is left out
    assert sorted(found) == ["doggen", "geven", "hebben", "honden", "katten"]
    assert found["honden"].stem == ("h", "ɔ", "n", "t")
    assert found["hebben"].stem == ("h", "ɛ", "p")


def test_each_word_is_the_stem_and_at_most_one_affix():
    found = build()
    spellings = {lemma: [w.spelling for w in p.words] for lemma, p in found.items()}
    assert spellings["honden"] == ["hond", "honden", "hondde"]  # hondt: the same IPA as hond
    assert spellings["geven"] == ["geef", "geven", "geeft"]  # gaf (ablaut) left out
    assert spellings["hebben"] == ["heb", "hebben"]  # heeft, had left out
    assert spellings["katten"] == ["kat", "katten", "katte"]
    assert found["katten"].words[1].ipa == ("k", "ɑ", "t", "ɛ", "n")  # t t merged
    assert found["hebben"].words[1].ipa == ("h", "ɛ", "b", "ɛ", "n")  # p b merged into b


def test_alternating_stems_are_told_from_the_ipa():
    found = build()
    assert found["honden"].group == "alternates"  # t ~ d
    assert found["geven"].group == "alternates"  # f ~ v
    assert found["hebben"].group == "alternates"  # p ~ b once the geminate is merged
    assert found["katten"].group == "voiceless"
    assert found["doggen"].group == "voiced"  # ɡ in every form: the affix alternates instead


def test_counts_are_per_billion_words_shared_by_homographs():
    found = build()
    counts = {w.spelling: w.count for p in found.values() for w in p.words}
    assert counts["hond"] == 20_000 and counts["hebben"] == 100_000
    assert counts["kat"] == 15_000  # katten and katje both have the spelling kat
    assert counts["geef"] == 0  # no frequency: never drawn by the learning curve


def test_size_is_met_with_whole_paradigms_taking_turns_between_groups():
    found = build(words=5)
    # the most frequent paradigm of each group first: hebben (alternates, 2 words) and
    # katten (voiceless, 3 words) fill 5 words; no paradigm is cut
    assert sorted(found) == ["hebben", "katten"]
    assert sum(len(p.words) for p in found.values()) == 5
    assert sorted(build(words=4)) == ["katten"]  # then no paradigm fits the one word left


def test_stem_tolerates_vowel_length_and_final_voicing_only():
    assert standin.stem_of([("l", "ɛ", "p", "t"), ("l", "ɛː", "b", "n̩")]) == ("l", "ɛ", "p")
    assert standin.stem_of([("ɣ", "eː", "f"), ("ɣ", "ɑ", "f")]) == ("ɣ",)
    assert standin.begins_with(("l", "ɛː", "b", "ə"), ("l", "ɛ", "p"))
    assert not standin.begins_with(("ɣ", "ɑ", "f"), ("ɣ", "eː", "f"))
    assert standin.canonical("V;IND;SG;1;PRS") == standin.canonical("V;IND;PRS;1;SG")


def test_phonkit_reads_what_it_writes(tmp_path):
    table = tmp_path / "xx.tsv.xz"
    with lzma.open(table, "wt", encoding="utf-8") as handle:
        handle.writelines("\t".join(row) + "\n" for row in ROWS)
    rows = standin.read_tables([table])
    assert len(rows) == len(ROWS)
    out = tmp_path / "standin.tsv"
    found = standin.build(rows, DUTCHISH, transcribe, lambda s: FREQUENCY.get(s, 0.0))
    out.write_text("".join(standin.rows_of(found)), encoding="utf-8")
    lexicon = read_tsv(out, "lemma=1,form=2,features=3,count=4")
    entry = next(e for e in lexicon.entries if e.form == "h ɔ n d ɛ n")
    assert (entry.lemma, entry.bundle, entry.count) == ("honden", "V;NFIN", 10_000.0)
    assert len(lexicon) == sum(len(p.words) for p in build().values())
