"""A CELEX-shaped stand-in built from open data, for the learning curve of docs/results/celex.md.

The paper's CELEX experiment uses the subcorpus of Cotterell, Peng & Eisner (2015, "Modeling
word forms using latent underlying morphs and phonology", TACL 3): about 1,000 nouns and verbs
per language, each a stem and at most one affix, chosen for the voicing of the stem's final
obstruent (Dutch and German final devoicing, hond [hɔnt] / honden [hɔndən]; English
assimilation of the affix, dogs [dɑɡz] / cats [kæts]). CELEX2 is licensed; this script writes a
lexicon of that shape from open data:

- forms: UniMorph (Kirov et al. 2018, LREC). Dutch and English read ``unimorph/{nld,eng}.tsv.xz``
  of ``--data-dir``, whose tables hold verbs (and Dutch adjectives) but no nouns, so their
  stand-ins are verbs only; German reads the UniMorph samples of SIGMORPHON 2020 task 0 and
  CoNLL-SIGMORPHON 2017 in ``sigmorphon/`` (nouns and verbs).
- IPA: epitran (Mortensen, Dalmia & Littell 2018, LREC), through phonkit's ``epitran``
  transcriber (English: flite's ``lex_lookup`` when it is on PATH, else ``t2p``). Dutch doubled
  consonants become one segment: epitran writes hebben as [hɛpbɛn], Dutch says [hɛbən].
- counts: wordfreq (Robyn Speer; data CC BY-SA 4.0): the spelling's frequency per 10^9 words,
  shared equally by the lemmas with that spelling, rounded; a count of 0 is never drawn.

The selection, as the 2015 subcorpus was chosen:

1. cells: per part of speech, cells whose regular form is the stem alone or the stem and one
   suffix, one cell per suffix (``CELLS``; syncretic and prefixed cells such as the participle
   are left out); lemmas and forms of letters only (no zeg op, 'it).
2. stem: the common beginning, in IPA, of the paradigm's first two cells (a bare form among
   them, except for German verbs), where vowels may differ (epitran writes one vowel
   differently by the letters after it: Dutch verander [ɛ], veranderen [eː]; German leben
   [lɛbn̩], lebe [lɛːbə]) and the last segment in voicing (t ~ d); it must leave at most one
   segment of the shorter form, hold a vowel and end in an obstruent.
3. words: the cells whose IPA begins with the stem, vowels differing in length at most and
   the last segment in voicing, one per distinct form, so ablaut and umlaut forms (gaf,
   Räder) are left out; a paradigm needs the stem's
   form and a partner.
4. groups: a stem is *voiced* when its final obstruent is voiced in one of its forms and
   *alternates* when it is voiced in some and voiceless in others. In Dutch and German the
   voiced stems are the alternating ones; in English the affix alternates, not the stem.
5. ``--words``: whole paradigms by the count of their least frequent word, descending (ties
   in an order seeded by ``--seed``), taken in turn from each (part of speech, voiced or not)
   queue, each one that still fits.

Output, no header: lemma, IPA segments separated by spaces, features (part of speech first),
count, then for reading only the spelling, the stem's IPA and ``alternates``/``voiced``/
``voiceless``:

    python benchmarks/celex_standin.py --lang nld --data-dir ../shared/data --out nld.tsv
    phonkit experiment celex --corpus tsv --path nld.tsv --lang nld --transcriber segments \\
        --columns lemma=1,form=2,features=3,count=4 --out experiments/celex-standin-nld
"""

from __future__ import annotations

import argparse
import lzma
import random
import shutil
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

Segments = tuple[str, ...]


def canonical(features: str) -> str:
    """A feature bundle with its part of speech first and the rest sorted, so that the 2017
    and 2020 samples (which order features differently) name a cell alike."""
    pos, *rest = [value for value in features.split(";") if value]
    return ";".join([pos, *sorted(rest)])


@dataclass(frozen=True)
class Language:
    wordfreq: str
    tables: tuple[str, ...]  # globs under --data-dir, read in this order
    cells: dict[str, tuple[str, ...]]  # part of speech -> cells; the first two give the stem
    merge_geminates: bool = False


def _cells(*names: str) -> tuple[str, ...]:
    return tuple(canonical(name) for name in names)


LANGUAGES = {
    "nld": Language(
        "nl",
        ("unimorph/nld.tsv*",),
        {"V": _cells("V;IND;PRS;1;SG", "V;NFIN", "V;IND;PRS;3;SG", "V;IND;PST;3;SG")},
        merge_geminates=True,
    ),
    "eng": Language(
        "en",
        ("unimorph/eng.tsv*",),
        {"V": _cells("V;NFIN", "V;3;SG;PRS", "V;PST", "V;V.PTCP;PRS")},
    ),
    "deu": Language(
        "de",
        ("sigmorphon/sigmorphon2020_task0/deu.*", "sigmorphon/conll2017/task*/german-*"),
        {
            "N": _cells("N;NOM;SG", "N;GEN;SG", "N;NOM;PL"),
            "V": _cells(
                "V;IND;PRS;3;SG",
                "V;NFIN",
                "V;IND;PRS;1;SG",
                "V;IND;PRS;2;SG",
                "V;IND;PST;1;SG",
                "V;IMP;2;SG",
            ),
        },
    ),
}

VOICED = dict(zip("bdɡgvzʒðɣʝʁɢɟ", "ptkkfsʃθxçχqc", strict=True)) | {
    "d͡ʒ": "t͡ʃ", "dʒ": "tʃ", "d͡z": "t͡s", "dz": "ts",
}  # fmt: skip
VOICELESS = {voiceless: voiced for voiced, voiceless in VOICED.items()}
OBSTRUENTS = set(VOICED) | set(VOICELESS) | {"p͡f", "pf"}
VOWELS = set("aeiouyæøœɐɑɒɔəɘɛɜɞɤɨɪɯɵɶʉʊʌʏ") | {"\u0329"}  # and syllabic consonants (n̩)


def plain(segment: str) -> str:
    """A segment without length marks (epitran's vowel length is not reliable)."""
    return segment.replace("ː", "")


def voiceless(segment: str) -> str:
    return VOICED.get(plain(segment), plain(segment))


def is_voiced(segment: str) -> bool:
    return plain(segment) in VOICED


def is_obstruent(segment: str) -> bool:
    return plain(segment) in OBSTRUENTS


def has_vowel(segments: Segments) -> bool:
    return any(VOWELS & set(unicodedata.normalize("NFD", s)) for s in segments)


def merge_geminates(segments: Segments) -> Segments:
    """Two like consonants in a row (t t, p b, x ɣ) as the second alone: Dutch has no long
    consonants, but epitran writes each letter of a doubled one."""
    merged: list[str] = []
    for segment in segments:
        if merged and not has_vowel((segment,)) and voiceless(merged[-1]) == voiceless(segment):
            merged[-1] = segment
        else:
            merged.append(segment)
    return tuple(merged)


def vowel_or_plain(segment: str) -> str:
    return "V" if has_vowel((segment,)) else plain(segment)


def stem_of(forms: Sequence[Segments], same: Callable[[str], str] = plain) -> Segments:
    """The common beginning of ``forms``: segments equal under ``same`` (by default: up to
    vowel length), then perhaps one that differs in voicing only (the stem's final obstruent,
    t ~ d); the segments of the first form."""
    shortest = min(len(form) for form in forms)
    end = 0
    while end < shortest and len({same(form[end]) for form in forms}) == 1:
        end += 1
    if end < shortest and len({voiceless(form[end]) for form in forms}) == 1:
        end += 1
    return forms[0][:end]


def begins_with(form: Segments, stem: Segments) -> bool:
    """Whether ``form`` is ``stem`` and a suffix, up to vowel length and the final voicing."""
    return len(form) >= len(stem) > 0 and len(stem_of([stem, form])) == len(stem)


@dataclass(frozen=True)
class Word:
    features: str
    spelling: str
    ipa: Segments
    count: int = 0


@dataclass
class Paradigm:
    lemma: str
    pos: str
    stem: Segments
    words: list[Word]
    voiced: bool
    alternates: bool

    @property
    def count(self) -> int:
        """The count of its least frequent word: a stem whose forms are all common ranks
        high, a homograph whose bare form alone is common (English and, anded) does not."""
        return min(word.count for word in self.words)

    @property
    def group(self) -> str:
        if not self.voiced:
            return "voiceless"
        return "alternates" if self.alternates else "voiced"


def analyse(lemma: str, pos: str, cells: Sequence[str], forms: dict[str, Word]) -> Paradigm | None:
    """The paradigm of ``lemma`` as the subcorpus has it (``forms``: cell -> word, in any
    order), or None when its stem does not end in an obstruent or it has no partner form."""
    stem_forms = [forms[cell].ipa for cell in cells[:2] if cell in forms]
    if not stem_forms or min(map(len, stem_forms)) == 0:
        return None
    # vowels of any quality agree here, so that a vowel epitran writes differently in two
    # forms (Dutch verander [ɛ], veranderen [eː]) does not end the stem early
    stem = stem_of(stem_forms, vowel_or_plain)
    whole = len(stem) >= min(map(len, stem_forms)) - 1  # the stem cells are stem + ≤ 1 segment
    if not (whole and has_vowel(stem) and is_obstruent(stem[-1])):
        return None
    words: list[Word] = []
    for cell in cells:
        word = forms.get(cell)
        if word and begins_with(word.ipa, stem) and all(w.ipa != word.ipa for w in words):
            words.append(word)
    if len(words) < 2:
        return None
    finals = {is_voiced(word.ipa[len(stem) - 1]) for word in words}
    return Paradigm(lemma, pos, stem, words, True in finals, len(finals) == 2)


def read_tables(paths: Iterable[Path]) -> list[tuple[str, str, str]]:
    """(lemma, form, canonical features) of every table; a cell's first form only."""
    rows: dict[tuple[str, str], str] = {}
    for path in paths:
        opener = lzma.open if path.suffix == ".xz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 3 and all(field.strip() for field in fields[:3]):
                    lemma, form = (unicodedata.normalize("NFC", f) for f in fields[:2])
                    rows.setdefault((lemma, canonical(fields[2])), form)
    return [(lemma, form, features) for (lemma, features), form in rows.items()]


def build(
    rows: Sequence[tuple[str, str, str]],
    language: Language,
    transcribe: Callable[[list[str]], list[Segments]],
    frequency: Callable[[str], float],
    words: int = 1000,
    seed: int = 1,
) -> list[Paradigm]:
    """Select about ``words`` words of ``rows`` (lemma, form, features) as described above.
    ``transcribe`` turns spellings into IPA segments; ``frequency`` gives a spelling's share
    of running words (wordfreq's ``word_frequency``)."""
    wanted = {cell: pos for pos, cells in language.cells.items() for cell in cells}
    table: dict[tuple[str, str], dict[str, str]] = {}
    for lemma, form, features in rows:
        if features in wanted and form.isalpha() and lemma.isalpha():  # no 'it, zeg op
            table.setdefault((lemma, wanted[features]), {})[features] = form
    spellings = sorted({form for cells in table.values() for form in cells.values()})
    ipa = dict(zip(spellings, transcribe(spellings), strict=True))
    if language.merge_geminates:
        ipa = {spelling: merge_geminates(segments) for spelling, segments in ipa.items()}
    # a corpus count cannot tell homographs apart: each lemma with the spelling gets a share
    sharing = Counter(form.lower() for _, form in {(lemma, form) for lemma, form, _ in rows})
    found = []
    for (lemma, pos), cells in table.items():
        forms = {
            cell: Word(cell, form, ipa[form], round(frequency(form) * 1e9 / sharing[form.lower()]))
            for cell, form in cells.items()
        }
        paradigm = analyse(lemma, pos, language.cells[pos], forms)
        if paradigm:
            found.append(paradigm)
    return choose(found, words, seed)


def choose(paradigms: list[Paradigm], words: int, seed: int) -> list[Paradigm]:
    """Whole paradigms, the most frequent (:attr:`Paradigm.count`) first, in turn from each
    (part of speech, voiced) queue, until ``words`` words are taken; a paradigm that no longer
    fits is passed over."""
    ordered = list(paradigms)
    random.Random(seed).shuffle(ordered)
    ordered.sort(key=lambda paradigm: -paradigm.count)
    queues: dict[tuple[str, bool], list[Paradigm]] = {}
    for paradigm in reversed(ordered):  # each queue is popped from its end
        queues.setdefault((paradigm.pos, paradigm.voiced), []).append(paradigm)
    chosen: list[Paradigm] = []
    left = words
    while left and any(queues.values()):
        for key in sorted(queues):
            queue = queues[key]
            while queue and len(queue[-1].words) > left:
                queue.pop()
            if queue and left:
                chosen.append(queue.pop())
                left -= len(chosen[-1].words)
    return chosen


def rows_of(chosen: Iterable[Paradigm]) -> Iterable[str]:
    """The output TSV's lines."""
    for paradigm in chosen:
        for word in paradigm.words:
            fields = [paradigm.lemma, " ".join(word.ipa), word.features, str(word.count),
                      word.spelling, " ".join(paradigm.stem), paradigm.group]  # fmt: skip
            yield "\t".join(fields) + "\n"


def summary(lang: str, chosen: Sequence[Paradigm]) -> str:
    words = [word for paradigm in chosen for word in paradigm.words]
    stems = max(len(chosen), 1)
    voiced = sum(paradigm.voiced for paradigm in chosen)
    alternating = sum(paradigm.alternates for paradigm in chosen)
    pos = Counter(paradigm.pos for paradigm in chosen for _ in paradigm.words)
    return (
        f"{lang}: {len(words):,} words ({', '.join(f'{n} {k}' for k, n in sorted(pos.items()))}),"
        f" {len(chosen):,} lemmas, {len({word.features for word in words})} cells; stems with a "
        f"voiced final obstruent {voiced} ({voiced / stems:.0%}), alternating {alternating} "
        f"({alternating / stems:.0%}); words with a positive count "
        f"{sum(word.count > 0 for word in words):,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", required=True, choices=sorted(LANGUAGES))
    parser.add_argument("--data-dir", type=Path, required=True, help="e.g. ../shared/data")
    parser.add_argument("--out", type=Path, required=True, help="the TSV to write")
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from wordfreq import word_frequency

    from phonkit.plugins import lookup

    language = LANGUAGES[args.lang]
    paths = [path for glob in language.tables for path in sorted(args.data_dir.glob(glob))]
    if not paths:
        sys.exit(f"no {args.lang} tables under {args.data_dir} ({', '.join(language.tables)})")
    if args.lang == "eng":
        backend = "lex_lookup" if shutil.which("lex_lookup") else "t2p"
        print(f"eng: epitran through flite's {backend}", file=sys.stderr)
    epitran = lookup("transcribers", "epitran")
    chosen = build(
        read_tables(paths),
        language,
        lambda spellings: epitran.transcribe(args.lang, spellings),
        lambda spelling: word_frequency(spelling, language.wordfreq),
        args.words,
        args.seed,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(rows_of(chosen)), encoding="utf-8")
    print(f"{len(paths)} tables -> {args.out}", file=sys.stderr)
    print(summary(args.lang, chosen), file=sys.stderr)


if __name__ == "__main__":
    main()
