import os
import subprocess
import sys
import textwrap

import pytest

from phonkit.hookspecs import hookimpl
from phonkit.plugins import PluginError, manager, registry

GOOD = """
from phonkit import hookspecs
from phonkit.tasks.metrics import Metric


class Length(Metric):
    name = "len"
    description = "mean length of the predictions"

    def item_scores(self, items):
        return [len(item.prediction) for item in items]


@hookspecs.hookimpl
def register_metrics(register):
    register(Length())
"""


@pytest.fixture
def site(tmp_path):
    """A directory on PYTHONPATH with two installed plugin distributions: one good, one broken."""
    (tmp_path / "good_plugin.py").write_text(GOOD)
    (tmp_path / "broken_plugin.py").write_text("raise RuntimeError('this plugin is broken')\n")
    for name, module, version in (
        ("good", "good_plugin", "1.2.3"),
        ("broken", "broken_plugin", "0.1"),
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
        from phonkit.default_plugins.models import PositionIndependent

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


def test_the_hook_contract_is_documented():
    from phonkit import hookspecs

    for hook in (
        "register_corpora",
        "register_transcribers",
        "register_models",
        "register_decompositions",
        "register_metrics",
        "register_commands",
    ):
        assert textwrap.dedent(getattr(hookspecs, hook).__doc__ or "").strip(), hook


def test_the_plugin_docs_list_every_hook():
    from pathlib import Path

    from phonkit import hookspecs

    docs = (Path(__file__).parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    hooks = [name for name in dir(hookspecs) if name.startswith("register_")]
    assert hooks and all(f"`{hook}(" in docs for hook in hooks)
