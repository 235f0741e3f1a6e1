"""The CPU threads a training takes (one fewer for each core other processes keep busy), and
the precision ``auto`` chooses."""

from __future__ import annotations

import time

import pytest
import torch

from phonkit.model import device


@pytest.fixture
def two_cores(monkeypatch):
    """Two cores, torch on two threads, and the CPU ticks ``watch`` gives over the sample."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    monkeypatch.setattr(device.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(device.time, "sleep", lambda seconds: None)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)

    def watch(busy: int, own: int, total: int = 20) -> None:
        ticks = iter([(1000, 50, 4000), (1000 + busy, 50 + own, 4000 + total)])
        monkeypatch.setattr(device, "_cpu_ticks", lambda: next(ticks))

    yield watch
    torch.set_num_threads(before)


@pytest.mark.parametrize(
    ("busy", "own", "free"),
    [
        (1, 0, 2),  # a quiet machine: both threads
        (20, 0, 1),  # two busy processes: one thread, never none
        (10, 0, 1),  # one busy process
        (12, 10, 2),  # the busy ticks were this process's own
    ],
)
def test_training_takes_the_cores_other_processes_leave(two_cores, busy, own, free):
    two_cores(busy, own)
    assert device.free_threads() == free


def test_omp_num_threads_chooses_the_threads_itself(two_cores, monkeypatch):
    two_cores(20, 0)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert device.free_threads() == 2


def test_this_process_s_own_ticks_are_read_from_proc():
    before = device._cpu_ticks()
    if before is None:  # not Linux: nothing to read, and all threads are kept
        pytest.skip("no /proc")
    spent = time.process_time() + 0.1
    while time.process_time() < spent:  # a tenth of a second of this process's CPU
        pass
    busy, own, total = (now - then for now, then in zip(device._cpu_ticks(), before, strict=True))
    assert own >= 5 and busy <= total  # at 100 ticks a second


@pytest.mark.parametrize(
    ("said", "messages"),
    [("runs/x: busy: training", ["runs/x: busy: training on 1 thread(s)"]), ("", [])],
)
def test_shared_cpu_runs_on_the_free_threads(two_cores, caplog, said, messages):
    two_cores(20, 0)
    with caplog.at_level("INFO", logger="phonkit"), device.shared_cpu(torch.device("cpu"), said):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    assert caplog.messages == messages  # decoding and scoring say nothing


def test_shared_cpu_keeps_torch_s_threads_on_a_quiet_cpu(two_cores, caplog):
    two_cores(1, 0)
    with caplog.at_level("INFO", logger="phonkit"), device.shared_cpu(torch.device("cpu"), "x"):
        assert torch.get_num_threads() == 2
    assert caplog.messages == []


@pytest.mark.parametrize("units, expected", [(True, "bf16"), (False, "fp32")])
def test_auto_precision_is_bfloat16_only_on_a_cpu_with_its_units(monkeypatch, units, expected):
    monkeypatch.setattr(device, "native_bf16", lambda where: units)
    assert device.resolve_precision(torch.device("cpu")) == expected
    assert device.resolve_precision(torch.device("cuda")) == "fp32"  # measured slower there
    assert device.resolve_precision(torch.device("cuda"), "bf16") == "bf16"
