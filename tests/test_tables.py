"""Paradigm tables: the reader, the folds over stems, the table baselines, ``phonkit fill``
and ``phonkit experiment tables``, on small tables made here."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path

import pytest

from conftest import SHARED
from phonkit.data.lexicon import Entry, Example, segment
from phonkit.data.table import ParadigmTable, fold_split, read_table, written_form
from phonkit.errors import InputError
from phonkit.plugins import feature_table, installed_feature_table
from phonkit.run.directory import Run
from phonkit.tables.candidates import Rewrites, beside
from phonkit.tables.judges import Judgement, Weights, chosen, judged
from phonkit.tables.proportions import Proportions
from phonkit.tables.rewrites import apply, edit
from phonkit.tasks.baseline import AnalogyBaseline, NearestFormBaseline

# A regular little language: singular STEM, plural STEM+i, and a locative that voices a
# final stop before -a (klup -> klub+a), so the analogy needs the stem's last segment.
STEMS = ["klup", "dom", "snop", "kot", "ʒab", "lis", "nos", "pat", "ruk", "sem", "tak", "vir"]
VOICED = {"p": "b", "t": "d", "k": "ɡ"}


def examples_of(rows, cells, numbered=True):
    """A table's training examples: each row's forms in ``cells`` (an empty form is a gap),
    its stem named by the row's number or, with ``numbered=False``, by its first form."""
    return [
        Example(Entry(str(number) if numbered else row[0], (cell,), form), segment(form), ())
        for number, row in enumerate(rows)
        for cell, form in zip(cells, row, strict=True)
        if form
    ]


def row(stem: str) -> list[str]:
    locative = stem[:-1] + VOICED.get(stem[-1], stem[-1]) + "a"
    return [stem, stem + "i", locative]


def write_table(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return path


@pytest.fixture
def gappy(tmp_path) -> Path:
    """The table with three gaps."""
    rows = [row(stem) for stem in STEMS]
    rows[1][2] = rows[4][1] = rows[9][0] = ""
    return write_table(tmp_path / "gappy.csv", rows)


# -- reading ---------------------------------------------------------------------------------


def test_table_reads_csv_and_tsv_by_extension_with_header_and_stem_names(tmp_path):
    rows = [["stem", "sg", "pl"], ["kot", "kot", "koti"], ["dom", "dom", ""]]
    for suffix, delimiter in ((".csv", ","), (".tsv", "\t")):
        table = read_table(write_table(tmp_path / f"t{suffix}", rows, delimiter), header=True,
                           stem_column=1)  # fmt: skip
        assert table.cells == ["sg", "pl"] and table.stems == ["kot", "dom"]
        assert [(g.row, g.column) for g in table.gaps()] == [(1, 1)]
        assert table.delimiter == delimiter
        assert table.format() == "".join(delimiter.join(r) + "\n" for r in rows)


def test_table_without_header_names_cells_and_stems_by_number(tmp_path):
    table = read_table(write_table(tmp_path / "t.csv", [["a", "ab"], ["c", ""]]))
    assert (table.cells, table.stems) == (["1", "2"], ["1", "2"])
    assert [(e.lemma, e.bundle, e.form) for e in table.entries()] == [
        ("1", "1", "a"), ("1", "2", "ab"), ("2", "1", "c")
    ]  # fmt: skip


def test_table_from_stdin_is_tab_separated():
    table = read_table("-", stream=io.BytesIO(b"ka\tkai\nto\t\n"))
    assert table.forms == [["ka", "kai"], ["to", ""]] and table.delimiter == "\t"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a,b\nc,d,e\n", "t.csv:2: expected 2 fields (as in the first row), found 3"),
        (b"a,b\nc,d,,e\n", "t.csv:2: expected 2 fields (as in the first row), found 4"),
        (b"x,a,b\nx,c,d\n", "t.csv:2: stem 'x' is named twice (first on line 1)"),
        (b"a,b\n\xff,c\n", "t.csv:2: not valid UTF-8 (byte 0xff at column 1)"),
        (b",\n,\n", "t.csv: the table has no filled cell to learn from"),
    ],
)
def test_bad_tables_are_one_line_naming_file_and_line(tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    with pytest.raises(InputError) as error:
        read_table(path, stem_column=1 if b"x," in content else None)
    assert str(error.value) == message.replace("t.csv", str(path))


def test_a_trailing_delimiter_adds_no_field(tmp_path):
    """A spreadsheet writes a trailing comma or tab after some rows or all: empty fields
    past the columns any row fills are no fields; the table is read without them, and
    written back with them, as it came."""
    path = tmp_path / "t.csv"
    path.write_bytes(b"stem,sg,pl\nkot,kot,koti,\ndom,dom,,, \n")
    table = read_table(path, header=True, stem_column=1)
    assert table.forms == [["kot", "koti"], ["dom", ""]]
    assert table.format() == "stem,sg,pl\nkot,kot,koti,\ndom,dom,,, \n"
    assert table.format([["kot", "koti"], ["dom", "domi"]]).endswith("\ndom,dom,domi,, \n")
    tsv = read_table("-", stream=io.BytesIO(b"ka\tkai\t\nto\t\t\t\nsa\tsai\n"))
    assert tsv.forms == [["ka", "kai"], ["to", ""], ["sa", "sai"]]  # the first row's too
    assert tsv.format() == "ka\tkai\t\nto\t\t\t\nsa\tsai\n"


def test_a_field_past_the_first_rows_is_one_line_on_the_command_line(cli, tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes(b"ka\tkai\nto\t\t\tx\n")
    result = cli("fill", str(path))
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"phonkit: error: {path}:2: expected 2 fields (as in the first row), found 4\n"
    )


def test_bad_table_on_the_command_line_exits_2_without_traceback(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\nc,d,e\n")
    result = cli("fill", str(path))
    assert result.code == 2 and result.out == ""
    assert (
        result.err.strip()
        == f"phonkit: error: {path}:2: expected 2 fields (as in the first row), found 3"
    )


# -- what goes back into the table -----------------------------------------------------------


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_known_fields_go_back_as_written_and_filled_ones_as_the_table_writes(tmp_path):
    """What is learnt from is stripped and NFC; what is written back is each field as it
    came in, and a filled gap in the normalization form of the table's known cells."""
    path = tmp_path / "t.csv"
    rows = ["stem,sg, pl", f" {nfd('kötü')},{nfd('kötü')} ,", f"{nfd('ağaç')},,{nfd('ağaçlar')}"]
    path.write_bytes(("\n".join(rows) + "\n").encode())
    table = read_table(path, header=True, stem_column=1)
    assert table.stems == ["kötü", "ağaç"]  # NFC, stripped: what the model learns
    assert table.forms == [["kötü", ""], ["", "ağaçlar"]]
    assert table.normalization == "NFD"
    assert table.format().encode() == path.read_bytes()  # nothing filled: the same bytes
    filled = [["kötü", "kötüler"], ["ağaç", "ağaçlar"]]
    assert table.format(filled).encode() == (
        "\n".join(["stem,sg, pl", f" {nfd('kötü')},{nfd('kötü')} ,{nfd('kötüler')}",
                   f"{nfd('ağaç')},{nfd('ağaç')},{nfd('ağaçlar')}"]) + "\n"
    ).encode()  # fmt: skip


@pytest.mark.parametrize(
    "content",
    [
        b"stem,sg,pl\r\nkot,kot,\r\ndom,dom,domy\r\n",  # a spreadsheet's line endings
        b"stem,sg,pl\nkot,kot,\ndom,dom,domy",  # no line ending after the last line
        b"\xef\xbb\xbfstem,sg,pl\r\nkot,kot,\r\ndom,dom,domy",  # a byte-order mark too
        b"dom,domy",  # one line, no line ending
    ],
)
def test_the_table_comes_back_with_its_line_endings_and_byte_order_mark(tmp_path, content):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    table = read_table(path)
    assert table.format().encode() == content  # nothing filled: the same bytes
    filled = table.format([[form or "koty" for form in row] for row in table.forms])
    assert filled.encode() == content.replace(b"kot,\r", b"kot,koty\r").replace(
        b"kot,\n", b"kot,koty\n"
    )
    piped = read_table("-", stream=io.BytesIO(content.replace(b",", b"\t")))
    assert piped.format().encode() == content.replace(b",", b"\t")


def test_the_table_comes_back_as_it_came_but_for_the_gaps_filled(tmp_path):
    """Blank lines, quoting, a line ending of its own, a quoted empty gap and a field with
    the delimiter in it: every byte outside the filled gaps is as read."""
    content = (
        b'stem,sg,pl\r\n\r\n"kot","kot",\n  \n'
        b'dom,"dom, ""big""",""\r\n'
        b'lis,lis,"lisy"\r\n\r\n'
    )
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    table = read_table(path, header=True, stem_column=1)
    assert table.forms == [["kot", ""], ['dom, "big"', ""], ["lis", "lisy"]]
    assert table.format().encode() == content
    filled = table.format([["kot", "koty"], ['dom, "big"', "domy, \"big\""], ["lis", "lisy"]])
    assert filled.encode() == content.replace(b'"kot",\n', b'"kot",koty\n').replace(
        b'""\r\n', b'"domy, ""big"""\r\n'
    )
    assert [row for row in csv.reader(io.StringIO(filled)) if "".join(row).strip()][2] == [
        "dom", 'dom, "big"', 'domy, "big"'
    ]


def test_a_table_made_in_code_is_written_anew():
    table = ParadigmTable(
        "t", ["kot", "dom"], ["sg", "pl"], [["kot", ""], ["dom", "domy"]],
        header=["stem", "sg", "pl"], stem_column=0, normalization="NFD",
    )  # fmt: skip
    assert table.layout is None
    assert table.format([["kot", "kóty"], ["dom", "domy"]]) == (
        f"stem,sg,pl\nkot,kot,{nfd('kóty')}\ndom,dom,domy\n"
    )


def test_fill_gives_a_spreadsheets_table_back_with_its_endings_and_mark(cli, tmp_path):
    """A spreadsheet's CSV (``\\r\\n``, a byte-order mark, no newline after the last row)
    comes back from ``phonkit fill`` in the same layout, every known line byte for byte."""
    lines = ["stem,sg,pl", "kot,kot,koty", "dom,dom,domy", "nos,nos,", "lis,lis,lisy"]
    content = b"\xef\xbb\xbf" + "\r\n".join(lines).encode()
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    result = cli("fill", str(path), "--header", "--stem-column", "1", "--epochs", "1")
    assert result.code == 0, result.err
    out = result.out.encode()
    assert out.startswith(b"\xef\xbb\xbf") and not out.endswith(b"\n")
    back = out[3:].split(b"\r\n")
    assert [line for number, line in enumerate(back) if number != 3] == [
        line.encode() for number, line in enumerate(lines) if number != 3
    ]
    assert back[3].startswith(b"nos,nos,") and back[3] != b"nos,nos," and b"\n" not in back[3]


def test_the_forms_filled_in_follow_the_known_cells_normalization():
    assert written_form([nfd("kötü"), "kedi", nfd("çiçek")]) == "NFD"
    assert written_form(["kötü", "kedi"]) == "NFC"
    assert written_form([nfd("kötü"), "çiçek"]) == "NFC"  # mixed
    assert written_form(["kedi", "ev", ""]) == "NFC"  # nothing to tell by


TEXTBOOK = SHARED / "textbook" / "Odden_2.5_Makonde.csv"  # written in NFD


@pytest.mark.skipif(not TEXTBOOK.is_file(), reason="needs ../shared/data/textbook")
def test_fill_of_a_decomposed_table_gives_back_its_bytes_and_fills_decomposed(cli, tmp_path):
    rows = list(csv.reader(io.StringIO(TEXTBOOK.read_bytes().decode("utf-8"))))
    assert any(field != unicodedata.normalize("NFC", field) for r in rows for field in r)
    emptied = {(1, 0), (4, 2), (7, 1), (12, 0), (15, 2)}
    for number, column in emptied:
        rows[number][column] = ""
    table = write_table(tmp_path / "makonde.csv", rows)
    fast = ("--epochs", "2", "--set", "candidates=analogy")
    result = cli("fill", str(table), "--out", str(tmp_path / "run"), *fast)
    assert result.code == 0, result.err
    filled = list(csv.reader(io.StringIO(result.out)))
    assert len(filled) == len(rows)
    for number, (before, after) in enumerate(zip(rows, filled, strict=True)):
        for column, (known, written) in enumerate(zip(before, after, strict=True)):
            if (number, column) in emptied:
                assert written and written == nfd(written)
            else:
                assert written.encode() == known.encode()
    gaps = [filled[number][column] for number, column in emptied]
    assert any(gap != unicodedata.normalize("NFC", gap) for gap in gaps)  # accents, decomposed
    # The run's files and --long keep the normalized (NFC) forms the model learnt.
    trained = (tmp_path / "run" / "train.tsv").read_text(encoding="utf-8")
    assert trained == unicodedata.normalize("NFC", trained) != nfd(trained)
    # No dev cells: the judges' default weights, and the width chosen on the training cells.
    judges = json.loads((tmp_path / "run" / "judges.json").read_text())
    assert list(judges) == ["width"] and judges["width"] in (1, 2, 3)
    long = cli("fill", str(table), "--long", *fast)
    assert long.code == 0, long.err
    forms = [line.split("\t")[2] for line in long.out.splitlines()[1:]]
    assert len(forms) == len(emptied)
    assert all(form == unicodedata.normalize("NFC", form) for form in forms)
    assert any(form != nfd(form) for form in forms)


# -- folds and baselines ---------------------------------------------------------------------


def test_folds_hold_out_one_known_cell_of_each_test_stem(gappy):
    entries = read_table(gappy).entries()
    held = []
    for fold in range(1, 6):
        split = fold_split(entries, fold)
        assert sorted(split.train + split.test, key=entries.index) == entries
        stems = [e.lemma for e in split.test]
        assert len(stems) == len(set(stems))
        assert {int(stem) - 1 for stem in stems} <= {i for i in range(12) if i % 5 == fold - 1}
        held += split.test
    assert len(held) == 12  # every stem has two known cells or more
    assert fold_split(entries, 3) == fold_split(entries, 3)


def test_analogy_baseline_learns_a_rewrite_from_the_other_stems():
    paradigms = {
        stem: dict(zip(["sg", "pl", "loc"], map(segment, row(stem)), strict=True))
        for stem in STEMS[1:]
    }
    analogy = AnalogyBaseline(paradigms)
    assert "".join(analogy.fill({"sg": segment("klup")}, "pl")) == "klupi"
    assert "".join(analogy.fill({"pl": segment("klupi")}, "sg")) == "klup"
    nearest = NearestFormBaseline(paradigms)
    assert "".join(nearest.fill({"sg": segment("klup"), "loc": segment("kluba")}, "pl")) == "klup"


# -- fill --------------------------------------------------------------------------------------


def test_fill_writes_the_same_table_with_every_gap_filled(cli, gappy):
    result = cli("fill", str(gappy), "--epochs", "3")
    assert result.code == 0, result.err
    original = gappy.read_text(encoding="utf-8").splitlines()
    filled = result.out.splitlines()
    assert len(filled) == len(original)
    for before, after in zip(original, filled, strict=True):
        old, new = before.split(","), after.split(",")
        assert len(new) == len(old) and all(new)
        assert [o for o in old if o] == [n for n, o in zip(new, old, strict=True) if o]


def test_fill_long_gives_nbest_rows_per_gap_with_scores(cli, gappy):
    result = cli("fill", str(gappy), "--long", "--nbest", "2", "--epochs", "2")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "stem\tcell\tform\tscore\tunderlying"
    rows = [line.split("\t") for line in lines[1:]]
    assert sorted({(r[0], r[1]) for r in rows}) == [("10", "1"), ("2", "3"), ("5", "2")]
    assert len(rows) == 6 and all(float(r[3]) >= 0 for r in rows)
    assert all(r[4] for r in rows)  # each gap's stem has its underlying string


def test_fill_keeps_its_run_for_the_other_commands(cli, gappy, tmp_path):
    out = tmp_path / "run"
    assert cli("fill", str(gappy), "--out", str(out), "--epochs", "2").code == 0
    config = json.loads((out / "config.json").read_text())
    assert config["corpus"] == "table" and config["protocol"] == "all"
    assert config["corpus_request"]["path"] == "../gappy.csv"  # relative to the run
    result = cli("predict", "-m", str(out), stdin=b"2\t3\t\n")
    assert result.code == 0 and result.out.split("\t")[2].strip()
    paradigm = cli("paradigm", "-m", str(out), "2")
    assert paradigm.code == 0 and paradigm.out.count("\n") == 4  # header and three cells
    rows = [line.split("\t") for line in paradigm.out.splitlines()]
    shown = {row[rows[0].index("features")]: row[rows[0].index("prediction")] for row in rows}
    assert shown["3"] == result.out.split("\t")[2].strip()  # the form predict gives the gap
    for command in (("errors",), ("evaluate",)):
        result = cli(*command, "-m", str(out))
        assert result.code == 2 and "the run has no test cells" in result.err


def test_a_run_ranks_with_the_feature_table_it_was_made_with(cli, gappy, tmp_path):
    """The feature table whose proportions make candidates is recorded in config.json, so
    that installing or removing one later cannot change a run's forms: a run made with one
    that is not installed is one line and exit 2; one made before it was recorded reads the
    table installed, as then."""
    out = tmp_path / "run"
    assert cli("fill", str(gappy), "--out", str(out), "--epochs", "2").code == 0
    path = out / "config.json"
    config = json.loads(path.read_text())
    assert config["feature_table"] == installed_feature_table()
    assert Run.open(out).features() == feature_table()
    filled = cli("predict", "-m", str(out), stdin=b"2\t3\t\n")
    assert filled.code == 0

    path.write_text(json.dumps(config | {"feature_table": "no-such-table"}))
    result = cli("predict", "-m", str(out), stdin=b"2\t3\t\n")
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1
    assert str(path) in result.err and "feature table 'no-such-table'" in result.err
    assert "not installed" in result.err

    path.write_text(json.dumps(config | {"feature_table": None}))
    assert Run.open(out).features() is None
    assert cli("predict", "-m", str(out), stdin=b"2\t3\t\n").code == 0

    path.write_text(json.dumps({k: v for k, v in config.items() if k != "feature_table"}))
    assert Run.open(out).features() == feature_table()
    assert cli("predict", "-m", str(out), stdin=b"2\t3\t\n").out == filled.out


def test_a_stopped_fill_goes_on_with_resume_on_its_own_table_only(cli, gappy, tmp_path):
    out = tmp_path / "run"
    first = cli("fill", str(gappy), "--out", str(out), "--epochs", "3")
    assert first.code == 0, first.err
    for name in ("metrics.json", "copy-1.pt", "copy-2.pt"):  # stopped before it finished
        (out / name).unlink(missing_ok=True)
    again = cli("fill", str(gappy), "--out", str(out), "--resume")
    assert (again.code, again.out) == (0, first.out), again.err
    assert (out / "metrics.json").is_file()
    finished = cli("fill", str(gappy), "--out", str(out), "--resume")  # fills, trains nothing
    assert (finished.code, finished.out) == (0, first.out) and "training" not in finished.err
    rows = [row(stem) for stem in STEMS]
    rows[1][2] = ""
    other = cli("fill", str(write_table(tmp_path / "other.csv", rows)), "--out", str(out),
                "--resume")  # fmt: skip
    assert other.code == 2 and "learnt from another table" in other.err
    assert len(other.err.strip().splitlines()) == 1
    assert cli("fill", str(gappy), "--resume").code == 2  # no --out


def test_fill_of_a_full_table_writes_it_back_and_says_so(cli, tmp_path):
    path = write_table(tmp_path / "full.tsv", [row(stem) for stem in STEMS[:3]], "\t")
    result = cli("fill", str(path))
    assert result.code == 0 and result.out == path.read_text(encoding="utf-8")
    assert "no empty cell to fill" in result.err


def test_fill_nbest_needs_long(cli, gappy):
    result = cli("fill", str(gappy), "--nbest", "2")
    assert result.code == 2 and "--nbest N needs --long" in result.err


# -- the benchmark ---------------------------------------------------------------------------


def test_experiment_tables_scores_variants_and_baselines_and_resumes(cli, gappy, tmp_path):
    folder = tmp_path / "tables"
    folder.mkdir()
    gappy.rename(folder / "one.csv")
    write_table(folder / "two.csv", [row(stem) for stem in STEMS[:6]])
    out = tmp_path / "experiment"
    args = ("experiment", "tables", str(folder), "--variants", "pi", "--out", str(out),
            "--set", "epochs=2")  # fmt: skip
    first = cli(*args)
    assert first.code == 0, first.err
    rows = [line.split("\t") for line in (out / "results.tsv").read_text().splitlines()]
    assert rows[0] == ["table", "system", "test_cells", "acc", "mld"]
    assert {(r[0], r[1]) for r in rows[1:]} == {
        (table, system) for table in ("one", "two") for system in ("pi", "analogy", "nearest")
    }
    assert {r[2] for r in rows[1:] if r[0] == "one"} == {"12"}
    assert "won" in (out / "results.md").read_text()
    manifest = json.loads((out / "experiment.json").read_text())
    assert manifest["settings"]["folder"] == "../tables"  # relative to the experiment
    config = json.loads((out / "runs" / "one-f1-pi" / "config.json").read_text())
    assert config["corpus_request"]["path"] == "../../../tables/one.csv"
    # A manifest of an earlier phonkit holds the absolute path: the same command matches it.
    manifest["settings"]["folder"] = str(folder.resolve())
    (out / "experiment.json").write_text(json.dumps(manifest))
    second = cli(*args)
    assert second.code == 0 and second.err.count("reused") == 10
    assert json.loads((out / "experiment.json").read_text())["settings"]["folder"] == "../tables"
    # Its record, elsewhere, still finds the tables its report scores the baselines on.
    record = tmp_path / "results" / "tables"
    assert cli("experiment", "export", str(out), "--out", str(record)).code == 0
    assert json.loads((record / "experiment.json").read_text())["settings"]["folder"] == (
        "../../tables"
    )
    config = json.loads((record / "runs" / "one-f1-pi" / "config.json").read_text())
    assert config["corpus_request"]["path"] == "../../../../tables/one.csv"
    assert cli("experiment", "report", str(record)).code == 0
    assert (record / "results.tsv").read_text() == (out / "results.tsv").read_text()
    # The same experiment from Python has the same settings: every run is reused.
    import phonkit

    base = phonkit.TrainRequest(settings={"epochs": 2})
    ended = phonkit.experiment("tables", out, base, folder=folder, variants=["pi"])
    assert ended == []
    outcomes = json.loads((out / "outcomes.json").read_text())
    assert len(outcomes) == 10 and all(o["status"] == "finished" for o in outcomes.values())


# -- small data: the model chooses among the analogy's candidates ------------------------------

HARMONY = """kitap,kitaplar
okul,okullar
masa,masalar
kuzu,kuzular
yol,yollar
kadın,kadınlar
bal,ballar
dost,dostlar
ev,evler
gül,güller
kedi,kediler
göz,gözler
ip,ipler
el,eller
diş,dişler
yüz,yüzler
araba,
orman,
deniz,
çiçek,
"""


def test_fill_learns_vowel_harmony_where_the_analogy_cannot(cli, tmp_path):
    """Half the stems take -lar, half -ler, by their vowels: the most frequent rewrite is
    wrong for half the gaps; the model, ranking the rewrites by the stems' underlying forms,
    gets every gap (Turkish plural harmony, as in the textbook tables)."""
    path = tmp_path / "harmony.csv"
    path.write_text(HARMONY, encoding="utf-8")
    expected = ["arabalar", "ormanlar", "denizler", "çiçekler"]
    paradigms = {
        line.split(",")[0]: {"1": segment(line.split(",")[0]), "2": segment(line.split(",")[1])}
        for line in HARMONY.splitlines()[:16]
    }
    analogy = AnalogyBaseline(paradigms)
    guesses = ["".join(analogy.fill({"1": segment(g[:-3])}, "2")) for g in expected]
    assert sum(guess == gold for guess, gold in zip(guesses, expected, strict=True)) == 2
    result = cli("fill", str(path))
    assert result.code == 0, result.err
    assert [line.split(",")[1] for line in result.out.splitlines()[16:]] == expected


def test_reliability_prefers_the_rewrite_the_other_stems_take():
    # -ler after a front vowel on three stems, -lar after it on one: both rewrites make a
    # candidate for a new front-vowel stem, and the table trusts the one its stems take.
    rows = [("ev", "evler"), ("ip", "ipler"), ("el", "eller"), ("dil", "dillar"), ("at", "atlar")]
    rewrites = Rewrites(examples_of(rows, ("sg", "pl"), numbered=False))
    known = {"sg": segment("ek")}
    forms = [segment("ekler"), segment("eklar")]
    ler, lar = rewrites.reliability("ek", "pl", forms, known)
    assert ler > lar and ler + lar == pytest.approx(1.0)
    # -ler holds on 3 of the 5 stems, -lar on 2: (3 + ½) / 6 against (2 + ½) / 6
    assert ler / lar == pytest.approx(3.5 / 2.5)
    # a stem's own forms are not evidence for its own gap
    own = rewrites.reliability(
        "ev", "pl", [segment("evler"), segment("evlar")], {"sg": segment("ev")}
    )
    assert own[0] / own[1] == pytest.approx(2.5 / 2.5)


def test_an_input_read_again_keeps_what_was_counted_over_it():
    # an input's new lemmas count beside the training stems; the same input read again (tune
    # chooses the weights on a file, then the file is completed) is not counted again
    rewrites = Rewrites(examples_of([("ev", "evler"), ("at", "atlar")], ("sg", "pl"), False))
    given = examples_of([("el", "eller"), ("dil", "diller")], ("sg", "pl"), numbered=False)
    forms, known = [segment("ekler"), segment("eklar")], {"sg": segment("ek")}
    rewrites.read(given)
    counted, read = rewrites.analogy, rewrites.reliability("ek", "pl", forms, known)
    assert read[0] == pytest.approx(3.5 / 5 / (3.5 / 5 + 1.5 / 5))  # -ler right on 3 of 4
    rewrites.read(list(given))
    assert rewrites.analogy is counted
    assert rewrites.reliability("ek", "pl", forms, known) == read
    rewrites.read([])  # another input: the training stems alone, counted anew
    assert rewrites.analogy is not counted
    assert rewrites.reliability("ek", "pl", forms, known)[0] == pytest.approx(0.5)


def test_reliability_trusts_the_stems_with_the_same_symbol_beside_the_affix():
    # -z on most stems, -əz on those that end in a sibilant: for a new stem ending in s the
    # stems that end in s decide, (right' + share) / (applies' + 1), with the share of all
    # the stems (right + ½) / (applies + 1) as their prior
    rows = [("bɛɡɪŋ", "bɛɡz"), ("lovɪŋ", "lovz"), ("sinɪŋ", "sinz"), ("nidɪŋ", "nidz"),
            ("pasɪŋ", "pasəz"), ("misɪŋ", "misəz")]  # fmt: skip
    rewrites = Rewrites(examples_of(rows, ("ptcp", "3sg"), numbered=False))
    known = {"ptcp": segment("kisɪŋ")}
    forms = [segment("kisz"), segment("kisəz")]
    [(z, ez)] = rewrites.reliabilities("kis", "3sg", forms, known, 1)  # one symbol beside
    assert ez > z
    z_share, ez_share = (4 + 0.5) / 7, (2 + 0.5) / 7  # over all six stems
    assert ez / z == pytest.approx(((2 + ez_share) / 3) / ((0 + z_share) / 3))
    # a stem ending in a symbol no other stem ends in falls back on the shares of all
    forms = [segment("kitz"), segment("kitəz")]
    [(z, ez)] = rewrites.reliabilities("kit", "3sg", forms, {"ptcp": segment("kitɪŋ")}, 1)
    assert z / ez == pytest.approx(z_share / ez_share)
    # beside a rewritten prefix, the symbol after it; beside a rewritten suffix, the one before
    assert beside(edit(segment("werken"), segment("gewerkt")), segment("maken")) == (
        ("m",),
        ("k",),
    )
    assert beside(edit(segment("kisɪŋ"), segment("kisz")), segment("pasɪŋ")) == (None, ("s",))
    # wider: as many symbols as asked for, as many as stand between the affixes at most
    suffix = edit(segment("kisɪŋ"), segment("kisz"))
    assert beside(suffix, segment("pasɪŋ"), 2) == (None, ("a", "s"))
    assert beside(suffix, segment("pasɪŋ"), 5) == (None, ("p", "a", "s"))


def test_the_table_reads_the_stems_like_a_gap_as_wide_as_its_stems_say():
    # -der after -ar, -er after -er: one symbol (r) does not tell them apart, two do
    rows = [("klar", "klarder"), ("dwar", "dwarder"), ("swar", "swarder"),
            ("leker", "lekerer"), ("soper", "soperer"), ("biter", "biterer"),
            ("vlak", "vlaker"), ("rond", "ronder"), ("wit", "witer")]  # fmt: skip
    rewrites = Rewrites(examples_of(rows, ("pos", "cmpr"), numbered=False))
    known = {"pos": segment("gnar")}
    forms = rewrites.candidates("gnar", "cmpr", known)
    assert set(forms) == {segment("gnarer"), segment("gnarder")}
    by_width = rewrites.reliabilities("gnar", "cmpr", forms, known, 3)
    best = [forms[scores.index(max(scores))] for scores in by_width]
    assert best == [segment("gnarer"), segment("gnarder"), segment("gnarder")]
    # left out in turn, the -ar stems are ranked right from two symbols on: the narrowest
    assert rewrites.width == 2
    assert rewrites.reliability("gnar", "cmpr", forms, known) == by_width[1]
    # where one symbol tells as much as two, one
    plain = Rewrites(examples_of(rows[3:], ("pos", "cmpr"), numbered=False))
    assert plain.width == 1


def test_a_gap_in_a_citation_cell_is_the_lemma():
    # the infinitive is the lemma on every verb that shows it: a verb whose known forms lack
    # it has its lemma there; numbered stems have no such cell
    verbs = [("werken", "werkt", "gewerkt"), ("maken", "maakt", "gemaakt"),
             ("horen", "hoort", "gehoord"), ("leren", "leert", "geleerd")]  # fmt: skip
    cells = ("V;NFIN", "V;3;SG", "V.PTCP")
    examples = examples_of(verbs, cells, numbered=False)
    citations = Rewrites(examples, spell=lambda lemmas: [segment(x) for x in lemmas]).citations
    assert citations.cells == ["V;NFIN"]
    known = {"V;3;SG": segment("bakt")}
    assert citations.form("bakken", "V;NFIN", known) == segment("bakken")
    assert citations.form("bakken\t7", "V;NFIN", known) == segment("bakken")  # predict's name
    assert citations.form("bakken", "V.PTCP", known) is None  # not a citation cell
    assert citations.form("bakken", "V;NFIN", {}) is None  # no cell of its paradigm known
    assert Rewrites(examples_of(verbs, cells)).citations.cells == []


def test_the_reliability_votes_as_much_as_the_judges_together():
    ler, lar = segment("ekler"), segment("eklar")
    # the model prefers -lar a little; the table's other stems take -ler far more often
    scored = [(lar, 1.0), (ler, 1.2)]
    assert judged(scored, [], {}, "pl").ranked() == [lar, ler]
    assert judged(scored, [], {}, "pl", [0.2, 0.8]).ranked() == [ler, lar]
    # against a judge that is sure, the reliability does not decide
    assert judged([(lar, 1.0), (ler, 9.0)], [], {}, "pl", [0.2, 0.8]).ranked() == [lar, ler]


def test_the_weights_chosen_on_dev_are_the_defaults_unless_others_rank_more_cells_right():
    ler, lar = segment("ekler"), segment("eklar")
    sure = Judgement([lar, ler], [[1.0, 9.0]], [0.2, 0.8])  # the model is sure of -lar
    assert sure.ranked() == [lar, ler]
    # the reliability weighted twice, or the model read at a higher temperature, gives -ler
    assert sure.ranked(Weights(reliability=2.0)) == [ler, lar]
    assert sure.ranked(Weights(temperature=8.0)) == [ler, lar]
    assert sure.ranked(Weights(reliability=0.5, temperature=2.0)) == [lar, ler]
    # where the gold form is -ler, the weights that rank it right nearest to the defaults
    assert chosen([sure], [ler]) == Weights(reliability=2.0)
    # where the defaults are right, nothing is contested, or the others only tie, they stay
    assert chosen([sure], [lar]) == Weights()
    assert chosen([Judgement([lar])], [ler]) == Weights()
    assert chosen([sure, sure], [lar, ler]) == Weights()


def test_a_rewrite_applies_up_to_the_alternants_its_cells_show():
    # kitabı → kitap: only back-vowel stems show the b-stems' devoicing, but ı → ∅ beside
    # i → ∅ makes ı and i alternants between the two cells, so sebebi → sebep is a candidate
    rows = [("kitabı", "kitap"), ("dolabı", "dolap"), ("kızı", "kız"), ("evi", "ev"),
            ("eli", "el"), ("sebebi", "")]  # fmt: skip
    rewrites = Rewrites(examples_of(rows, ("acc", "nom")))
    assert rewrites.analogy.between("acc", "nom").alternants == {("ı", "i"), ("i", "ı")}
    assert rewrites.candidates("5", "nom") == [segment("sebeb"), segment("sebep")]
    # a rewrite applied up to alternants is as reliable as the table finds it: kitabı → kitap
    # holds on both stems it applies to, as evi → ev does
    found = rewrites.candidates("5", "nom")
    sebeb, sebep = rewrites.reliability("5", "nom", found, rewrites.known("5"))
    assert sebeb == sebep == pytest.approx(0.5)
    # no alternants where no two rewrites of the cells differ by one symbol alone
    assert rewrites.analogy.between("nom", "acc").alternants == frozenset()


# A small feature table: a consonant's voicing, nasality and place; each vowel its own.
PLACES = {"p": "lab", "b": "lab", "m": "lab", "t": "cor", "d": "cor", "n": "cor", "k": "dor",
          "ŋ": "dor", "l": "cor", "r": "cor", "s": "cor"}  # fmt: skip


def features(symbol: str) -> dict[str, str] | None:
    if symbol in PLACES:
        voiced = "-" if symbol in "ptks" else "+"
        nasal = "+" if symbol in "mnŋ" else "-"
        liquid = "+" if symbol in "lr" else "-"
        return {
            "voi": voiced,
            "nas": nasal,
            "liq": liquid,
            "lat": "+" if symbol == "l" else "-",
            "place": PLACES[symbol],
            "syl": "-",
            "strid": "+" if symbol == "s" else "-",
        }
    return {"syl": "+", "vowel": symbol} if symbol in "aeiouə" else None


def test_a_proportion_changes_a_segment_as_the_rewrite_changes_its_own():
    proportion = Proportions(features, "pbmtdnkŋlrsaeiouə")
    assert proportion("p", "m", "k") == "ŋ"  # p : m :: k : ŋ
    assert proportion("t", "d", "p") == "b"
    assert proportion("p", "m", "b") is None  # b differs from p in voicing, which p → m changes
    assert proportion("p", "m", "ʔ") is None  # a segment the table does not know
    assert Proportions(features, "pmk")("p", "m", "k") is None  # no ŋ in the table
    # the rewrite's changed symbol stands for another in proportion: pukul → məmukul
    rule = edit(segment("pukul"), segment("məmukul"))
    assert apply(rule, segment("kirim"), proportions=proportion) == segment("məŋirim")
    assert apply(rule, segment("bantu"), proportions=proportion) is None
    assert apply(rule, segment("kirim")) is None  # without proportions, the exact prefix only


def test_the_rewrites_apply_by_proportion_and_are_trusted_as_far_as_they_hold():
    # Indonesian's nasal that replaces a voiceless stop: no k-stem shows it, the p- and
    # t-stems do; a feature table makes the proportion, and the stems it reaches decide
    rows = [("pukul", "məmukul"), ("tulis", "mənulis"), ("lempar", "məlempar"),
            ("rasa", "mərasa"), ("ŋaco", "məŋaco"), ("kirim", "")]  # fmt: skip
    examples = examples_of(rows, ("stem", "act"))
    assert Rewrites(examples).candidates("5", "act") == [segment("məkirim")]
    rewrites = Rewrites(examples, features=features)
    found = rewrites.candidates("5", "act")
    assert found == [segment("məkirim"), segment("məŋirim")]
    scores = rewrites.reliability("5", "act", found, rewrites.known("5"))
    reliable = dict(zip(found, scores, strict=True))
    # p → məm holds on the one stem it applies to as it is, (1 + ½) / 2, and on the one it
    # reaches by proportion (tulis): (1 + ¾) / 2; mə- holds on 3 of 5 stems, none like kirim
    nasal, plain = (1 + 0.75) / 2, (3 + 0.5) / 6
    assert reliable[segment("məŋirim")] == pytest.approx(nasal / (nasal + plain))
    assert reliable[segment("məkirim")] == pytest.approx(plain / (nasal + plain))


def test_where_the_model_judges_alone_the_reliability_decides_and_the_model_breaks_ties():
    ler, lar = segment("ekler"), segment("eklar")
    sure = Judgement([lar, ler], [[1.0, 3.0]], [0.3, 0.7])  # the model is sure of -lar
    alone, with_copies = Weights.default(copies=False), Weights.default(copies=True)
    assert with_copies == Weights()
    assert sure.ranked(with_copies) == [lar, ler]
    assert sure.ranked(alone) == [ler, lar]
    tied = Judgement([lar, ler], [[1.0, 3.0]], [0.5, 0.5])  # the reliability cannot tell
    assert tied.ranked(alone) == [lar, ler]
    # on dev cells, the weights that rank the most right nearest to equal weights; the
    # default of a model alone where nothing is contested
    assert chosen([sure], [ler], alone) == Weights(reliability=2.0)
    assert chosen([sure], [lar], alone) == Weights()
    assert chosen([Judgement([lar])], [ler], alone) == alone
    assert Rewrites(examples_of([["ev", "evler"]], ("sg", "pl"))).weights == alone


def test_choices_over_more_cells_than_the_bound_read_the_same_sample_each_time():
    """The context width and the judges' weights are chosen on at most ``CHOSEN_ON`` cells:
    all of them, in their order, up to it; beyond it, the same random draw each time."""
    from phonkit.tables.candidates import CHOSEN_ON, drawn

    cells = [("lemma", f"cell {number}") for number in range(50)]
    assert drawn(cells, 50) == cells
    assert len(drawn(list(range(CHOSEN_ON + 5)))) == CHOSEN_ON
    sample = drawn(cells, 10)
    assert len(set(sample)) == 10 and set(sample) <= set(cells)
    assert drawn(cells, 10) == sample
