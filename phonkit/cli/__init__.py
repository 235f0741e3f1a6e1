"""The ``phonkit`` command line (Typer only): thin commands over the library."""

from phonkit.cli.main import app, main

__all__ = ["app", "main"]
