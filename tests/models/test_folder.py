"""The model folder (models/folder.py): written whole or not at all, its checksums.json
written and verified, the one "is this a model dir" test."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, PreTrainedModel

from jupiter.errors import JupiterError
from jupiter.models import folder
from jupiter.models.folder import (
    checksums_problem,
    is_adapter_dir,
    is_model_dir,
    remove_stale_temps,
    save_model_dir,
    sha256_file,
    verify_checksums,
    write_checksums,
)
from jupiter.models.loading import load_model_weights
from tinyhf import Family


@pytest.fixture
def model(tiny_model_dirs: dict[Family, Path]) -> PreTrainedModel:
    return AutoModelForCausalLM.from_pretrained(tiny_model_dirs["llama"])


def _breaks_after_a_file(model: PreTrainedModel, err: BaseException) -> None:
    """save_pretrained writes one file, then fails with `err` (a full disk, a bug)."""

    def save_pretrained(out: Path, **_: object) -> None:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "model.safetensors").write_bytes(b"half")
        raise err

    model.save_pretrained = save_pretrained  # type: ignore[method-assign]


def test_a_saved_folder_is_whole_verified_and_loads_back(
    model: PreTrainedModel, tmp_path: Path
) -> None:
    out = save_model_dir(tmp_path / "m", model, None, checksum=True)
    assert is_model_dir(out) and not is_adapter_dir(out)
    assert verify_checksums(out) is None and checksums_problem(out) is None
    sums = json.loads((out / "checksums.json").read_text())
    assert sums["model.safetensors"] == sha256_file(out / "model.safetensors")
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # no temp dir left beside it
    fresh = AutoModelForCausalLM.from_config(model.config)
    load_model_weights(out, fresh)
    for name, t in model.state_dict().items():
        assert torch.equal(fresh.state_dict()[name], t), name


def test_a_failed_write_leaves_the_old_folder_and_nothing_half_written(
    model: PreTrainedModel, tmp_path: Path
) -> None:
    out = save_model_dir(tmp_path / "m", model, None, checksum=True)
    before = {p.name: sha256_file(p) for p in out.iterdir()}
    _breaks_after_a_file(model, RuntimeError("boom"))
    with pytest.raises(RuntimeError, match="boom"):
        save_model_dir(out, model, None)
    assert [p.name for p in tmp_path.iterdir()] == ["m"]
    assert {p.name: sha256_file(p) for p in out.iterdir()} == before
    assert verify_checksums(out) is None


def test_a_full_disk_is_said_in_one_line_and_the_temp_dir_is_gone(
    model: PreTrainedModel, tmp_path: Path
) -> None:
    _breaks_after_a_file(model, OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(JupiterError) as err:
        save_model_dir(tmp_path / "m", model, None)
    assert f"cannot write m in {tmp_path}: the disk is full" in str(err.value)
    assert "\n" not in str(err.value) and "make room" in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_checksums_round_trip_and_the_tampered_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "sub" / "b.bin").write_bytes(bytes(range(256)) * 10)
    assert verify_checksums(tmp_path) == "checksums.json is missing"
    assert checksums_problem(tmp_path) is None  # a model from elsewhere has none: not wrong
    write_checksums(tmp_path)
    sums = json.loads((tmp_path / "checksums.json").read_text())
    assert set(sums) == {"a.json", "sub/b.bin"}
    assert verify_checksums(tmp_path) is None and checksums_problem(tmp_path) is None

    data = bytearray((tmp_path / "sub" / "b.bin").read_bytes())
    data[100] ^= 1
    (tmp_path / "sub" / "b.bin").write_bytes(bytes(data))
    assert verify_checksums(tmp_path) == "sub/b.bin does not match its SHA-256"
    assert checksums_problem(tmp_path) == (
        f"{tmp_path / 'sub' / 'b.bin'}: does not match its SHA-256 in checksums.json"
    )
    (tmp_path / "a.json").unlink()
    assert verify_checksums(tmp_path) == "a.json is missing"  # listed files checked in order
    assert (
        checksums_problem(tmp_path) == f"{tmp_path / 'a.json'}: missing (listed in checksums.json)"
    )


@pytest.mark.parametrize("listing", ["{sha", "[1, 2]", '{"a.json": 3}', "\xff"])
def test_an_unreadable_listing_is_said_by_both_readers(tmp_path: Path, listing: str) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "checksums.json").write_text(listing, encoding="latin-1")
    assert verify_checksums(tmp_path) == "checksums.json is unreadable"
    assert "not a valid list of checksums" in (checksums_problem(tmp_path) or "")


def test_sha256_file_reads_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folder, "HASH_CHUNK", 7)
    data = os.urandom(1000)
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_is_model_dir(tiny_model_dirs: dict[Family, Path], tmp_path: Path) -> None:
    hf = tiny_model_dirs["llama"]
    assert is_model_dir(hf) and not is_adapter_dir(hf)
    peft = tmp_path / "adapter"
    peft.mkdir()
    (peft / "adapter_config.json").write_text('{"base_model_name_or_path": "x"}')
    (peft / "adapter_model.safetensors").write_bytes(b"")
    assert is_model_dir(peft) and is_adapter_dir(peft)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not is_model_dir(empty) and not is_adapter_dir(empty)
    (empty / "config.json").mkdir()  # a folder by that name is not the file
    assert not is_model_dir(empty)
    assert not is_model_dir(tmp_path / "absent")


def test_remove_stale_temps(tmp_path: Path) -> None:
    dead = tmp_path / ".tmp-step-000005-999999999"  # no such process
    mine = tmp_path / f".tmp-m-{os.getpid()}"  # this process: not running elsewhere, stale
    moved = tmp_path / ".old-final"  # the kill came between replace_dir's two renames
    leftover = tmp_path / ".old-kept"
    for d in (dead, mine, moved, leftover, tmp_path / "kept"):
        d.mkdir()
    (moved / "config.json").write_text("{}")
    gone = remove_stale_temps(tmp_path)
    assert sorted(gone) == sorted([dead, mine, leftover])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["final", "kept"]
    assert (tmp_path / "final" / "config.json").is_file()


def test_saving_a_model_does_not_import_deepspeed(
    tiny_model_dirs: dict[Family, Path], tmp_path: Path
) -> None:
    """transformers' save_pretrained asks accelerate to unwrap the model, which imports
    DeepSpeed (seconds) when it is installed; every training process saves a model."""
    pytest.importorskip("deepspeed")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from transformers import AutoModelForCausalLM\n"
        "from jupiter.models.folder import save_model_dir, is_model_dir\n"
        f"m = AutoModelForCausalLM.from_pretrained({str(tiny_model_dirs['llama'])!r})\n"
        f"out = save_model_dir(Path({str(tmp_path / 'm')!r}), m, None, checksum=True)\n"
        "print(is_model_dir(out), 'deepspeed' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]
