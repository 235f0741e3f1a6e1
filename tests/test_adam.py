"""phonkit's own Adam and plateau halving (small data sets) make the updates of torch.optim's."""

from __future__ import annotations

import torch

from phonkit.model.adam import Adam, HalvingOnPlateau


def groups(parameters: list[torch.Tensor]) -> list[dict]:
    return [
        {"params": [parameters[0]], "lr": 1e-2},
        {"params": [parameters[1]], "lr": 1e-1, "weight_decay": 0.05},
    ]


def test_adam_takes_the_steps_of_torch_optim_adam():
    torch.manual_seed(0)
    ours = [torch.randn(3, 4, requires_grad=True), torch.randn(5, requires_grad=True)]
    theirs = [p.detach().clone().requires_grad_() for p in ours]
    mine, reference = Adam(groups(ours)), torch.optim.Adam(groups(theirs))
    for step in range(6):
        for parameters, optimizer in ((ours, mine), (theirs, reference)):
            optimizer.zero_grad()
            loss = (parameters[0] ** 2).sum() * (step + 1) + (parameters[1] ** 3).sum()
            loss.backward()
            optimizer.step()
    for a, b in zip(ours, theirs, strict=True):
        assert torch.allclose(a, b, atol=1e-6)


def test_adam_state_round_trips():
    parameter = torch.ones(2, requires_grad=True)
    first = Adam([{"params": [parameter], "lr": 0.1}])
    parameter.grad = torch.tensor([1.0, -2.0])
    first.step()
    second = Adam([{"params": [parameter], "lr": 0.5}])
    second.load_state_dict(first.state_dict())
    assert second.steps == 1 and second.param_groups[0]["lr"] == 0.1
    assert torch.equal(second.moments[0][0][0], first.moments[0][0][0])


def test_halving_on_plateau_follows_reduce_lr_on_plateau():
    losses = [3.0, 2.0, 2.0, 1.9999, 1.5, 1.6, 1.7, 1.2, 1.2, 1.2]
    for patience in (0, 1, 2):
        parameter = torch.zeros(1, requires_grad=True)
        mine = Adam([{"params": [parameter], "lr": 1.0}])
        reference = torch.optim.Adam([parameter], lr=1.0)
        halving = HalvingOnPlateau(mine, patience)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(
            reference, factor=0.5, patience=patience
        )
        for loss in losses:
            halving.step(loss)
            plateau.step(loss)
            assert mine.param_groups[0]["lr"] == reference.param_groups[0]["lr"]


def test_a_torch_optim_state_resumes_in_our_adam():
    """A small run interrupted before phonkit trained small sets with its own Adam has
    ``torch.optim`` state in its checkpoint: resuming goes on with the same steps."""
    torch.manual_seed(0)
    ours = [torch.randn(3, 4, requires_grad=True), torch.randn(5, requires_grad=True)]
    theirs = [p.detach().clone().requires_grad_() for p in ours]
    reference = torch.optim.Adam(groups(theirs))
    for _ in range(3):
        reference.zero_grad()
        ((theirs[0] ** 2).sum() + (theirs[1] ** 3).sum()).backward()
        reference.step()
    with torch.no_grad():
        for a, b in zip(ours, theirs, strict=True):
            a.copy_(b)
    mine = Adam(groups(ours))
    mine.load_state_dict(reference.state_dict())
    for parameters, optimizer in ((ours, mine), (theirs, reference)):
        optimizer.zero_grad()
        ((parameters[0] ** 2).sum() + (parameters[1] ** 3).sum()).backward()
        optimizer.step()
    for a, b in zip(ours, theirs, strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(reference, patience=2)
    plateau.step(1.0)
    plateau.step(2.0)
    halving = HalvingOnPlateau(mine, 2)
    halving.load_state_dict(plateau.state_dict())
    assert (halving.best, halving.waited) == (1.0, 1)
