"""Finding things by name or pattern: regular expressions with one-line errors, and the
closest spellings of a name that is not there."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz import fuzz, process

from phonkit.errors import InputError


def compile_pattern(pattern: str, option: str = "pattern", ignore_case: bool = False) -> re.Pattern:
    """A regular expression over NFC text (forms are NFC, so the pattern is too); a bad one
    is an input error that quotes it and says where it breaks."""
    flags = re.IGNORECASE if ignore_case else 0
    try:
        return re.compile(unicodedata.normalize("NFC", pattern), flags)
    except re.error as error:
        where = f" at position {error.pos}" if error.pos is not None else ""
        raise InputError(
            f"{option}: invalid regular expression {pattern!r}: {error.msg}{where}"
        ) from None


def closest(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """The ``limit`` candidates spelled most like ``name``, ignoring case and diacritics
    (so ``agac`` finds ``ağaç``)."""
    found = process.extract(
        name, list(candidates), scorer=fuzz.ratio, processor=unaccented, limit=limit
    )
    return [match for match, _, _ in found]


def unaccented(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c)
    )
