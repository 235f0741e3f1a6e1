"""What a transcriber is: it turns written forms into surface symbols (segments)."""

from __future__ import annotations

from collections.abc import Sequence


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
