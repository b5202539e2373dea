"""Bad domain YAML refused when it is read: one line naming
the key, the problem and the fix. The cases are tests/support/badinput.py's BAD_YAML, which
tests/e2e/test_cli_errors.py also runs through `jupiter start`."""

import re
from pathlib import Path

import pytest

from badinput import BAD_YAML
from jupiter.config import (
    QUESTION_TEMPLATES,
    SOURCE_TYPES,
    DomainConfig,
    Source,
    load_domain,
)
from jupiter.errors import JupiterError


def write(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "d.yaml"
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("case", sorted(BAD_YAML))
def test_bad_yaml_is_refused_on_one_line(tmp_path: Path, case: str) -> None:
    data, expected = BAD_YAML[case]
    with pytest.raises(JupiterError) as e:
        load_domain(write(tmp_path, data))
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'd.yaml'}:"), msg
    assert "\n" not in msg
    assert "Traceback" not in msg
    assert len(msg) < 400, msg
    assert re.search(expected, msg), msg


def test_good_yaml_still_loads(tmp_path: Path) -> None:
    """The new rules leave valid YAML alone: a merge key's values may be overridden, dates
    may be unquoted, a UTF-8 BOM is fine, and the bounds are inclusive."""
    text = (
        "\ufeffname: " + "n" * 64 + "\n"
        "sources:\n"
        "  - &docs {type: local, path: docs, max_documents: 5}\n"
        "  - <<: *docs\n    path: more\n"
        "  - {type: exec_logs, path: l.jsonl, since: 2024-05-01, until: 2024-05-01T12:00:00Z}\n"
        "chunking: {heldout_fraction: 0.5}\n"
        "filters: {dedup: {num_perm: 256, bands: 32}}\n"
        "eval: {mc_choices: 10}\n"
        "train: {beta1: 0.0, seed: 4294967295, max_steps: 10000000}\n"
    )
    cfg = load_domain(write(tmp_path, text.encode()))
    assert cfg.train.seed == 2**32 - 1 and cfg.train.max_steps == 10_000_000
    first, second, logs = cfg.sources
    assert first.type == second.type == "local" and second.max_documents == 5
    assert (first.path, second.path) == ("docs", "more")
    assert logs.type == "exec_logs" and logs.since == "2024-05-01"


def test_schema_lists_match_their_code() -> None:
    """The names the schema checks against are those the code implements."""
    from typing import get_args

    from jupiter.synth.questions import TEMPLATES

    assert set(QUESTION_TEMPLATES) == set(TEMPLATES)
    union = get_args(get_args(Source)[0])
    assert {get_args(m.model_fields["type"].annotation)[0] for m in union} == set(SOURCE_TYPES)
    assert DomainConfig.model_fields["name"].metadata  # bounded, not a bare str


def test_collect_refuses_when_every_document_is_held_out(tmp_path: Path) -> None:
    """heldout_fraction within bounds can still hold out a small corpus whole: collect says
    so before anything is written (the store is written only after collect returns)."""
    from jupiter.collect import collect

    (tmp_path / "docs").mkdir()
    cfg = DomainConfig.model_validate(
        {
            "name": "d",
            "sources": [{"type": "local", "path": "docs"}],
            "chunking": {"heldout_fraction": 0.5},
        }
    )
    cfg.base_dir = tmp_path
    body = "The frobnicator turns widgets into gadgets when its lever is pulled twice. " * 4
    for k in range(64):  # each text is held out with probability 1/2: one soon is
        (tmp_path / "docs" / "a.md").write_text(f"# Note {k}\n\n{body}\n")
        try:
            collect(cfg)
        except JupiterError as err:
            assert str(err) == (
                "chunking.heldout_fraction 0.5 held out all 1 documents, so nothing is left "
                "to train on: lower it, or add documents"
            )
            break
    else:
        pytest.fail("no held-out document in 64 tries")
    cfg.chunking.heldout_fraction = 0.0
    docs, chunks = collect(cfg)
    assert len(docs) == 1 and {c.split for c in chunks} == {"train"}


@pytest.mark.parametrize("cuda", [False, True])
def test_cuda_only_choices_fall_back_on_a_machine_without_cuda(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cuda: bool
) -> None:
    """flash_attention_2 and fp16 without CUDA are a deliberate
    fallback, not an error: one warning line each, then sdpa and precision auto."""
    import io

    import torch
    from rich.console import Console

    from jupiter.improve.preflight import preflight_checks
    from jupiter.improve.workspace import Workspace

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    path = tmp_path / "d.yaml"
    path.write_text(
        "name: d\nsources: [{type: python_stdlib}]\nmodel: {attention: flash_attention_2}\n"
        "train: {precision: fp16}\n"
    )
    out = io.StringIO()
    ws = Workspace(load_domain(str(path)), console=Console(file=out, width=80))
    preflight_checks(ws, ["collect", "generate"])  # no training among them: nothing to say
    assert out.getvalue() == "" and ws.cfg.model.attention == "flash_attention_2"
    ws.checked = False
    preflight_checks(ws, ["train"])
    lines = out.getvalue().splitlines()
    if cuda:
        assert lines == [] and ws.cfg.train.precision == "fp16" and ws.fallbacks == {}
        return
    assert len(lines) == 2, lines
    assert lines[0].startswith("warning: model.attention: flash_attention_2 runs on CUDA GPUs")
    assert "training here uses sdpa" in lines[0]
    assert lines[1].startswith("warning: train.precision: fp16 needs a CUDA GPU")
    # the run's own state holds the fallbacks; the loaded config keeps the YAML's values
    assert ws.fallbacks == {"model.attention": "sdpa", "train.precision": "auto"}
    assert (ws.cfg.model.attention, ws.cfg.train.precision) == ("flash_attention_2", "fp16")
    assert not (tmp_path / "runs").exists()
