"""The sample bundled with phonkit, for the embedded default and for trying things offline.

``tur``: 200 Turkish noun and verb paradigms from the CoNLL-SIGMORPHON 2017 task 2 training
data (UniMorph, Kirov et al. 2018; Wiktionary, CC BY-SA 3.0). See ``phonkit/data/README.md``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from phonkit.data.corpora import Corpus, CorpusRequest, unknown_language
from phonkit.data.lexicon import Lexicon, read_tsv
from phonkit.hookspecs import hookimpl

SAMPLES = {"tur": "tur-sample.tsv.xz"}


class Sample(Corpus):
    name = "sample"
    description = "small samples bundled with phonkit (tur: CoNLL-2017 Turkish paradigms)"
    default_lang = "tur"

    def languages(self, request: CorpusRequest) -> list[str]:
        return list(SAMPLES)

    def read(self, request: CorpusRequest) -> Lexicon:
        lang = request.lang or self.default_lang
        if lang not in SAMPLES:
            raise unknown_language(self.name, lang, list(SAMPLES))
        path = Path(str(files("phonkit") / "data" / SAMPLES[lang]))
        return Lexicon.of(read_tsv(path, name=f"sample/{SAMPLES[lang]}").entries, f"sample/{lang}")


@hookimpl
def register_corpora(register):
    register(Sample())
