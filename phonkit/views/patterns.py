"""Finding things by pattern: regular expressions with one-line errors."""

from __future__ import annotations

import re
import unicodedata

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
