"""Variational training: single-sample ELBO with the Gaussian prior, Adam, halving on plateau."""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from phonkit.data.encoding import Encoded, bucketed_batches
from phonkit.errors import InputError
from phonkit.model.adam import Adam, HalvingOnPlateau
from phonkit.model.decoding import decode, surprisal, token_nll
from phonkit.model.device import autocast
from phonkit.model.phonology import Model
from phonkit.settings import TrainConfig


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class EpochRecord:
    """One epoch's figures, as ``history.tsv`` of the run directory shows them."""

    epoch: int
    lr: float  # the learning rate the epoch was trained with
    train_loss: float
    dev_loss: float
    dev_acc: float
    forms_per_second: float  # training forms per second of the epoch's training pass
    best: bool  # the checkpoint of this epoch is the one kept so far
    seconds: float = 0.0  # the whole epoch: training pass and dev scoring


def exact_matches(predictions: list[list[int]], data: Encoded) -> float:
    """Accuracy in % of id sequences against the encoded gold forms."""
    gold = data.symbols.tolist()
    lengths = data.lengths.tolist()
    hits = sum(p == g[1:n] for p, g, n in zip(predictions, gold, lengths, strict=False))
    return 100.0 * hits / max(len(predictions), 1)


KEEP_EVERY = 10.0  # seconds between the epochs handed to the checkpoint callback (at most)


@dataclass
class Checkpoint:
    """What an epoch leaves to keep: the whole training state (to resume from), the model's
    weights when the epoch is the best so far (else None), and the history of all epochs."""

    state: dict[str, Any]
    best: dict[str, Any] | None
    history: list[EpochRecord]


def held_back(checkpoint: Checkpoint) -> Checkpoint:
    """A copy of ``checkpoint`` that training on leaves as it is: its tensors cloned (the
    model's weights are the live ones), the rest shared, as an epoch's state and records are
    made anew and never changed (``copy.deepcopy`` copied the whole history every epoch)."""
    return Checkpoint(cloned(checkpoint.state), cloned(checkpoint.best), checkpoint.history)


def cloned(value: Any) -> Any:
    """``value`` with every tensor in its dicts, lists and tuples cloned."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, dict):  # of its own type, attributes kept (a state dict's _metadata)
        copied = copy.copy(value)
        copied.update((key, cloned(item)) for key, item in value.items())
        return copied
    if isinstance(value, list | tuple):
        return type(value)(cloned(item) for item in value)
    return value


def keep_nothing(checkpoint: Checkpoint) -> None:
    """The checkpoint callback of a training that keeps nothing (benchmarks, tests)."""


class Trainer:
    """Trains a model on encoded data, handing a :class:`Checkpoint` to ``checkpoint`` after
    each epoch (a run directory stores it; ``where`` names it in messages). ``light``:
    phonkit's own Adam (:mod:`phonkit.model.adam`) rather than torch.optim's fused one, whose
    import costs more than training small data does."""

    def __init__(
        self,
        model: Model,
        train: Encoded,
        dev: Encoded,
        config: TrainConfig,
        device: torch.device,
        max_length: int,
        checkpoint: Callable[[Checkpoint], None] = keep_nothing,
        where: str | None = None,
        light: bool = True,
    ):
        self.checkpoint = checkpoint
        self.where = where
        self.model = model.to(device)
        self.train_data = train.to(device)
        self.train_lengths = train.lengths  # on the CPU: batch widths without device syncs
        self.dev_data = dev
        self.config = config
        self.device = device
        self.max_length = max_length
        self.total_tokens = float(train.lengths.sum())
        self.optimizer: Any
        self.scheduler: Any
        if light:  # on small data torch.optim's import costs more than the training
            self.optimizer = Adam(self.parameter_groups())
            self.scheduler = HalvingOnPlateau(self.optimizer, config.patience)
        else:
            self.optimizer = torch.optim.Adam(self.parameter_groups(), fused=True)
            self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
                self.optimizer, mode="min", factor=0.5, patience=config.patience
            )
        self.epoch = 0
        self.best: list[float] = [float("inf")]
        self.history: list[EpochRecord] = []
        self.generator = torch.Generator().manual_seed(config.seed)

    def parameter_groups(self) -> list[dict[str, Any]]:
        """The morpheme vectors learn at ``uf_lr_scale`` times the rate of the rest, under the
        N(0, I) prior: its gradient, ``m`` per symbol of the training set, is Adam's (L2)
        weight decay ``prior_weight / N`` — the same update as adding ``½||m||² / N`` to the
        loss of every batch, without computing it."""
        vectors = self.model.morphemes.weight
        return [
            {
                "params": [p for p in self.model.parameters() if p is not vectors],
                "lr": self.config.lr,
            },
            {
                "params": [vectors],
                "lr": self.config.lr * self.config.uf_lr_scale,
                "weight_decay": self.config.prior_weight / self.total_tokens,
            },
        ]

    def state(self) -> dict[str, Any]:
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "epoch": self.epoch,
            "best": self.best,
            "history": [vars(record).copy() for record in self.history],
            "generator": self.generator.get_state(),
            "torch_rng": torch.get_rng_state(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.epoch = state["epoch"]
        best = state["best"]  # a float in checkpoints made before --select existed
        self.best = list(best) if isinstance(best, list | tuple) else [best]
        self.history = [EpochRecord(**record) for record in state["history"]]
        self.generator.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])

    @property
    def lr(self) -> float:
        return self.optimizer.param_groups[0]["lr"]

    @property
    def done(self) -> bool:
        return self.epoch >= self.config.epochs or self.lr < self.config.min_lr

    def batches_per_epoch(self) -> int:
        return -(-len(self.train_data) // self.config.batch_size)

    def train_epoch(self, advance: Callable[[], None]) -> float:
        """One pass over the training data; the mean loss per symbol."""
        self.model.train()
        total = torch.zeros((), device=self.device)
        for index in bucketed_batches(self.train_lengths, self.config.batch_size, self.generator):
            width = int(self.train_lengths[index].max())
            morphemes, inputs, targets = self.train_data.batch(index.to(self.device), width)
            with autocast(self.device, self.config.precision):
                nll = token_nll(self.model, morphemes, inputs, targets).sum()
            tokens = (targets != 0).sum()
            loss = nll / tokens
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.model.clip is not None:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.model.clip)
            self.optimizer.step()
            total += nll.detach()
            advance()
        return float(total) / self.total_tokens

    def dev_figures(self) -> tuple[float, float]:
        """Dev loss (nats per symbol, u at its mean) and dev accuracy of greedy decoding."""
        per_word = surprisal(self.model, self.dev_data, precision=self.config.precision)
        lengths = self.dev_data.lengths.float()
        loss = float((per_word * lengths).sum() / lengths.sum())
        predictions = decode(
            self.model, self.dev_data.morphemes, self.max_length, precision=self.config.precision
        )
        return loss, exact_matches(predictions, self.dev_data)

    def selection_key(self, dev_loss: float, dev_acc: float) -> list[float]:
        """What the kept checkpoint minimises: the dev loss, or (``select = acc``) minus the
        dev accuracy, ties going to the lower dev loss. Without a dev split, the loss is the
        epoch's training loss and there is no accuracy to select by."""
        if self.config.select == "loss" or math.isnan(dev_acc):
            return [dev_loss]
        return [-dev_acc, dev_loss]

    def check_finite(self, train_loss: float, dev_loss: float) -> None:
        """A loss of NaN or infinity ends training before this epoch is kept: the run keeps
        its checkpoint and best weights of the last good epoch."""
        if math.isfinite(train_loss) and math.isfinite(dev_loss):
            return
        which, value = (
            ("training", train_loss) if not math.isfinite(train_loss) else ("dev", dev_loss)
        )
        kept = f"epoch {self.epoch} is kept" if self.epoch else "no epoch was kept"
        raise InputError(
            f"training diverged in epoch {self.epoch + 1}: the {which} loss is {value}; "
            f"{kept} and the run is unfinished; train it again with a lower training.lr "
            f"(it was {self.config.lr:g}) and force",
            self.where,
            ("training.lr", "force"),
        )

    def fit(self, advance: Callable[[], None], report: Callable[[EpochRecord], None]) -> None:
        """Train until the epoch budget is spent or the learning rate falls below its floor.
        The learning rate is halved on dev-loss plateaus whatever checkpoint is kept.

        The first epoch is handed to ``checkpoint`` (a run has something to resume from
        early), then the last one finished when :data:`KEEP_EVERY` seconds have passed since
        the last hand-over, at the end, and when training stops early (Ctrl-C, divergence):
        a small set's epochs of a few milliseconds are not each written to disk, and what is
        kept is always the last epoch finished."""
        pending: Checkpoint | None = None
        kept = -math.inf
        try:
            while not self.done:
                pending = self.fit_epoch(advance, pending)
                if self.done or time.perf_counter() - kept >= KEEP_EVERY:
                    self.checkpoint(pending)
                    pending, kept = None, time.perf_counter()
                else:  # held back: a copy, since the live weights move on
                    pending = held_back(pending)
                report(self.history[-1])
        finally:
            if pending is not None:
                self.checkpoint(pending)

    def fit_epoch(self, advance: Callable[[], None], pending: Checkpoint | None) -> Checkpoint:
        """One epoch and what it leaves to keep (the best weights of ``pending``, not yet
        kept, where this epoch is not better)."""
        started = time.perf_counter()
        train_loss = self.train_epoch(advance)
        training_seconds = time.perf_counter() - started
        # A split without dev (a small table's) judges epochs by their training loss.
        dev_loss, dev_acc = self.dev_figures() if len(self.dev_data) else (train_loss, math.nan)
        self.check_finite(train_loss, dev_loss)
        self.epoch += 1
        lr = self.lr
        key = self.selection_key(dev_loss, dev_acc)
        improved = key < self.best
        if improved:
            self.best = key
        self.scheduler.step(dev_loss)
        record = EpochRecord(
            self.epoch,
            lr,
            train_loss,
            dev_loss,
            dev_acc,
            len(self.train_data) / training_seconds,
            improved,
            time.perf_counter() - started,
        )
        self.history.append(record)
        best = pending.best if pending is not None else None
        if improved:
            best = self.model.state_dict()
        return Checkpoint(self.state(), best, list(self.history))
