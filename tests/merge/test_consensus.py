"""The consensus vote (merge/consensus.py) on hand-computed figures, and vote_and_merge
(improve/consensus.py) on a family of tiny models with a poisoned member."""

from __future__ import annotations

import io
import math
import shutil
from pathlib import Path

import pytest
import torch
from mergefamily import perturbed, read
from rich.console import Console
from safetensors.torch import load_file, save_file

from jupiter.config import ConsensusConfig
from jupiter.improve.consensus import vote_and_merge
from jupiter.merge.consensus import median_distances, vote
from jupiter.merge.shards import ModelWeights
from jupiter.merge.validation import ValidationData, Validator


class Dict:
    def __init__(self, tensors: dict[str, torch.Tensor]) -> None:
        self.tensors = tensors

    def read(self, name: str) -> torch.Tensor:
        return self.tensors[name]


def test_distances_to_the_coordinate_median_by_hand() -> None:
    # one tensor of two entries; members (0,0) (1,0) (2,0) (100,0) (nan,0)
    members = [
        Dict({"w": torch.tensor([x, 0.0]), "i": torch.tensor([1])})
        for x in (0.0, 1.0, 2.0, 100.0, math.nan)
    ]
    d = median_distances(members, ["w", "i"])
    # the NaN member is left out of the median: median of 0, 1, 2, 100 is 1.5
    assert d[:4] == pytest.approx([1.5, 0.5, 0.5, 98.5])
    assert d[4] == math.inf


def test_vote_outliers_by_distance_loss_and_finiteness() -> None:
    v = vote(
        [1.0, 1.2, 0.9, 40.0, math.inf, 1.1],
        [2.0, 2.1, 2.05, 2.0, 2.0, 2.6],
        threshold=0.5,
        max_distance=3.0,
        max_loss_gap=0.1,
    )
    assert v.median_distance == pytest.approx(1.1)  # of the finite distances
    assert v.median_loss == pytest.approx(2.05)  # of the members with finite weights
    assert sorted(v.outliers) == [3, 4, 5]
    assert "40" in v.outliers[3] and "max_distance 3" in v.outliers[3]
    assert "not finite" in v.outliers[4]
    assert "2.6000" in v.outliers[5] and "max_loss_gap 0.1" in v.outliers[5]
    assert v.agree == [0, 1, 2] and v.quorum  # 3 of 6 at threshold 0.5
    assert v.best() == 0  # the lowest loss among the agreeing
    three_quarters = vote(
        [1.0, 1.0, 1.0, 9.0], [1.0] * 4, threshold=0.75, max_distance=3.0, max_loss_gap=0.1
    )
    assert three_quarters.agree == [0, 1, 2] and three_quarters.quorum  # 3 of 4 = 0.75
    below = vote(
        [1.0, 1.0, 9.0, 9.5, 1.0], [1.0] * 5, threshold=0.75, max_distance=3.0, max_loss_gap=0.1
    )
    assert below.agree == [0, 1, 4] and not below.quorum  # 3 of 5 < 0.75
    assert below.record()["outliers"].keys() == {"2", "3"}


@pytest.fixture(scope="module")
def members(family: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Five members of one start: four honest fine-tunes (base + small noise) and one
    poisoned copy of the first, its weights x1e6 (and a NaN-poisoned one apart)."""
    root = tmp_path_factory.mktemp("consensus")
    honest = [
        family["ft1"],
        family["ft2"],
        family["ft3"],
        perturbed(family["base"], root / "ft4", seed=4),
    ]
    scaled = root / "scaled"
    shutil.copytree(family["ft1"], scaled)
    w = load_file(str(scaled / "model.safetensors"))
    save_file({k: v * 1e6 for k, v in w.items()}, str(scaled / "model.safetensors"))
    nan = root / "nan"
    shutil.copytree(family["ft2"], nan)
    w = load_file(str(nan / "model.safetensors"))
    first = sorted(w)[0]
    w[first] = w[first].clone()
    w[first].view(-1)[0] = math.nan
    save_file(w, str(nan / "model.safetensors"))
    words = "the json module reads and writes text as python objects and back".split()
    gen = torch.Generator().manual_seed(0)
    texts = [
        " ".join(words[int(i)] for i in torch.randint(len(words), (40,), generator=gen))
        for _ in range(6)
    ]
    return {"honest": honest, "scaled": scaled, "nan": nan, "texts": texts, "root": root}


def run_vote(members: dict, dirs: list[Path], name: str, **cfg: object) -> tuple[Path, dict]:
    c = ConsensusConfig.model_validate({"members": len(dirs), **cfg})
    return vote_and_merge(
        dirs,
        members["texts"],
        c,
        context=64,
        cache_dir=members["root"] / "cache",
        console=Console(file=io.StringIO()),
        base=None,
        out=members["root"] / name,
    )


def bpb_of(model_dir: Path, texts: list[str]) -> float:
    w = ModelWeights(model_dir)
    v = Validator(model_dir, w.names(), ValidationData(texts=texts, context=64))
    return v.bpb_with_grad(grad=False)


@pytest.mark.parametrize("poison", ["scaled", "nan"])
def test_a_poisoned_member_gets_no_weight(members: dict, poison: str) -> None:
    dirs = [*members["honest"], members[poison]]
    chosen, record = run_vote(members, dirs, f"merged-{poison}", threshold=0.75, max_loss_gap=1.0)
    assert list(record["vote"]["outliers"]) == ["4"]  # the poisoned one, only
    why = record["vote"]["outliers"]["4"]
    assert ("not finite" in why) if poison == "nan" else ("distance to the median" in why)
    assert record["vote"]["agree"] == [0, 1, 2, 3] and record["vote"]["quorum"]
    # the honest-only merge, made apart: the consensus's merged model is the same model
    honest, _ = run_vote(
        members, members["honest"], f"honest-{poison}", threshold=0.75, max_loss_gap=1.0
    )
    merged_bpb = record["merged_bpb"]
    honest_bpb = bpb_of(members["root"] / f"honest-{poison}", members["texts"])
    assert math.isfinite(merged_bpb) and abs(merged_bpb - honest_bpb) <= 0.05 * honest_bpb
    got = read(members["root"] / f"merged-{poison}")
    want = read(members["root"] / f"honest-{poison}")
    for k in want:
        torch.testing.assert_close(got[k], want[k], rtol=0, atol=1e-6)
    if record["merged"]:
        assert chosen == members["root"] / f"merged-{poison}"
        assert record["merged_bpb"] <= record["best_bpb"]
    else:  # the gate kept the best member, which must then validate better than the merge
        assert chosen in dirs[:4] and record["merged_bpb"] > record["best_bpb"]


def test_the_plain_mean_with_the_poisoned_member_would_be_ruined(members: dict) -> None:
    """What the vote prevents: the same five members averaged without it."""
    from jupiter.merge.engine import merge_models
    from jupiter.merge.recipe import parse_recipe

    dirs = [*members["honest"], members["scaled"]]
    out = members["root"] / "naive"
    recipe = parse_recipe(
        {"method": "linear", "models": [{"model": str(d)} for d in dirs], "out": str(out)}
    )
    merge_models(
        recipe,
        base_dir=None,
        cache_dir=members["root"] / "cache",
        force=True,
        console=Console(file=io.StringIO()),
    )
    naive, honest = read(out), read(members["honest"][0])
    k = "model.layers.0.self_attn.q_proj.weight"
    # a fifth of the poisoned member's 1e6 scale: the mean follows the one bad member
    assert naive[k].norm() > 1e4 * honest[k].norm()


def test_below_the_threshold_no_merge_is_made(members: dict) -> None:
    # two poisoned of five: 3 agree, 3/5 < 0.75
    dirs = [*members["honest"][:3], members["scaled"], members["nan"]]
    out = members["root"] / "below"
    chosen, record = run_vote(members, dirs, "below", threshold=0.75, max_loss_gap=1.0)
    assert sorted(record["vote"]["outliers"]) == ["3", "4"]
    assert not record["vote"]["quorum"] and not record["merged"]
    assert record["merged_bpb"] is None and not out.exists()
    assert chosen == dirs[record["best_member"]] and record["best_member"] in (0, 1, 2)
    assert "below the threshold 0.75" in record["reason"]
    # at threshold 0.6 the same three are enough
    _, again = run_vote(members, dirs, "above", threshold=0.6, max_loss_gap=1.0)
    assert again["vote"]["quorum"] and again["merged_bpb"] is not None


def test_consensus_greedy_soup_of_the_agreeing_members(members: dict) -> None:
    dirs = [*members["honest"], members["scaled"]]
    chosen, record = run_vote(
        members, dirs, "greedy", threshold=0.75, max_loss_gap=1.0, merge="greedy_soup"
    )
    assert list(record["vote"]["outliers"]) == ["4"]
    info = __import__("json").loads((members["root"] / "greedy" / "merge.json").read_text())
    assert info["method"] == "greedy_soup" and len(info["weights"]) == 4  # the honest four
    kept = info["selection"]["kept"]
    assert kept[0] == record["best_member"]  # the soup starts from the best member
    # the greedy soup never validates worse than its best ingredient, so the gate passes it
    assert record["merged"] and record["merged_bpb"] <= record["best_bpb"] + 1e-9
    assert chosen == members["root"] / "greedy"
