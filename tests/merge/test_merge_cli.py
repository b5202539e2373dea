"""`jupiter merge` from a recipe and from flags; bad input fails with one line naming the
fix, exit 1, no traceback, and no output dir (nor a temp dir) left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from mergefamily import read
from safetensors.torch import load_file, save_file

from jupiter import cli
from jupiter.merge import methods

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """cli.main() as the `jupiter` command runs it, in this process."""
    monkeypatch.setattr(sys, "argv", ["jupiter", *args])
    code = 0
    try:
        cli.main()
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def edited(src: Path, out: Path, change: dict[str, torch.Tensor | None]) -> Path:
    """A copy of a model dir with tensors replaced (or removed, for None)."""
    shutil.copytree(src, out)
    weights = load_file(str(src / "model.safetensors"))
    for k, v in change.items():
        if v is None:
            weights.pop(k)
        else:
            weights[k] = v
    save_file(weights, str(out / "model.safetensors"))
    return out


@pytest.fixture(scope="module")
def broken(family: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("broken")
    return {
        "shape": edited(
            family["ft1"], root / "shape", {"model.embed_tokens.weight": torch.zeros(10, 64)}
        ),
        "missing": edited(
            family["ft1"], root / "missing", {"model.layers.1.mlp.up_proj.weight": None}
        ),
    }


def cases(f: dict[str, Path], b: dict[str, Path], qwen: Path) -> dict[str, tuple[list[str], str]]:
    m1, m2, m3, base = (str(f[k]) for k in ("ft1", "ft2", "ft3", "base"))
    return {
        "architecture": (
            ["--method", "linear", "--model", m1, "--model", str(qwen)],
            "different architectures",
        ),
        "shape": (
            ["--method", "linear", "--model", m1, "--model", str(b["shape"])],
            "tensor model.embed_tokens.weight has shape [10, 64]",
        ),
        "missing_tensor": (
            ["--method", "linear", "--model", m1, "--model", str(b["missing"])],
            "lacks tensor model.layers.1.mlp.up_proj.weight",
        ),
        "slerp_three": (
            ["--method", "slerp", "--model", m1, "--model", m2, "--model", m3],
            "slerp interpolates exactly two models, got 3",
        ),
        "negative_weight": (
            ["--method", "linear", "--model", f"{m1}:1", "--model", f"{m2}:-0.5"],
            "every weight must be positive",
        ),
        "zero_sum": (
            ["--method", "ties", "--base", base, "--model", f"{m1}:1", "--model", f"{m2}:-1"],
            "sum to 0",
        ),
        "unknown_method": (
            ["--method", "frankenmerge", "--model", m1, "--model", m2],
            "unknown method 'frankenmerge'",
        ),
        "no_base": (["--method", "ties", "--model", m1, "--model", m2], "--base DIR"),
        "weighted_without_weights": (
            ["--method", "weighted", "--model", m1, "--model", m2],
            "weighted needs a weight for every model",
        ),
        "missing_model": (
            ["--method", "linear", "--model", m1, "--model", "no/such/dir"],
            "model not found",
        ),
        "greedy_without_data": (
            ["--method", "greedy_soup", "--model", m1, "--model", m2],
            "--qa FILE",
        ),
        "nothing": ([], "give --recipe FILE, or --method"),
    }


CASE_NAMES = [
    "architecture",
    "shape",
    "missing_tensor",
    "slerp_three",
    "negative_weight",
    "zero_sum",
    "unknown_method",
    "no_base",
    "weighted_without_weights",
    "missing_model",
    "greedy_without_data",
    "nothing",
]


@pytest.mark.parametrize("case", CASE_NAMES)
def test_bad_input_is_one_line(
    case: str,
    family: dict[str, Path],
    broken: dict[str, Path],
    tiny_model_dirs: dict,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args, expected = cases(family, broken, tiny_model_dirs["qwen2"])[case]
    out = tmp_path / "out"
    code, _, err = run_main(monkeypatch, capsys, "merge", *args, "--out", str(out))
    assert code == 1, err
    assert expected in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no output dir, no temp dir


def test_existing_out_and_a_crash_midway_leave_nothing(
    family: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [
        "merge",
        "--method",
        "linear",
        "--model",
        str(family["ft1"]),
        "--model",
        str(family["ft2"]),
        "--out",
        str(tmp_path / "out"),
    ]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    code, _, err = run_main(monkeypatch, capsys, *args, "--force")  # not Jupiter's: refused
    assert code == 1 and "no merge.json" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "out" / "merge.json").write_text("{}")  # an earlier merge: --force replaces
    code, _, err = run_main(monkeypatch, capsys, *args)
    assert code == 1 and "already exists" in err and "--force" in err
    # with --force, a failure halfway through the tensors keeps the old dir as it was
    calls = {"n": 0}
    real = methods.linear

    def failing(*a: object, **k: object) -> torch.Tensor:
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("disk on fire")
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(methods, "linear", failing)
    code, _, err = run_main(monkeypatch, capsys, *args, "--force")
    assert code == 1 and "disk on fire" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temp folder, no lock
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep.txt", "merge.json"]


def test_recipe_through_the_real_command(family: dict[str, Path], tmp_path: Path) -> None:
    for k in ("base", "ft1", "ft2"):
        shutil.copytree(family[k], tmp_path / "models" / k)
    (tmp_path / "recipes").mkdir()
    recipe = tmp_path / "recipes" / "ties.yaml"
    # model paths are relative to the recipe's folder; --out and --density override it
    recipe.write_text(
        "method: ties\nbase: ../models/base\nmodels:\n"
        "  - model: ../models/ft1\n    weight: 0.7\n  - model: ../models/ft2\n    weight: 0.3\n"
        "params:\n  density: 0.3\n  lambda: 1.0\nout: ../ignored\n"
    )
    env = dict(os.environ, COLUMNS="200")
    r = subprocess.run(
        [JUPITER, "merge", "--recipe", str(recipe), "--density", "0.5", "--out", "merged"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = tmp_path / "merged"
    assert "ties: ft1 0.7, ft2 0.3" in r.stdout
    info = json.loads((out / "merge.json").read_text())
    assert info["method"] == "ties" and info["params"]["density"] == 0.5
    assert info["params"]["normalize"] is True and info["weights"] == [0.7, 0.3]
    assert [i["weight"] for i in info["inputs"]] == [0.7, 0.3]
    assert len(info["inputs"][0]["sha256"]["model.safetensors"]) == 64
    assert info["base"]["path"] == str((tmp_path / "models" / "base").resolve())
    assert {"config.json", "tokenizer.json", "model.safetensors"} <= {p.name for p in out.iterdir()}
    assert not (tmp_path / "ignored").exists()
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(out)
    got = read(out)
    assert torch.equal(model.state_dict()["model.norm.weight"], got["model.norm.weight"])
    b, a1, a2 = read(family["base"]), read(family["ft1"]), read(family["ft2"])
    k = "model.layers.0.mlp.gate_proj.weight"
    want = methods.task_vectors(
        b[k],
        [a1[k], a2[k]],
        [0.7, 0.3],
        normalize=True,
        sparsify="magnitude",
        density=0.5,
        elect_sign=True,
    )
    assert torch.equal(got[k], want)


def test_domain_validation_uses_the_workspace_eval_set(
    family: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--domain: MC items of the domain's eval set and its held-out chunks' text."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "eval"))
    from evaldocs import doc_workspace

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    doc_workspace(tmp_path).close()
    domain = str(tmp_path / "t.yaml")
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "merge",
        "--method",
        "greedy_soup",
        "--model",
        str(family["ft1"]),
        "--model",
        str(family["ft2"]),
        "--domain",
        domain,
        "--max-items",
        "3",
        "--out",
        str(tmp_path / "soup"),
    )
    assert code == 0, err
    assert "validation of the merge: bpb" in out
    info = json.loads((tmp_path / "soup" / "merge.json").read_text())
    val = info["validation"]
    assert val["data"]["domain"] == domain and val["data"]["n_mc"] == 3
    assert val["output"]["n_mc"] == 3 and val["output"]["bytes"] > 1000  # held-out chunks
    assert info["selection"]["metric"] == "bpb" and info["selection"]["kept"][0] in (0, 1)


def test_recipe_paths_are_relative_to_the_recipe(
    family: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tinyhf import CORPUS

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "held.txt").write_text("\n\n".join(dict.fromkeys(CORPUS)))
    recipe = tmp_path / "r" / "soup.yaml"
    recipe.write_text(
        f"method: linear\nmodels:\n  - model: {family['ft1']}\n  - model: {family['ft2']}\n"
        "validation:\n  heldout: held.txt\n  max_bytes: 300\n  context: 64\nout: soup\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "merge", "--recipe", str(recipe))
    assert code == 0, err
    info = json.loads((tmp_path / "r" / "soup" / "merge.json").read_text())
    assert info["validation"]["data"]["heldout"] == str(tmp_path / "r" / "held.txt")
    assert info["validation"]["output"]["bytes"] == 300  # max_bytes of the text
    assert (
        len(info["validation"]["inputs"]) == 2 and "mc_accuracy" not in info["validation"]["output"]
    )


def test_non_finite_numbers_never_reach_a_model(
    family: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`lambda: .nan` in a recipe, `--lambda inf` on the line, a scale past float16's range
    and a NaN weight in an input: each exits non-zero in one line and writes nothing."""
    from safetensors.torch import load_file, save_file

    base, m1 = str(family["base"]), str(family["ft1"])
    out = tmp_path / "out"
    flags = [
        "merge",
        "--method",
        "task_arithmetic",
        "--base",
        base,
        "--model",
        m1,
        "--model",
        str(family["ft2"]),
        "--out",
        str(out),
    ]
    code, _, err = run_main(monkeypatch, capsys, *flags, "--lambda", "inf")
    assert code == 2 and "not a finite number" in err
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        f"method: task_arithmetic\nbase: {base}\nmodels: [{{model: {m1}}}]\n"
        f"params: {{lambda: .nan}}\nout: {out}\n"
    )
    code, _, err = run_main(monkeypatch, capsys, "merge", "--recipe", str(recipe))
    assert code == 1 and len(err.strip().splitlines()) == 1 and "lambda" in err, err
    code, _, err = run_main(monkeypatch, capsys, *flags, "--lambda", "1e39", "--dtype", "float16")
    assert code == 1 and "NaN or infinite" in err and len(err.strip().splitlines()) == 1, err
    nan_model = tmp_path / "nan-model"
    shutil.copytree(family["ft1"], nan_model)
    weights = next(nan_model.glob("*.safetensors"))
    tensors = load_file(weights)
    name = sorted(tensors)[0]
    tensors[name].view(-1)[0] = float("nan")
    save_file(tensors, weights, metadata={"format": "pt"})
    code, _, err = run_main(
        monkeypatch,
        capsys,
        "merge",
        "--method",
        "linear",
        "--model",
        m1,
        "--model",
        str(nan_model),
        "--out",
        str(out),
    )
    assert code == 1 and "NaN or infinite" in err and f"the input {nan_model}" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nan-model", "r.yaml"]


@pytest.mark.parametrize("damage", ["config_list", "no_model_type", "tokenizer", "checksums"])
def test_a_damaged_input_is_refused_before_anything_is_written(
    damage: str,
    family: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A merge reads only tensors: a config that is a list or names no model_type, a
    damaged tokenizer.json, weights that no longer match checksums.json went into an
    output with exit 0. Now each input is verified as every reader verifies a model."""
    from jupiter.models.folder import write_checksums

    bad = tmp_path / "bad"
    shutil.copytree(family["ft1"], bad)
    if damage == "config_list":
        (bad / "config.json").write_text("[1, 2]")
    elif damage == "no_model_type":
        conf = json.loads((bad / "config.json").read_text())
        del conf["model_type"]
        (bad / "config.json").write_text(json.dumps(conf))
    elif damage == "tokenizer":
        (bad / "tokenizer.json").write_text('{"version": ')
    else:
        write_checksums(bad)
        data = bytearray((bad / "model.safetensors").read_bytes())
        data[-64] ^= 0xFF
        (bad / "model.safetensors").write_bytes(bytes(data))
    out = tmp_path / "out"
    code, _, err = run_main(
        monkeypatch,
        capsys,
        "merge",
        "--method",
        "linear",
        "--model",
        str(family["ft2"]),
        "--model",
        str(bad),
        "--out",
        str(out),
    )
    assert code == 1 and len(err.strip().splitlines()) == 1 and str(bad) in err, err
    assert not out.exists()
