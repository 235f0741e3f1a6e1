"""The ``none`` transcriber (orthography, one symbol per NFC code point) and ``segments``
(forms already transcribed, segments separated by spaces)."""

from __future__ import annotations

from collections.abc import Sequence

from phonkit.data.lexicon import segment
from phonkit.data.transcription import Transcriber
from phonkit.hookspecs import hookimpl


class Orthography(Transcriber):
    name = "none"
    description = "orthography: each Unicode character (NFC) is a symbol"
    joiner = ""

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        return [segment(form) for form in forms]

    def split(self, text: str) -> tuple[str, ...]:
        return segment(text)


class Segments(Transcriber):
    name = "segments"
    description = "forms already written as space-separated segments (your own IPA)"
    joiner = " "

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        return [tuple(form.split()) for form in forms]

    def split(self, text: str) -> tuple[str, ...]:
        return tuple(text.split())


@hookimpl
def register_transcribers(register):
    register(Orthography())
    register(Segments())
