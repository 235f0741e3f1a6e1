"""benchmarks/voicing_errors.py: on a made-up learning curve, which errors are one obstruent's
voicing, which give a voiceless segment for a voiced one, and which of those the draw could
not have told (no training form of the lemma holds the voiced segment)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks/voicing_errors.py"
spec = importlib.util.spec_from_file_location("voicing_errors", SCRIPT)
voicing_errors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(voicing_errors)

HEADER = "lemma\tfeatures\tgold\tprediction\n"


def write_run(root: Path, name: str, rows: list[str], train: list[str] | None) -> None:
    run = root / "runs" / name
    run.mkdir(parents=True)
    (run / "predictions.tsv").write_text(HEADER + "".join(r + "\n" for r in rows), "utf-8")
    if train is not None:
        (run / "train.tsv").write_text("".join(t + "\n" for t in train), "utf-8")


def voicing(gold: str, predicted: str) -> tuple[str, str] | None:
    return voicing_errors.voicing(gold.split(), predicted.split())


def test_one_segments_voicing_is_told_from_other_errors():
    assert voicing("h ɔ n d ə n", "h ɔ n t ə n") == ("d", "t")
    assert voicing("b ɛ ɡ z", "b ɛ ɡ s") == ("z", "s")
    assert voicing("l o w d ə d", "l o w d d") is None  # length
    assert voicing("h ɔ n d", "h ɔ n m") is None  # not voicing
    assert voicing("b a d", "p a t") is None  # two segments


def test_the_draw_that_never_showed_the_voiced_segment_is_counted(tmp_path):
    experiment = tmp_path / "runs-xx"
    rows = [
        "hond\tN;PL\th ɔ n d ə n\th ɔ n t ə n",  # voiced as voiceless, never seen voiced
        "bed\tN;PL\tb ɛ d ə n\tb ɛ t ə n",  # voiced as voiceless, seen voiced in training
        "kat\tN;PL\tk ɑ t ə n\tk ɑ d ə n",  # voiceless as voiced
        "bel\tN;PL\tb ɛ l ə n\tb ɛ l ə",  # another error
        "pot\tN;PL\tp ɔ t ə n\tp ɔ t ə n",  # right
    ]
    train = ["hond\th ɔ n t\tN;SG", "bed\tb ɛ d ə\tN;DIM", "kat\tk ɑ t\tN;SG"]
    write_run(experiment, "pi-k200-d1", rows, train)
    write_run(experiment, "pi-k200-d2", rows[4:], train)
    write_run(experiment, "notarun", rows, train)
    out = subprocess.run([sys.executable, str(SCRIPT), str(experiment)], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == voicing_errors.COLUMNS
    assert lines[1:] == [["runs-xx", "pi", "200", "2", "6", "4", "3", "2", "1"]]
