"""The ``celex`` corpus reader and the ``disc`` transcriber, on synthetic files in the CELEX2
layouts (CELEX2 itself is licensed and never on a test machine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from celex_files import LANGUAGE_DIRS, PREFIXES, write_celex, write_files

from conftest import TINY
from phonkit.data.corpora import CorpusRequest
from phonkit.errors import InputError
from phonkit.plugins import lookup


@pytest.fixture(autouse=True)
def no_real_celex(tmp_path, monkeypatch):
    """Neither the user's CELEX nor their data directory is ever looked at."""
    monkeypatch.delenv("PHONKIT_CELEX", raising=False)
    monkeypatch.setenv("PHONKIT_DATA", str(tmp_path / "no-data"))


# A small Dutch lexicon written by hand: hond (noun, with a spelling variant of the
# singular), lopen (verb), mooi (adjective). The morphology file's counts (999) differ from
# the phonology file's on purpose: the count is the phonology file's third field.
DUTCH_PHONOLOGY = [
    "1\\hond\\120\\10\\'hOnt\\[CVCC]\\[hOnt]",
    "2\\honden\\40\\10\\'hOn-d@n\\[CVC][CVC]\\[hOn][d@n]",
    "3\\lopen\\30\\11\\'lo-p@n\\[CV][CVC]\\[lo][p@n]",
    "4\\loop\\0\\11\\'lop\\[CVC]\\[lop]",
    "5\\mooi\\7\\12\\'moj\\[CVC]\\[moj]",
    "6\\hondt\\5\\10\\'hOnt\\[CVCC]\\[hOnt]",
]
DUTCH_MORPHOLOGY = [
    "1\\hond\\999\\10\\e\\",
    "2\\honden\\999\\10\\m\\@+en",
    "3\\lopen\\999\\11\\i\\",
    "4\\loop\\999\\11\\te1\\",
    "5\\mooi\\999\\12\\P\\",
    "6\\hondt\\999\\10\\e\\",
]
DUTCH_LEMMAS = ["10\\hond\\165\\1\\N", "11\\lopen\\30\\4\\N", "12\\mooi\\7\\2\\N"]
DUTCH_ENTRIES = {
    ("hond", ("e",), "hOnt", 125.0),
    ("hond", ("m",), "hOnd@n", 40.0),
    ("lopen", ("i",), "lop@n", 30.0),
    ("lopen", ("te1",), "lop", 0.0),
}


def read(root: Path, lang: str = "nld", **options: str):
    return lookup("corpora", "celex").read(CorpusRequest(lang=lang, data_dir=root, options=options))


def as_set(lexicon) -> set[tuple]:
    return {(e.lemma, e.features, e.form, e.count) for e in lexicon.entries}


@pytest.fixture
def dutch(tmp_path) -> Path:
    return write_files(tmp_path / "celex", "nld", DUTCH_PHONOLOGY, DUTCH_MORPHOLOGY, DUTCH_LEMMAS)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    return write_celex(tmp_path_factory.mktemp("celex"))


def test_joins_the_wordform_files_on_idnum_strips_marks_and_merges_variants(dutch):
    lexicon = read(dutch)
    # the stress mark and the hyphen are gone; the two spellings of "hond" are one entry
    # with 120 + 5 tokens; the adjective "mooi" is left out; count 0 stays 0
    assert as_set(lexicon) == DUTCH_ENTRIES
    assert len(lexicon.entries) == 4
    assert lexicon.name == "celex/dutch"
    entry = lexicon.entries[0]
    assert (entry.lemma, entry.features) == ("hond", ("e",))


def test_class_filter_keeps_nouns_and_verbs_and_can_be_changed(dutch, capsys):
    read(dutch)
    assert "1 wordforms of word classes other than 1,4 were left out" in capsys.readouterr().err
    everything = as_set(read(dutch, classes="all"))
    assert everything == DUTCH_ENTRIES | {("mooi", ("P",), "moj", 7.0)}
    assert as_set(read(dutch, classes="2")) == {("mooi", ("P",), "moj", 7.0)}


def test_without_the_lemma_file_every_class_is_kept_and_stems_are_idnums(tmp_path, capsys):
    root = write_files(tmp_path, "nld", DUTCH_PHONOLOGY, DUTCH_MORPHOLOGY)
    lexicon = read(root)
    assert {entry.lemma for entry in lexicon.entries} == {"10", "11", "12"}
    assert ("12", ("P",), "moj", 7.0) in as_set(lexicon)
    err = capsys.readouterr().err
    assert "no syntax lemma file (dsl.cd)" in err and "every word class is kept" in err


def test_lemmas_sharing_a_head_are_told_apart_by_idnum(tmp_path):
    phonology = [
        "1\\wind\\9\\20\\'wInt\\[CVCC]\\[wInt]",
        "2\\winden\\4\\21\\'wIn-d@n\\[CVC][CVC]\\[wIn][d@n]",
        "3\\hond\\3\\22\\'hOnt\\[CVCC]\\[hOnt]",
    ]
    morphology = ["1\\wind\\9\\20\\e\\", "2\\winden\\4\\21\\i\\", "3\\hond\\3\\22\\e\\"]
    lemmas = ["20\\wind\\9\\1\\N", "21\\wind\\4\\4\\N", "22\\hond\\3\\1\\N"]
    lexicon = read(write_files(tmp_path, "nld", phonology, morphology, lemmas))
    assert sorted(lexicon.lemmas) == ["hond", "wind_20", "wind_21"]


ENGLISH_PHONOLOGY = [
    # the primary pronunciation (P) is the second group
    "1\\wind\\50\\30\\2\\S\\'wInd\\[CVCC]\\[wInd]\\P\\'w2nd\\[CVCC]\\[w2nd]",
    "2\\winds\\10\\30\\1\\P\\'w2ndz\\[CVCCC]\\[w2ndz]",
    # no P among the groups: the first is used
    "3\\live\\8\\31\\2\\S\\'lIv\\[CVC]\\[lIv]\\S\\'l2v\\[CVC]\\[l2v]",
    # two variants that differ only in stress are one form
    "4\\lives\\6\\31\\2\\P\\'lIvz\\[CVCC]\\[lIvz]\\S\\\"lIvz\\[CVCC]\\[lIvz]",
    # PronCnt 0: no transcription
    "5\\lived\\2\\31\\0",
]
ENGLISH_MORPHOLOGY = [
    "1\\wind\\50\\30\\i\\",
    "2\\winds\\10\\30\\e3S\\",
    "3\\live\\8\\31\\i\\",
    "4\\lives\\6\\31\\e3S\\",
    "5\\lived\\2\\31\\a1S\\",
]
ENGLISH_LEMMAS = ["30\\wind\\60\\4\\Y\\N", "31\\live\\16\\4\\Y\\N"]


def test_english_takes_the_primary_pronunciation_else_the_first(tmp_path, capsys):
    root = write_files(tmp_path, "eng", ENGLISH_PHONOLOGY, ENGLISH_MORPHOLOGY, ENGLISH_LEMMAS)
    assert as_set(read(root, "eng")) == {
        ("wind", ("i",), "w2nd", 50.0),
        ("wind", ("e3S",), "w2ndz", 10.0),
        ("live", ("i",), "lIv", 8.0),
        ("live", ("e3S",), "lIvz", 6.0),
    }
    err = capsys.readouterr().err
    assert "celex/english: 1 phonology records had an empty PhonStrsDISC field" in err


def test_records_without_a_partner_or_affix_are_skipped_and_counted_once(dutch, capsys):
    folder = dutch / "dutch"
    with (folder / "dpw" / "dpw.cd").open("a", encoding="latin-1") as handle:
        handle.write("7\\fiets\\3\\13\\'fits\\[CVCC]\\[fits]\n")  # no morphology record
        handle.write("8\\fietsen\\2\\13\\\\\\\n")  # empty DISC
    with (folder / "dmw" / "dmw.cd").open("a", encoding="latin-1") as handle:
        handle.write("9\\fietst\\1\\13\\te2\\\n")  # no phonology record
        handle.write("10\\fietste\\1\\13\\te2\\\n")  # no phonology record
        handle.write("8\\fietsen\\2\\13\\m\\\n")
    with (folder / "dpw" / "dpw.cd").open("a", encoding="latin-1") as handle:
        handle.write("11\\fietse\\4\\13\\'fit-s@\\[CVC][CV]\\[fit][s@]\n")
    with (folder / "dmw" / "dmw.cd").open("a", encoding="latin-1") as handle:
        handle.write("11\\fietse\\4\\13\\\\\n")  # empty FlectType
    with (folder / "dsl" / "dsl.cd").open("a", encoding="latin-1") as handle:
        handle.write("13\\fiets\\10\\1\\N\n")
    lexicon = read(dutch)
    assert as_set(lexicon) == DUTCH_ENTRIES
    err = capsys.readouterr().err.splitlines()
    for line in (
        "celex/dutch: 2 morphology records had no phonology record (IdNum) and were skipped",
        "celex/dutch: 1 phonology records had no morphology record (IdNum) and were skipped",
        "celex/dutch: 1 phonology records had an empty PhonStrsDISC field and were skipped",
        "celex/dutch: 1 morphology records had an empty FlectType (field 5) and were skipped",
    ):
        assert line in err
    assert any("2 morphology records had no phonology" in note for note in lexicon.notes)


def test_column_options_read_other_layouts(tmp_path):
    # another release: PhonStrsDISC in field 6, FlectType in field 6, ClassNum in field 5
    phonology = ["1\\Hund\\12\\40\\[hUnt]\\'hUnt\\[CVCC]", "2\\Hunde\\5\\40\\[hUn][d@]\\'hUn-d@\\x"]
    morphology = ["1\\Hund\\12\\40\\X\\nS", "2\\Hunde\\5\\40\\X\\nP"]
    lemmas = ["40\\Hund\\17\\N\\1"]
    root = write_files(tmp_path, "deu", phonology, morphology, lemmas)
    lexicon = read(root, "deu", phon_field="6", affix_field="6", class_field="5")
    assert as_set(lexicon) == {("Hund", ("nS",), "hUnt", 12.0), ("Hund", ("nP",), "hUnd@", 5.0)}
    # with the defaults the same files give the wrong fields, and say so on ClassNum
    with pytest.raises(InputError, match=r"gsl\.cd:1: ClassNum .*-O class_field.* 'N'"):
        read(root, "deu", phon_field="6", affix_field="6")


def test_phon_field_reads_english_as_one_column(tmp_path):
    phonology = ["1\\cat\\9\\50\\'k{t\\[CVC]"]
    root = write_files(tmp_path, "eng", phonology, ["1\\cat\\9\\50\\S\\"], ["50\\cat\\9\\1"])
    assert as_set(read(root, "eng", phon_field="5")) == {("cat", ("S",), "k{t", 9.0)}


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("nope=1", "unknown corpus option 'nope' for celex; options: phon_field, affix_field"),
        ("phon_field=x", "corpus option phon_field='x': expected a field number"),
        ("affix_field=2", "corpus option affix_field='2': expected a field number, 5 or more"),
        ("classes=N,V", "corpus option classes='N,V': expected 'all' or CELEX class numbers"),
    ],
)
def test_bad_options_are_exit_2_naming_the_option(cli, dutch, option, message):
    args = ("--corpus", "celex", "--lang", "nld", "--data-dir", str(dutch), "-O", option)
    done = cli("train", *args)
    assert done.code == 2 and message in done.err and done.out == ""


@pytest.mark.parametrize(
    ("kind", "line", "record", "message"),
    [
        ("dpw", 2, "2\\honden\\40\\10", "expected at least 5 backslash-separated fields, found 4"),
        ("dpw", 3, "x3\\lopen\\30\\11\\'lo-p@n\\\\", "IdNum 'x3' is not a number"),
        ("dpw", 1, "1\\hond\\many\\10\\'hOnt\\\\", "count 'many' is not a number"),
        ("dmw", 2, "2\\honden\\999\\ten\\m\\", "IdNumLemma 'ten' is not a number"),
        ("dmw", 4, "4\\loop\\999", "expected at least 5 backslash-separated fields, found 3"),
        ("dsl", 1, "10\\hond\\-3\\1\\N", "count '-3' is not a number"),
    ],
)
def test_bad_records_are_one_line_with_file_and_line_and_exit_2(
    cli, dutch, kind, line, record, message
):
    path = dutch / "dutch" / kind / f"{kind}.cd"
    lines = path.read_text(encoding="latin-1").splitlines()
    lines[line - 1] = record
    path.write_text("\n".join(lines) + "\n", encoding="latin-1")
    done = cli("train", "--corpus", "celex", "--lang", "nld", "--data-dir", str(dutch))
    assert done.code == 2 and done.out == ""
    assert done.err.strip() == f"phonkit: error: {path}:{line}: {message}"


def test_an_english_record_shorter_than_its_pronunciation_count_is_bad_input(tmp_path):
    phonology = ["1\\wind\\50\\30\\2\\P\\'wInd\\[CVCC]\\[wInd]"]
    root = write_files(tmp_path, "eng", phonology, ENGLISH_MORPHOLOGY[:1], ENGLISH_LEMMAS)
    with pytest.raises(InputError, match=r"epw\.cd:1: expected at least 13 .* found 9"):
        read(root, "eng")


def test_without_celex_the_error_says_what_it_is_and_where_to_point(cli, tmp_path):
    done = cli("train", "--corpus", "celex", "--lang", "nld", "--out", str(tmp_path / "run"))
    assert done.code == 2 and done.out == ""
    assert len(done.err.strip().splitlines()) == 1
    for part in ("LDC96L14", "https://catalog.ldc.upenn.edu/LDC96L14", "PHONKIT_CELEX"):
        assert part in done.err
    assert "$PHONKIT_CELEX (unset)" in done.err and str(tmp_path / "no-data") in done.err
    assert not (tmp_path / "run").exists()
    listed = cli("corpora")
    assert "celex\t-\t" in listed.out


def test_a_language_celex_lacks_lists_the_three(tmp_path):
    with pytest.raises(InputError, match="CELEX2 has nld .*eng .*deu"):
        read(tmp_path, "fra")


def test_root_from_data_dir_celex_phonkit_celex_and_upper_case_names(tmp_path, monkeypatch):
    write_files(tmp_path / "data" / "celex", "nld", DUTCH_PHONOLOGY, DUTCH_MORPHOLOGY, DUTCH_LEMMAS)
    assert as_set(read(tmp_path / "data")) == DUTCH_ENTRIES

    upper = tmp_path / "cd"
    write_files(upper, "nld", DUTCH_PHONOLOGY, DUTCH_MORPHOLOGY, DUTCH_LEMMAS, upper=True)
    assert (upper / "dutch" / "DPW" / "DPW.CD").is_file()
    monkeypatch.setenv("PHONKIT_CELEX", str(upper))
    reader = lookup("corpora", "celex")
    assert as_set(reader.read(CorpusRequest(lang="nld"))) == DUTCH_ENTRIES
    assert reader.languages(CorpusRequest()) == ["nld"]

    monkeypatch.setenv("PHONKIT_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("PHONKIT_CELEX")
    assert as_set(reader.read(CorpusRequest(lang="nld"))) == DUTCH_ENTRIES


def test_a_missing_wordform_file_names_the_expected_path(dutch):
    (dutch / "dutch" / "dmw" / "dmw.cd").unlink()
    with pytest.raises(InputError, match=r"morphology wordform file missing: .*dmw\.cd"):
        read(dutch)
    assert lookup("corpora", "celex").languages(CorpusRequest(data_dir=dutch)) == []


def test_corpora_lists_celex_with_its_languages(cli, synthetic):
    done = cli("corpora", "--data-dir", str(synthetic))
    row = next(line for line in done.out.splitlines() if line.startswith("celex\t"))
    assert row.split("\t")[1] == "deu,eng,nld"


# --- the synthetic files -------------------------------------------------------------------


def test_synthetic_files_are_deterministic_and_in_every_layout(tmp_path, synthetic):
    again = write_celex(tmp_path / "again")
    for lang, language in LANGUAGE_DIRS.items():
        prefix = PREFIXES[lang]
        for kind in ("pw", "mw", "sl"):
            name = f"{prefix}{kind}"
            first = (synthetic / language / name / f"{name}.cd").read_bytes()
            assert first == (again / language / name / f"{name}.cd").read_bytes()
    english = (synthetic / "english" / "epw" / "epw.cd").read_text(encoding="latin-1")
    # some records put the primary pronunciation second
    assert any(line.split("\\")[5] == "S" for line in english.splitlines())


@pytest.mark.parametrize("lang", ["nld", "eng", "deu"])
def test_synthetic_lexicon_is_big_and_regular_enough_to_train_on(synthetic, lang, capsys):
    lexicon = read(synthetic, lang)
    paradigms: dict[str, int] = {}
    for entry in lexicon.entries:
        paradigms[entry.lemma] = paradigms.get(entry.lemma, 0) + 1
        assert not set("'\"-") & set(entry.form)
    assert len(paradigms) == 60
    # 4-6 forms per stem (a planted empty transcription may take one away)
    assert all(3 <= n <= 6 for n in paradigms.values())
    assert sum(n >= 4 for n in paradigms.values()) >= 57
    counts = [entry.count for entry in lexicon.entries]
    assert min(counts) == 0 and max(counts) > 10 * sorted(counts)[len(counts) // 2]
    assert sum(count > 0 for count in counts) > 0.8 * len(counts)
    # one noun and one verb share a head word; adjectives and adverbs were left out
    assert sum("_" in lemma for lemma in paradigms) >= 2
    assert "were left out (-O classes=all keeps them)" in capsys.readouterr().err


def test_synthetic_english_uses_the_primary_pronunciation(synthetic):
    lines = (synthetic / "english" / "epw" / "epw.cd").read_text(encoding="latin-1").splitlines()
    morphology = (synthetic / "english" / "emw" / "emw.cd").read_text(encoding="latin-1")
    flect = {line.split("\\")[0]: line.split("\\")[4] for line in morphology.splitlines()}
    forms = {(e.features[0], e.form) for e in read(synthetic, "eng", classes="all").entries}
    checked = 0
    for line in lines:
        fields = line.split("\\")
        if fields[4] == "2" and fields[5] == "S" and fields[9] == "P" and flect[fields[0]]:
            primary, other = fields[10], fields[6]
            strip = str.maketrans("", "", "'\"-")
            assert (flect[fields[0]], primary.translate(strip)) in forms
            assert (flect[fields[0]], other.translate(strip)) not in forms
            checked += 1
    assert checked >= 5


def test_synthetic_spelling_variants_are_merged_with_summed_counts(synthetic):
    def records(name: str) -> list[list[str]]:
        text = (synthetic / "dutch" / name / f"{name}.cd").read_text(encoding="latin-1")
        return [line.split("\\") for line in text.splitlines()]

    phonology = {fields[0]: fields for fields in records("dpw")}
    cells: dict[tuple[str, str], list[str]] = {}
    for fields in records("dmw"):
        cells.setdefault((fields[3], fields[4]), []).append(fields[0])
    variants = [ids for ids in cells.values() if len(ids) == 2]
    assert len(variants) >= 3
    counts = {(e.features, e.form): e.count for e in read(synthetic).entries}
    for ids in variants:
        discs = {phonology[id_num][4] for id_num in ids}
        assert len(discs) == 1
        form = discs.pop().translate(str.maketrans("", "", "'-"))
        flect = next(f[4] for f in records("dmw") if f[0] == ids[0])
        assert counts[((flect,), form)] == sum(int(phonology[i][2]) for i in ids)


# --- the disc transcriber ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "disc", "ipa"),
    [
        ("nld", "'hOn-d@n", "h ɔ n d ə n"),
        ("nld", "'K-G@n", "ɛi ɣ ə n"),
        ("nld", "'hLs-w}rk", "h œy s ʋ ʏ r k"),
        ("nld", "'fits", "f i t s"),
        ("eng", "'h6s", "h aʊ s"),
        ("eng", "'J3J", "tʃ ɜː tʃ"),
        ("eng", "'T{Nk-s", "θ æ ŋ k s"),
        ("eng", "'b1-kC", "b eɪ k ŋ̩"),
        ("eng", "'fits", "f iː t s"),
        ("deu", "'+ert", "pf eː r t"),
        ("deu", "'=al", "ts aː l"),
        ("deu", "'lW-t@", "l aɪ t ə"),
        ("deu", "'h/-l@", "h œ l ə"),
        ("deu", "'IC", "ɪ ç"),
    ],
)
def test_disc_gives_each_phoneme_its_ipa_segment_per_language(lang, disc, ipa):
    assert lookup("transcribers", "disc").transcribe(lang, [disc]) == [tuple(ipa.split())]


def test_disc_keeps_unknown_characters_and_warns_once_with_a_count(capsys):
    disc = lookup("transcribers", "disc")
    assert disc.transcribe("nld", ["'h%s", "'%%", "'hOnt"]) == [
        ("h", "%", "s"),
        ("%", "%"),
        ("h", "ɔ", "n", "t"),
    ]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2 nld forms" in err[0] and "%" in err[0]


def test_disc_names_its_languages_for_another(cli):
    with pytest.raises(InputError, match="nld, eng, deu"):
        lookup("transcribers", "disc").transcribe("fra", ["'a"])
    done = cli("transcribe", "--transcriber", "disc", "--lang", "tur", stdin=b"'a\n")
    assert done.code == 2 and "nld, eng, deu" in done.err and done.out == ""


def test_transcribe_command_reads_disc(cli):
    done = cli("transcribe", "--transcriber", "disc", "--lang", "nld", stdin=b"'hOn-d@n\n'K\n")
    assert done.code == 0
    assert done.out == "'hOn-d@n\th ɔ n d ə n\n'K\tɛi\n"


def test_celex_names_disc_as_its_ipa_transcriber():
    assert lookup("corpora", "celex").ipa_transcriber == "disc"


# --- end to end -----------------------------------------------------------------------------


@pytest.mark.parametrize("transcriber", ["none", "disc"])
def test_train_on_celex_writes_a_finished_run(cli, synthetic, tmp_path, transcriber):
    out = tmp_path / f"nld-{transcriber}"
    done = cli(
        "train", "--corpus", "celex", "--lang", "nld", "--data-dir", str(synthetic),
        "--transcriber", transcriber, "--out", str(out), *TINY,
    )  # fmt: skip
    assert done.code == 0, done.err
    assert (out / "metrics.json").is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["corpus"] == "celex" and config["transcriber"] == transcriber
    predictions = (out / "predictions.tsv").read_text(encoding="utf-8")
    if transcriber == "disc":
        assert "ə" in predictions  # IPA segments, written with spaces
    assert "celex/dutch" in done.err
