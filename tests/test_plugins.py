import os
import subprocess
import sys
import textwrap

import pytest

from phonkit.hookspecs import hookimpl
from phonkit.plugins import (
    KINDS,
    PluginError,
    base_class,
    breaches,
    contract,
    manager,
    registry,
)

GOOD = """
from phonkit.plugin import Metric, hookimpl


class Length(Metric):
    name = "len"
    description = "mean length of the predictions"

    def item_scores(self, items):
        return [len(item.prediction) for item in items]


@hookimpl
def register_metrics(register):
    register(Length())
"""


GREET = """
import sys

from phonkit import hookspecs


@hookspecs.hookimpl
def register_commands(app):
    @app.command()
    def greet() -> None:
        sys.stdout.write("hello\\n")
"""


@pytest.fixture
def site(tmp_path):
    """A directory on PYTHONPATH with two installed plugin distributions: one good, one broken."""
    (tmp_path / "good_plugin.py").write_text(GOOD)
    (tmp_path / "broken_plugin.py").write_text("raise RuntimeError('this plugin is broken')\n")
    (tmp_path / "greet_plugin.py").write_text(GREET)
    for name, module, version in (
        ("good", "good_plugin", "1.2.3"),
        ("broken", "broken_plugin", "0.1"),
        ("greet", "greet_plugin", "0.2"),
    ):
        info = tmp_path / f"phonkit_{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: phonkit-{name}\nVersion: {version}\n"
        )
        (info / "entry_points.txt").write_text(f"[phonkit]\n{name} = {module}\n")
    return tmp_path


def phonkit(site, *args, load=None):
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("PHONKIT_LOAD_PLUGINS", None)
    if load is not None:
        env["PHONKIT_LOAD_PLUGINS"] = load
    return subprocess.run(
        [sys.executable, "-m", "phonkit", *args], capture_output=True, text=True, env=env
    )


def test_installed_plugins_load_and_a_broken_one_is_skipped(site):
    done = phonkit(site, "plugins")
    assert done.returncode == 0
    assert (
        "plugin 'broken' failed to load and was skipped: RuntimeError: this plugin is broken"
        in done.stderr
    )
    assert "good\t1.2.3\tregister_metrics" in done.stdout
    assert "phonkit.default_plugins.models" in done.stdout


def test_phonkit_load_plugins_restricts_what_loads(site):
    only_good = phonkit(site, "plugins", load="good")
    assert "good\t1.2.3" in only_good.stdout and only_good.stderr == ""
    none = phonkit(site, "plugins", load="")
    assert "good" not in none.stdout.replace("default_plugins", "") and none.stderr == ""
    assert "phonkit.default_plugins.metrics" in none.stdout


class Duplicate:
    @staticmethod
    @hookimpl
    def register_models(register):
        from phonkit.model.variants import PositionIndependent

        register(type("Again", (PositionIndependent,), {}))


def test_registering_a_taken_name_names_both_plugins():
    manager().register(Duplicate, name="duplicate-pi")
    registry.cache_clear()
    try:
        with pytest.raises(PluginError) as raised:
            registry("models")
        assert str(raised.value) == (
            "model variant 'pi' is registered by both plugin 'phonkit.default_plugins.models' "
            "and plugin 'duplicate-pi'; uninstall one of them"
        )
    finally:
        manager().unregister(name="duplicate-pi")
        registry.cache_clear()
    assert "pi" in registry("models")


def hook_specs():
    """Every hook spec of phonkit/hookspecs.py, found by its pluggy marker."""
    from phonkit import hookspecs

    return [
        name
        for name, value in vars(hookspecs).items()
        if callable(value) and hasattr(value, "phonkit_spec")
    ]


def test_every_hook_spec_is_typed_documented_listed_and_tested():
    from pathlib import Path

    from phonkit import hookspecs

    root = Path(__file__).parents[1]
    docs = (root / "docs" / "reference" / "hooks.md").read_text(encoding="utf-8")
    tests = "".join(path.read_text(encoding="utf-8") for path in root.glob("tests/test_*.py"))
    specs = hook_specs()
    assert len(specs) == len(KINDS) + 1  # a kind of registered thing each, and commands
    for hook in specs:
        function = getattr(hookspecs, hook)
        assert textwrap.dedent(function.__doc__ or "").strip(), hook
        assert "Any" not in str(function.__annotations__), hook
        assert f"`{hook}(" in docs, hook
        kind = hook.removeprefix("register_")
        assert kind in KINDS or kind == "commands", hook
    # registering through each hook is exercised: every kind by the registry tests below,
    # commands by the greet plugin
    assert "def register_commands(app)" in GREET and "parametrize(\"kind\", list(KINDS))" in tests


def test_the_example_plugins_import_only_the_facade():
    from pathlib import Path

    root = Path(__file__).parents[1] / "plugins"
    for path in root.glob("*/**/*.py"):
        if "tests" in path.parts:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith(("from phonkit.", "import phonkit.")):
                assert line.split()[1] == "phonkit.plugin", f"{path}: {line}"


def test_plugins_shows_what_each_plugin_registers(site):
    done = phonkit(site, "plugins")
    assert done.returncode == 0
    rows = {row.split("\t")[0]: row.split("\t") for row in done.stdout.splitlines()}
    assert rows["name"] == ["name", "version", "hooks", "registers"]
    assert rows["good"][3] == "metrics: len"
    assert rows["greet"][2:] == ["register_commands", "commands: greet"]
    assert rows["phonkit.default_plugins.models"][3] == "models: pi,pd,joint,amortized"
    assert rows["phonkit.default_plugins.corpora.celex"][3] == "corpora: celex; transcribers: disc"
    assert phonkit(site, "greet").stdout == "hello\n"


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_registered_thing_satisfies_its_base_class(kind):
    base = base_class(kind)
    assert contract(kind), kind
    for name, thing in registry(kind).items():
        assert breaches(kind, thing) == [], f"{kind} {name!r}"
        if kind == "models":
            assert issubclass(thing, base), name
        elif kind != "launchers":  # Launcher is a protocol
            assert isinstance(thing, base), f"{kind} {name!r} does not subclass {base.__name__}"


def test_a_thing_that_breaks_the_contract_is_found():
    class Partial:
        name = "partial"
        description = "no item scores"

    assert "item_scores" in breaches("metrics", Partial())
    assert breaches("models", Partial) == ["not a subclass of phonkit.model.phonology.Model"]
    assert "ipa_transcriber" in contract("corpora") and "split" in contract("transcribers")


def test_hooks_are_called_through_pluggy():
    calls = []
    manager().trace.root.setwriter(calls.append)
    undo = manager().enable_tracing()
    registry.cache_clear()
    try:
        assert "acc" in registry("metrics")
    finally:
        undo()
        manager().trace.root.setwriter(None)
        registry.cache_clear()
    assert any("register_metrics" in line for line in calls)


WITHOUT_TORCH = """
import sys
from phonkit.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    assert not done.code, done.code
print("torch" in sys.modules, file=sys.stderr)
"""


def test_commands_that_build_no_model_start_without_torch(cli, tmp_path):
    """The built-in model variants are imported when they are first asked for, not when the
    plugins load: help, `uf strings`, `uf processes` and `stats` read no weights and never
    import torch (a second of every command's start)."""
    from test_tables import HARMONY, write_table

    table = write_table(tmp_path / "t.csv", [row.split(",") for row in HARMONY.splitlines()])
    run = tmp_path / "run"
    assert cli("fill", str(table), "--out", str(run), "--epochs", "2").code == 0
    # of the third-party plugins, only the one of the feature table the run was made with
    # (which imports no torch): a model plugin would
    env = dict(os.environ, PHONKIT_LOAD_PLUGINS="panphon")

    def imports_torch(*args: str) -> bool:
        done = subprocess.run(
            [sys.executable, "-c", WITHOUT_TORCH, *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()[-1] == "True"

    assert not imports_torch("--help")
    assert not imports_torch("uf", "strings", "-m", str(run))
    assert not imports_torch("uf", "processes", "-m", str(run))
    assert not imports_torch("stats", "--corpus", "table", "--path", str(table))
    assert imports_torch("plugins")  # listing the variants imports them
