"""Reading and writing tab-separated text: compression, strict UTF-8, line numbers."""

from __future__ import annotations

import gzip
import lzma
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from phonkit.errors import InputError, at


def open_bytes(path: Path) -> IO[bytes]:
    """Open a file for reading bytes, decompressing ``.xz`` and ``.gz`` by their suffix."""
    if not path.exists():
        raise InputError("no such file", at(path))
    if path.is_dir():
        raise InputError("is a directory, expected a file", at(path))
    if path.suffix == ".xz":
        return lzma.open(path, "rb")
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return path.open("rb")


def decode_lines(stream: Iterable[bytes], name: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` without the line ending; reject bytes that are not UTF-8."""
    try:
        for number, raw in enumerate(stream, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                bad = raw[error.start : error.start + 1].hex()
                raise InputError(
                    f"not valid UTF-8 (byte 0x{bad} at column {error.start + 1})", at(name, number)
                ) from None
            yield number, text.rstrip("\r\n")
    except (lzma.LZMAError, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"cannot decompress: {error}", name) from None


def read_rows(
    path: Path | None, name: str | None = None, stream: IO[bytes] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line number, columns)`` of a TSV file or stream, skipping blank lines."""
    if stream is None:
        assert path is not None
        with open_bytes(path) as handle:
            yield from read_rows(None, name or str(path), handle)
        return
    for number, text in decode_lines(stream, name or "<stdin>"):
        if text.strip():
            yield number, text.split("\t")


def stdin_bytes(what: str) -> IO[bytes]:
    """Standard input as bytes; a terminal with nothing piped in is a usage error, not a hang."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError(f"no input: give {what} as a file argument or pipe it on stdin")
    return sys.stdin.buffer


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write a file through a temporary file and a rename, so it is complete or absent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def format_rows(rows: Iterable[Iterable[object]]) -> str:
    """Rows as TSV text, one line each."""
    return "".join("\t".join(str(value) for value in row) + "\n" for row in rows)
