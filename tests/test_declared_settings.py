"""Each setting declared once (phonkit/settings.py): the commands' options, ``--set``,
``config.json``, the keys of ``TrainRequest.settings``, the checks and the flags errors name
are derived from the declarations, for every setting."""

import pytest
import typer
from typer.testing import CliRunner

from phonkit.cli.main import app
from phonkit.cli.settings import FLAGS, ONLY_SET, flag, setting_options
from phonkit.data.split import PROTOCOLS
from phonkit.errors import InputError
from phonkit.jobs import TrainRequest
from phonkit.run.config import RunConfig
from phonkit.settings import (
    GROUPS,
    RUN,
    SPLITS,
    CopyConfig,
    ModelConfig,
    SplitConfig,
    TrainConfig,
    by_group,
    declared,
    every,
    parse,
)

SPLIT = ("protocol", "k", "draw", "fold")
COMMANDS = {  # command -> the groups it takes, and the settings it gives options of its own
    ("train",): (("model", "training", "split", "copy"), ()),
    ("fill",): (("model", "training", "copy"), ()),
    ("experiment", "unimorph"): (("model", "training", "split", "copy"), ("seed", *SPLIT)),
    ("experiment", "celex"): (("model", "training", "copy"), ("seed",)),
    ("experiment", "tables"): (("model", "training", "copy"), ("seed",)),
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
            if one.name in own:
                continue
            if group in ONLY_SET:  # the copy models' settings: --set copy.NAME only
                assert "--set" in found and flag(one) == f"--set copy.{one.name}", one.key
            else:
                assert flag(one) in found, (path, one.key)


def test_the_copy_models_settings_alone_have_no_option_of_their_own():
    assert ONLY_SET == ("copy",)
    assert not any(option.startswith("--copy") for option in options_of(("train",)))


def test_every_setting_is_declared_with_help_and_a_check():
    for one in every():
        assert one.declaration.help.endswith((".", ")")), one.key
        assert one.kind is bool or one.declaration.range or one.declaration.choices, one.key
        assert FLAGS[one.key] == flag(one)


def test_the_split_protocols_are_those_declared():
    assert tuple(PROTOCOLS) == SPLITS


def test_a_run_settings_names_alone_name_one_setting_each():
    names = [one.name for group in RUN for one in declared(GROUPS[group]) if group != "copy"]
    assert len(names) == len(set(names))


def other(one):
    """A valid value of the setting ``one`` that is not its default."""
    default, allowed = one.default, one.declaration
    if one.kind is bool:
        return not default
    if allowed.choices:
        return next(choice for choice in allowed.choices if choice != default)
    if allowed.size:
        return tuple(number + 0.5 for number in default)
    if default is None:
        return 3
    return default + 1 if one.kind is int else (default / 2 if default else 0.5)


@setting_options("model", "training", "split", "copy", defaults={"batch_size": 32})
def probe(name: str = "x", settings: dict | None = None) -> None:
    print(sorted((settings or {}).items()))


def run_probe(*args):
    runner = typer.Typer()
    runner.command()(probe)
    return CliRunner().invoke(runner, list(args))


def test_every_setting_of_a_run_is_reached_by_set_and_recorded_in_config_json():
    given = {}
    for group in RUN:
        for one in declared(GROUPS[group]):
            value = other(one)
            text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
            result = run_probe("--set", f"{one.short}={text}")
            assert result.output.strip() == str([(one.short, value)]), (one.key, result.output)
            given[one.short] = value
    job = TrainRequest(settings=given)
    parts = job.given()
    config = RunConfig(
        "pi",
        "none",
        ModelConfig(**parts["model"]),
        TrainConfig(**parts["training"]),
        9,
        split=job.split,
        copy=CopyConfig(**parts["copy"]),
    )
    data = config.to_json()
    for group in RUN:  # each with a value of its own, written and read back
        for one in declared(GROUPS[group]):
            written = data if group == "split" else data[group]
            value = written[one.name]
            assert (tuple(value) if isinstance(value, list) else value) == given[one.short]
    assert RunConfig.from_json(data, "config.json") == config


def test_a_command_receives_only_the_settings_given_typed_set_last():
    assert run_probe().output.strip() == "[]"
    result = run_probe("--dim", "64", "--no-lemma-encoder", "--set", "lr=0.01", "--set", "dim=8")
    assert result.output.strip() == "[('dim', 8), ('lemma_encoder', False), ('lr', 0.01)]"
    assert "[default: 32]" in run_probe("--help").output  # the command's own default shown


def test_set_takes_a_setting_by_name_or_by_group_and_the_copy_models_by_group():
    result = run_probe("--set", "model.dim=8", "--set", "copy.dim=16", "--k", "5")
    assert result.output.strip() == "[('copy.dim', 16), ('dim', 8), ('k', 5)]"
    assert "unknown setting 'stems_per_batch'" in str(
        run_probe("--set", "stems_per_batch=2").exception
    )


def test_set_names_an_unknown_setting_and_a_value_of_the_wrong_type():
    result = run_probe("--set", "nope=1")
    assert isinstance(result.exception, InputError) and "unknown setting 'nope'" in str(
        result.exception
    )
    result = run_probe("--set", "lemma_encoder=maybe")
    assert "lemma_encoder takes true or false" in str(result.exception)
    result = run_probe("--set", "copy.content=maybe")
    assert "--set copy.content=maybe: copy.content takes true or false" in str(result.exception)


def test_one_reader_of_switches():
    for text, value in (("on", True), ("Yes", True), ("1", True), ("off", False), ("no", False)):
        assert parse(ModelConfig, "lemma_encoder", text) is value


def test_values_out_of_range_or_choice_name_the_setting():
    with pytest.raises(InputError, match=r"training\.lr must be a number above 0"):
        TrainConfig(lr=float("nan"))
    with pytest.raises(InputError, match=r"training\.select must be loss or acc, not 'chrf'"):
        TrainConfig(select="chrf")
    with pytest.raises(InputError, match=r"copy\.shift must be 10 numbers"):
        CopyConfig(shift=(1.0, 2.0))
    with pytest.raises(InputError, match="unknown setting 'dims'"):
        by_group({"dims": 3}, RUN)
    assert by_group({"dim": 3, "lr": 0.1, "copy.lr": 0.2, "k": 5}, RUN) == {
        "model": {"dim": 3},
        "training": {"lr": 0.1},
        "copy": {"lr": 0.2},
        "split": {"k": 5},
    }


def test_a_train_request_takes_every_setting_by_key_checked_when_made():
    job = TrainRequest(settings={"model.dim": 16, "copy.steps": 4, "k": 400})
    assert job.settings == {"dim": 16, "copy.steps": 4, "k": 400}  # the shortest keys
    assert (job.split.protocol, job.split.k, job.seed) == ("sample", 400, 1)
    with pytest.raises(InputError, match=r"^split\.k must be a whole number at least 1"):
        TrainRequest(settings={"k": 0})
    with pytest.raises(InputError, match="unknown setting 'steps'"):
        TrainRequest(settings={"steps": 4})  # the copy models' take their group
    assert SplitConfig(k=5).protocol == "sample"  # the paradigms split with a k
