"""Where and in what precision a model runs: the device policy (``auto`` takes a GPU when
there is one), the precision policy (``auto`` takes bfloat16 where the device has native
bfloat16 units and bfloat16 was measured faster: CPUs with AVX-512 BF16 or AMX, not CUDA
GPUs) and the thread policy (:func:`cpu_threads`: one thread for small data, else those
other processes leave free), in one place for training, decoding, fitting and scoring,
whether the command line or Python asks for them."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

import torch

from phonkit.errors import InputError
from phonkit.progress import say
from phonkit.settings import PRECISIONS


def choose_device(name: str) -> torch.device:
    """``auto`` takes CUDA when there is a GPU, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError(
            "device cuda: no CUDA GPU is available here (use device cpu or auto)",
            setting="device",
        )
    if name not in ("cpu", "cuda"):
        raise InputError(f"unknown device {name!r}; use auto, cpu or cuda")
    return torch.device(name)


def native_bf16(device: torch.device) -> bool:
    """Whether the device multiplies bfloat16 matrices natively: CUDA GPUs from Ampere on,
    CPUs with AVX-512 BF16 or AMX units. Elsewhere bfloat16 is emulated, and slower."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, check, lambda: False)() for check in checks)


def resolve_precision(device: torch.device, precision: str = "auto") -> str:
    """``fp32`` or ``bf16``: ``auto`` takes bfloat16 where it was measured faster than
    float32, on CPUs with native bfloat16 units; float32 on CUDA GPUs, where bfloat16
    autocast trained and decoded phonkit's models a fifth slower (an H200,
    docs/results/speed.md#gpu)
    and elsewhere, where bfloat16 is emulated."""
    if precision not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r}; use {', '.join(PRECISIONS)}")
    if precision == "auto":
        return "bf16" if device.type == "cpu" and native_bf16(device) else "fp32"
    return precision


def autocast(device: torch.device, precision: str = "auto"):
    """Mixed precision: ``bf16`` autocasts matrix products (and the LSTM) to bfloat16,
    ``fp32`` never does, ``auto`` does as :func:`resolve_precision` says (results
    then differ from float32 in the last digits; see docs/results/speed.md)."""
    if resolve_precision(device, precision) == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return nullcontext()


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one CPU thread: a small table's batches are too small to share out, and a
    second thread only waits (spinning) for the first; the count is restored after."""
    with threads(1):
        yield


@contextmanager
def threads(count: int) -> Iterator[None]:
    """Torch on ``count`` CPU threads; the count is restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def cpu_threads(
    device: torch.device, small: bool = False, said: str = ""
) -> AbstractContextManager[None]:
    """The CPU threads of a piece of work (training, decoding, fitting, scoring), the one
    policy of the command line and the Python API alike: one for ``small`` data (its batches
    are too small to share out, and a second thread only spins), else as many as other
    processes leave free (:func:`shared_cpu`; ``said`` as there)."""
    return one_thread() if small else shared_cpu(device, said)


SAMPLE_SECONDS = 0.1  # how long free_threads watches the other processes


def shared_cpu(device: torch.device, said: str = "") -> AbstractContextManager[None]:
    """On the CPU, torch on as many threads as other processes leave cores free
    (:func:`free_threads`). ``said``, when given, is said on stderr with the count where it
    is fewer than torch's: ``{said} on N thread(s)``."""
    if device.type != "cpu" or (free := free_threads()) == torch.get_num_threads():
        return nullcontext()
    if said:
        say(f"{said} on {free} thread(s)")
    return threads(free)


def free_threads() -> int:
    """Torch's CPU threads less one for each core other processes keep busy (at least one),
    watched for SAMPLE_SECONDS; all of them where that cannot be read (not Linux) or where
    ``OMP_NUM_THREADS`` chose them. Each of torch's parallel steps waits for its slowest
    thread, spinning: beside two busy processes, even at the lowest priority, two threads on
    2 cores train several times slower than one (docs/results/speed.md)."""
    count = torch.get_num_threads()
    if "OMP_NUM_THREADS" in os.environ or count < 2:
        return count
    before = _cpu_ticks()
    time.sleep(SAMPLE_SECONDS)
    after = _cpu_ticks()
    if before is None or after is None or after[2] <= before[2]:
        return count
    busy, own, total = (now - then for now, then in zip(after, before, strict=True))
    cores = os.cpu_count() or 1
    others = max(0.0, (busy - own) / total * cores)
    return max(1, min(count, cores - round(others)))


def _cpu_ticks() -> tuple[int, int, int] | None:
    """The machine's busy and total CPU ticks since boot (all cores), and this process's."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            ticks = [int(value) for value in handle.readline().split()[1:9]]
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None
    idle = ticks[3] + ticks[4]  # idle, iowait
    return sum(ticks) - idle, int(fields[11]) + int(fields[12]), sum(ticks)  # utime, stime
