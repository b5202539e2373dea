"""A model dir's files checked before any loader opens them (models/integrity.py): a
checksums.json, where the dir has one, verified for every reader (serve, chat, eval, test,
merge, export), and a safetensors header whose dtype and shape do not fit the tensor's
bytes named as such."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jupiter.models.folder import checksums_problem, write_checksums
from jupiter.models.integrity import model_files_problem
from tinyhf import Family


@pytest.fixture
def model(tiny_model_dirs: dict[Family, Path], tmp_path: Path) -> Path:
    return Path(shutil.copytree(tiny_model_dirs["llama"], tmp_path / "m"))


def test_checksums_are_verified_where_listed(model: Path) -> None:
    assert checksums_problem(model) is None  # none listed: nothing to verify
    write_checksums(model)
    assert model_files_problem(model) is None
    weights = model / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-64] ^= 0xFF  # the framing stays valid: only the checksum sees it
    weights.write_bytes(bytes(data))
    assert model_files_problem(model) == f"{weights}: does not match its SHA-256 in checksums.json"
    (model / "checksums.json").write_text("{sha")
    assert "not a valid list of checksums" in (model_files_problem(model) or "")
    (model / "checksums.json").write_text('{"gone.bin": "00"}')
    assert model_files_problem(model) == f"{model / 'gone.bin'}: missing (listed in checksums.json)"


def test_a_header_whose_dtype_does_not_fit_the_bytes_is_named(model: Path) -> None:
    """The header rewritten F32 -> F16: the loader said only 'invalid shape, data type, or
    offset for tensor' (export), or a reshape error (merge)."""
    weights = model / "model.safetensors"
    raw = weights.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    weights.write_bytes(raw[:8] + raw[8 : 8 + n].replace(b'"F32"', b'"F16"') + raw[8 + n :])
    problem = model_files_problem(model) or ""
    assert problem.startswith(f"{weights}: tensor ") and "where its offsets give" in problem
