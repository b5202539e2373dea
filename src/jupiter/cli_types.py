"""Parameter types of the command line: the options several commands share (--domain,
--quick, --json ...), and what click lacks: a float flag that refuses NaN and infinities
(`doctor --timeout nan` passed `min=0.1`, since every comparison with NaN is false, and
ended in an internal error; `chat --temperature nan` answered empty)."""

from __future__ import annotations

import math
from typing import Annotated, Any

import click
import typer


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


# ------------------------------------------------------------ options shared by commands
Domain = Annotated[str, typer.Option("--domain", "-d", help="Domain name or path to its YAML.")]
Quick = Annotated[bool, typer.Option("--quick", help="Use the YAML's quick: overrides.")]
JsonFlag = Annotated[
    bool, typer.Option("--json", help="One JSON document on stdout (messages go to stderr).")
]
ClusterFile = Annotated[
    str | None, typer.Option("--cluster-file", help="cluster.yaml to use (default: config's).")
]
# `jupiter chat`, `serve`, `score` and `test`: the template a model without one renders
# chats with
ChatTemplate = Annotated[
    str,
    typer.Option(
        help="auto (the model's own, else its family's) | chatml | gemma | llama3 | mistral "
        "| PATH.jinja"
    ),
]
OpenBook = Annotated[
    bool,
    typer.Option(
        "--open-book",
        help="Put the top-k passages of the model's retrieval index before each question.",
    ),
]
TopK = Annotated[int, typer.Option(min=1, help="Passages per question with --open-book.")]
