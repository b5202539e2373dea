"""Weights chosen on validation: the greedy soup keeps what helps and rejects an ingredient
that hurts; convex weights find the simplex optimum of a known loss, and on a real model
lower the held-out bpb below the uniform soup's. The validator's bpb is eval/bpb.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from mergefamily import perturbed

from jupiter.eval.bpb import bits_per_byte
from jupiter.merge.engine import merge_models
from jupiter.merge.recipe import parse_recipe
from jupiter.merge.shards import ModelWeights
from jupiter.merge.soup import fit_convex, greedy_soup
from jupiter.merge.validation import Validator, file_validation, mix
from tinyhf import CORPUS


def test_greedy_soup_logic() -> None:
    individual = [0.5, 0.3, 0.9, 0.4]  # lower is better: order 1, 3, 0, 2
    soups = {(1, 3): 0.25, (1, 3, 0): 0.28, (1, 3, 2): 0.2}
    kept, history = greedy_soup(individual, lambda idx: soups[tuple(idx)])
    assert kept == [1, 3, 2]  # 0 made the soup worse (0.28 > 0.25); 2 made it better
    assert [h["input"] for h in history] == [1, 3, 0, 2]
    assert [h["kept"] for h in history] == [True, True, False, True]


def test_fit_convex_finds_the_simplex_optimum() -> None:
    thetas = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    target = torch.tensor([0.2, 0.3], dtype=torch.float64)  # = 0.5 t0 + 0.2 t1 + 0.3 t2

    def loss_grad(w: torch.Tensor) -> tuple[float, torch.Tensor]:
        r = w @ thetas - target
        return float(r @ r), 2 * thetas @ r

    w, history = fit_convex(3, loss_grad, steps=300, lr=0.05)
    assert history[0]["weights"] == pytest.approx([1 / 3] * 3)
    assert w == pytest.approx([0.5, 0.2, 0.3], abs=0.02)
    assert sum(w) == pytest.approx(1.0) and min(w) > 0


@pytest.fixture(scope="module")
def val_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("val")
    heldout = root / "heldout.txt"
    heldout.write_text("\n\n".join(dict.fromkeys(CORPUS)))
    qa = root / "qa.jsonl"
    rows = [
        {
            "id": "q1",
            "question": "What does list.append do?",
            "answer": "adds one item",
            "choices": ["adds one item", "sorts the list", "opens a file"],
            "answer_index": 0,
        },
        {
            "id": "q2",
            "question": "How is a file closed?",
            "answer": "with open",
            "choices": ["raise", "with open", "print"],
            "answer_index": 1,
        },
    ]
    qa.write_text("\n".join(json.dumps(r) for r in rows))
    return heldout, qa


@pytest.fixture(scope="module")
def bad(family: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ingredient far from the others (noise 25x a fine-tune's): it hurts any soup."""
    return perturbed(family["base"], tmp_path_factory.mktemp("bad") / "bad", seed=9, scale=0.5)


def test_validator_bpb_is_the_eval_code_bpb(family: dict[str, Path], val_files: tuple) -> None:
    data = file_validation(None, val_files[0], 10, 4, 2000, 64)
    ref = ModelWeights(family["ft1"])
    v = Validator(family["ft1"], ref.names(), data)
    got = bits_per_byte(v.model, v.gen.tokenizer, data.texts, 64, 2000)["bpb"]
    assert v.bpb_with_grad(grad=False) == pytest.approx(got, rel=1e-5)
    # the gradient with respect to the mixing weights, against a finite difference
    readers = [ModelWeights(family["ft1"]).read, ModelWeights(family["ft2"]).read]
    w = torch.tensor([0.6, 0.4], dtype=torch.float64)
    loss, gw = v.mix_loss_grad(readers, w)
    eps = torch.tensor([1e-2, -1e-2], dtype=torch.float64)
    v.load(lambda n: mix(readers, w + eps, n))
    up = v.bpb_with_grad(grad=False)
    v.load(lambda n: mix(readers, w - eps, n))
    down = v.bpb_with_grad(grad=False)
    assert (up - down) / 2 == pytest.approx(float(gw @ eps), rel=0.05)
    assert loss > 0


def test_greedy_soup_rejects_an_ingredient_that_hurts(
    family: dict[str, Path], bad: Path, val_files: tuple, tmp_path: Path
) -> None:
    models = [{"model": str(family["ft1"])}, {"model": str(bad)}, {"model": str(family["ft2"])}]
    recipe = parse_recipe(
        {
            "method": "greedy_soup",
            "models": models,
            "out": str(tmp_path / "o"),
            "validation": {
                "heldout": str(val_files[0]),
                "qa": str(val_files[1]),
                "max_bytes": 2000,
                "context": 64,
            },
        }
    )
    data = file_validation(None, val_files[0], 10, 3, 2000, 64)
    data.mc = file_validation(val_files[1], None, 10, 3, 2000, 64).mc
    info = merge_models(recipe, base_dir=None, cache_dir=tmp_path / "c", data=data)
    sel = info["selection"]
    assert sel["metric"] == "bpb"
    assert sel["history"][-1]["input"] == 1  # the worst alone is tried last ...
    assert sel["history"][-1]["kept"] is False  # ... and rejected: the soup got worse
    assert sel["history"][-1]["score"] > sel["history"][-1]["soup_before"]
    assert info["weights"][1] == 0.0 and sum(info["weights"]) == pytest.approx(1.0)
    val = info["validation"]
    assert [i["ref"] for i in val["inputs"]] == [m["model"] for m in models]
    assert val["inputs"][1]["bpb"] > max(val["inputs"][0]["bpb"], val["inputs"][2]["bpb"])
    assert val["output"]["bpb"] < val["inputs"][1]["bpb"]
    assert val["output"]["n_mc"] == 2 and 0 <= val["output"]["mc_accuracy"] <= 1
    saved = json.loads((tmp_path / "o" / "merge.json").read_text())
    assert saved["validation"]["output"]["bpb"] == pytest.approx(val["output"]["bpb"])


def test_convex_weights_beat_the_uniform_soup(
    family: dict[str, Path], bad: Path, val_files: tuple, tmp_path: Path
) -> None:
    models = [{"model": str(family["ft1"])}, {"model": str(bad)}]
    recipe = parse_recipe(
        {
            "method": "convex",
            "models": models,
            "out": str(tmp_path / "o"),
            "params": {"steps": 6, "lr": 0.5},
            "validation": {"heldout": str(val_files[0])},
        }
    )
    data = file_validation(None, val_files[0], 10, 3, 2000, 64)
    info = merge_models(recipe, base_dir=None, cache_dir=tmp_path / "c", data=data)
    history = info["selection"]["history"]
    assert history[0]["weights"] == [0.5, 0.5]  # it starts from the uniform soup
    w = info["weights"]
    assert w[0] > 0.6 and sum(w) == pytest.approx(1.0)  # weight moved off the bad model
    best = min(h["loss"] for h in history)
    assert best < history[0]["loss"]
    assert info["validation"]["output"]["bpb"] == pytest.approx(best, rel=1e-4)
