"""The paired permutation test between two systems' per-item scores (for example two model
variants scored on the same test cells)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

PERMUTATIONS = 10_000


def permutation_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> float:
    """Two-sided p-value for "A and B score the same": under that hypothesis the two scores of
    each item are exchangeable, so the mean difference is drawn again with each item's pair
    swapped at random (a sign flip of its difference). ``p = (1 + r) / (1 + R)`` where r of R
    random swaps give a mean difference at least as far from zero as the observed one."""
    differences = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(differences)
    if n == 0:
        return float("nan")
    observed = abs(differences.mean())
    if observed == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    hits, left = 0, permutations
    chunk = max(1, 4_000_000 // n)  # bounds the memory of one batch of sign vectors
    while left:
        size = min(chunk, left)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ differences) / n
        hits += int((means >= observed * (1 - 1e-9)).sum())  # ties count, up to rounding
        left -= size
    return (hits + 1) / (permutations + 1)


@dataclass(frozen=True)
class Comparison:
    metric: str
    items: int
    mean_a: float
    mean_b: float
    p_value: float


def compare(
    a: Mapping[tuple, Mapping[str, float]],
    b: Mapping[tuple, Mapping[str, float]],
    metrics: Sequence[str],
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> list[Comparison]:
    """Test each metric on the items both systems scored (keyed alike, e.g. by cell)."""
    shared = [key for key in a if key in b]
    results = []
    for metric in metrics:
        xs = np.array([a[key][metric] for key in shared], dtype=float)
        ys = np.array([b[key][metric] for key in shared], dtype=float)
        p = permutation_test(xs, ys, permutations, seed)
        means = (float(xs.mean()), float(ys.mean())) if shared else (float("nan"),) * 2
        results.append(Comparison(metric, len(shared), *means, p))
    return results
