"""Parameter types of the command line that click lacks: a float flag that refuses NaN
and infinities (`doctor --timeout nan` passed `min=0.1`, since every comparison with NaN
is false, and ended in an internal error; `chat --temperature nan` answered empty)."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloat(click.types.FloatParamType):
    """A finite float, at least `min` when given."""

    name = "float"

    def __init__(self, min: float | None = None) -> None:  # noqa: A002 - click's own word
        self.min = min

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.min is not None and number < self.min:
            self.fail(f"{number:g} is below the smallest allowed, {self.min:g}", param, ctx)
        return number


FINITE = FiniteFloat()
