"""Bounded memory: a merge holds one tensor name of each input at a time (counted), peak
RSS grows by less than one model however many are merged (measured in a fresh process),
and sharded checkpoints stream in and out (index json included)."""

from __future__ import annotations

import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
import torch
from mergefamily import read
from safetensors.torch import save_file

from jupiter.merge import shards
from jupiter.merge.engine import merge_models
from jupiter.merge.recipe import parse_recipe


def merge(recipe: dict, out: Path) -> dict:
    return merge_models(
        parse_recipe({**recipe, "out": str(out)}), base_dir=None, cache_dir=out.parent / "cache"
    )


@pytest.mark.parametrize("method", ["linear", "ties", "median"])
def test_at_most_one_tensor_per_input_is_alive(
    family: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    alive = {"now": 0, "max": 0, "reads": 0}
    real = shards.read_tensor

    def counted(info: shards.TensorInfo) -> torch.Tensor:
        t = real(info)
        alive["now"] += 1
        alive["reads"] += 1
        alive["max"] = max(alive["max"], alive["now"])
        weakref.finalize(t, lambda: alive.__setitem__("now", alive["now"] - 1))
        return t

    monkeypatch.setattr(shards, "read_tensor", counted)
    models = [{"model": str(family[f"ft{i}"])} for i in (1, 2, 3)]
    base = {"base": str(family["base"])} if method == "ties" else {}
    merge({"method": method, "models": models, **base}, tmp_path / "out")
    n_names = len(read(family["base"]))
    n_inputs = 3 + bool(base)
    assert alive["reads"] == n_inputs * n_names  # every input tensor read once
    # never more than one name's tensors at once; a mean adds each input and drops it
    assert alive["max"] <= (1 if method == "linear" else n_inputs)
    assert alive["now"] == 0


def test_sharded_in_and_out(family: dict[str, Path], tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    sharded = tmp_path / "ft1-sharded"
    AutoModelForCausalLM.from_pretrained(family["ft1"]).save_pretrained(
        sharded, max_shard_size="100KB"
    )
    assert (sharded / shards.INDEX).is_file()
    models = [{"model": str(sharded)}, {"model": str(family["ft2"])}]
    info = merge({"method": "linear", "models": models, "shard_size": "150KB"}, tmp_path / "o")
    out = tmp_path / "o"
    index = json.loads((out / shards.INDEX).read_text())
    files = sorted(p.name for p in out.glob("*.safetensors"))
    assert info["output"]["shards"] == len(files) > 1
    assert sorted(set(index["weight_map"].values())) == files
    assert set(info["output"]["sha256"]) == {*files, shards.INDEX}
    from jupiter.models.folder import sha256_file

    # hashed as written, equal to a hash of the file on disk
    assert all(sha256_file(out / f) == h for f, h in info["output"]["sha256"].items())
    assert shards.INDEX in info["inputs"][0]["sha256"]
    a, b, got = read(family["ft1"]), read(family["ft2"]), read(out)
    assert all(torch.allclose(got[k], (a[k] + b[k]) / 2) for k in a)
    model = AutoModelForCausalLM.from_pretrained(out)  # transformers reads the shards
    assert torch.equal(model.state_dict()["lm_head.weight"], got["lm_head.weight"])


RSS_SCRIPT = """
import json, sys, threading
from pathlib import Path
from jupiter.merge.engine import merge_models
from jupiter.merge.recipe import parse_recipe
import jupiter.models.integrity, jupiter.models.reference  # imported by the merge: not its data

def anon_mb():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024

dirs = sys.argv[1:-1]
recipe = parse_recipe({"method": "linear", "models": [{"model": d} for d in dirs],
                       "out": sys.argv[-1]})
if anon_mb() is None:
    print(json.dumps({"skip": "no RssAnon in /proc/self/status"}))
    sys.exit(0)
# the memory the merge holds: anonymous pages, sampled every millisecond (the pages of the
# memory-mapped inputs are page cache, counted in RSS while mapped but not held: the kernel
# takes them back under pressure, so they are not what streaming bounds)
before, peak, done = anon_mb(), [0.0], threading.Event()

def watch():
    while not done.is_set():
        peak[0] = max(peak[0], anon_mb())
        done.wait(0.001)

t = threading.Thread(target=watch)
t.start()
merge_models(recipe, base_dir=None, cache_dir=Path(sys.argv[-1]).parent / "cache")
done.set()
t.join()
print(json.dumps({"before": before, "peak": max(peak[0], anon_mb())}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_peak_rss_grows_by_less_than_one_model(tmp_path: Path) -> None:
    n_models, n_tensors, numel = 4, 16, 768 * 1024  # 16 x 3 MiB = 48 MiB a model, fp32
    dirs = []
    gen = torch.Generator().manual_seed(0)
    for m in range(n_models):
        d = tmp_path / f"m{m}"
        d.mkdir()
        (d / "config.json").write_text(json.dumps({"model_type": "toy"}))
        save_file(
            {f"t{i:02d}": torch.randn(numel, generator=gen) for i in range(n_tensors)},
            str(d / "model.safetensors"),
        )
        dirs.append(str(d))
    model_mb = n_tensors * numel * 4 / 2**20
    r = subprocess.run(
        [sys.executable, "-c", RSS_SCRIPT, *dirs, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    if "skip" in got:
        pytest.skip(f"cannot read the anonymous RSS here: {got['skip']}")
    grew = got["peak"] - got["before"]
    # holding the inputs would take n_models * 48 MiB; streaming holds about one name's
    # tensors (4 inputs + the sum + the output, 3 MiB each)
    assert grew < model_mb, (grew, model_mb)
    assert (tmp_path / "out" / "model.safetensors").stat().st_size > n_tensors * numel * 4
