"""Synthetic CELEX2 files in the CD's layouts, for tests: CELEX2 itself (LDC96L14) is
licensed by the LDC and never on a test machine.

``write_celex(root)`` writes, for Dutch, English and German, the phonology wordform file
(``dpw.cd``/``epw.cd``/``gpw.cd``), the morphology wordform file (``dmw.cd``/...) and the
syntax lemma file (``dsl.cd``/...) under ``root/<language>/<name>/<name>.cd``, each in its
language's field layout:

- ``dpw.cd``: ``IdNum\\Word\\Inl\\IdNumLemma\\PhonStrsDISC\\PhonCVBr\\PhonSylBCLX``
- ``gpw.cd``: ``IdNum\\Word\\Mann\\IdNumLemma\\PhonStrsDISC\\PhonSylBCLX\\PhonCVBr``
- ``epw.cd``: ``IdNum\\Word\\Cob\\IdNumLemma\\PronCnt`` and PronCnt groups of
  ``PronStatus\\PhonStrsDISC\\PhonCVBr\\PhonSylBCLX``
- ``?mw.cd``: ``IdNum\\Word\\<count>\\IdNumLemma\\FlectType\\<transformation>``
- ``?sl.cd``: ``IdNum\\Head\\<count>\\ClassNum\\<more fields>``

The lexicon is made to be trained on and k-sampled from: 60 noun and verb stems per language
(seeded, so every call writes the same bytes), each with 4-6 inflected forms made by a regular
process (final devoicing in Dutch and German, e.g. ``'hOnt`` ~ ``'hOn-d@n``; voicing
assimilation of -s and -ed in English), DISC with stress marks and syllable hyphens,
Zipf-like counts with some zeros. English nouns get the genitives -'s and -s' besides
singular and plural (CELEX lists only S and P) so that they too have four cells. Planted on
purpose: English records whose primary pronunciation (PronStatus P) is not the first,
pronunciation variants that differ only in stress, spelling variants of one wordform (same
lemma, inflection and DISC: the reader merges them), a few empty PhonStrsDISC fields, a noun
and a verb that share a head word, and adjectives and adverbs (classes 2 and 7) beside the
nouns (1) and verbs (4).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

LANGUAGE_DIRS = {"nld": "dutch", "eng": "english", "deu": "german"}
PREFIXES = {"nld": "d", "eng": "e", "deu": "g"}
NOUN, ADJECTIVE, VERB, ADVERB = 1, 2, 4, 7

VOWELS = {
    "nld": "IEAO}@iyuaeo|KLM",
    "deu": "IE&OUY/@iyuaeo|WBX",
    "eng": "IE{VQU@i#$u3124567",
}
DEVOICED = {"b": "p", "d": "t", "z": "s", "v": "f", "G": "x", "g": "k"}
#: Letters for the Word and Head fields (only for show: the reader does not use them).
SPELLING = {
    "@": "e", "}": "u", "|": "eu", "K": "ij", "L": "ui", "M": "ou", "N": "ng", "G": "g",
    "&": "a", "/": "o", "W": "ei", "B": "au", "X": "eu", "S": "sch", "=": "z", "+": "pf",
    "{": "a", "V": "u", "Q": "o", "#": "ar", "$": "or", "3": "ir", "1": "ay", "2": "igh",
    "4": "oy", "5": "oa", "6": "ow", "7": "ear", "J": "ch", "_": "j", "T": "th", "D": "dh",
}  # fmt: skip


def spell(disc: str) -> str:
    plain = disc.replace("'", "").replace('"', "").replace("-", "")
    return "".join(SPELLING.get(c, c.lower()) for c in plain)


def cv_pattern(disc: str, lang: str) -> str:
    """PhonCVBr: C or V per phoneme, syllables in brackets."""
    plain = disc.replace("'", "").replace('"', "")
    return "".join(
        "[" + "".join("V" if c in VOWELS[lang] else "C" for c in syllable) + "]"
        for syllable in plain.split("-")
    )


def syllables(disc: str) -> str:
    """A stand-in for PhonSylBCLX (CELEX notation, bracketed syllables): not read by phonkit."""
    if not disc:
        return ""
    plain = disc.replace("'", "").replace('"', "")
    return "".join(f"[{syllable}]" for syllable in plain.split("-"))


@dataclass(frozen=True)
class Stem:
    onset: str
    vowel: str
    coda: str  # at least one consonant

    @property
    def final(self) -> str:
        return self.coda[-1]

    def closed(self, suffix: str = "", devoice: bool = False) -> str:
        """One stressed syllable: the stem (final obstruent devoiced if asked) + a suffix."""
        coda = self.coda[:-1] + DEVOICED.get(self.final, self.final) if devoice else self.coda
        return f"'{self.onset}{self.vowel}{coda}{suffix}"

    def open(self, suffix: str) -> str:
        """The stem before a vowel-initial suffix: its last consonant starts the next syllable."""
        return f"'{self.onset}{self.vowel}{self.coda[:-1]}-{self.final}{suffix}"


@dataclass
class Lexeme:
    class_num: int
    forms: list[tuple[str, str]]  # (FlectType, DISC)
    head: str = ""


def _stems(rng: random.Random, onsets: str, vowels: str, codas: str, n: int) -> list[Stem]:
    found: dict[str, Stem] = {}
    while len(found) < n:
        stem = Stem(rng.choice(onsets.split()), rng.choice(vowels), rng.choice(codas.split()))
        found.setdefault(stem.onset + stem.vowel + stem.coda, stem)
    return list(found.values())


def dutch(rng: random.Random) -> list[Lexeme]:
    stems = _stems(
        rng,
        "p b t d k m n l r f v s z h w j st br kl sl dr xr",
        "IEAO}aeoiyuKLM",
        "b d z v G p t k s f x l m n r lt nd rd ns mp rf",
        60,
    )
    lexemes = []
    for stem in stems[:40]:  # nouns: singular e, plural m, diminutive de and dm
        diminutive = "j@" if stem.final not in "lmnr" else "tj@"
        lexemes.append(
            Lexeme(
                NOUN,
                [
                    ("e", stem.closed(devoice=True)),
                    ("m", stem.open("@n")),
                    ("de", stem.closed(devoice=True) + "-" + diminutive),
                    ("dm", stem.closed(devoice=True) + "-" + diminutive + "s"),
                ],
            )
        )
    for stem in stems[40:]:  # verbs: the past is -t@ after a voiceless stem, -d@ after a voiced
        past = "t@" if stem.final in "ptksfx" else "d@"
        participle = "x@-" + stem.closed(devoice=True) + ("" if stem.final in "td" else "t")
        lexemes.append(
            Lexeme(
                VERB,
                [
                    ("i", stem.open("@n")),
                    ("te1", stem.closed(devoice=True)),
                    ("te2", stem.closed("" if stem.final in "td" else "t", devoice=True)),
                    ("tm", stem.open("@n")),
                    ("ve", stem.closed(devoice=True) + "-" + past),
                    ("pv", participle),
                ],
            )
        )
    return lexemes


def german(rng: random.Random) -> list[Lexeme]:
    stems = _stems(
        rng,
        "p b t d k g m n l r f v z h j S Sl Sp Sv br kl tr + =",
        "IE&OUY/aeoiyu|WBX",
        "b d g z v p k f x S l m n r N lb nd rg ls mp rf",
        60,
    )
    lexemes = []
    for stem in stems[:40]:  # nouns: nom. sg nS, gen. sg gS, nom. pl nP, dat. pl dP
        lexemes.append(
            Lexeme(
                NOUN,
                [
                    ("nS", stem.closed(devoice=True)),
                    ("gS", stem.open("@s")),
                    ("nP", stem.open("@")),
                    ("dP", stem.open("@n")),
                ],
            )
        )
    for stem in stems[40:]:  # verbs: infinitive, present 1/2/3 sg, past, past participle
        sibilant, dental = stem.final in "szS", stem.final in "td"
        lexemes.append(
            Lexeme(
                VERB,
                [
                    ("i", stem.open("@n")),
                    ("1SIE", stem.open("@")),
                    ("2SIE", stem.closed("t" if sibilant else "st", devoice=True)),
                    ("3SIE", stem.open("@t") if dental else stem.closed("t", devoice=True)),
                    ("13SKA", stem.open("@-t@") if dental else stem.closed(devoice=True) + "-t@"),
                    ("pA", "g@-" + (stem.open("@t") if dental else stem.closed("t", devoice=True))),
                ],
            )
        )
    return lexemes


def english(rng: random.Random) -> list[Lexeme]:
    stems = _stems(
        rng,
        "p b t d k g m n l r f v s h w j S T sl st br kl tr",
        "IE{VQUi#$u3124567",
        "p t k b d g f v s z S T m n N l ld nt mp sk",
        60,
    )

    def s_ending(stem: Stem) -> str:
        # -s is [Iz] after a sibilant, [s] after another voiceless consonant, else [z]
        if stem.final in "szSZJ_":
            return stem.open("Iz")
        return stem.closed("s" if stem.final in "ptkfT" else "z")

    def ed_ending(stem: Stem) -> str:
        if stem.final in "td":
            return stem.open("Id")
        return stem.closed("t" if stem.final in "ptkfsST" else "d")

    lexemes = []
    for stem in stems[:20]:  # nouns: singular, plural, genitive singular and plural
        plural = s_ending(stem)
        lexemes.append(
            Lexeme(NOUN, [("S", stem.closed()), ("P", plural), ("Sg", plural), ("Pg", plural)])
        )
    for stem in stems[20:]:  # verbs: infinitive, 3rd sg present, past, participles
        lexemes.append(
            Lexeme(
                VERB,
                [
                    ("i", stem.closed()),
                    ("e3S", s_ending(stem)),
                    ("a1S", ed_ending(stem)),
                    ("pe", stem.open("IN")),
                    ("pa", ed_ending(stem)),
                ],
            )
        )
    return lexemes


#: Words of other classes, per language: (ClassNum, [(FlectType, DISC)]).
OTHERS = {
    "nld": [
        (ADJECTIVE, [("P", "'mop"), ("E", "'mo-p@"), ("PC", "'mo-p@r")]),
        (ADJECTIVE, [("P", "'lAx"), ("E", "'lA-G@")]),
        (ADVERB, [("P", "'vAk")]),
    ],
    "deu": [
        (ADJECTIVE, [("P", "'kl&r"), ("E", "'kl&-r@"), ("C", "'kl&-r@r")]),
        (ADJECTIVE, [("P", "'mat"), ("E", "'ma-t@")]),
        (ADVERB, [("P", "'S/n")]),
    ],
    "eng": [
        (ADJECTIVE, [("b", "'k5ld"), ("c", "'k5l-d@R"), ("s", "'k5l-dIst")]),
        (ADJECTIVE, [("b", "'gr1t"), ("c", "'gr1-t@R")]),
        (ADVERB, [("", "'s3n")]),
    ],
}
GRAMMARS = {"nld": dutch, "deu": german, "eng": english}


@dataclass
class Files:
    """The lines of one language's three files."""

    phonology: list[str] = field(default_factory=list)
    morphology: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)


def _phonology_line(lang: str, fields: list[str], disc: str, variant: int) -> str:
    """The record's phonology line in the language's layout; ``variant`` plants English
    pronunciation variants (1: primary second, 2: a second pronunciation differing in stress)."""
    if lang == "nld":
        return "\\".join([*fields, disc, cv_pattern(disc, lang), syllables(disc)])
    if lang == "deu":
        return "\\".join([*fields, disc, syllables(disc), cv_pattern(disc, lang)])
    groups = [("P", disc)]
    if disc and variant == 1:
        groups = [("S", reduced(disc, lang)), ("P", disc)]
    elif disc and variant == 2:
        groups = [("P", disc), ("S", '"' + disc.lstrip("'"))]
    flat = [
        part
        for status, text in groups
        for part in (status, text, cv_pattern(text, lang) if text else "", syllables(text))
    ]
    return "\\".join([*fields, str(len(groups)), *flat])


def reduced(disc: str, lang: str) -> str:
    """A secondary pronunciation: the stressed vowel reduced to schwa (or schwa to [I])."""
    start = disc.index("'") if "'" in disc else 0
    for index in range(start, len(disc)):
        if disc[index] in VOWELS[lang]:
            return disc[:index] + ("I" if disc[index] == "@" else "@") + disc[index + 1 :]
    return disc + "@"


def build(lang: str) -> Files:
    """The three files of one language, as lines."""
    rng = random.Random(f"phonkit-celex-{lang}")
    lexemes = GRAMMARS[lang](rng)
    rng.shuffle(lexemes)
    # one noun shares its head word with a verb (homographs, as the noun and verb "wind")
    first_noun = next(x for x in lexemes if x.class_num == NOUN)
    first_verb = next(x for x in lexemes if x.class_num == VERB)
    for lexeme in lexemes:
        lexeme.head = spell(lexeme.forms[0][1])
    first_noun.head = first_verb.head
    lexemes += [Lexeme(class_num, list(forms)) for class_num, forms in OTHERS[lang]]
    for lexeme in lexemes[-len(OTHERS[lang]) :]:
        lexeme.head = spell(lexeme.forms[0][1])

    files = Files()
    id_num = 0
    for rank, lexeme in enumerate(lexemes, start=1):
        lemma_id = rank
        lemma_count = int(40000 / rank**1.1)  # Zipf-like
        total = 0
        for cell, (flect_type, disc) in enumerate(lexeme.forms):
            id_num += 1
            count = int(lemma_count / (cell + 1) ** 1.5 / 3)
            if rng.random() < 0.1:
                count = 0
            total += count
            empty = id_num % 97 == 13  # a few records lack a transcription
            variant = 1 if id_num % 11 == 0 else 2 if id_num % 13 == 0 else 0
            word = spell(disc)
            fields = [str(id_num), word, str(count), str(lemma_id)]
            files.phonology.append(_phonology_line(lang, fields, "" if empty else disc, variant))
            files.morphology.append("\\".join([*fields, flect_type, f"@+{flect_type}"]))
            if lexeme.class_num == NOUN and cell == 0 and rank % 9 == 4:
                # a spelling variant of the same wordform: same lemma, inflection and DISC
                id_num += 1
                fields = [str(id_num), word + "h", str(count // 2 + 1), str(lemma_id)]
                files.phonology.append(_phonology_line(lang, fields, disc, 0))
                files.morphology.append("\\".join([*fields, flect_type, f"@+{flect_type}"]))
                total += count // 2 + 1
        extra = ["Y", "N", "N"] if lang == "eng" else ["N", "1"]
        files.lemmas.append(
            "\\".join([str(lemma_id), lexeme.head, str(total), str(lexeme.class_num), *extra])
        )
    return files


def write_files(
    root: Path,
    lang: str,
    phonology: list[str],
    morphology: list[str],
    lemmas: list[str] | None = None,
    upper: bool = False,
) -> Path:
    """Write one language's files from their lines (no lemma file where ``lemmas`` is None;
    ``upper`` writes DPW/DPW.CD-style names); returns ``root``."""
    prefix = PREFIXES[lang]
    contents = {"pw": phonology, "mw": morphology, "sl": lemmas}
    for kind, lines in contents.items():
        if lines is None:
            continue
        name = prefix + kind
        if upper:
            name = name.upper()
        path = root / LANGUAGE_DIRS[lang] / name / (f"{name}.CD" if upper else f"{name}.cd")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes("".join(line + "\r\n" for line in lines).encode("latin-1"))
    return root


def write_celex(root: Path, languages=("nld", "eng", "deu")) -> Path:
    """Write synthetic CELEX2 files for ``languages`` under ``root``; returns ``root``."""
    for lang in languages:
        files = build(lang)
        write_files(root, lang, files.phonology, files.morphology, files.lemmas)
    return root
