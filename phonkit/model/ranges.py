"""The ranges numeric settings must be in, checked when a settings object is made.

A learning rate of ``nan`` or ``-1``, or a dropout of 2, does not fail where it is given: it
trains a model of NaNs or fills gaps with ``<pad><pad>…``. The settings dataclasses
(:class:`~phonkit.model.phonology.ModelConfig`, :class:`~phonkit.model.training.TrainConfig`,
:class:`~phonkit.model.fitting.FitConfig`) check their fields against these ranges in
``__post_init__``, so a bad value from the command line, ``--set KEY=VALUE``, Python or a
``config.json`` is one line naming the setting (``training.lr``; the command line writes the
option that gives it, ``--lr``), before any work is done.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from phonkit.errors import InputError


@dataclass(frozen=True)
class Range:
    """Allowed values of one setting."""

    low: float = -math.inf
    high: float = math.inf
    above: bool = False  # ``low`` itself is not allowed
    below: bool = False  # ``high`` itself is not allowed
    whole: bool = False  # a whole number

    def describe(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        parts = []
        if self.low > -math.inf:
            parts.append(f"{'above' if self.above else 'at least'} {self.low:g}")
        if self.high < math.inf:
            parts.append(f"{'below' if self.below else 'at most'} {self.high:g}")
        return f"{kind} {' and '.join(parts)}" if parts else f"a finite {kind[2:]}"

    def admits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.whole and not float(value).is_integer():
            return False
        if not math.isfinite(value):
            return False
        if value < self.low or (self.above and value == self.low):
            return False
        return not (value > self.high or (self.below and value == self.high))


def check_ranges(settings: object, ranges: dict[str, Range], group: str) -> None:
    """Each named field of ``settings`` must be in its range: the first that is not is an
    :class:`InputError` naming the setting as ``group.field`` (``training.lr``)."""
    for field, allowed in ranges.items():
        value = getattr(settings, field)
        if not allowed.admits(value):
            setting = f"{group}.{field}"
            raise InputError(
                f"{setting} must be {allowed.describe()}, not {value!r}", setting=setting
            )
