"""benchmarks/peers.py, the harness of the peer's record, with a stand-in for yoyodyne: the
source each held-out cell is predicted from, a training stopped mid-way going on, and a tuned
run's settings."""

from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import yaml

from phonkit.data.table import read_table

ROOT = Path(__file__).resolve().parent.parent

# A stand-in for yoyodyne's command line. fit: one validation row per epoch (val_accuracy
# from ACCURACY), the log written after each epoch, the resume checkpoint after every second
# one; with STOP_AT set and no --ckpt_path, it is killed after logging that epoch. predict:
# each guess is its source form.
YOYODYNE = """\
import json, os, signal, sys
from pathlib import Path

ACCURACY = [0.0, 0.5, 0.5, 0.25, 1.0, 1.0]
command, options = sys.argv[1], dict(zip(sys.argv[2::2], sys.argv[3::2]))
if command == "predict":
    rows = Path(options["--data.predict"]).read_text(encoding="utf-8").splitlines()
    guesses = [row.split("\\t")[0] for row in rows]
    Path(options["--prediction.path"]).write_text("\\n".join(guesses) + "\\n", encoding="utf-8")
    sys.exit(0)
work, checkpoints = Path(options["--data.model_dir"]), Path(options["--checkpoint.dirpath"])
checkpoints.mkdir(exist_ok=True)
first = 0
if "--ckpt_path" in options:
    first = json.loads(Path(options["--ckpt_path"]).read_text())["epoch"] + 1
logs = work / "lightning_logs" / f"version_{len(list(work.glob('lightning_logs/*')))}"
logs.mkdir(parents=True)
lines = ["epoch,step,train_loss,val_accuracy"]
for epoch in range(first, len(ACCURACY)):
    lines += [f"{epoch},{epoch},0.5,", f"{epoch},{epoch},,{ACCURACY[epoch]}"]
    (logs / "metrics.csv").write_text("\\n".join(lines) + "\\n", encoding="utf-8")
    if ACCURACY[epoch] > max(ACCURACY[:epoch], default=-1):
        (checkpoints / "best.ckpt").write_text(json.dumps({"epoch": epoch}))
    if epoch % 2 == 0:
        (checkpoints / "resume.ckpt").write_text(json.dumps({"epoch": epoch}))
    if "--ckpt_path" not in options and str(epoch) == os.environ.get("STOP_AT"):
        os.kill(os.getpid(), signal.SIGKILL)
"""


def run_peers(
    tmp_path: Path, stop_at: str | None = None, settings: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    yoyodyne = tmp_path / "yoyodyne"
    yoyodyne.write_text(f"#!{sys.executable}\n{YOYODYNE}", encoding="utf-8")
    yoyodyne.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("STOP_AT", None)
    if stop_at is not None:
        env["STOP_AT"] = stop_at
    command = [sys.executable, str(ROOT / "benchmarks/peers.py"), "tables", str(tmp_path),
               "--work", str(tmp_path / "work"), "--yoyodyne", str(yoyodyne), "--architectures",
               "soft", "--folds", "1", "--out", str(tmp_path / "out.tsv"), *settings]  # fmt: skip
    return subprocess.run(command, env=env, capture_output=True, text=True)


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def write_twins(tmp_path: Path) -> None:
    """A table whose first two cells are always the same form, the third another."""
    stems = ["pata", "kilu", "soma", "rete", "nabu", "tiko", "lume", "dosa", "firu", "gane"]
    lines = [f"{stem},{stem},{stem}ni" for stem in stems]
    (tmp_path / "twins.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_each_held_out_cell_is_predicted_from_the_source_its_dev_stems_rank_first(tmp_path):
    write_twins(tmp_path)
    ended = run_peers(tmp_path)
    assert ended.returncode == 0, ended.stderr
    predicted = [
        line.split("\t")
        for line in (tmp_path / "work/twins-f1-soft/test.tsv").read_text().splitlines()
    ]
    twins = read_table(tmp_path / "twins.csv").cells[:2]
    hits = 0
    for _, cell, source, gold, guess in predicted:
        if cell in twins:  # the other twin, the source of 100 % on dev, gives it
            assert (source, guess) == ([twin for twin in twins if twin != cell][0], gold)
            hits += 1
        else:  # the third cell: no source gives it
            assert guess != gold
    assert 0 < hits < len(predicted)
    [out] = rows(tmp_path / "out.tsv")
    assert float(out["acc"]) == round(100 * hits / len(predicted), 2)
    [run] = rows(tmp_path / "runs.tsv")
    assert (run["epochs"], run["best_epoch"], run["val_accuracy"]) == ("6", "5", "100.00")


def test_a_training_stopped_mid_way_goes_on_from_its_latest_state(tmp_path):
    write_twins(tmp_path)
    stopped = run_peers(tmp_path, stop_at="3")
    assert stopped.returncode == 1
    [line] = stopped.stderr.strip().splitlines()
    assert "fit.log" in line and not (tmp_path / "out.tsv").exists()
    again = run_peers(tmp_path)
    assert again.returncode == 0, again.stderr
    work = tmp_path / "work/twins-f1-soft"
    # epochs 0-3 logged by the stopped command, 3-5 by the one that went on from epoch 2's
    # checkpoint, whose epoch 3 replaces the stopped command's: six epochs
    with (work / "lightning_logs/version_1/metrics.csv").open(encoding="utf-8") as handle:
        assert next(csv.DictReader(handle))["epoch"] == "3"
    [run] = rows(tmp_path / "runs.tsv")
    assert (run["epochs"], run["best_epoch"]) == ("6", "5")
    assert not (work / "checkpoints").exists()


def test_the_report_pools_the_folds_of_the_finished_tables_only(tmp_path):
    def write(name: str, *lines: str) -> Path:
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return tmp_path / name

    soft = "yoyodyne-soft"
    peer = write(
        "tables.tsv", "table\tfold\tsystem\tacc\tmld", f"a\t1\t{soft}\t100.00\t0.0000",
        f"a\t2\t{soft}\t0.00\t2.0000", f"b\t1\t{soft}\t50.00\t1.0000",
    )  # fmt: skip
    write("runs.tsv", "table\tfold\tsystem\ttest_cells", f"a\t1\t{soft}\t1",
          f"a\t2\t{soft}\t3", f"b\t1\t{soft}\t2")  # fmt: skip
    ours = write("results.tsv", "table\tsystem\ttest_cells\tacc\tmld",
                 "a\tpi\t4\t75.00\t0.2500", "b\tpi\t4\t50.00\t0.5000")  # fmt: skip
    command = [sys.executable, str(ROOT / "benchmarks/peers.py"), "report", str(peer),
               "--phonkit", str(ours)]  # fmt: skip
    told = subprocess.run(command, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True)  # fmt: skip
    assert told.returncode == 0, told.stderr
    lines = [line for line in told.stdout.splitlines() if line]
    # table a: folds weighted by their held-out cells, (1 * 100 + 3 * 0) / 4; b lacks folds
    assert lines[2] == "| a, 4 | 25.0 / 1.500 | 75.0 / 0.250 |"
    assert lines[3] == "| mean of the 1 | 25.0 | 75.0 |"
    assert lines[4].startswith("pi - yoyodyne-soft: +50.0 points over the 1 tables (ahead on 1")


TUNED = (
    "--embedding-size",
    "100",
    "--hidden-size",
    "200",
    "--layers",
    "2",
    "--dropout",
    "0.4",
    "--batch-size",
    "4",
    "--learning-rate",
    "0.002",
    "--label-smoothing",
    "0.1",
    "--model-arg",
    "enforce_monotonic=true",
    "--patience",
    "20",
    "--tag",
    "tuned",
    "--tables",
    "twins",
)  # fmt: skip (the folder holds out.tsv too once a run has ended)


def test_a_tuned_run_has_its_settings_in_the_config_and_its_tag_in_the_rows(tmp_path):
    write_twins(tmp_path)
    assert run_peers(tmp_path).returncode == 0
    tuned = run_peers(tmp_path, settings=TUNED)
    assert tuned.returncode == 0, tuned.stderr
    # the untuned row stays, the tuned one stands beside it, each run in its own folder
    systems = [r["system"] for r in rows(tmp_path / "out.tsv")]
    assert systems == ["yoyodyne-soft", "yoyodyne-soft-tuned"]
    untuned, run = rows(tmp_path / "runs.tsv")
    plain = yaml.safe_load((tmp_path / "work/twins-f1-soft/config.yaml").read_text())
    config = yaml.safe_load((tmp_path / "work/twins-f1-soft-tuned/config.yaml").read_text())
    # without settings, yoyodyne's defaults: nothing of the settings in the config
    assert "init_args" not in plain["model"]["init_args"]["source_encoder"]
    assert "batch_size" not in plain["data"] and "optimizer" not in plain["model"]["init_args"]
    assert int(untuned["patience"]) == math.ceil(200 / math.ceil(int(untuned["train_pairs"]) / 32))
    model = config["model"]["init_args"]
    assert model["source_encoder"]["init_args"] == {
        "embedding_size": 100, "hidden_size": 200, "layers": 2, "dropout": 0.4
    }  # fmt: skip
    expected = {"embedding_size": 100, "decoder_hidden_size": 200, "decoder_layers": 2,
                "decoder_dropout": 0.4, "label_smoothing": 0.1,
                "enforce_monotonic": True}  # fmt: skip
    assert {key: model[key] for key in expected} == expected
    assert model["optimizer"] == {"class_path": "yoyodyne.optimizers.Adam",
                                  "init_args": {"lr": 0.002}}  # fmt: skip
    assert config["data"]["batch_size"] == 4
    # the patience counts the batches of the batch size: max(20 epochs, 200 batches)
    batches = math.ceil(int(run["train_pairs"]) / 4)
    assert int(run["patience"]) == max(20, math.ceil(200 / batches))
    callbacks = config["trainer"]["callbacks"]
    assert callbacks[0]["init_args"]["patience"] == int(run["patience"])
    assert callbacks[1]["init_args"]["every_n_epochs"] == math.ceil(50 / batches)
    # run again: both rows are there, nothing runs
    again = run_peers(tmp_path, settings=TUNED)
    assert again.returncode == 0 and len(rows(tmp_path / "out.tsv")) == 2


def test_a_setting_of_the_model_must_be_key_equals_value(tmp_path):
    write_twins(tmp_path)
    refused = run_peers(tmp_path, settings=("--model-arg", "enforce_monotonic"))
    assert refused.returncode == 2 and "expected KEY=VALUE" in refused.stderr
