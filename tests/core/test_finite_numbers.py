"""NaN and infinities are refused wherever a number comes in: every float flag of the
command line and every number of a domain YAML (a comparison with NaN is always false,
so range checks let it through)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jupiter.config import load_domain
from jupiter.errors import JupiterError


@pytest.mark.parametrize(("args", "flag"), [
    (["doctor", "--timeout", "nan"], "--timeout"),
    (["chat", "--temperature", "nan"], "--temperature"),
    (["chat", "--temperature", "-inf"], "--temperature"),
    (["merge", "--method", "slerp", "--t", "inf"], "--t"),
    (["federated", "server", "--clip-norm", "nan"], "--clip-norm"),
])  # fmt: skip
def test_non_finite_flags_are_one_line_errors(args: list[str], flag: str) -> None:
    r = subprocess.run([sys.executable, "-m", "jupiter.cli", *args], capture_output=True,
                       text=True, timeout=120)  # fmt: skip
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "not a finite number" in lines[0], r.stderr


def test_non_finite_numbers_in_a_domain_yaml_are_refused(tmp_path: Path) -> None:
    for value in (".nan", ".inf", "-.inf"):
        path = tmp_path / "d.yaml"
        path.write_text(f"name: d\nsources: [{{type: local, path: {tmp_path}}}]\n"
                        f"train: {{lr: {value}}}\n")  # fmt: skip
        with pytest.raises(JupiterError, match="lr"):
            load_domain(str(path))
