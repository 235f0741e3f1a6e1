"""Adam, and halving its learning rate on a plateau, without ``torch.optim``.

Building any ``torch.optim`` optimiser imports torch's compiler stack: 1.6 s on the 2-core
development machine, more than training a small table takes (docs/results/tables.md). The fit of
new lemmas' underlying forms and the training of small data sets use these instead; the
update is Adam's (Kingma & Ba) with L2 weight decay added to the gradient, as
``torch.optim.Adam`` computes it, and the schedule is ``ReduceLROnPlateau(mode="min",
factor=0.5, patience)``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor


class Adam:
    """Adam over parameter groups (``{"params": [...], "lr": ..., "weight_decay": ...}``)."""

    def __init__(self, groups: Sequence[dict[str, Any]], betas=(0.9, 0.999), eps: float = 1e-8):
        self.param_groups = [
            {"weight_decay": 0.0, **group, "params": list(group["params"])} for group in groups
        ]
        self.betas, self.eps = betas, eps
        self.steps = 0
        self.moments = [
            [(torch.zeros_like(p), torch.zeros_like(p)) for p in group["params"]]
            for group in self.param_groups
        ]

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for parameter in group["params"]:
                parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One update of every parameter with a gradient; the tensors of a group move
        together (``torch._foreach_*``: one call per operation, not one per tensor)."""
        (b1, b2) = self.betas
        self.steps += 1
        first, second = 1 - b1**self.steps, 1 - b2**self.steps
        for group, moments in zip(self.param_groups, self.moments, strict=True):
            live = [
                (parameter, mean, square)
                for parameter, (mean, square) in zip(group["params"], moments, strict=True)
                if parameter.grad is not None
            ]
            if not live:
                continue
            parameters, means, squares = (list(column) for column in zip(*live, strict=True))
            grads = [parameter.grad for parameter in parameters]
            if group["weight_decay"]:
                grads = list(torch._foreach_add(grads, parameters, alpha=group["weight_decay"]))
            torch._foreach_lerp_(means, grads, 1 - b1)
            torch._foreach_mul_(squares, b2)
            torch._foreach_addcmul_(squares, grads, grads, value=1 - b2)
            scales = torch._foreach_div(squares, second)
            torch._foreach_sqrt_(scales)
            torch._foreach_add_(scales, self.eps)
            torch._foreach_addcdiv_(parameters, means, scales, value=-group["lr"] / first)

    def state_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "lr": [group["lr"] for group in self.param_groups],
            "moments": [[(m.clone(), s.clone()) for m, s in group] for group in self.moments],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Our own state, or ``torch.optim.Adam``'s (a small run interrupted before phonkit
        trained small sets with this Adam resumes where it stopped)."""
        if "param_groups" in state:
            state = from_torch(state)
        self.steps = state["steps"]
        for group, lr in zip(self.param_groups, state["lr"], strict=True):
            group["lr"] = lr
        for moments, saved in zip(self.moments, state["moments"], strict=True):
            for (mean, square), old in zip(moments, saved, strict=True):
                if old is not None:
                    mean.copy_(old[0])
                    square.copy_(old[1])


class HalvingOnPlateau:
    """Halve every group's learning rate after ``patience`` epochs without a lower loss."""

    def __init__(self, optimizer: Adam, patience: int = 0, threshold: float = 1e-4):
        self.optimizer, self.patience, self.threshold = optimizer, patience, threshold
        self.best = float("inf")
        self.waited = 0

    def step(self, loss: float) -> None:
        if loss < self.best * (1 - self.threshold):  # ReduceLROnPlateau's relative threshold
            self.best, self.waited = loss, 0
            return
        self.waited += 1
        if self.waited > self.patience:
            for group in self.optimizer.param_groups:
                group["lr"] *= 0.5
            self.waited = 0

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "waited": self.waited}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Our own state, or ``ReduceLROnPlateau``'s."""
        self.best = state["best"]
        self.waited = state["waited"] if "waited" in state else state["num_bad_epochs"]


def from_torch(state: dict[str, Any]) -> dict[str, Any]:
    """``torch.optim.Adam``'s state dict in :meth:`Adam.state_dict`'s layout (parameters
    numbered in group order, as both number them)."""
    moments, steps = [], 0
    for group in state["param_groups"]:
        found: list[tuple[Any, Any] | None] = []
        for number in group["params"]:
            saved = state["state"].get(number)
            if saved is None:  # never stepped: zero moments
                found.append(None)
                continue
            steps = int(saved["step"])
            found.append((saved["exp_avg"], saved["exp_avg_sq"]))
        moments.append(found)
    return {"steps": steps, "lr": [g["lr"] for g in state["param_groups"]], "moments": moments}


def single(parameter: Tensor, lr: float) -> Adam:
    """Adam on one tensor (the fit of new lemmas)."""
    return Adam([{"params": [parameter], "lr": lr}])
