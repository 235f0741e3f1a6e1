"""Each setting declared once (phonkit/settings.py): the commands' options, ``--set``, the
checks and the flags errors name are derived from the declarations, for every setting."""

import pytest
import typer
from typer.testing import CliRunner

from phonkit.cli.main import app
from phonkit.cli.settings import FLAGS, flag, setting_options
from phonkit.errors import InputError
from phonkit.settings import GROUPS, ModelConfig, TrainConfig, declared, every, parse, split

COMMANDS = {  # command -> the groups it takes, and the settings it gives its own option
    ("train",): (("model", "training"), ()),
    ("fill",): (("model", "training"), ()),
    ("experiment", "unimorph"): (("model", "training"), ("seed",)),
    ("experiment", "celex"): (("model", "training"), ("seed",)),
    ("experiment", "tables"): (("model", "training"), ("seed",)),
    ("predict",): (("fit",), ()),
    ("evaluate",): (("fit",), ()),
    ("paradigm",): (("fit",), ()),
}


def options_of(path):
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return {opt for param in command.params for opt in param.opts}


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_declared_setting_is_an_option_of_the_commands_that_take_it(path):
    groups, own = COMMANDS[path]
    found = options_of(path)
    for group in groups:
        for one in declared(GROUPS[group]):
            assert one.name in own or flag(one) in found, (path, one.key)


def test_every_setting_is_declared_with_help_and_a_check():
    for one in every():
        assert one.declaration.help.endswith((".", ")")), one.key
        assert one.kind is bool or one.declaration.range or one.declaration.choices, one.key
        assert FLAGS[one.key] == flag(one)


@setting_options("model", "training", defaults={"batch_size": 32})
def probe(name: str = "x", settings: dict | None = None) -> None:
    print(sorted((settings or {}).items()))


def run_probe(*args):
    runner = typer.Typer()
    runner.command()(probe)
    return CliRunner().invoke(runner, list(args))


def test_a_command_receives_only_the_settings_given_typed_set_last():
    assert run_probe().output.strip() == "[]"
    result = run_probe("--dim", "64", "--no-lemma-encoder", "--set", "lr=0.01", "--set", "dim=8")
    assert result.output.strip() == "[('dim', 8), ('lemma_encoder', False), ('lr', 0.01)]"
    assert "[default: 32]" in run_probe("--help").output  # the command's own default shown


def test_set_names_an_unknown_setting_and_a_value_of_the_wrong_type():
    result = run_probe("--set", "nope=1")
    assert isinstance(result.exception, InputError) and "unknown setting 'nope'" in str(
        result.exception
    )
    result = run_probe("--set", "lemma_encoder=maybe")
    assert "lemma_encoder takes true or false" in str(result.exception)


def test_one_reader_of_switches():
    for text, value in (("on", True), ("Yes", True), ("1", True), ("off", False), ("no", False)):
        assert parse(ModelConfig, "lemma_encoder", text) is value


def test_values_out_of_range_or_choice_name_the_setting():
    with pytest.raises(InputError, match=r"training\.lr must be a number above 0"):
        TrainConfig(lr=float("nan"))
    with pytest.raises(InputError, match=r"training\.select must be loss or acc, not 'chrf'"):
        TrainConfig(select="chrf")
    with pytest.raises(InputError, match="unknown setting 'dims'"):
        split({"dims": 3})
    assert split({"dim": 3, "lr": 0.1}) == {"model": {"dim": 3}, "training": {"lr": 0.1}, "fit": {}}
