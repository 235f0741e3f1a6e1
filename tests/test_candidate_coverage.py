"""benchmarks/candidate_coverage.py: with ``--candidates ur``, the share of held-out cells whose
first candidate is right is ``--candidates ur``'s ACC, as the committed record has it table by
table; with ``analogy+ur`` the candidates cover what each kind covers; a folder that is not
one ends in one line and exit code 2, as does benchmarks/reliability_speed.py's run that is
none."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks/candidate_coverage.py"
spec = importlib.util.spec_from_file_location("candidate_coverage", SCRIPT)
candidate_coverage = importlib.util.module_from_spec(spec)
spec.loader.exec_module(candidate_coverage)


@pytest.mark.parametrize("table", ["Odden_1.12_English", "Odden_105_Bukusu"])
def test_the_strings_first_candidates_give_the_record_of_candidates_ur(table):
    with open(ROOT / "results/tables-textbook/ur/results.tsv", encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        record = {(row["table"], row["system"]): row for row in rows}
    cells, covered, first, _ = candidate_coverage.coverage(
        SHARED / "textbook" / f"{table}.csv", seed=1, offered_by="ur"
    )
    assert cells == int(record[table, "pi"]["test_cells"])
    assert 100 * first / cells == pytest.approx(float(record[table, "pi"]["acc"]), abs=0.01)
    assert first <= covered <= cells


def test_a_folder_without_tables_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--candidates", "ur"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"{tmp_path}: no .csv or .tsv table in the folder"]


def test_both_kinds_of_candidates_cover_what_each_covers():
    table = SHARED / "textbook" / "Odden_3.2_Polish.csv"  # raising: the strings reach more
    analogy, strings, both = (
        candidate_coverage.coverage(table, seed=1, offered_by=kind)
        for kind in ("analogy", "ur", "analogy+ur")
    )
    assert analogy[0] == strings[0] == both[0]  # the same held-out cells
    assert both[1] >= max(analogy[1], strings[1])
    assert both[2] >= analogy[2]  # the analogy's candidates come first
    assert both[3] <= analogy[3] + strings[3]


def test_reliability_speed_on_a_folder_that_is_no_run_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/reliability_speed.py"), str(tmp_path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "not a phonkit run directory" in done.stderr
