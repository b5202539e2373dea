"""Bad input a domain run must refuse before any stage runs:
the YAML alone (BAD_YAML), or the YAML with the files and servers it points at
(BAD_SURROUNDINGS). tests/core/test_config_validation.py loads the first kind;
tests/e2e/test_cli_errors.py runs both through `jupiter start`. Add a case here and both
pick it up. Import from tests as `from badinput import ...`.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Callable
from pathlib import Path

HEAD = b"name: bad\nsources: [{type: python_stdlib}]\n"
LOCAL = "name: bad\nsources: [{type: local, path: docs}]\n"

# case -> (the YAML file's bytes, a regex its one-line error must match)
BAD_YAML: dict[str, tuple[bytes, str]] = {
    "source_unknown_key": (
        b"name: bad\nsources: [{type: local, path: docs, recursive: true}]\n",
        r"unknown key 'sources\.0\.recursive'",
    ),
    "dataset_unknown_column_role": (
        b"name: bad\nsources: [{type: dataset, path: x.jsonl, columns: {body: text}}]\n",
        r"sources\.0\.columns: unknown role\(s\) body: map text, question",
    ),
    "heldout_fraction_all": (
        HEAD + b"chunking: {heldout_fraction: 0.999}\n",
        r"chunking\.heldout_fraction: must be at most 0\.5, got 0\.999",
    ),
    "model_generator_without_path": (
        HEAD + b"generator: {type: model}\n",
        r"generator: type model needs model_path",
    ),
    "no_templates": (
        HEAD + b"generator: {templates: []}\n",
        r"generator\.templates: no template: list one or more of what_does",
    ),
    "unknown_template": (
        HEAD + b"generator: {templates: [what_does, riddle]}\n",
        r"unknown template 'riddle'",
    ),
    "dedup_bands_not_dividing": (
        HEAD + b"filters: {dedup: {num_perm: 128, bands: 5}}\n",
        r"filters\.dedup: bands \(5\) must divide num_perm \(128\).*e\.g\. bands 4",
    ),
    "dedup_bands_above_num_perm": (
        HEAD + b"filters: {dedup: {num_perm: 64, bands: 128}}\n",
        r"bands \(128\) must divide num_perm \(64\)",
    ),
    "duplicate_key": (
        HEAD + b"train: {lr: 0.1}\ntrain: {lr: 0.2}\n",
        r"line 4, column 1: duplicate key 'train' \(first on line 3\)",
    ),
    "duplicate_key_in_flow_mapping": (
        b"name: bad\nsources: [{type: python_stdlib, type: local}]\n",
        r"line 2, .*duplicate key 'type' \(first on line 2\)",
    ),
    "latin1_yaml": (
        b"name: bad\ndescription: caf\xe9\nsources: [{type: python_stdlib}]\n",
        r"line 2: byte 0xe9 is not UTF-8: save the file as UTF-8",
    ),
    "utf16_yaml": (HEAD.decode().encode("utf-16"), r"is UTF-16 text: save the file as UTF-8"),
    "name_too_long": (
        b"name: " + b"n" * 300 + b"\nsources: [{type: python_stdlib}]\n",
        r"name: must be at most 64 characters, got 'n+\.\.\.$",
    ),
    "name_binary_tag": (
        b"name: !!binary bm9ybWFs\nsources: [{type: python_stdlib}]\n",
        r"line 1, column 7: a !!binary value: write the text itself",
    ),
    "name_not_a_string": (
        b"name: 42\nsources: [{type: python_stdlib}]\n",
        r"name: Input should be a valid string, got 42",
    ),
    "huge_vocab_size": (
        HEAD + b"model: {vocab_size: 100000000000000000000}\n",
        r"model\.vocab_size: must be at most 262144",
    ),
    "huge_context_length": (
        HEAD + b"model: {context_length: 4294967296}\n",
        r"model\.context_length: must be at most 131072",
    ),
    "huge_micro_batch": (
        HEAD + b"train: {micro_batch_size: 10000000000}\n",
        r"train: micro_batch_size must be from 1 to 4096 \(or auto\)",
    ),
    "huge_seed": (
        HEAD + b"train: {seed: 18446744073709551616}\n",
        r"train\.seed: must be at most 4294967295",
    ),
    "negative_seed": (HEAD + b"train: {seed: -1}\n", r"train\.seed: must be at least 0, got -1"),
    "negative_generator_seed": (
        HEAD + b"generator: {seed: -3}\n",
        r"generator\.seed: must be at least 0",
    ),
    "beta1_above_one": (HEAD + b"train: {beta1: 1.5}\n", r"train\.beta1: must be below 1\.0"),
    "beta2_negative": (
        HEAD + b"train: {beta2: -0.5}\n",
        r"train\.beta2: must be at least 0\.0, got -0\.5",
    ),
    "max_steps_1e20": (
        HEAD + b"train: {max_steps: 1.0e+20}\n",
        r"train\.max_steps: at most 10,000,000 steps: lower it, or leave it unset",
    ),
    "max_steps_huge_int": (
        HEAD + b"train: {max_steps: 100000000000000000000}\n",
        r"train\.max_steps: at most 10,000,000 steps",
    ),
    "level_max_steps_1e20": (
        HEAD + b"levels: [{name: a, datasets: [queue], max_steps: 1.0e+20}]\n",
        r"levels\.0\.max_steps: at most 10,000,000 steps",
    ),
    "huge_epochs": (
        HEAD + b"train: {epochs: 1000000000}\n",
        r"train: epochs must be from 1 to 1000",
    ),
    "mc_choices_one": (
        HEAD + b"eval: {mc_choices: 1}\n",
        r"eval\.mc_choices: must be at least 2, got 1",
    ),
    "mc_choices_beyond_letters": (
        HEAD + b"eval: {mc_choices: 27}\n",
        r"eval\.mc_choices: must be at most 10, got 27",
    ),
    "since_not_a_date": (
        b"name: bad\nsources: [{type: exec_logs, path: logs.jsonl, since: last week}]\n",
        r"sources\.0\.since: not an ISO 8601 date or time: write it like 2024-05-01",
    ),
    "since_impossible_date": (
        b"name: bad\nsources: [{type: exec_logs, path: logs.jsonl, since: 2024-13-45}]\n",
        r"line 2, column \d+: '2024-13-45' is not a valid date \(month must be in 1\.\.12\)",
    ),
    "until_epoch_number": (
        b"name: bad\nsources: [{type: exec_logs, path: logs.jsonl, until: '1714521600'}]\n",
        r"sources\.0\.until: not an ISO 8601 date or time",
    ),
    "quick_unknown_key": (
        HEAD + b"quick: {train: {max_stepz: 3}}\n",
        r"quick: unknown key 'train\.max_stepz'",
    ),
    "quick_out_of_range": (
        HEAD + b"quick: {train: {max_steps: 0}}\n",
        r"quick: train\.max_steps: must be at least 1",
    ),
}


# ----------------------------------------------------------------- with files and servers
def free_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def safetensors_bytes(data_len: int) -> bytes:
    """A safetensors file whose header promises 16 bytes of one F32 tensor; `data_len`
    bytes of data follow (16: whole; fewer: truncated)."""
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})
    head = header.encode().ljust(-(-len(header) // 8) * 8)
    return struct.pack("<Q", len(head)) + head + b"\0" * data_len


def model_dir(root: Path, config: str = '{"model_type": "llama"}', data_len: int = 16) -> Path:
    """A model dir's files (config.json, model.safetensors), damaged as asked."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(config)
    (root / "model.safetensors").write_bytes(safetensors_bytes(data_len))
    return root


def _qa(tmp: Path, text: bytes | str, choices: int = 4) -> str:
    (tmp / "qa.jsonl").write_bytes(text.encode() if isinstance(text, str) else text)
    return LOCAL + f"eval: {{qa_path: qa.jsonl, mc_choices: {choices}, mc_distractors: hard}}\n"


def _three_items() -> str:
    return "".join(
        json.dumps({"id": str(i), "question": f"What is {i}?", "answer": f"It is {i}."}) + "\n"
        for i in range(3)
    )


def _user_exam(tmp: Path, text: str | None) -> str:
    """A YAML whose user exam is exams/exam.jsonl holding `text` (None: exams is a folder)."""
    (tmp / "exams").mkdir()
    if text is None:
        return LOCAL + "eval: {user_exam_path: exams}\n"
    (tmp / "exams" / "exam.jsonl").write_text(text)
    return LOCAL + "eval: {user_exam_path: exams/exam.jsonl}\n"


def _qa_folder(tmp: Path) -> str:
    (tmp / "qa").mkdir()
    return LOCAL + "eval: {qa_path: qa}\n"


def _base_model(tmp: Path, **damage: object) -> str:
    model_dir(tmp / "base", **damage)  # type: ignore[arg-type]
    return LOCAL + "model: {base: base}\ntrain: {method: full}\n"


def _parquet(tmp: Path) -> str:
    (tmp / "rows.parquet").write_bytes(b"PAR1" + b"\x15\x00" * 40 + b"PAR1")
    return "name: bad\nsources: [{type: dataset, path: rows.parquet}]\n"


def _datasets_dir(tmp: Path) -> str:
    saved = tmp / "saved"
    saved.mkdir()
    (saved / "dataset_info.json").write_text('{"features": {"text": ')
    (saved / "state.json").write_text('{"_data_files": [{"filename": "data.arrow"}]}')
    return "name: bad\nsources: [{type: dataset, path: saved}]\n"


def _judge(tmp: Path) -> str:
    url = f"http://127.0.0.1:{free_port()}/v1"
    return LOCAL + f"filters: {{judge: {{enabled: true, llm: {{base_url: '{url}', model: m}}}}}}\n"


def _teacher(tmp: Path) -> str:
    url = f"http://127.0.0.1:{free_port()}/v1"
    return LOCAL + f"generator: {{type: llm, llm: {{base_url: '{url}', model: m}}}}\n"


def _not_a_model(tmp: Path) -> str:
    (tmp / "notes").mkdir()
    (tmp / "notes" / "readme.txt").write_text("no weights here")
    return LOCAL + "generator: {type: model, model_path: notes}\n"


# case -> (write the files into the home dir and return the YAML, a regex for the error)
BAD_SURROUNDINGS: dict[str, tuple[Callable[[Path], str], str]] = {
    "eval_qa_missing": (
        lambda t: LOCAL + "eval: {qa_path: nope.jsonl}\n",
        r"eval\.qa_path: eval set not found: .*nope\.jsonl",
    ),
    "eval_qa_empty": (
        lambda t: _qa(t, "\n\n"),
        r"eval\.qa_path: .*qa\.jsonl: the eval set is empty",
    ),
    "eval_qa_malformed": (
        lambda t: _qa(t, '{"id": "1", "question": "q?"\n'),
        r"eval\.qa_path: .*qa\.jsonl:1: malformed JSON",
    ),
    "eval_qa_missing_field": (
        lambda t: _qa(t, '{"id": "1", "question": "q?"}\n'),
        r"qa\.jsonl:1: missing field 'answer'",
    ),
    "eval_qa_folder": (_qa_folder, r"eval\.qa_path: eval set .*qa is a folder: point"),
    "eval_qa_latin1": (
        lambda t: _qa(t, b'{"id": "1", "question": "caf\xe9?", "answer": "a"}\n'),
        r"qa\.jsonl:1: byte 0xe9 is not UTF-8: save the eval set as UTF-8",
    ),
    "eval_mc_choices_beyond_items": (
        lambda t: _qa(t, _three_items(), choices=4),
        r"multiple choice needs at least 4 distinct answers in the eval set, found 3",
    ),
    "user_exam_missing": (
        lambda t: LOCAL + "eval: {user_exam_path: exams/nope.jsonl}\n",
        r"eval\.user_exam_path: user exam not found: .*exams/nope\.jsonl \(fix eval\.user_exam_path",
    ),
    "user_exam_folder": (
        lambda t: _user_exam(t, None),
        r"eval\.user_exam_path: user exam .*exams is a folder: point eval\.user_exam_path",
    ),
    "user_exam_not_multiple_choice": (
        lambda t: _user_exam(t, _three_items()),
        r"eval\.user_exam_path: .*exam\.jsonl: item 0 has no choices: every item of a user "
        r"exam is multiple choice",
    ),
    "judge_unreachable": (
        _judge,
        r"filters\.judge\.llm: the LLM server at http://127\.0\.0\.1:\d+/v1 is unreachable",
    ),
    "teacher_unreachable": (_teacher, r"generator\.llm: the LLM server at .* is unreachable"),
    "generator_model_missing_dir": (
        lambda t: LOCAL + "generator: {type: model, model_path: gone}\n",
        r"generator\.model_path: model not found: .*gone",
    ),
    "generator_model_not_a_model": (_not_a_model, r"generator\.model_path: .*is not a model"),
    "base_model_corrupt_config": (
        lambda t: _base_model(t, config='{"model_type": '),
        r"model\.base: damaged model file .*config\.json: not valid JSON",
    ),
    "base_model_truncated_safetensors": (
        lambda t: _base_model(t, data_len=8),
        r"model\.safetensors: holds 8 bytes of tensor data where its header says 16",
    ),
    "dataset_corrupt_parquet": (_parquet, r"rows\.parquet: not a readable Parquet file"),
    "dataset_corrupt_dataset_info": (
        _datasets_dir,
        r"dataset source .*dataset_info\.json: not valid JSON .*save the dataset again",
    ),
}
