"""The ``phonkit`` command line (Typer only): thin commands over the library."""

from phonkit.cli.main import app, command_line, main

__all__ = ["app", "command_line", "main"]
