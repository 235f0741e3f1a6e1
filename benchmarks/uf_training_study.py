"""How fast underlying forms are learned: the initial scale of morpheme vectors, the noise
scale sigma and the learning rate of the morpheme vectors, on a Dutch subset.

    python benchmarks/uf_training_study.py INIT_SCALE SIGMA UF_LR_SCALE [--data-dir DIR]

Trains ``pi`` (d = 200, one CPU thread) for 8 epochs on the paradigm-completion split of the
UniMorph Dutch paradigms of the first 1,200 lemmas (alphabetically) and prints dev loss and
dev accuracy after each epoch. The figures in docs/method.md come from this script.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from phonkit.data.corpora import CorpusRequest
from phonkit.data.encoding import encode
from phonkit.data.lexicon import Vocabularies
from phonkit.data.split import paradigm_completion
from phonkit.model.training import Trainer
from phonkit.plugins import lookup
from phonkit.settings import ModelConfig, TrainConfig
from phonkit.tasks.corpus import surface_examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("init_scale", type=float)
    parser.add_argument("sigma", type=float)
    parser.add_argument("uf_lr_scale", type=float)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--lemmas", type=int, default=1200)
    parser.add_argument("--epochs", type=int, default=8)
    args = parser.parse_args()
    torch.set_num_threads(1)

    lexicon = lookup("corpora", "unimorph").read(CorpusRequest("nld", args.data_dir))
    keep = set(sorted(lexicon.lemmas)[: args.lemmas])
    examples = [e for e in surface_examples(lexicon, "none", "nld") if e.entry.lemma in keep]
    split = paradigm_completion(examples, seed=1)
    vocabularies = Vocabularies.build(split.train)
    train, dev = encode(split.train, vocabularies), encode(split.dev, vocabularies)
    torch.manual_seed(1)
    config = ModelConfig(sigma=args.sigma, init_scale=args.init_scale)
    model = lookup("models", "pi")(len(vocabularies.symbols), len(vocabularies.morphemes), config)
    training = TrainConfig(epochs=args.epochs, uf_lr_scale=args.uf_lr_scale)
    trainer = Trainer(model, train, dev, training, torch.device("cpu"), 60)
    print(f"{len(split.train)} training forms")
    trainer.fit(
        lambda: None,
        lambda r: print(f"epoch {r.epoch}  dev loss {r.dev_loss:.3f}  dev acc {r.dev_acc:.1f}"),
    )


if __name__ == "__main__":
    main()
