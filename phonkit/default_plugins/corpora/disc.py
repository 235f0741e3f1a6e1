"""DISC, the phonetic alphabet of CELEX2, the IPA segment of each DISC character, and the
``disc`` transcriber that reads DISC strings with these tables.

DISC writes every phoneme as one ASCII character (a diphthong, an affricate and a long vowel
are one character each), with ``'`` and ``"`` marking primary and secondary stress and ``-``
a syllable boundary. A few characters mean different sounds in different languages, so there
is one table per language.

Source: the CELEX2 user guide (R. H. Baayen, R. Piepenbrock and L. Gulikers, *The CELEX
Lexical Database*, Release 2, LDC96L14, Linguistic Data Consortium 1995), the tables of
"computer phonetic character sets" (DISC beside SAM-PA, CELEX and CPA, with an example word
for each symbol) in the phonology chapter (section 2.4.1) of its English, Dutch and German
linguistic guides. The IPA given here is the broad phonemic value of each symbol; where the
guides write a Dutch tense vowel as long (``i:`` for ``i`` in *bieten*) while it is short in
standard Dutch phonology, the table gives the short vowel, and the lengthened loanword
vowels (``!`` and ``(``) get the length mark. docs/how-to/train.md#disc says which
entries rest on the example words of secondary sources rather than the guide itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from phonkit.data.transcription import Transcriber
from phonkit.errors import InputError
from phonkit.progress import say

#: Stress marks and the syllable boundary: dropped before segmentation.
MARKS = "'\"-"

#: DISC characters with the same IPA value in all three languages.
_SHARED = {
    "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "ɡ",
    "N": "ŋ", "m": "m", "n": "n", "l": "l", "r": "r",
    "f": "f", "v": "v", "s": "s", "z": "z", "S": "ʃ", "Z": "ʒ",
    "j": "j", "x": "x", "h": "h",
    "J": "tʃ", "_": "dʒ",
    "I": "ɪ", "E": "ɛ", "@": "ə",
    # English vowels that Dutch and German have in English loans (advantage, allround, flirt)
    "#": "ɑː", "$": "ɔː", "3": "ɜː",
}  # fmt: skip

ENGLISH = _SHARED | {
    "T": "θ", "D": "ð", "w": "w",
    # syllabic consonants (bacon, idealism, burden, dangle) and the linking r of "father"
    "C": "ŋ̩", "F": "m̩", "H": "n̩", "P": "l̩", "R": "ʳ",
    "{": "æ", "V": "ʌ", "Q": "ɒ", "U": "ʊ",
    "i": "iː", "u": "uː",
    "1": "eɪ", "2": "aɪ", "4": "ɔɪ", "5": "əʊ", "6": "aʊ", "7": "ɪə", "8": "ɛə", "9": "ʊə",
    # nasalised vowels of French loans (timbre, detente, lingerie, bouillon)
    "c": "æ̃", "q": "ɑ̃ː", "0": "æ̃ː", "~": "ɔ̃ː",
}  # fmt: skip

#: Shared by Dutch and German: short o, the long mid and open vowels, and the nasalised
#: vowels of French loans (croissant, teint, parfum, bouillon).
_CONTINENTAL = {
    "O": "ɔ", "e": "eː", "a": "aː", "o": "oː",
    "q": "ɑ̃ː", "0": "ɛ̃ː", "^": "œ̃ː", "~": "ɔ̃ː",
}  # fmt: skip

DUTCH = (
    _SHARED
    | {
        "G": "ɣ", "w": "ʋ",
        "A": "ɑ", "}": "ʏ",
        "i": "i", "y": "y", "u": "u", "|": "øː",
        "K": "ɛi", "L": "œy", "M": "ɑu",
        # lengthened and loanword vowels (analyse, centrifuge, crème, freule, zone)
        "!": "iː", "(": "yː", ")": "ɛː", "*": "œː", "<": "ɔː",
    }
    | _CONTINENTAL
)  # fmt: skip

GERMAN = (
    _SHARED
    | {
        "+": "pf", "=": "ts", "C": "ç", "w": "w",
        "&": "a", "U": "ʊ", "Y": "ʏ", "/": "œ", "{": "æ",
        "i": "iː", "y": "yː", "u": "uː", "|": "øː", ")": "ɛː",
        "W": "aɪ", "B": "aʊ", "X": "ɔʏ",
    }
    | _CONTINENTAL
)  # fmt: skip

#: ISO 639-3 code -> that language's DISC -> IPA table.
TABLES: dict[str, dict[str, str]] = {"nld": DUTCH, "eng": ENGLISH, "deu": GERMAN}

#: A space inside a multiword form becomes this segment (as in the epitran transcriber).
WORD_BOUNDARY = "_"


_WITHOUT_MARKS = str.maketrans("", "", MARKS)


def strip_marks(disc: str) -> str:
    """The DISC string without stress marks and syllable boundaries: one character per phoneme."""
    return disc.translate(_WITHOUT_MARKS)


def segments(disc: str, table: dict[str, str]) -> tuple[tuple[str, ...], str]:
    """The IPA segments of a DISC string and the characters the table lacks (kept as they are)."""
    found: list[str] = []
    unknown: list[str] = []
    for word_number, word in enumerate(strip_marks(disc).split()):
        if word_number:
            found.append(WORD_BOUNDARY)
        for character in word:
            if character in table:
                found.append(table[character])
            else:
                found.append(character)
                unknown.append(character)
    return tuple(found), "".join(unknown)


class Disc(Transcriber):
    name = "disc"
    description = "IPA segments from CELEX DISC strings (tables for nld, eng, deu)"
    joiner = " "

    def transcribe(self, lang: str, forms: Sequence[str]) -> list[tuple[str, ...]]:
        if lang not in TABLES:
            raise InputError(
                f"the disc transcriber has DISC tables for {', '.join(TABLES)} only, "
                f"not {lang!r} (use data.lang)",
                setting="data.lang",
            )
        table = TABLES[lang]
        results, unknown = [], {}
        for form in forms:
            symbols, missing = segments(form, table)
            results.append(symbols)
            if missing:
                unknown[form] = missing
        if unknown:
            characters = sorted(set("".join(unknown.values())))
            say(
                f"warning: disc: {len(unknown):,} {lang} form{'s' * (len(unknown) != 1)} "
                f"had characters the {lang} DISC table lacks ({' '.join(characters[:12])}; "
                f"e.g. {next(iter(unknown))}); they are kept as symbols"
            )
        return results
