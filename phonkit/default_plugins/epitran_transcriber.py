"""The ``epitran`` transcriber: IPA segments from epitran (Mortensen, Dalmia & Littell 2018).

Each word becomes epitran's list of IPA segments, so the model's alphabet is segments such as
``t͡ʃ`` or ``aː``, not code points. Before epitran, phonkit normalises what its tables miss
(docs/how-to/train.md#epitran): Turkish dotted and dotless capitals, the Urdu and Persian
letter variants, Arabic short-vowel marks (epitran's Arabic table has no short vowels),
punctuation; a space inside a multiword form becomes the segment ``_``. Letters epitran
leaves unmapped are kept as symbols and counted in one warning.
"""

from __future__ import annotations

import shutil
import unicodedata
from collections.abc import Sequence
from functools import cache
from importlib.metadata import version
from typing import Any

from phonkit.data.transcription import Transcriber
from phonkit.default_plugins.transcription_cache import TranscriptionCache
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl
from phonkit.progress import say

#: ISO 639-3 code -> epitran language-script code, for the paper's languages epitran covers.
CODES = {
    "ara": "ara-Arab", "ces": "ces-Latn", "cym": "cym-Latn", "deu": "deu-Latn",
    "eng": "eng-Latn", "est": "est-Latn", "fas": "fas-Arab", "fra": "fra-Latn",
    "gle": "gle-Latn", "hin": "hin-Deva", "ita": "ita-Latn", "lav": "lav-Latn",
    "nld": "nld-Latn", "pol": "pol-Latn", "por": "por-Latn", "ron": "ron-Latn",
    "rus": "rus-Cyrl", "spa": "spa-Latn", "sqi": "sqi-Latn", "swe": "swe-Latn",
    "tur": "tur-Latn", "ukr": "ukr-Cyrl", "urd": "urd-Arab",
}  # fmt: skip

ARABIC_MARKS = {chr(c): None for c in range(0x064B, 0x0653)} | {"\u0670": None}

#: Letters rewritten before epitran, per language (what its tables expect).
BEFORE: dict[str, dict[int, Any]] = {
    "tur": str.maketrans({"İ": "i", "I": "ı", "â": "a", "Â": "a", "î": "i", "û": "u"}),
    # The diaeresis only marks a syllable break (coëfficiënt); epitran's table lacks it.
    "nld": str.maketrans({"ë": "e", "ï": "i", "ö": "o", "ü": "u"}),
    # Urdu text uses the Persian-style letters; epitran's Urdu table has the Arabic ones.
    "urd": str.maketrans(
        {"ی": "ي", "ہ": "ه", "ۂ": "ه", "ھ": "ه", "ک": "ك", "ۓ": "ے", "آ": "ا", "ئ": "ي"}
    ),
    # Persian text sometimes has the Arabic letters; epitran's Persian table the Persian ones.
    "fas": str.maketrans({"ي": "ی", "ك": "ک", "ى": "ی"}),
    "ara": str.maketrans(ARABIC_MARKS | {"ى": "ا", "إ": "أ", "ة": "ت"}),
}

#: Segments epitran leaves unmapped although its table lists them, per language.
AFTER = {"fas": {"پ": "p"}}

VERSION = f"{version('epitran')}+1"  # epitran's version + the version of phonkit's fixes
WORD_BOUNDARY = "_"


class Epitran(Transcriber):
    name = "epitran"
    description = "IPA segments from epitran G2P (22 languages of the paper and English)"
    joiner = " "

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        g2p = None
        cached = TranscriptionCache(self.name, VERSION, check_language(lang))
        results, unmapped = [], {}
        for form in forms:
            found = cached.get(form)
            if found is None:
                g2p = g2p or instance(lang)
                found = g2p.segments(form)
                cached.put(form, *found)
            results.append(found[0])
            if found[1]:
                unmapped[form] = found[1]
        cached.save()
        if unmapped:
            letters = sorted(set("".join(unmapped.values())))
            example = next(iter(unmapped))
            say(
                f"warning: epitran could not map {len(unmapped):,} {lang} word"
                f"{'s' * (len(unmapped) != 1)} fully (letters {' '.join(letters[:12])}; e.g. "
                f"{example}); the unmapped letters are kept as symbols"
            )
        return results


def check_language(lang: str) -> str:
    if lang not in CODES:
        raise InputError(
            f"epitran does not cover language {lang!r}; covered: {', '.join(sorted(CODES))}"
        )
    return lang


@cache
def instance(lang: str) -> _Language:
    """One epitran instance per language, reused (building one takes seconds)."""
    return _Language(check_language(lang))


class _Language:
    def __init__(self, lang: str):
        import logging
        import warnings

        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import epitran

            # epitran's import calls logging.basicConfig(level=DEBUG): every message would
            # then be shown twice, and every library's debug lines once; undo it
            root.handlers[:], root.level = handlers, level

            self.epitran = epitran.Epitran(CODES[lang])
            if lang == "eng":
                self.epitran.epi = _flite(epitran)
        self.lang = lang
        self.known = _known_symbols(self.epitran.epi, CODES[lang])

    def segments(self, form: str) -> tuple[tuple[str, ...], str]:
        """The IPA segments of ``form`` and the letters epitran left unmapped."""
        text = unicodedata.normalize("NFC", form).translate(BEFORE.get(self.lang, {}))
        text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
        after = AFTER.get(self.lang, {})
        segments: list[str] = []
        for number, word in enumerate(text.split()):
            if number:
                segments.append(WORD_BOUNDARY)
            segments += [after.get(s, s) for s in self.epitran.trans_list(word)]
        unmapped = "".join(s for s in segments if s != WORD_BOUNDARY and not set(s) <= self.known)
        return tuple(segments), unmapped


def _known_symbols(backend, code: str) -> set[str]:
    """Every character epitran's tables for this language can write: its map's phonemes and
    whatever its pre- and post-processing rules mention (read from the rule files as text)."""
    from importlib.resources import files

    g2p = getattr(backend, "g2p", None)
    if g2p is None:  # flite: ARPAbet mapped to IPA
        return set("".join(getattr(backend, "arpa_map", {}).values()))
    known = set("".join(phone for phones in g2p.values() for phone in phones))
    for stage in ("pre", "post"):
        rules = files("epitran") / "data" / stage / f"{code}.txt"
        if rules.is_file():
            known |= set(unicodedata.normalize("NFD", rules.read_text(encoding="utf-8")))
    return known | set(AFTER_VALUES)


AFTER_VALUES = "".join(v for table in AFTER.values() for v in table.values())


def _flite(epitran):
    """English goes through flite: its dictionary (lex_lookup) when present, else t2p."""
    if shutil.which("lex_lookup"):
        return epitran.flite.FliteLexLookup()
    if shutil.which("t2p"):
        return epitran.flite.FliteT2P()
    raise InputError(
        "epitran needs flite for English: install Debian's package flite (apt-get install "
        "flite; it provides t2p) or build flite's lex_lookup and put it on PATH"
    )


@hookimpl
def register_transcribers(register):
    register(Epitran())
