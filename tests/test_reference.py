"""The reference pages under docs/reference are the code's own: written from the command
line's declaration, the settings' and the hooks' (``python -m phonkit.cli.reference``), and
what each says of a command is what ``--help`` says."""

from pathlib import Path

import pytest

from phonkit.cli.reference import PAGES

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_committed_reference_is_what_the_code_writes(name):
    committed = (REFERENCE / name).read_text(encoding="utf-8")
    assert committed == PAGES[name](), (
        f"docs/reference/{name} differs from the code: run "
        "`python -m phonkit.cli.reference docs/reference` and commit it"
    )


@pytest.mark.parametrize("command", [("train",), ("predict",), ("fill",), ("uf", "strings")])
def test_each_option_of_the_reference_is_one_that_help_lists(cli, monkeypatch, command):
    page = (REFERENCE / "cli.md").read_text(encoding="utf-8")
    section = page.split(f"## `phonkit {' '.join(command)}`\n", 1)[1].split("\n## ", 1)[0]
    options = [line[3:].split("`")[0].split()[0] for line in section.splitlines()
               if line.startswith("- `--")]  # fmt: skip
    monkeypatch.setenv("COLUMNS", "200")
    shown = cli(*command, "--help")
    assert options and all(option in shown.out for option in options)
