"""The malformed-input corpus, as data: bad inputs a user could write, each with the words
its one-line error must contain (the key, file or value at fault).

Families:
- yaml_syntax, sources, data_lines, eval_set, references, model_dirs, cli, cluster:
  written out case by case (tests/support/badinput.py's cases are folded in as `badinput/*`);
- yaml_type, yaml_range, yaml_enum, yaml_unknown_key: generated from the config schema
  (config/domain.py), one case per field (a value of the wrong type; each bound crossed; a
  misspelt choice; a misspelt key per section), each a mistake a YAML can hold.

A case runs `argv` in a fresh home folder holding docs/a.md, the case's files and its
YAML at bad.yaml; `seeded` cases also hold a workspace store (runs/bad/) made by a good
collect, whose bytes must not change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

START = ("start", "--domain", "{yaml}", "--auto")
DOC = "# A note\n\nThe lever turns the widget twice. The widget holds the spring in place.\n"
LOCAL = {"name": "bad", "sources": [{"type": "local", "path": "docs"}]}
LOCAL_TEXT = "name: bad\nsources: [{type: local, path: docs}]\n"


@dataclass
class Fixtures:
    """What cases share, built once per corpus run (see bad_input.build_fixtures)."""

    model: Path  # a tiny Llama dir that loads
    seed_store: Path  # runs/bad/ after a good collect
    docs: Path  # a folder of 80 distinct documents, some of them held out
    good_yaml: str = LOCAL_TEXT


Setup = Callable[[Path, Fixtures], "str | bytes | None"]


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    yaml: str | bytes | None = None  # bad.yaml's content (None: setup writes it, or none)
    setup: Setup | None = None  # writes the case's files; may return bad.yaml's content
    argv: tuple[str, ...] = START  # {yaml}: the YAML's path, {home}: the case folder
    mentions: tuple[str, ...] = ()  # each must be in the error line
    pattern: str = ""  # a regex the error line must match, when given
    seeded: bool = False  # a workspace store exists before the command
    fresh_only: bool = False  # about what collect reads: never given an existing store
    # every file of the case folder and of the shared tiny model keeps its bytes, and none
    # appears or goes (what a refused command was given, and what it would have written)
    untouched: bool = False

    @property
    def id(self) -> str:
        return f"{self.family}/{self.name}"


def dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def mkdir(p: Path) -> None:
    p.mkdir(parents=True, exist_ok=True)


def write(rel: str, data: str | bytes, yaml_text: str) -> Setup:
    def setup(home: Path, fx: Fixtures) -> str:
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        return yaml_text

    return setup


def src(item: str) -> str:
    return f"name: bad\nsources: [{item}]\n"


# -------------------------------------------------------------------- tests/support/badinput.py
def badinput_cases() -> list[Case]:
    from badinput import BAD_SURROUNDINGS, BAD_YAML

    cases = [Case("badinput", name, data, pattern=rx) for name, (data, rx) in BAD_YAML.items()]
    for name, (prepare, rx) in BAD_SURROUNDINGS.items():
        cases.append(Case("badinput", name, setup=lambda h, fx, p=prepare: p(h), pattern=rx))
    return cases
