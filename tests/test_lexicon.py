import gzip
import lzma

import pytest

from phonkit.data.lexicon import Entry, PerFeature, Vocabulary, WholeBundle, parse_columns, read_tsv
from phonkit.errors import InputError


def write(path, text: str | bytes):
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_morphemes_are_lemma_plus_each_feature_or_the_whole_bundle():
    entry = Entry("kitap", ("N", "ACC", "PL"), "kitapları")
    assert PerFeature().morphemes(entry) == ("lemma:kitap", "feat:N", "feat:ACC", "feat:PL")
    assert WholeBundle().morphemes(entry) == ("lemma:kitap", "feat:N;ACC;PL")


def test_reads_unimorph_columns_and_keeps_slash_and_plus_values_whole(tmp_path):
    path = write(tmp_path / "x.tsv", "casă\tcasa\tN;NOM/ACC;SG;DEF\nkala\tkalassa\tN;IN+ESS;SG\n")
    entries = read_tsv(path).entries
    assert entries[0].features == ("N", "NOM/ACC", "SG", "DEF")
    assert entries[1].features == ("N", "IN+ESS", "SG")


@pytest.mark.parametrize("opener", [lzma.open, gzip.open])
def test_reads_compressed_tables(tmp_path, opener):
    suffix = ".xz" if opener is lzma.open else ".gz"
    path = tmp_path / f"t.tsv{suffix}"
    with opener(path, "wt", encoding="utf-8") as out:
        out.write("ev\tevler\tN;PL\nev\tev\tN;SG\n")
    assert [e.form for e in read_tsv(path).entries] == ["evler", "ev"]


def test_exact_duplicates_are_dropped(tmp_path):
    path = write(tmp_path / "d.tsv", "ev\tevler\tN;PL\nev\tevler\tN;PL\n")
    assert len(read_tsv(path)) == 1


def test_configurable_column_order_and_counts(tmp_path):
    path = write(tmp_path / "c.tsv", "ev\tN;PL\tevler\t12\n")
    entry = read_tsv(path, "lemma,features,form,count").entries[0]
    assert (entry.form, entry.features, entry.count) == ("evler", ("N", "PL"), 12.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ev\tevler\tN;PL\nev\tevde\n", "x.tsv:2: expected 3 tab-separated columns, found 2"),
        ("ev\tevler\tN;PL\n\tevde\tN;LOC\n", "x.tsv:2: empty lemma"),
        ("ev\tevler\t;\n", "x.tsv:1: empty feature bundle"),
        (
            b"ev\tevler\tN;PL\nev\tev\xffde\tN;LOC\n",
            "x.tsv:2: not valid UTF-8 (byte 0xff at column 6)",
        ),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, text, message):
    path = write(tmp_path / "x.tsv", text)
    with pytest.raises(InputError) as raised:
        read_tsv(path)
    assert str(raised.value).endswith(message)


def test_bad_count_is_reported(tmp_path):
    path = write(tmp_path / "x.tsv", "ev\tevler\tN;PL\tmany\n")
    with pytest.raises(InputError, match="x.tsv:1: count 'many' is not a number"):
        read_tsv(path, "lemma,form,features,count")


def test_column_spec_needs_the_three_roles():
    with pytest.raises(InputError, match="lacks features"):
        parse_columns("lemma,form")
    assert parse_columns("lemma=2,form=1,features=5") == (
        {"lemma": "2", "form": "1", "features": "5"},
        None,
    )


def test_vocabulary_reserves_pad_bos_eos_unk():
    vocabulary = Vocabulary(["b", "a"])
    assert vocabulary.items[:4] == ["<pad>", "<s>", "</s>", "<unk>"]
    assert vocabulary.encode(["a", "z"]) == [4, 3]
    assert Vocabulary(vocabulary.to_json()).items == vocabulary.items


def test_paradigms_group_items_by_lemma_in_first_seen_order():
    from phonkit.data.lexicon import Entry, paradigms

    entries = [Entry("ev", ("N", "PL"), "evler"), Entry("at", ("N",), "at")]
    entries.append(Entry("ev", ("N",), "ev"))
    grouped = paradigms(entries, lambda entry: entry.lemma)
    assert list(grouped) == ["ev", "at"]
    assert [e.form for e in grouped["ev"]] == ["evler", "ev"]
