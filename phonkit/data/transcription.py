"""What a transcriber is: it turns written forms into surface symbols (segments)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from phonkit.data.tsv import decode_lines
from phonkit.errors import InputError, at


class Transcriber:
    """Base class of G2P transcribers. ``joiner`` joins symbols when a form is written out."""

    name: str = ""
    description: str = ""
    joiner: str = " "

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        raise NotImplementedError

    def split(self, text: str) -> tuple[str, ...]:
        """Read back a form written with ``joiner`` (a known cell in predict input)."""
        return tuple(text.split(self.joiner)) if self.joiner else tuple(text)


def read_words(stream: Iterable[bytes], name: str, column: int | None) -> list[str]:
    """Words to transcribe: each non-blank line, or its ``column``-th tab-separated field."""
    if column is not None and column < 1:
        raise InputError(f"column counts from 1, not {column}", setting="column")
    words = []
    for number, line in decode_lines(stream, name):
        if not line.strip():
            continue
        fields = line.split("\t")
        if column is None:
            words.append(line.strip())
        elif column > len(fields):
            raise InputError(
                f"no column {column}: the line has {len(fields)} tab-separated columns",
                at(name, number),
            )
        else:
            words.append(fields[column - 1].strip())
    return words
