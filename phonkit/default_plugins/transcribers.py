"""The ``none`` transcriber: orthography, one symbol per NFC code point."""

from __future__ import annotations

from collections.abc import Sequence

from phonkit.hookspecs import hookimpl
from phonkit.lexicon import segment
from phonkit.transcription import Transcriber


class Orthography(Transcriber):
    name = "none"
    description = "orthography: each Unicode character (NFC) is a symbol"
    joiner = ""

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        return [segment(form) for form in forms]

    def split(self, text: str) -> tuple[str, ...]:
        return segment(text)


@hookimpl
def register_transcribers(register):
    register(Orthography())
