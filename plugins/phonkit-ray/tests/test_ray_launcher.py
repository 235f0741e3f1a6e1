"""The ``ray`` launcher on a real Ray cluster, started here once for the module (2 CPUs; in
each of the suite's test processes that runs some of these tests, a cluster of its own): the
same tables as the local launcher, a worker that dies and a run that fails, a driver that is
killed; a task's stream of files; and the one-line errors of bad settings.

All are marked ``ray``: ``python -m pytest -m ray`` runs them alone, ``-m 'not ray'`` skips
them. Runs use the model variant ``probe`` of a small plugin written here: ``pi`` with
switches (files in ``$PHONKIT_PROBE``) that make its worker die once, fail, or go slowly.
"""

from __future__ import annotations

import json
import logging
import lzma
import os
import signal
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("phonkit_ray")

from phonkit.cli import main  # noqa: E402
from phonkit.plugins import manager, registry  # noqa: E402

pytestmark = pytest.mark.ray

TINY = ["--dim", "16", "--epochs", "1", "--batch-size", "32", "--metrics", "acc,mld,nll"]
PROBE = '''
"""pi with switches for the ray launcher's tests (files in $PHONKIT_PROBE): ``die`` (taken
once) ends the worker's process at the first training step after a checkpoint, ``fail``
raises, ``slow`` sleeps that many seconds per training step."""

import os
import time
from pathlib import Path

from phonkit.model.variants import PositionIndependent
from phonkit.hookspecs import hookimpl


def switch(name):
    return Path(os.environ["PHONKIT_PROBE"], name)


class Probe(PositionIndependent):
    name = "probe"
    description = "pi with switches for tests"

    def context(self, morphemes):
        if not self.training:
            self.evaluated = True  # on dev, after an epoch: its checkpoint comes next
        elif getattr(self, "evaluated", False) and take(switch("die")):
            time.sleep(3)  # the task sends the checkpoint meanwhile
            os._exit(1)
        if switch("fail").exists():
            raise RuntimeError("the probe was told to fail")
        if self.training and switch("slow").exists():
            time.sleep(float(switch("slow").read_text()))
        return super().context(morphemes)


def take(path):
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False


@hookimpl
def register_models(register):
    register(Probe)
'''


def paradigms(first: int, count: int) -> str:
    """Paradigms ``first`` .. ``first + count - 1`` of the bundled Turkish sample, as TSV."""
    path = Path(str(files("phonkit") / "data" / "tur-sample.tsv.xz"))
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    lemmas = list(dict.fromkeys(line.split("\t")[0] for line in lines))[first : first + count]
    wanted = set(lemmas)
    return "".join(line + "\n" for line in lines if line.split("\t")[0] in wanted)


@pytest.fixture(scope="module")
def data_root(tmp_path_factory) -> Path:
    """UniMorph tables for two languages (each 12 paradigms of the Turkish sample)."""
    root = tmp_path_factory.mktemp("data")
    (root / "unimorph").mkdir()
    (root / "unimorph" / "tur.tsv").write_text(paradigms(0, 12), encoding="utf-8")
    (root / "unimorph" / "nld.tsv").write_text(paradigms(12, 12), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster with 2 CPUs, whose workers (and this process) load the probe
    plugin; yields the cluster's address and the folder of the probe's switches."""
    site = tmp_path_factory.mktemp("site")
    (site / "phonkit_probe.py").write_text(PROBE, encoding="utf-8")
    info = site / "phonkit_probe-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: phonkit-probe\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[phonkit]\nprobe = phonkit_probe\n")
    switches = tmp_path_factory.mktemp("switches")
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", "PHONKIT_PROBE")}
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), saved["PYTHONPATH"]]))
    os.environ["PHONKIT_PROBE"] = str(switches)
    sys.path.insert(0, str(site))
    manager.cache_clear()
    registry.cache_clear()
    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    print(f"ray.init: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    try:
        yield ray.get_runtime_context().gcs_address, switches
    finally:
        ray.shutdown()
        sys.path.remove(str(site))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        manager.cache_clear()
        registry.cache_clear()


def phonkit(capsys, *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stderr, stdout)."""
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.err, captured.out


def experiment(data_root: Path, out: Path, langs: str, variants: str, *more: str) -> list[str]:
    return ["experiment", "unimorph", "--langs", langs, "--variants", variants,
            "--data-dir", str(data_root), "--out", str(out), *TINY, "--permutations", "200",
            *more]  # fmt: skip


def test_ray_gives_the_tables_of_local(cluster, data_root, tmp_path, capsys):
    local, remote = tmp_path / "local", tmp_path / "ray"
    code, err, _ = phonkit(capsys, *experiment(data_root, local, "tur,nld", "pi,pd", "--jobs", "2"))
    assert code == 0, err
    args = experiment(data_root, remote, "tur,nld", "pi,pd", "--launcher", "ray")
    code, err, _ = phonkit(capsys, *args, "-L", "transfer=record")
    assert code == 0, err
    assert "4 runs, as Ray tasks on the Ray cluster at" in err and "1 CPU each" in err
    assert "[4/4]" in err
    for table in ("results.tsv", "significance.tsv"):
        assert (remote / table).read_text() == (local / table).read_text()
    assert (remote / "results.md").read_text().replace(str(remote), "") == (
        (local / "results.md").read_text().replace(str(local), "")
    )
    # The record came back (config, history, scores), not the weights; the log names the node.
    run = remote / "runs" / "tur-pi-s1"
    assert {"config.json", "history.tsv", "predictions.tsv", "metrics.json"} <= {
        path.name for path in run.iterdir()
    }
    assert not (run / "model.pt").exists() and not (run / "checkpoint.pt").exists()
    log = (remote / "logs" / "tur-pi-s1.log").read_text()
    assert "test 87 (held-out cells" in log  # the split, made by the driver
    assert "\nphonkit-ray: on " in log and f"{run}: training pi" in log  # then the worker
    assert "phonkit-ray-" not in log  # the worker's scratch directory is not named
    outcomes = json.loads((remote / "outcomes.json").read_text())
    assert {o["status"] for o in outcomes.values()} == {"finished"}

    code, err, _ = phonkit(capsys, *args)
    assert code == 0, err
    assert err.count(": reused") == 4


def test_a_lost_worker_is_retried_and_a_failing_run_reported(cluster, data_root, tmp_path, capsys):
    _, switches = cluster
    out = tmp_path / "exp"
    args = experiment(data_root, out, "tur", "pi,probe", "--epochs", "2", "--launcher", "ray")
    (switches / "die").touch()
    code, err, stdout = phonkit(capsys, *args)
    assert code == 0, err
    assert stdout == ""  # Ray's report of the dead worker went to logs/ray.log
    assert not (switches / "die").exists()  # the probe's worker did die
    assert "tur-probe-s1: worker lost (WorkerCrashedError" in err and "(retry 1 of 2; " in err
    assert "tur-probe-s1: finished" in err and "tur-pi-s1: finished" in err
    log = (out / "logs" / "tur-probe-s1.log").read_text()
    assert "phonkit-ray: the worker was lost" in log
    assert "resuming after epoch 1" in log  # from the checkpoint the first worker sent
    assert (out / "runs" / "tur-probe-s1" / "model.pt").is_file()

    failing = tmp_path / "failing"
    args = experiment(data_root, failing, "tur", "pi,probe", "--launcher", "ray")
    (switches / "fail").touch()
    code, err, _ = phonkit(capsys, *args)
    assert code == 1
    assert "tur-probe-s1: FAILED: RuntimeError: the probe was told to fail" in err
    assert "1 runs failed" in err
    rows = {row.split("\t")[2]: row for row in (failing / "results.tsv").read_text().splitlines()}
    assert "failed: RuntimeError: the probe was told to fail" in rows["probe"]
    assert "the probe was told to fail" in (failing / "logs" / "tur-probe-s1.log").read_text()
    (switches / "fail").unlink()
    code, err, _ = phonkit(capsys, *args)
    assert code == 0, err
    assert "tur-pi-s1: reused" in err and "tur-probe-s1: finished" in err


def test_a_killed_driver_is_resumed_by_the_same_command(cluster, data_root, tmp_path, capsys):
    address, switches = cluster
    out = tmp_path / "exp"
    args = experiment(data_root, out, "tur,nld", "pi,probe", "--epochs", "3", "--launcher", "ray")
    args += ["-L", f"address={address}"]
    (switches / "slow").write_text("0.05")
    driver = subprocess.Popen(
        [sys.executable, "-m", "phonkit", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        interrupted = wait_for_a_checkpoint(out / "runs", driver, seconds=240)
        driver.send_signal(signal.SIGKILL)
    finally:
        driver.kill()
        driver.wait()
    (switches / "slow").unlink()
    assert not (out / "runs" / interrupted / "metrics.json").exists()
    finished_before = {p.parent.name for p in (out / "runs").glob("*/metrics.json")}

    code, err, _ = phonkit(capsys, *args)
    assert code == 0, err
    assert "[4/4]" in err
    assert all(f"{name}: reused" in err for name in finished_before)
    assert f"{interrupted}: finished" in err
    assert "resuming after epoch" in (out / "logs" / f"{interrupted}.log").read_text()
    assert len(list((out / "runs").glob("*/metrics.json"))) == 4
    assert (out / "results.tsv").is_file()


def wait_for_a_checkpoint(runs: Path, driver: subprocess.Popen, seconds: float) -> str:
    """The name of a run whose checkpoint reached the driver before the run finished."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for checkpoint in runs.glob("*/checkpoint.pt"):
            if not (checkpoint.parent / "metrics.json").exists():
                return checkpoint.parent.name
        assert driver.poll() is None, "the driver ended before any run was interrupted"
        time.sleep(0.05)
    raise AssertionError(f"no checkpoint reached {runs} in {seconds} s")


def test_a_task_streams_the_run_back_with_metrics_last(data_root, tmp_path):
    """The task's generator, called here without Ray: the driver's run directory in, each
    changed file out in the order to write it, the log with the driver's paths."""
    from dataclasses import replace

    from phonkit_ray.worker import train

    from phonkit.data.corpora import CorpusRequest
    from phonkit.experiments import unimorph
    from phonkit.experiments.runner import prepare
    from phonkit.jobs import TrainRequest

    base = TrainRequest(
        request=CorpusRequest(data_dir=data_root),
        settings={"dim": 16, "epochs": 2, "batch_size": 32},
        metrics=["acc", "mld", "nll"],
    )
    (planned,) = unimorph.plan({"tur": "unimorph"}, ["pi"], [1], base)
    planned = replace(planned, job=replace(planned.job, device="cpu"))
    assert prepare(planned, tmp_path) is None
    path = tmp_path / "runs" / planned.name
    sent = {file.name: file.read_bytes() for file in path.iterdir()}
    assert set(sent) == {"config.json", "vocab.json", "train.tsv", "dev.tsv", "test.tsv"}

    updates = list(train(planned, sent, 1, True, str(tmp_path)))
    assert updates[-1].outcome.status == "finished"
    assert all(update.outcome is None for update in updates[:-1])
    order = [name for update in updates for name in update.files]
    assert order[-1] == "metrics.json" and order.count("metrics.json") == 1
    assert {"model.pt", "checkpoint.pt", "history.tsv", "predictions.tsv"} <= set(order)
    assert not set(order) & {"train.tsv", "vocab.json"}  # the driver has them already
    log = b"".join(update.log for update in updates).decode()
    assert f"{path}: training pi on cpu" in log and "epoch 2/2" in log


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (["-L", "address=127.0.0.1:1"], "cannot reach a Ray cluster at 127.0.0.1:1"),
        (["-L", "address=ray://127.0.0.1:10001"], "is a Ray Client address"),
        (["-L", "address=nowhere"], "-L address=nowhere: expected HOST:PORT"),
        (["-L", "nope=1"], "-L nope: the ray launcher has no such setting; settings: address,"),
        (["-L", "num_gpus=lots"], "num_gpus takes a number"),
        (["-L", "num_gpus=1.5"], "above 1, Ray gives whole GPUs only"),
        (["-L", "num_cpus=0"], "a run needs some resource"),
        (["-L", "transfer=all"], "use run (the whole run directory, each epoch) or record"),
        (["--jobs", "2"], "--jobs 2 is for the local launcher"),
    ],
)
def test_bad_settings_are_one_line_exit_2_and_write_nothing(
    data_root, tmp_path, capsys, settings, message
):
    out = tmp_path / "exp"
    args = experiment(data_root, out, "tur", "pi", "--launcher", "ray", *settings)
    code, err, _ = phonkit(capsys, *args)
    assert code == 2, err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_an_unknown_launcher_lists_those_installed(data_root, tmp_path, capsys):
    code, err, _ = phonkit(
        capsys, *experiment(data_root, tmp_path / "x", "tur", "pi", "--launcher", "slurm")
    )
    assert code == 2 and err == "phonkit: error: unknown launcher 'slurm'; available: local, ray\n"
