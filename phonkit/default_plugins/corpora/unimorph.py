"""UniMorph tables (Kirov et al. 2018): ``<data-dir>/unimorph/<iso3>[.tsv][.xz|.gz]``.

A missing table is downloaded from the language's public UniMorph repository.
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from pathlib import Path

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from phonkit.data.corpora import Corpus, CorpusRequest
from phonkit.data.lexicon import Lexicon, read_tsv
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl
from phonkit.progress import stderr_console

SUFFIXES = (".tsv.xz", ".tsv.gz", ".tsv", ".xz", ".gz", "")
DEFAULT_URL = "https://raw.githubusercontent.com/unimorph/{lang}/master/{lang}"


def download(url: str, target: Path) -> None:
    """Fetch ``url`` into ``target`` through a temporary file, with progress on stderr."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    console = stderr_console()
    try:
        with urllib.request.urlopen(url, timeout=30) as response, partial.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn())
            with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
                task = bar.add_task(f"downloading {target.name}", total=total)
                while chunk := response.read(1 << 16):
                    out.write(chunk)
                    bar.advance(task, len(chunk))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


class UniMorph(Corpus):
    name = "unimorph"
    description = "UniMorph tables in <data-dir>/unimorph/<iso3>.tsv[.xz] (downloaded if missing)"

    def table(self, request: CorpusRequest, lang: str) -> Path | None:
        for suffix in SUFFIXES:
            path = request.root / "unimorph" / f"{lang}{suffix}"
            if path.is_file():
                return path
        return None

    def languages(self, request: CorpusRequest) -> list[str]:
        folder = request.root / "unimorph"
        if not folder.is_dir():
            return []
        names = {re.sub(r"(\.tsv)?(\.xz|\.gz)?$", "", path.name) for path in folder.iterdir()}
        return sorted(name for name in names if re.fullmatch(r"[a-z]{3}", name))

    def read(self, request: CorpusRequest) -> Lexicon:
        lang = request.require_lang(self.name)
        if not re.fullmatch(r"[a-z]{3}", lang):
            raise InputError(
                f"corpus 'unimorph' expects an ISO 639-3 code like 'tur', not {lang!r}"
            )
        path = self.table(request, lang)
        if path is None:
            path = request.root / "unimorph" / lang
            url = os.environ.get("PHONKIT_UNIMORPH_URL", DEFAULT_URL).format(lang=lang)
            try:
                download(url, path)
            except (urllib.error.URLError, OSError, ValueError) as error:
                reason = getattr(error, "reason", None) or error
                raise InputError(
                    f"UniMorph table for {lang!r} is not in {path.parent} and could not be "
                    f"downloaded from {url} ({reason}); "
                    "put the table (lemma<TAB>form<TAB>features) "
                    f"at {path}.tsv or set data.data_dir / PHONKIT_DATA",
                    setting="data.data_dir",
                ) from None
        return Lexicon.of(read_tsv(path).entries, f"unimorph/{lang}")


@hookimpl
def register_corpora(register):
    register(UniMorph())
