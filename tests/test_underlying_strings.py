"""Underlying strings: a table's stems get the strings a phonologist would write, the
processes between strings and forms are read off as rules, and the strings spell out forms
no stem showed."""

from __future__ import annotations

import json
import math

import pytest

from conftest import SHARED
from phonkit.analysis.processes import processes
from phonkit.data.lexicon import Entry, Example, segment
from phonkit.data.table import read_table
from phonkit.plugins import feature_table
from phonkit.tables.processes import (
    GAP,
    OP,
    SUB,
    alternations,
    in_closed_syllable,
    op_events,
    padded,
)  # fmt: skip
from phonkit.tables.segments import Alphabet, Phonotactics, kind
from phonkit.tables.strings import UnderlyingStrings, affix
from phonkit.tables.underlying import Search, cost_of, infer, prepare, spanning

# Final devoicing: a stem's last obstruent is voiceless at the word's end and keeps its
# voicing before the vowel of the second cell.
DEVOICING = {
    "rad": ("rat", "rada"), "rat": ("rat", "rata"), "lib": ("lip", "liba"),
    "kap": ("kap", "kapa"), "sob": ("sop", "soba"), "mug": ("muk", "muga"),
    "tek": ("tek", "teka"), "dag": ("dak", "daga"), "pit": ("pit", "pita"),
    "lod": ("lot", "loda"), "nab": ("nap", "naba"), "fik": ("fik", "fika"),
}  # fmt: skip


def rows(table):
    return [{"1": bare, "2": suffixed} for bare, suffixed in table.values()]


def examples(table):
    """The examples of a table of stems and their forms, the cells named 1, 2, ..."""
    return [
        Example(Entry(stem, (str(cell),), form), segment(form), ())
        for stem, forms in table.items()
        for cell, form in enumerate(forms, 1)
    ]


def test_strings_keep_the_voicing_the_suffixed_form_shows():
    found = infer(rows(DEVOICING)).strings
    assert found == list(DEVOICING)  # the stems as the table's keys name them


def test_a_voiced_stem_spells_out_devoiced_at_the_end():
    strings = UnderlyingStrings(examples(DEVOICING))
    given = {"2": segment("voga")}  # a stem the table never showed, in the suffixed cell
    assert strings.string_of("vog", given) == "vog"
    best = strings.spell("vog", "1", given)[0][0]
    assert "".join(best) == "vok"
    right, wrong = strings.costs("rad", "1", [segment("rat"), segment("rad")])
    assert right + 1 < wrong


def test_processes_read_as_rules_with_their_stems():
    found = {process.rule: process for process in processes(UnderlyingStrings(examples(DEVOICING)))}
    assert "d → t / _#" in found and "b → p / _#" in found and "g → k / _#" in found
    assert found["b → p / _#"].stems == {"lib", "sob", "nab"}
    assert "lib → lip" in found["b → p / _#"].examples


def test_the_table_of_morphemes_names_stems_and_cells():
    morphemes = {m.name: m for m in UnderlyingStrings(examples(DEVOICING)).morphemes()}
    assert (morphemes["rad"].kind, morphemes["rad"].underlying) == ("stem", "rad")
    assert set(morphemes["rad"].surface) == {"rat", "rad"}
    assert (morphemes["2"].kind, morphemes["2"].underlying, morphemes["2"].score) == (
        "cell", "-a", 1.0,
    )  # fmt: skip
    assert morphemes["1"].underlying == "∅"


def test_affixes_read_as_a_linguist_writes_them():
    assert [affix("", "lar"), affix("ku", ""), affix("ku", "a"), affix("", "")] == [
        "-lar", "ku-", "ku-…-a", "∅",
    ]  # fmt: skip


def test_segments_of_several_characters_are_one_symbol_of_their_kind():
    alphabet = Alphabet()
    string = alphabet.string(("t͡ʃ", "a", "aː"))
    assert len(string) == 3 and [kind(c) for c in string] == ["C", "V", "V"]
    assert alphabet.symbols_of(string) == ("t͡ʃ", "a", "aː")


def test_uf_strings_and_processes_of_a_table_run(cli, tmp_path):
    table = tmp_path / "devoicing.csv"
    lines = [f"{stem},{bare},{suffixed}" for stem, (bare, suffixed) in DEVOICING.items()]
    lines.append("vog,,voga")  # a gap: the bare form of a new stem
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    fill = cli("fill", str(table), "--stem-column", "1", "--out", str(out), "--epochs", "2",
               "--candidates", "analogy")  # fmt: skip
    assert fill.code == 0, fill.err
    strings = cli("uf", "strings", "-m", str(out))
    assert strings.code == 0, strings.err
    rows = [line.split("\t") for line in strings.out.splitlines()]
    assert rows[0] == ["morpheme", "kind", "underlying", "score", "surface"]
    found = {row[0]: row for row in rows[1:]}
    assert found["lib"][1:3] == ["stem", "lib"] and found["3"][1:3] == ["cell", "-a"]
    processes = cli("uf", "processes", "-m", str(out))
    assert processes.code == 0, processes.err
    header, *rules = [line.split("\t") for line in processes.out.splitlines()]
    assert header[:2] == ["process", "input"]
    devoicing = [r for r in rules if r[3] == "_#" and (r[1:3] == ["b", "p"] or r[2] == "[-voi]")]
    assert devoicing, rules  # by segment, or one process with panphon's features
    assert "process" in processes.err  # the table on stderr


def test_fill_from_the_strings_alone_spells_out_what_no_rewrite_gives(cli, tmp_path):
    table = tmp_path / "devoicing.csv"
    lines = [f"{stem},{bare},{suffixed}" for stem, (bare, suffixed) in DEVOICING.items()]
    lines += ["vog,,voga", "zat,zat,"]  # a voiced stem's bare form, a stem's suffixed form
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    fill = cli("fill", str(table), "--stem-column", "1", "--out", str(out), "--epochs", "2",
               "--candidates", "ur", "--long")  # fmt: skip
    assert fill.code == 0, fill.err
    rows = {row[0]: row for row in (line.split("\t") for line in fill.out.splitlines()[1:])}
    assert rows["vog"][1:3] == ["2", "vok"] and rows["vog"][4] == "vog"
    assert rows["zat"][1:3] == ["3", "zata"] and rows["zat"][4] == "zat"
    stored = (out / "strings.tsv").read_text(encoding="utf-8")  # kept by fill
    assert "vog\tstem\tvog\t" in stored
    assert json.loads((out / "config.json").read_text())["model"]["candidates"] == "ur"


def test_with_features_one_change_of_several_segments_is_one_process():
    values = {"b": "+-", "p": "--", "d": "+-", "t": "--", "g": "+-", "k": "--", "a": "++"}
    values |= {s: "++" for s in "ioeu"} | {s: "+-" for s in "rlmnfv"}  # voi, syl (rough)
    table = lambda s: {"voi": values[s][0], "syl": values[s][1]} if s in values else None  # noqa: E731
    found = {p.rule: p for p in processes(UnderlyingStrings(examples(DEVOICING)), table)}
    assert "[-syl, +voi] → [-voi] / _#" in found, list(found)
    assert found["[-syl, +voi] → [-voi] / _#"].stems == {"rad", "lib", "sob", "mug", "dag",
                                                         "lod", "nab"}  # fmt: skip


# Final raising: a stem's last e is i at the word's end and keeps its e before the suffix.
RAISING = {
    "nime": ("nimi", "nimeæ"), "kive": ("kivi", "kiveæ"), "lehte": ("lehti", "lehteæ"),
    "mæke": ("mæki", "mækeæ"), "reke": ("reki", "rekeæ"), "ove": ("ovi", "ovea"),
    "koske": ("koski", "koskea"), "muuri": ("muuri", "muuria"), "posti": ("posti", "postia"),
    "tukki": ("tukki", "tukkia"), "aamu": ("aamu", "aamua"), "katto": ("katto", "kattoa"),
}  # fmt: skip


def test_an_alternation_pairs_the_symbols_next_to_the_core():
    assert alternations([("nim", ["nimi", "nimeæ"])]) == {("i", "e"), ("e", "i")}
    assert alternations([("kita", ["kitap", "kitabɨ"])]) == {("p", "b"), ("b", "p")}
    strings = UnderlyingStrings(examples(RAISING))
    given = {"2": segment("jokea")}  # a stem the table never showed, in the suffixed cell
    assert strings.string_of("joke", given) == "joke"
    assert "".join(strings.spell("joke", "1", given)[0][0]) == "joki"


# Vowel copy: the suffixes of the first two cells take the stem's last vowel (as Kera's do).
COPYING = {
    stem: (stem + vowel + "n", stem + vowel + "m", stem + "i")
    for stem, vowel in [
        ("ham", "a"), ("bal", "a"), ("ŋaf", "a"), ("ʔas", "a"), ("har", "a"), ("sen", "e"),
        ("pel", "e"), ("kol", "o"), ("mok", "o"), ("ɡid", "i"), ("tis", "i"),
    ]
}  # fmt: skip


def test_a_suffix_vowel_that_copies_the_stems_is_read_by_harmony():
    strings = UnderlyingStrings(examples(COPYING))
    assert strings.inference.evidence.harmonic == {("s", "1", 0), ("s", "2", 0)}
    given = {"1": segment("ɡunun"), "3": segment("ɡuni")}  # a vowel the table never showed
    assert "".join(strings.spell("ɡun", "2", given)[0][0]) == "ɡunum"  # not the frequent -am


# Backness harmony: the suffix is -nak after a back vowel and -nek after a front one (as
# Hungarian's dative is); one stem has y, which the table shows in its bare form alone.
BACKNESS = {
    stem: (stem, stem + ("nak" if stem[1] in "aou" else "nek"))
    for stem in ["bal", "kap", "sok", "tol", "mur", "pud", "hel", "ter", "kip", "vis", "føl", "nøk"]
} | {"byn": ("byn",)}
VOWELS = {"a": "+--", "o": "++-", "u": "+++", "e": "---", "i": "--+", "ø": "-+-", "y": "-++"}


def vowel_features(segment):
    """back, round and high of a vowel; a consonant is known by its syllabicity alone."""
    if segment not in VOWELS:
        return {"syl": "-"} if segment.isalpha() else None
    return {"syl": "+", **dict(zip(("back", "round", "hi"), VOWELS[segment], strict=True))}


def test_a_vowel_the_cell_never_showed_takes_the_suffix_of_its_class():
    strings = UnderlyingStrings(examples(BACKNESS), features=vowel_features)
    assert strings.inference.evidence.classes == {(("s", "2", 0), "nearest"): "back"}
    # y is front and round: -nek by its backness, not -nak by its roundness
    assert "".join(strings.spell("byn", "2")[0][0]) == "bynnek"
    plain = UnderlyingStrings(examples(BACKNESS))  # no features: the cell's vowels alone
    assert not plain.inference.evidence.classes


# Epenthesis by sonority: a stem-final obstruent and sonorant take a vowel between them at
# the word's end (kabr: kabar, kabra), two other consonants do not (kart: kart, karta), as
# in Turkish; tabn is shown in its suffixed form alone, and no stem shows b before n.
SONORITY = {
    "kabr": ("kabar", "kabra"), "satm": ("satam", "satma"), "dakl": ("dakal", "dakla"),
    "nafr": ("nafar", "nafra"), "hasn": ("hasan", "hasna"), "pakm": ("pakam", "pakma"),
    "kart": ("kart", "karta"), "bast": ("bast", "basta"), "marp": ("marp", "marpa"),
    "salk": ("salk", "salka"), "rant": ("rant", "ranta"), "mask": ("mask", "maska"),
}  # fmt: skip


def sonority(segment):
    """syllabic and sonorant."""
    if not segment.isalpha():
        return None
    return {"syl": "+" if segment == "a" else "-", "son": "+" if segment in "arlmn" else "-"}


def test_an_insertion_is_read_by_the_feature_of_its_neighbour_that_tells_most():
    table = [*examples(SONORITY), Example(Entry("tabn", ("2",), "tabna"), segment("tabna"), ())]
    strings = UnderlyingStrings(table, features=sonority)
    assert strings.inference.evidence.classes[GAP, "right"] == "son"
    assert strings.string_of("tabn") == "tabn"
    assert "".join(strings.spell("tabn", "1")[0][0]) == "taban"  # n is a sonorant


def test_what_happens_to_a_symbol_is_read_by_the_feature_of_its_neighbour_that_tells_most():
    # Bukusu: a stem's first stop is voiced after the nasal prefix of the third cell
    # (pakala, mbakala); kula and teexa are shown in their first two cells alone
    table = read_table(SHARED / "textbook" / "Odden_105_Bukusu.csv")
    hidden = {"kula", "teexa"}
    found = [
        Example(Entry(forms[0], (cell,), form), segment(form), ())
        for forms in table.forms
        for cell, form in zip(table.cells, forms, strict=True)
        if form and not (forms[0] in hidden and cell == table.cells[2])
    ]
    strings = UnderlyingStrings(found, features=feature_table())
    assert (OP, "left") in strings.inference.evidence.classes
    spelled = {"".join(strings.spell(stem, table.cells[2])[0][0]) for stem in hidden}
    assert spelled == {"ŋɡula", "ndeexa"}  # not ŋkula, nteexa


def test_what_a_symbol_becomes_is_read_by_the_feature_of_its_neighbour_that_tells_most():
    # Korean (Odden 3.7): a stem's final n takes the place of the next consonant (pan:
    # pampota, paŋkwa); the last stem's form before -kaʧi is hidden
    table = read_table(SHARED / "textbook" / "Odden_3.7_Korean.csv")
    shown = [e for e in table.entries() if (e.lemma, e.bundle) != ("8", "8")]
    found = [Example(e, segment(e.form), ()) for e in shown]
    strings = UnderlyingStrings(found, features=feature_table())
    assert (SUB, "right") in strings.inference.evidence.classes
    assert strings.string_of("8") == "pan"
    assert "".join(strings.spell("8", "8")[0][0]) == "paŋkaʧi"  # not pamkaʧi


def test_a_segment_every_form_shows_and_one_ends_with_is_the_stems():
    # Somali (Odden 4.3): ʔul, ʔuʃa, ʔulo; the l (ʃ before the suffix's t) is in every
    # form and ends the bare one, so the string keeps it: not /ʔu/ with -l, -ʃa, -lo
    table = read_table(SHARED / "textbook" / "Odden_4.3_Somali.csv")
    strings = infer([{c: f for c, f in zip(table.cells, forms, strict=True) if f}
                     for forms in table.forms], features=feature_table()).strings  # fmt: skip
    assert {"ʔul", "bil", "meel", "kaliil", "bohol"} <= set(strings)
    known = {"1": "ʔul", "2": "ʔuʃa", "3": "ʔulo"}
    edges, pairs = {"2": (0, 1), "3": (0, 1)}, {("l", "ʃ"), ("ʃ", "l")}
    assert spanning(["ʔu", "ʔul", "ʔuʃ"], known, edges, frozenset(), pairs) == ["ʔul", "ʔuʃ"]
    # a prefix's last consonant (at-, bʲiz-) stands before every form but starts none:
    # it is not the stem's
    known, edges = {"1": "atrozɨ", "2": "bʲizrozɨ"}, {"1": (1, 0), "2": (3, 0)}
    offered = ["rozɨ", "trozɨ", "zrozɨ"]
    assert spanning(offered, known, edges, frozenset(), {("t", "z"), ("z", "t")}) == offered
    # nor is a symbol most forms of the cell end with (Dutch adjectives seen only in their
    # inflected forms: rode, rodere; most of the first cell's forms end with e)
    known = {"1": "rode", "2": "rodere"}
    assert spanning(["rod", "rode"], known, {}, frozenset(), set()) == ["rode"]
    assert spanning(["rod", "rode"], known, {}, frozenset({("1", True, "e")}), set()) == [
        "rod", "rode"
    ]


def test_a_symbol_that_becomes_its_neighbour_is_one_process_whatever_the_symbols():
    # Finnish-like gradation: t assimilates to the consonant before it (nt → nn, rt → rr,
    # lt → ll) and voices after a vowel; mt → mm is then the same process, not a new one
    table = {"kanta": ("kanta", "kannan"), "parta": ("parta", "parran"),
             "silta": ("silta", "sillan"), "katu": ("katu", "kadun"),
             "pata": ("pata", "padan")}  # fmt: skip
    inference = infer(rows(table))
    assert inference.strings[:3] == ["kant", "part", "silt"]  # and the suffixes -a, -an
    evidence, processes = inference.evidence, inference.processes

    def which(string, into):  # what the string's t becomes before -an, and its cost
        (_, becomes) = op_events(padded(string, "", "an"), string.index("t"), into, evidence)
        return becomes[1], processes.cost(processes.counted(becomes))

    assert which("kant", "n")[0] == "=<"  # the symbol before it
    assert which("kant", "a")[0] == "=>"  # the symbol after it
    copied, cost = which("kamt", "m")
    assert copied == "=<"
    assert cost < which("kamt", "n")[1]  # mt → mm, not mt → mn
    assert which("pat", "d")[1] < math.log(2)  # after a vowel, t voices more often than not


def test_a_syllable_is_closed_by_a_consonant_no_vowel_follows():
    def closed(word):
        inside = range(1, len(word) - 1)
        return "".join("c" if in_closed_syllable(word, at) else "o" for at in inside)

    assert closed("#doːshin#") == "ccccccc"  # doːs.hin: the length goes with its vowel
    assert closed("#doːsol#") == "oooccc"  # doː.sol
    assert closed("#lakin#") == "ooccc"  # la.kin
    assert closed("#lakina#") == "oooooo"  # la.ki.na


def test_a_long_vowel_shortens_in_a_closed_syllable():
    # Yawelmani: doshin, dosko, doːsol, doːsit; the length is the string's where the
    # syllable is open, lost where it is closed (the textbook's /doːs/, not /dos/)
    table = read_table(SHARED / "textbook" / "Odden_170_Yawelmani.csv")
    strings = infer([{c: f for c, f in zip(table.cells, forms, strict=True) if f}
                     for forms in table.forms]).strings  # fmt: skip
    assert {"doːs", "ṣaːp", "laːn", "meːk", "woːn", "paxaːt", "hiweːt", "ʔopoːt"} <= set(strings)


def test_a_pair_is_missing_only_where_its_parts_would_show_it():
    forms = ["tata", "tate", "tete", "teta", "pata", "tapa", "zu"]
    tactics = Phonotactics(forms)
    assert tactics.unseen_pair("a", "a")  # a and a are frequent: aa is a gap of the language
    assert not tactics.unseen_pair("z", "a")  # z is rare: za is unseen by chance
    assert not tactics.unseen_pair("t", "a")  # seen


def test_with_features_a_substitution_counts_as_the_features_it_changes():
    voicing = {"b": "+", "p": "-", "d": "+", "t": "-", "g": "+", "k": "-", "a": "+"}

    def table(segment):
        if segment not in voicing:
            return None  # a segment the table does not know
        return {"voi": voicing[segment], "syl": "+" if segment == "a" else "-"}

    plain = infer(rows(DEVOICING))
    featured = infer(rows(DEVOICING), features=table)
    assert featured.evidence.change("d", "t") == featured.evidence.change("b", "p") == "[-voi]"
    assert plain.evidence.change("d", "t") == "t"  # without a feature table: the symbol
    # the devoicing of b and g vouches for that of d: a d-stem's final t costs less so
    rad = featured.stems[0]
    assert rad is not None and plain.stems[0] is not None
    assert (
        cost_of(rad, "rad", featured.processes)[0]
        < cost_of(plain.stems[0], "rad", plain.processes)[0]
    )


def test_the_search_ends_with_the_cost_of_the_whole_table():
    # Turkish 4.5: the starts and the moves are compared by this cost, each stem's forms
    # costed given every other stem's final strings and analyses
    table = read_table(SHARED / "textbook" / "Odden_4.5_Turkish.csv")
    prepared = prepare([{c: f for c, f in zip(table.cells, forms, strict=True) if f}
                        for forms in table.forms])  # fmt: skip
    search = Search(prepared.stems, prepared.processes)
    start = [max(stem.candidates, key=len) for stem in prepared.stems]
    total, strings, found, chosen = search.ascend(start)
    again = 0.0
    for stem, string, analyses in zip(prepared.stems, strings, chosen, strict=True):
        for analysis in analyses.values():
            found.add(analysis, -1)
        again += cost_of(stem, string, found)[0]
        for analysis in analyses.values():
            found.add(analysis)
    assert total == pytest.approx(again)
