"""Reading and writing tab-separated text: compression, strict UTF-8, line numbers."""

from __future__ import annotations

import gzip
import lzma
import os
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, cast

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
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark some editors put at the start of a file


def decode_lines(stream: Iterable[bytes], name: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` without the line ending; reject bytes that are not UTF-8.

    A byte-order mark at the start is dropped: it is not part of the first lemma."""
    try:
        for number, raw in enumerate(stream, start=1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                bad = raw[error.start : error.start + 1].hex()
                raise InputError(
                    f"not valid UTF-8 (byte 0x{bad} at column {error.start + 1})", at(name, number)
                ) from None
            yield number, text.rstrip("\r\n")
    except (lzma.LZMAError, zlib.error, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"cannot decompress: {error}", name) from None


def lines_as_read(stream: Iterable[bytes], name: str) -> Iterator[tuple[int, str, str]]:
    """Yield ``(line number, text, as read)``: the text of :func:`decode_lines`, and the line
    as it came, decoded (its line ending, and on the first line a byte-order mark,
    included), for writing it back."""
    lines: list[bytes] = []

    def kept() -> Iterator[bytes]:
        for raw in stream:
            lines.append(raw)
            yield raw

    for number, text in decode_lines(kept(), name):
        yield number, text, lines.pop().decode("utf-8")


def read_rows(
    path: Path | None, name: str | None = None, stream: Iterable[bytes] | None = None
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
    """Write a file through a temporary file and a rename, so it is complete or absent.

    The file gets the permissions of any new file (0666 less the umask), not the 0600 of a
    temporary file. A path that cannot be written (a directory, no permission, a full disk)
    is an :class:`InputError` naming it; whatever was there before is left as it was."""
    if path.is_dir():
        raise InputError("is a directory; give a file name", at(path))
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", at(path)) from None
    try:
        with os.fdopen(handle, "wb") as out:
            os.fchmod(out.fileno(), 0o666 & ~current_umask())
            out.write(payload)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputError(f"cannot write: {error.strerror or error}", at(path)) from None
        raise


def current_umask() -> int:
    """The process's umask. POSIX can only read it by setting it, so set it back at once."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def format_rows(rows: Iterable[Iterable[object]]) -> str:
    """Rows as TSV text, one line each."""
    return "".join("\t".join(str(value) for value in row) + "\n" for row in rows)
