"""Training and greedy-prediction throughput (forms/s) of each model variant.

    python benchmarks/throughput.py [--data-dir ../shared/data] [--lang nld] [--device cpu]
        [--precision auto|fp32|bf16] [--morphemes features|bundle] [--processes N]

Reads the UniMorph table of --lang (the bundled Turkish sample with --lang sample), takes the
training part of the paradigm-completion split, and times whole passes: one warm-up pass, then
--repeats timed passes of training (forward, backward, Adam step) and of batched greedy
decoding, with the device synchronised before the clock is read. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import statistics
import time
from pathlib import Path

import torch

from phonkit.data.corpora import CorpusRequest
from phonkit.data.encoding import encode
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION, Vocabularies
from phonkit.data.split import paradigm_completion
from phonkit.model.decoding import decode
from phonkit.model.device import choose_device, resolve_precision
from phonkit.model.training import Trainer
from phonkit.plugins import lookup
from phonkit.settings import ModelConfig, TrainConfig
from phonkit.tasks.corpus import surface_examples


def synchronise(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(device: torch.device, work) -> float:
    synchronise(device)
    started = time.perf_counter()
    work()
    synchronise(device)
    return time.perf_counter() - started


def workload(args: argparse.Namespace, device: torch.device):
    """The training forms of the benchmark, their vocabularies and encoding."""
    torch.manual_seed(0)
    if args.lang == "sample":
        lexicon = lookup("corpora", "sample").read(CorpusRequest("tur"))
    else:
        lexicon = lookup("corpora", "unimorph").read(CorpusRequest(args.lang, args.data_dir))
    examples = surface_examples(lexicon, "none", args.lang, args.morphemes)
    train = paradigm_completion(examples, seed=1).train[: args.forms]
    vocabularies = Vocabularies.build(train)
    return lexicon.name, train, vocabularies, encode(train, vocabularies)


def measure(args: argparse.Namespace, name: str, barrier=None) -> tuple[float, float]:
    """Training and greedy-prediction forms/s of one variant: the median of the timed passes
    after a warm-up pass. With a ``barrier``, the timed passes start together with those of
    the other worker processes."""
    device = choose_device(args.device)
    _, _, vocabularies, data = workload(args, device)
    variant = lookup("models", name)
    model = variant(len(vocabularies.symbols), len(vocabularies.morphemes), ModelConfig(args.dim))
    config = TrainConfig(batch_size=args.batch_size, lr=args.lr, precision=args.precision)
    trainer = Trainer(model, data, data, config, device, 64)

    def train_pass():
        trainer.train_epoch(lambda: None)

    def decode_pass(length=int(data.lengths.max()) + 1):
        decode(model, data.morphemes, length, args.decode_batch, args.precision)

    timed(device, train_pass)
    if barrier is not None:
        barrier.wait()
    train_times = [timed(device, train_pass) for _ in range(args.repeats)]
    timed(device, decode_pass)
    if barrier is not None:
        barrier.wait()
    decode_times = [timed(device, decode_pass) for _ in range(args.repeats)]
    return len(data) / statistics.median(train_times), len(data) / statistics.median(decode_times)


def worker(args: argparse.Namespace, name: str, barrier, results) -> None:
    torch.set_num_threads(1)
    results.put(measure(args, name, barrier))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--lang", default="nld")
    parser.add_argument("--variants", default="pi,pd,joint")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--forms", type=int, default=8000, help="training forms timed per pass")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--decode-batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dim", type=int, default=200)
    parser.add_argument("--precision", default="auto", help="auto, fp32 or bf16")
    parser.add_argument("--morphemes", default=DEFAULT_DECOMPOSITION, help="features or bundle")
    parser.add_argument("--lr", type=float, default=TrainConfig.lr)
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="N > 1: N worker processes of one thread each, timed together; the figures are "
        "their sum (how `phonkit experiment --jobs N` uses the machine)",
    )
    args = parser.parse_args()

    device = choose_device(args.device)
    name, train, _, data = workload(args, device)
    where = torch.cuda.get_device_name() if device.type == "cuda" else platform.processor()
    threads = f"{args.processes} processes × 1 thread" if args.processes > 1 else (
        f"{torch.get_num_threads()} threads"
    )  # fmt: skip
    length = float(data.lengths.float().mean()) - 1
    print(
        f"{name}: {len(train)} training forms, mean length {length:.1f} symbols; "
        f"d = {args.dim}, batch {args.batch_size} (decoding {args.decode_batch}), "
        f"precision {args.precision} ({resolve_precision(device, args.precision)}), "
        f"morphemes {args.morphemes}; {device.type} ({where or 'CPU'}, {threads}), "
        f"torch {torch.__version__}"
    )
    print()
    print("| variant | training forms/s | greedy prediction forms/s |")
    print("|---|---:|---:|")
    for variant in args.variants.split(","):
        if args.processes > 1:
            context = multiprocessing.get_context("spawn")
            barrier, results = context.Barrier(args.processes), context.Queue()
            workers = [
                context.Process(target=worker, args=(args, variant, barrier, results))
                for _ in range(args.processes)
            ]
            for process in workers:
                process.start()
            figures = [results.get() for _ in workers]
            for process in workers:
                process.join()
            training, prediction = (sum(column) for column in zip(*figures, strict=True))
        else:
            training, prediction = measure(args, variant)
        print(f"| {variant} | {training:,.0f} | {prediction:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
