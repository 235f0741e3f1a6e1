"""Vowel attributes of a lemma from its spelling: its last vowel, that vowel's backness and
rounding. Orthographic vowel classes per language, longest spelling first (Dutch ``oe`` is
one back rounded vowel, ``u`` a front rounded one)."""

from __future__ import annotations

import unicodedata

from phonkit.errors import InputError

B, F = "back", "front"
R, U = "rounded", "unrounded"
VOWELS: dict[str, dict[str, tuple[str, str]]] = {
    # Turkish spelling is phonemic: the eight vowels of its harmony system.
    "tur": {"a": (B, U), "ı": (B, U), "o": (B, R), "u": (B, R),
            "e": (F, U), "i": (F, U), "ö": (F, R), "ü": (F, R)},
    # Spanish: five vowels; central /a/ is grouped with the back vowels, as in [+back].
    "spa": {"a": (B, U), "o": (B, R), "u": (B, R), "e": (F, U), "i": (F, U)},
    # Dutch: vowel spellings, digraphs included (u, uu = /ʏ, y/; oe = /u/; eu = /ø/).
    "nld": {"a": (B, U), "aa": (B, U), "o": (B, R), "oo": (B, R), "oe": (B, R),
            "au": (B, R), "ou": (B, R), "e": (F, U), "ee": (F, U), "i": (F, U),
            "ie": (F, U), "ij": (F, U), "ei": (F, U), "y": (F, U), "u": (F, R),
            "uu": (F, R), "eu": (F, R), "ui": (F, R)},
    # German: umlauts are front rounded.
    "deu": {"a": (B, U), "o": (B, R), "u": (B, R), "au": (B, R), "e": (F, U), "i": (F, U),
            "ie": (F, U), "ei": (F, U), "ä": (F, U), "ö": (F, R), "ü": (F, R), "eu": (F, R),
            "äu": (F, R)},
}  # fmt: skip
ATTRIBUTES = ("last_vowel", "backness", "rounding")


def _plain(text: str) -> str:
    """Lowercase with accents removed, except where the accent makes another vowel letter."""
    kept = set("ıöüä")
    out = []
    for char in unicodedata.normalize("NFC", text.lower()):
        if char in kept:
            out.append(char)
        else:
            out.append(unicodedata.normalize("NFD", char)[0])
    return "".join(out)


def last_vowel(lemma: str, lang: str) -> str | None:
    """The spelling of the lemma's last vowel (the longest spelling in the language's table)."""
    table = vowel_table(lang)
    text = _plain(lemma.replace("I", "ı").replace("İ", "i") if lang == "tur" else lemma)
    longest = max(len(spelling) for spelling in table)
    for end in range(len(text), 0, -1):
        if text[end - 1] not in table and not any(s.endswith(text[end - 1]) for s in table):
            continue
        for size in range(min(longest, end), 0, -1):
            if text[end - size : end] in table:
                return text[end - size : end]
    return None


def vowel_table(lang: str) -> dict[str, tuple[str, str]]:
    if lang not in VOWELS:
        raise InputError(
            f"vowel attributes are not defined for language {lang!r}; they exist for "
            f"{', '.join(VOWELS)} (attributes: {', '.join(ATTRIBUTES)}); "
            "kind and frequency exist for every language"
        )
    return VOWELS[lang]


def attributes(lemma: str, lang: str) -> dict[str, str]:
    """``last_vowel``, ``backness`` and ``rounding`` of a lemma ('' where it has no vowel)."""
    vowel = last_vowel(lemma, lang)
    if vowel is None:
        return dict.fromkeys(ATTRIBUTES, "")
    backness, rounding = VOWELS[lang][vowel]
    return {"last_vowel": vowel, "backness": backness, "rounding": rounding}
