"""The error contract: bad input becomes one line on stderr and exit code 2; a name that is
not there is told with the closest names that are (:func:`closest`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence


class InputError(Exception):
    """Bad input or usage. The CLI prints ``where: message`` and exits with code 2.

    ``setting`` names the setting (or settings) the message speaks of, as the message writes
    them (``training.lr``, ``split.k``; ``split.k=5`` for a value): the command line writes
    the option that gives each instead (``--lr``, ``--k 5``). ``where`` may be a setting too
    (a value of it is at fault)."""

    def __init__(
        self,
        message: str,
        where: str | None = None,
        setting: str | Sequence[str] | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.where = where
        self.settings: tuple[str, ...] = (
            () if setting is None else (setting,) if isinstance(setting, str) else tuple(setting)
        )

    @property
    def setting(self) -> str | None:
        """The first setting the message names (None: it names none)."""
        return self.settings[0] if self.settings else None

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def at(path: object, line: int | None = None) -> str:
    """Format a location as ``file`` or ``file:line``."""
    return f"{path}:{line}" if line is not None else str(path)


class Interrupted(Exception):
    """Ctrl-C during a command that can say what it kept and how to go on. The CLI prints
    ``phonkit: interrupted: message`` (``setting``: as :class:`InputError`'s) and exits with
    code 130, as a shell does for SIGINT."""

    def __init__(self, message: str, setting: Sequence[str] = ()):
        super().__init__(message)
        self.settings = tuple(setting)


def closest(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """The ``limit`` candidates spelled most like ``name``, ignoring case and diacritics
    (so ``agac`` finds ``ağaç``)."""
    from rapidfuzz import fuzz, process  # imported only when a name is missing

    found = process.extract(
        name, list(candidates), scorer=fuzz.ratio, processor=unaccented, limit=limit
    )
    return [match for match, _, _ in found]


def unaccented(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c)
    )
