"""Any TSV lexicon of the user's, with configurable columns."""

from __future__ import annotations

from pathlib import Path

from phonkit.data.corpora import Corpus, CorpusRequest
from phonkit.data.lexicon import UNIMORPH_COLUMNS, Lexicon, read_tsv
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl


class TSVCorpus(Corpus):
    name = "tsv"
    description = "a TSV file (--path FILE, --columns lemma,form,features[,count] in file order)"

    def read(self, request: CorpusRequest) -> Lexicon:
        if not request.path:
            raise InputError("corpus 'tsv' needs data.path=FILE", setting="data.path")
        return read_tsv(Path(request.path), request.columns or UNIMORPH_COLUMNS)


@hookimpl
def register_corpora(register):
    register(TSVCorpus())
