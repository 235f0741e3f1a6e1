"""The error contract: bad input becomes one line on stderr and exit code 2."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage. The CLI prints ``where: message`` and exits with code 2.

    ``setting`` names the setting at fault (``epochs``, ``fit_lr``...) when the message
    begins with it: the command line then writes the option that gives it (``--epochs``)."""

    def __init__(self, message: str, where: str | None = None, setting: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.setting = setting

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def at(path: object, line: int | None = None) -> str:
    """Format a location as ``file`` or ``file:line``."""
    return f"{path}:{line}" if line is not None else str(path)


class Interrupted(Exception):
    """Ctrl-C during a command that can say what it kept and how to go on. The CLI prints
    ``phonkit: interrupted: message`` and exits with code 130, as a shell does for SIGINT."""
