"""What a corpus reader is, what it is asked for, and where data lives on disk."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from phonkit.data.lexicon import Lexicon
from phonkit.errors import InputError

# The 28 languages of the paper, ISO 639-3 code -> English name (as in the CoNLL-2017 files).
LANGUAGES = {
    "sqi": "albanian",
    "ara": "arabic",
    "hye": "armenian",
    "eus": "basque",
    "bul": "bulgarian",
    "ces": "czech",
    "dan": "danish",
    "nld": "dutch",
    "eng": "english",
    "est": "estonian",
    "fra": "french",
    "deu": "german",
    "heb": "hebrew",
    "hin": "hindi",
    "gle": "irish",
    "ita": "italian",
    "lav": "latvian",
    "fas": "persian",
    "pol": "polish",
    "por": "portuguese",
    "ron": "romanian",
    "rus": "russian",
    "spa": "spanish",
    "swe": "swedish",
    "tur": "turkish",
    "ukr": "ukrainian",
    "urd": "urdu",
    "cym": "welsh",
}


def data_dir(given: Path | None = None) -> Path:
    """``given``, else ``$PHONKIT_DATA``, else the user's data directory."""
    if given is not None:
        return given
    if os.environ.get("PHONKIT_DATA"):
        return Path(os.environ["PHONKIT_DATA"])
    return Path(platformdirs.user_data_dir("phonkit"))


@dataclass
class CorpusRequest:
    """What the user asked a corpus reader for; each reader uses the parts it needs."""

    lang: str | None = None
    data_dir: Path | None = None
    path: str | None = None
    columns: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return data_dir(self.data_dir)

    def require_lang(self, corpus: str) -> str:
        if not self.lang:
            raise InputError(f"corpus {corpus!r} needs data.lang", setting="data.lang")
        return self.lang


class Corpus:
    """Base class of corpus readers (a plugin may also duck-type it): what phonkit reads of
    a registered corpus reader. ``ipa_transcriber`` names the transcriber that gives its
    forms in IPA (``train --ipa``); None: epitran's G2P. ``default_lang`` is the language
    read when a request names none."""

    name: str = ""
    description: str = ""
    ipa_transcriber: str | None = None
    default_lang: str | None = None

    def languages(self, request: CorpusRequest) -> list[str]:
        """The languages available now (on disk or bundled)."""
        return []

    def read(self, request: CorpusRequest) -> Lexicon:
        raise NotImplementedError


def unknown_language(corpus: str, lang: str, available: list[str], hint: str = "") -> InputError:
    listed = ", ".join(available) if available else "none"
    return InputError(f"corpus {corpus!r} has no language {lang!r}; available: {listed}{hint}")
