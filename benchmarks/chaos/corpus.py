"""R4's malformed-input corpus, as data: bad inputs a user could write, each with the words
its one-line error must contain (the key, file or value at fault).

Families:
- yaml_syntax, sources, data_lines, eval_set, references, model_dirs, cli, cluster:
  written out case by case (tests/badinput.py's cases are folded in as `badinput/*`);
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
    """What cases share, built once per corpus run (see r4_bad_input.build_fixtures)."""

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


# -------------------------------------------------------------------- tests/badinput.py
def badinput_cases() -> list[Case]:
    from badinput import BAD_SURROUNDINGS, BAD_YAML

    cases = [Case("badinput", name, data, pattern=rx) for name, (data, rx) in BAD_YAML.items()]
    for name, (prepare, rx) in BAD_SURROUNDINGS.items():
        cases.append(Case("badinput", name, setup=lambda h, fx, p=prepare: p(h), pattern=rx))
    return cases


# an existing workspace has collected already: a bad source or data file is not read again
# by `start`, so those cases run on a fresh home only
SEEDABLE = {"badinput", "yaml_syntax", "eval_set", "references", "model_dirs", "yaml_type",
            "yaml_range", "yaml_enum", "yaml_unknown_key"}  # fmt: skip


def seedable(case: Case) -> bool:
    collects = case.fresh_only or case.name.startswith(("dataset_", "since_", "until_"))
    return case.family in SEEDABLE and not collects


def all_cases() -> list[Case]:
    """Every case; the seeded ones alternate inside the generated families so both a fresh
    home (no store may appear) and an existing store (its bytes may not change) are seen."""
    from corpus_files import (
        data_line_cases,
        eval_set_cases,
        references_cases,
        sources_cases,
        yaml_syntax_cases,
    )
    from corpus_models import cli_cases, cluster_cases, model_dir_cases
    from corpus_readers import command_cases
    from corpus_schema import (
        yaml_enum_cases,
        yaml_range_cases,
        yaml_type_cases,
        yaml_unknown_key_cases,
    )

    out: list[Case] = []
    families = [badinput_cases, yaml_syntax_cases, sources_cases, data_line_cases,
                eval_set_cases, references_cases, model_dir_cases, cli_cases, cluster_cases,
                yaml_type_cases, yaml_range_cases, yaml_enum_cases, yaml_unknown_key_cases,
                command_cases]  # fmt: skip
    for family in families:
        for i, case in enumerate(family()):
            if not case.seeded and case.argv == START and i % 2 == 1 and seedable(case):
                case = Case(**{**case.__dict__, "seeded": True})
            out.append(case)
    ids = [c.id for c in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"duplicate case ids: {sorted(dupes)}"
    return out


# cases the corpus found failing on the code before issue 18's chaos work (one per kind of
# fix; docs/RELIABILITY.md lists all 76): tests/chaos runs them as regression tests
FIXED_BY_THE_SUITE = (
    "sources/exec_logs_since_after_until", "data_lines/csv/latin1",
    "references/general_path_missing", "references/lm_eval_include_missing",
    "references/level_dataset_missing", "references/level_dataset_latin1",
    "references/task_template_missing", "references/judge_template_missing",
    "references/transformers_teacher_empty", "references/cluster_teacher_without_cluster",
    "references/eval_judge_unreachable", "references/no_eval_set_possible",
    "model_dirs/serve/config_hidden_size_string", "model_dirs/serve/weights_wrong_tensors",
    "model_dirs/chat/weights_wrong_tensors", "model_dirs/eval/tokenizer_corrupt",
    "model_dirs/model.base/weights_wrong_tensors", "model_dirs/model.base/tokenizer_corrupt",
    "model_dirs/generator.model_path/config_unknown_family", "model_dirs/serve/gguf_garbage",
    "cli/start/option_typo", "cli/no_command_args_typo", "cli/serve/port_too_high",
    "cli/eval/passages_without_open_book", "cli/data_export/split_not_summing",
    "cli/config_presets/context_zero", "cli/doctor/cluster_file_missing",
    "cli/merge/weight_not_number", "cluster/plan/duplicate_node_names",
)  # fmt: skip
