"""Training and greedy-prediction throughput (forms/s) of each model variant.

    python benchmarks/throughput.py [--data-dir ../shared/data] [--lang nld] [--device cpu]

Reads the UniMorph table of --lang (the bundled Turkish sample with --lang sample), takes the
training part of the paradigm-completion split, and times whole passes: one warm-up pass, then
--repeats timed passes of training (forward, backward, Adam step) and of batched greedy
decoding, with the device synchronised before the clock is read. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import torch

from phonkit.corpora import CorpusRequest
from phonkit.decoding import decode, resolve_precision
from phonkit.encoding import Vocabularies, encode
from phonkit.lexicon import DEFAULT_DECOMPOSITION
from phonkit.phonology import ModelConfig
from phonkit.plugins import lookup
from phonkit.rundir import Run
from phonkit.split import paradigm_completion
from phonkit.training import TrainConfig, Trainer, choose_device
from phonkit.workflow import surface_examples


def synchronise(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(device: torch.device, work) -> float:
    synchronise(device)
    started = time.perf_counter()
    work()
    synchronise(device)
    return time.perf_counter() - started


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
    args = parser.parse_args()

    device = choose_device(args.device)
    torch.manual_seed(0)
    if args.lang == "sample":
        lexicon = lookup("corpora", "sample").read(CorpusRequest("tur"))
    else:
        lexicon = lookup("corpora", "unimorph").read(CorpusRequest(args.lang, args.data_dir))
    examples = surface_examples(lexicon, "none", args.lang, args.morphemes)
    train = paradigm_completion(examples, seed=1).train
    train = train[: args.forms]
    vocabularies = Vocabularies.build(train)
    data = encode(train, vocabularies)
    mean_length = float(data.lengths.float().mean())
    where = platform.processor() or "CPU"
    if device.type == "cuda":
        where = torch.cuda.get_device_name()
    print(
        f"{lexicon.name}: {len(train)} training forms, mean length {mean_length - 1:.1f} symbols; "
        f"d = {args.dim}, batch {args.batch_size} (decoding {args.decode_batch}), "
        f"precision {args.precision} ({resolve_precision(device, args.precision)}), "
        f"morphemes {args.morphemes}; "
        f"{device.type} ({where}, {torch.get_num_threads()} threads), "
        f"torch {torch.__version__}"
    )
    print()
    print("| variant | training forms/s | greedy prediction forms/s |")
    print("|---|---:|---:|")
    for name in args.variants.split(","):
        variant = lookup("models", name)
        model = variant(
            len(vocabularies.symbols), len(vocabularies.morphemes), ModelConfig(dim=args.dim)
        )
        config = TrainConfig(batch_size=args.batch_size, lr=args.lr, precision=args.precision)
        trainer = Trainer(Run(Path("/nonexistent")), model, data, data, config, device, 64)

        def train_pass(trainer=trainer):
            trainer.train_epoch(lambda: None)

        def decode_pass(model=model, length=int(data.lengths.max()) + 1):
            decode(model, data.morphemes, length, args.decode_batch, args.precision)

        train_times = [timed(device, train_pass) for _ in range(args.repeats + 1)][1:]
        decode_times = [timed(device, decode_pass) for _ in range(args.repeats + 1)][1:]
        training = len(data) / statistics.median(train_times)
        prediction = len(data) / statistics.median(decode_times)
        print(f"| {name} | {training:,.0f} | {prediction:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
