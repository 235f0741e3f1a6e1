"""Property-based tests of the TSV reader: whatever the bytes, it yields rows with their line
numbers or raises one InputError naming the line, and never anything else."""

from __future__ import annotations

import gzip
import io
import lzma

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phonkit.data.cells import iter_cells
from phonkit.data.tsv import BOM, decode_lines, format_rows, lines_as_read, read_rows, write_atomic
from phonkit.errors import InputError

# text without line breaks of any kind (str.splitlines would see more lines than the reader)
FIELD = st.text(
    st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters="\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
    ),
    max_size=12,
)
ROWS = st.lists(st.lists(FIELD, min_size=1, max_size=5), max_size=20)


def rows_of(data: bytes, name: str = "t.tsv") -> list[tuple[int, list[str]]]:
    return list(read_rows(None, name, io.BytesIO(data)))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_give_rows_or_one_input_error(data):
    try:
        rows = rows_of(data)
    except InputError as error:
        assert error.where and error.where.startswith("t.tsv:")
        assert "not valid UTF-8" in error.message
        number = int(error.where.rsplit(":", 1)[1])
        bad = data.split(b"\n")[number - 1]
        if number == 1 and bad.startswith(BOM):
            bad = bad[len(BOM) :]
        try:
            bad.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            raise AssertionError(f"line {number} is valid UTF-8 but was refused")
        return
    numbers = [number for number, _ in rows]
    assert numbers == sorted(set(numbers))
    assert all(any(field.strip() for field in row) or len(row) > 1 for _, row in rows)


@settings(max_examples=200)
@given(ROWS, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_valid_text_reads_back_row_for_row(rows, ending, bom):
    text = "".join("\t".join(row) + ending for row in rows)
    data = (BOM if bom else b"") + text.encode("utf-8")
    expected = [(number, row) for number, row in enumerate(rows, start=1) if "\t".join(row).strip()]
    assert rows_of(data) == expected


@settings(max_examples=200)
@given(ROWS, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_lines_as_read_give_the_text_back(rows, ending, bom, last_ending):
    text = ending.join("\t".join(row) for row in rows) + (ending if last_ending else "")
    data = (BOM if bom else b"") + text.encode("utf-8")
    read = list(lines_as_read(io.BytesIO(data), "t.tsv"))
    assert "".join(line for _, _, line in read).encode("utf-8") == data
    assert [(number, text) for number, text, _ in read] == list(
        decode_lines(io.BytesIO(data), "t.tsv")
    )


@settings(max_examples=100)
@given(ROWS, st.sampled_from(["gz", "xz"]))
def test_compressed_files_read_like_plain_ones(tmp_path_factory, rows, suffix):
    data = format_rows(rows).encode("utf-8")
    compress = gzip.compress if suffix == "gz" else lzma.compress
    path = tmp_path_factory.mktemp("c") / f"t.tsv.{suffix}"
    path.write_bytes(compress(data))
    assert list(read_rows(path, "t.tsv")) == rows_of(data)


@settings(max_examples=100)
@given(st.binary(min_size=1, max_size=200), st.sampled_from(["gz", "xz"]))
def test_damaged_compressed_files_are_one_error(tmp_path_factory, garbage, suffix):
    compress = gzip.compress if suffix == "gz" else lzma.compress
    whole = compress(b"kitap\tN;PL\tkitaplar\n" * 20)
    path = tmp_path_factory.mktemp("d") / f"t.tsv.{suffix}"
    path.write_bytes(whole[: len(whole) // 2] + garbage)
    try:
        rows = list(read_rows(path))
    except InputError as error:
        assert "cannot decompress" in error.message or "UTF-8" in error.message
    else:  # the damage may fall in the trailer only: then every row came through
        assert [row for _, row in rows] == [["kitap", "N;PL", "kitaplar"]] * 20


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | ROWS.map(lambda rows: format_rows(rows).encode("utf-8")))
def test_predict_rows_are_cells_or_one_error_naming_a_line(data):
    try:
        cells = list(iter_cells(io.BytesIO(data), "in.tsv"))
    except InputError as error:
        assert error.where and error.where.startswith("in.tsv:")
        return
    for cell in cells:
        assert cell.entry.lemma and cell.entry.features
        assert all(feature.strip() for feature in cell.entry.features)


@settings(max_examples=100)
@given(ROWS)
def test_written_rows_read_back(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("w") / "out.tsv"
    write_atomic(path, format_rows(rows))
    assert list(read_rows(path)) == rows_of(format_rows(rows).encode("utf-8"))
