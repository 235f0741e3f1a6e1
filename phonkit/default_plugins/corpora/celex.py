"""CELEX2 (Baayen, Piepenbrock & Gulikers 1995; LDC96L14): the ``celex`` corpus; it registers the
``disc`` transcriber too (:class:`phonkit.default_plugins.corpora.disc.Disc`, beside its tables).

CELEX2 is licensed by the LDC and does not ship with phonkit: the reader looks for a copy in
the CD's layout, ``<root>/{dutch,english,german}/<file>/<file>.cd``, under the data directory
or ``$PHONKIT_CELEX``. One entry per inflected wordform of a noun or verb, the phonology and
morphology wordform files joined on IdNum and the lemma file naming each stem and its word
class: ``Entry(lemma=<head>, features=(<FlectType>,), form=<DISC without stress marks and
syllable hyphens>, count=<count>)``, a stem and one affix morpheme, as in the paper's CELEX
experiments. docs/how-to/train.md#celex2 has the files' layouts, the options (``phon_field``,
``affix_field``, ``class_field``, ``classes``), what is merged or skipped, and the errors.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from phonkit.data.corpora import Corpus, CorpusRequest, data_dir
from phonkit.data.lexicon import Entry, Lexicon
from phonkit.default_plugins.corpora.disc import Disc, strip_marks
from phonkit.errors import InputError, at
from phonkit.hookspecs import hookimpl
from phonkit.progress import say

#: ISO 639-3 code -> the language's directory on the CELEX2 CD.
LANGUAGES = {"nld": "dutch", "eng": "english", "deu": "german"}
#: ISO 639-3 code -> the first letter of the language's file names (dpw, epw, gpw).
PREFIXES = {"nld": "d", "eng": "e", "deu": "g"}
CATALOG = "https://catalog.ldc.upenn.edu/LDC96L14"

#: Default field of PhonStrsDISC; English has none, its pronunciations follow PronCnt.
PHON_FIELDS = {"nld": 5, "deu": 5}
#: epw.cd: IdNum\Word\Cob\IdNumLemma\PronCnt, then PronCnt groups of
#: PronStatus\PhonStrsDISC\PhonCVBr\PhonSylBCLX.
PRON_COUNT_FIELD = 5
PRON_GROUP = 4
PRIMARY = "P"

#: CELEX class numbers (ClassNum) of nouns and verbs (how sure that is:
#: docs/how-to/train.md#word-class-numbers).
NOUN, VERB = 1, 4
#: Options: the smallest sensible value of each field option (fields 1-4 are fixed).
FIELD_OPTIONS = {"phon_field": 5, "affix_field": 5, "class_field": 4}
OPTIONS = (*FIELD_OPTIONS, "classes")


@dataclass(frozen=True)
class Options:
    """The ``-O`` options of the reader, validated."""

    phon_field: int | None
    affix_field: int = 5
    class_field: int = 4
    classes: frozenset[int] | None = frozenset({NOUN, VERB})  # None: every class

    @classmethod
    def parse(cls, options: dict[str, str], lang: str) -> Options:
        for key in options:
            if key not in OPTIONS:
                raise InputError(
                    f"unknown corpus option {key!r} for celex; options: {', '.join(OPTIONS)}"
                )
        fields = {
            key: _field_option(key, options[key], least) if key in options else None
            for key, least in FIELD_OPTIONS.items()
        }
        return cls(
            phon_field=fields["phon_field"] or PHON_FIELDS.get(lang),
            affix_field=fields["affix_field"] or cls.affix_field,
            class_field=fields["class_field"] or cls.class_field,
            classes=_classes_option(options.get("classes", f"{NOUN},{VERB}")),
        )


def _field_option(key: str, text: str, least: int) -> int:
    if not re.fullmatch(r"\d+", text.strip()) or int(text) < least:
        raise InputError(
            f"corpus option {key}={text!r}: expected a field number, {least} or more "
            "(fields count from 1 and are separated by backslashes)"
        )
    return int(text)


def _classes_option(text: str) -> frozenset[int] | None:
    if text.strip().lower() == "all":
        return None
    parts = [part.strip() for part in text.split(",")]
    if not parts or not all(re.fullmatch(r"\d+", part) for part in parts):
        raise InputError(
            f"corpus option classes={text!r}: expected 'all' or CELEX class numbers such as "
            f"{NOUN},{VERB} (nouns and verbs)"
        )
    return frozenset(int(part) for part in parts)


@dataclass(frozen=True)
class Pronunciation:
    """A record of the phonology wordform file: a wordform's DISC string and token count."""

    id_num: int
    count: int
    disc: str  # stress marks and syllable hyphens removed; "" where the field is empty


@dataclass(frozen=True)
class Wordform:
    """A record of the morphology wordform file: the wordform's lemma and inflection type."""

    id_num: int
    id_num_lemma: int
    flect_type: str


@dataclass(frozen=True)
class Lemma:
    """A record of the syntax lemma file: the head word and the word class."""

    id_num: int
    head: str
    class_num: int | None  # None where classes are not filtered (the field is not read)


@dataclass(frozen=True)
class CelexFiles:
    """The files of one language: phonology and morphology wordforms, syntax lemmas."""

    language: str  # dutch, english, german
    phonology: Path | None
    morphology: Path | None
    lemmas: Path | None

    @classmethod
    def find(cls, root: Path, lang: str) -> CelexFiles:
        language, prefix = LANGUAGES[lang], PREFIXES[lang]
        return cls(
            language,
            *(_case_lenient(root, language, prefix + kind) for kind in ("pw", "mw", "sl")),
        )


def _case_lenient(root: Path, language: str, name: str) -> Path | None:
    """``root/language/name/name.cd``, each part in lower or upper case (copies of the CD
    differ only in that)."""
    for language_dir in _either_case(root, language):
        for folder in _either_case(language_dir, name):
            for file in _either_case(folder, f"{name}.cd"):
                if file.is_file():
                    return file
    return None


def _either_case(parent: Path, name: str) -> list[Path]:
    return [parent / variant for variant in dict.fromkeys((name, name.upper()))]


def root_candidates(request: CorpusRequest) -> list[tuple[str, Path | None]]:
    """Where CELEX may be, in order, each with how the user would name it."""
    places: list[tuple[str, Path | None]] = []
    if request.data_dir is not None:
        places += [
            ("data.data_dir", request.data_dir),
            ("data.data_dir/celex", request.data_dir / "celex"),
        ]
    celex = os.environ.get("PHONKIT_CELEX")
    places.append(("$PHONKIT_CELEX", Path(celex) if celex else None))
    places.append(("the data dir", data_dir() / "celex"))
    return places


def find_root(request: CorpusRequest, lang: str) -> Path | None:
    """The first candidate root that holds the language's directory."""
    for _, place in root_candidates(request):
        if place is not None and any(d.is_dir() for d in _either_case(place, LANGUAGES[lang])):
            return place
    return None


def not_installed(request: CorpusRequest, lang: str) -> InputError:
    looked = ", ".join(
        f"{name} ({place})" if place is not None else f"{name} (unset)"
        for name, place in root_candidates(request)
    )
    return InputError(
        f"CELEX2 is LDC96L14, licensed by the LDC ({CATALOG}), and phonkit found no "
        f"{LANGUAGES[lang]}/ directory of it: set PHONKIT_CELEX (or data.data_dir) to the "
        f"directory holding dutch/ english/ german/ (looked in {looked})",
        setting="data.data_dir",
    )


def _records(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, backslash-separated fields) of each non-blank line. CELEX files are
    ASCII; latin-1 decodes any byte, so a stray one never stops a 300,000-line read."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.decode("latin-1").rstrip("\r\n")
            if line.strip():
                yield number, line.split("\\")


def _need(fields: list[str], width: int, path: Path, number: int) -> None:
    if len(fields) < width:
        raise InputError(
            f"expected at least {width} backslash-separated fields, found {len(fields)}",
            at(path, number),
        )


def _number(text: str, field: str, path: Path, number: int) -> int:
    # isdigit alone would take other scripts' digits, int() would take "+3" and "1_000"
    if not (text.isascii() and text.isdigit()):
        raise InputError(f"{field} {text!r} is not a number", at(path, number))
    return int(text)


def read_pronunciations(path: Path, options: Options) -> Iterator[Pronunciation]:
    """The records of a phonology wordform file (dpw.cd, epw.cd, gpw.cd)."""
    for number, fields in _records(path):
        if options.phon_field is not None:
            _need(fields, options.phon_field, path, number)
            disc = fields[options.phon_field - 1]
        else:
            disc = _primary_pronunciation(fields, path, number)
        yield Pronunciation(
            _number(fields[0], "IdNum", path, number),
            _number(fields[2], "count", path, number),
            strip_marks(disc.strip()),
        )


def _primary_pronunciation(fields: list[str], path: Path, number: int) -> str:
    """epw.cd: the PhonStrsDISC of the pronunciation with PronStatus P, else of the first."""
    _need(fields, PRON_COUNT_FIELD, path, number)
    count = _number(fields[PRON_COUNT_FIELD - 1], "PronCnt", path, number)
    _need(fields, PRON_COUNT_FIELD + PRON_GROUP * count, path, number)
    groups = [
        fields[PRON_COUNT_FIELD + PRON_GROUP * index : PRON_COUNT_FIELD + PRON_GROUP * (index + 1)]
        for index in range(count)
    ]
    chosen = next((group for group in groups if group[0].strip() == PRIMARY), None)
    chosen = chosen or (groups[0] if groups else None)
    return chosen[1] if chosen else ""


def read_wordforms(path: Path, options: Options) -> Iterator[Wordform]:
    """The records of a morphology wordform file (dmw.cd, emw.cd, gmw.cd)."""
    for number, fields in _records(path):
        _need(fields, max(4, options.affix_field), path, number)
        _number(fields[2], "count", path, number)
        yield Wordform(
            _number(fields[0], "IdNum", path, number),
            _number(fields[3], "IdNumLemma", path, number),
            fields[options.affix_field - 1].strip(),
        )


def read_lemmas(path: Path, options: Options) -> Iterator[Lemma]:
    """The records of a syntax lemma file (dsl.cd, esl.cd, gsl.cd)."""
    filtering, at_class = options.classes is not None, options.class_field
    class_field = f"ClassNum (field {at_class}, -O class_field)"
    for number, fields in _records(path):
        _need(fields, at_class if filtering else 3, path, number)
        _number(fields[2], "count", path, number)
        class_num = _number(fields[at_class - 1], class_field, path, number) if filtering else None
        yield Lemma(_number(fields[0], "IdNum", path, number), fields[1].strip(), class_num)


def stem_names(lemma_ids: Sequence[int], lemmas: dict[int, Lemma] | None) -> dict[int, str]:
    """A readable name per stem: its head word, ``head_IdNum`` where kept lemmas share a head
    (homographs such as the noun and the verb *wind*), its IdNum without a lemma file."""
    if lemmas is None:
        return {id_num: str(id_num) for id_num in lemma_ids}
    heads = {id_num: lemmas[id_num].head or str(id_num) for id_num in lemma_ids}
    shared = Counter(heads.values())
    return {
        id_num: head if shared[head] == 1 else f"{head}_{id_num}" for id_num, head in heads.items()
    }


class Celex(Corpus):
    name = "celex"
    description = (
        "CELEX2 wordforms in DISC with stem + inflection and counts (LDC96L14, licensed; "
        "--data-dir or $PHONKIT_CELEX: the directory holding dutch/ english/ german/)"
    )
    ipa_transcriber = "disc"

    def languages(self, request: CorpusRequest) -> list[str]:
        found = []
        for lang in LANGUAGES:
            root = find_root(request, lang)
            files = CelexFiles.find(root, lang) if root is not None else None
            if files is not None and files.phonology and files.morphology:
                found.append(lang)
        return sorted(found)

    def read(self, request: CorpusRequest) -> Lexicon:
        lang = request.require_lang(self.name)
        if lang not in LANGUAGES:
            raise InputError(
                f"corpus 'celex' has no language {lang!r}; CELEX2 has nld (Dutch), "
                "eng (English) and deu (German)"
            )
        options = Options.parse(request.options, lang)
        root = find_root(request, lang)
        if root is None:
            raise not_installed(request, lang)
        files = CelexFiles.find(root, lang)
        phonology = files.phonology or _missing(root, lang, "pw", "phonology wordform")
        morphology = files.morphology or _missing(root, lang, "mw", "morphology wordform")
        return join(phonology, morphology, files.lemmas, lang, options)


def _missing(root: Path, lang: str, kind: str, what: str) -> Path:
    name = PREFIXES[lang] + kind
    expected = root / LANGUAGES[lang] / name / f"{name}.cd"
    raise InputError(f"CELEX2 {what} file missing: expected {expected}")


def join(
    phonology: Path, morphology: Path, lemma_file: Path | None, lang: str, options: Options
) -> Lexicon:
    """Join the wordform files on IdNum, filter by word class, name the stems, merge duplicates."""
    name = f"celex/{LANGUAGES[lang]}"
    messages: list[str] = []
    lemmas = None
    if lemma_file is None:
        messages.append(
            f"{name}: no syntax lemma file ({PREFIXES[lang]}sl.cd), so every word class is kept "
            "and stems are named by their IdNumLemma"
        )
    else:
        lemmas = {lemma.id_num: lemma for lemma in read_lemmas(lemma_file, options)}

    pronunciations: dict[int, Pronunciation] = {}
    empty: set[int] = set()
    for pronunciation in read_pronunciations(phonology, options):
        if pronunciation.disc:
            pronunciations[pronunciation.id_num] = pronunciation
        else:
            empty.add(pronunciation.id_num)

    joined: set[int] = set()
    skipped: Counter[str] = Counter()
    counts: dict[tuple[int, str, str], int] = {}
    for wordform in read_wordforms(morphology, options):
        if wordform.id_num in empty:
            joined.add(wordform.id_num)  # counted once, as an empty phonology field
            continue
        found = pronunciations.get(wordform.id_num)
        if found is None:
            skipped["no phonology"] += 1
            continue
        joined.add(wordform.id_num)
        if lemmas is not None:
            lemma = lemmas.get(wordform.id_num_lemma)
            if lemma is None:
                skipped["no lemma"] += 1
                continue
            if options.classes is not None and lemma.class_num not in options.classes:
                skipped["other class"] += 1
                continue
        if not wordform.flect_type:
            # no affix to name: CELEX leaves FlectType empty only outside the inflecting
            # classes, so such a record says nothing about inflection
            skipped["no FlectType"] += 1
            continue
        key = (wordform.id_num_lemma, wordform.flect_type, found.disc)
        counts[key] = counts.get(key, 0) + found.count
    unjoined = sum(1 for id_num in pronunciations if id_num not in joined)

    reports = [
        (len(empty), "phonology records had an empty PhonStrsDISC field"),
        (skipped["no phonology"], "morphology records had no phonology record (IdNum)"),
        (unjoined, "phonology records had no morphology record (IdNum)"),
        (
            skipped["no FlectType"],
            f"morphology records had an empty FlectType (field {options.affix_field})",
        ),
        (
            skipped["no lemma"],
            f"morphology records had an IdNumLemma missing from {PREFIXES[lang]}sl.cd",
        ),
    ]
    for number, what in reports:
        if number:
            messages.append(f"{name}: {number:,} {what} and were skipped")
    if skipped["other class"]:
        kept = ",".join(str(n) for n in sorted(options.classes or ()))
        messages.append(
            f"{name}: {skipped['other class']:,} wordforms of word classes other than {kept} "
            "were left out (-O classes=all keeps them)"
        )
    for message in messages:
        say(message)

    names = stem_names(list(dict.fromkeys(key[0] for key in counts)), lemmas)
    entries = [
        Entry(names[id_num_lemma], (flect_type,), form, float(count))
        for (id_num_lemma, flect_type, form), count in counts.items()
    ]
    if not entries:
        raise InputError(f"{name}: no wordforms left after joining the files and filtering")
    lexicon = Lexicon.of(entries, name)
    lexicon.notes = [
        f"{len(entries):,} wordforms of {len(names):,} lemmas from {phonology.name}, "
        f"{morphology.name}" + (f" and {lemma_file.name}" if lemma_file else ""),
        *messages,
    ]
    return lexicon


@hookimpl
def register_corpora(register):
    register(Celex())


@hookimpl
def register_transcribers(register):
    register(Disc())
