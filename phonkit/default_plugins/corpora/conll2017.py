"""CoNLL-SIGMORPHON 2017 shared-task data: task1 splits and task2 paradigms, merged."""

from __future__ import annotations

from pathlib import Path

from phonkit.data.corpora import LANGUAGES, Corpus, CorpusRequest, unknown_language
from phonkit.data.lexicon import Lexicon, read_tsv
from phonkit.hookspecs import hookimpl

SPLITS = (
    "train-high",
    "train-medium",
    "train-low",
    "dev",
    "test",
    "uncovered-dev",
    "uncovered-test",
)


class CoNLL2017(Corpus):
    name = "conll2017"
    description = "CoNLL-SIGMORPHON 2017 task1 + task2 files (<data-dir>/[sigmorphon/]conll2017)"

    def base(self, request: CorpusRequest) -> Path | None:
        for candidate in (request.root / "conll2017", request.root / "sigmorphon" / "conll2017"):
            if candidate.is_dir():
                return candidate
        return None

    def files(self, base: Path, language: str) -> list[Path]:
        found = []
        for task in ("task1", "task2"):
            for split in SPLITS:
                for suffix in ("", ".xz", ".gz"):
                    path = base / task / f"{language}-{split}{suffix}"
                    if path.exists():
                        found.append(path)
                        break
        return found

    def languages(self, request: CorpusRequest) -> list[str]:
        base = self.base(request)
        if base is None:
            return []
        return [iso for iso, language in LANGUAGES.items() if self.files(base, language)]

    def read(self, request: CorpusRequest) -> Lexicon:
        lang = request.require_lang(self.name)
        base = self.base(request)
        files = self.files(base, LANGUAGES[lang]) if base and lang in LANGUAGES else []
        if not files:
            where = f" (looked in {request.root}/conll2017 and {request.root}/sigmorphon/conll2017)"
            raise unknown_language(self.name, lang, self.languages(request), where)
        entries = [entry for path in files for entry in read_tsv(path).entries]
        return Lexicon.of(entries, f"conll2017/{lang}")


@hookimpl
def register_corpora(register):
    register(CoNLL2017())
