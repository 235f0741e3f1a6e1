"""Transcriptions of whole tables kept on disk, keyed by (transcriber, version, language).

G2P is slow for big tables and its output never changes for one transcriber version, so a
second run over the same language reads the cache instead. The cache lives in
``$PHONKIT_CACHE`` or the user cache directory (``~/.cache/phonkit`` on Linux).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError


def cache_root() -> Path:
    return Path(os.environ.get("PHONKIT_CACHE") or platformdirs.user_cache_dir("phonkit"))


class TranscriptionCache:
    """word -> (segments, unmapped letters) for one (transcriber, version, language)."""

    def __init__(self, transcriber: str, version: str, lang: str):
        self.path = cache_root() / "transcriptions" / f"{transcriber}-{version}-{lang}.json"
        try:
            self.entries: dict[str, list] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.entries = {}
        self.added = False

    def get(self, word: str) -> tuple[tuple[str, ...], str] | None:
        found = self.entries.get(word)
        return None if found is None else (tuple(found[0]), found[1])

    def put(self, word: str, segments: tuple[str, ...], unmapped: str) -> None:
        self.entries[word] = [list(segments), unmapped]
        self.added = True

    def save(self) -> None:
        """Write the cache if anything was added; a cache that cannot be written is skipped."""
        if not self.added:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(self.entries, ensure_ascii=False))
        except (OSError, InputError):
            pass
        self.added = False
