"""Model references: a folder, a Hub id read from a fake local HF cache, a GGUF file imported
once (tiny Llama written with the gguf package), an Ollama name in a fake store; and the
wiring through the workspace and the CLI. Nothing is downloaded."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from jupiter.errors import JupiterError
from jupiter.models import gguf_import
from jupiter.models.reference import locate_model, resolve_model, user_cache_dir
from tinygguf import tiny_gguf

TEXTS = [
    "def add(a, b):\n    return a + b",
    "The list.append method adds one item <|eot_id|> to a list; héllo wörld 123",
]
MODEL_LAYER = "application/vnd.ollama.image.model"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[PreTrainedModel, Any, Path]:
    """(tiny Llama, its tokenizer, the F32 GGUF written from them)."""
    return tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny-llama.gguf")


@pytest.fixture(scope="module")
def imported(
    source: tuple[PreTrainedModel, Any, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """(cache dir, the HF dir imported from the GGUF into it)."""
    cache = tmp_path_factory.mktemp("cache")
    return cache, resolve_model(str(source[2]), base_dir=None, cache_dir=cache)


@pytest.fixture
def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every GGUF file transformers is asked to read, from now on."""
    calls: list[Path] = []
    real = gguf_import.load_gguf

    def counting(path: Path, dtype: torch.dtype) -> Any:
        calls.append(path)
        return real(path, dtype)

    monkeypatch.setattr(gguf_import, "load_gguf", counting)
    return calls


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """HF offline, and any attempt to open a network connection fails the test."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def logits(model: PreTrainedModel, ids: list[int]) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor([ids])).logits  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- GGUF
def test_gguf_import_matches_the_source_model(
    source: tuple[PreTrainedModel, Any, Path], imported: tuple[Path, Path]
) -> None:
    model, tok, path = source
    cache, out = imported
    assert out.parent == cache and out.name.startswith("sha256-")
    assert {"config.json", "model.safetensors", "source.json", "tokenizer.json"} <= {
        p.name for p in out.iterdir()
    }
    got_tok = AutoTokenizer.from_pretrained(out)
    for text in TEXTS:
        assert got_tok(text).input_ids == tok(text).input_ids, text
    got = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32).eval()
    ids = tok(" ".join(TEXTS)).input_ids
    # F32 in, fp32 out, the q/k permutation undone: equal up to float rounding (1e-5)
    assert (logits(got, ids) - logits(model, ids)).abs().max().item() < 1e-5
    meta = json.loads((out / "source.json").read_text())
    assert meta["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert out.name == f"sha256-{meta['sha256']}"
    assert meta["source"] == str(path.resolve()) and meta["size"] == path.stat().st_size
    assert meta["dtype"] == "float32" and meta["transformers"] == transformers.__version__
    assert meta["english_bpb"] is None  # a test model is too small to be held to English
    assert "quantization_config" not in json.loads((out / "config.json").read_text())


def test_an_import_that_cannot_read_english_is_refused_and_not_saved(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a random tiny model reads English like a mis-converted one: held to the check, it is
    # refused with the fix, and the cache keeps nothing
    model, tok, path = source
    random_bpb = gguf_import.english_bpb(model, tok)
    assert random_bpb > gguf_import.MAX_ENGLISH_BPB
    monkeypatch.setattr(gguf_import, "CHECK_MIN_PARAMS", 0)
    cache = tmp_path / "cache"
    with pytest.raises(JupiterError) as err:
        gguf_import.import_gguf(path, cache_dir=cache)
    msg = str(err.value)
    assert f"{random_bpb:.1f} bits per byte" in msg and "pip install -U transformers" in msg
    assert "\n" not in msg and not [p for p in cache.rglob("*") if p.is_file()]
    # a model that reads it (the bound raised for this test) is saved with its figure
    monkeypatch.setattr(gguf_import, "MAX_ENGLISH_BPB", 1e9)
    out = gguf_import.import_gguf(path, cache_dir=cache)
    meta = json.loads((out / "source.json").read_text())
    assert meta["english_bpb"] == pytest.approx(random_bpb, abs=1e-3)


def test_an_import_parses_its_gguf_once(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # transformers makes a reader for the config, the tokenizer and the weights, and the
    # import reads the header for its facts, license and bos: one parse serves them all
    # (Gemma 3: 7 parses of 12 s each before, the import 130 s -> 45 s on one core)
    import gguf
    from gguf import gguf_reader

    parsed: list[Path] = []
    real_init = gguf_reader.GGUFReader.__init__

    def counting(self: Any, path: Any, *args: Any, **kwargs: Any) -> None:
        parsed.append(Path(path))
        real_init(self, path, *args, **kwargs)

    monkeypatch.setattr(gguf_reader.GGUFReader, "__init__", counting)
    original = gguf.GGUFReader
    out = gguf_import.import_gguf(source[2], cache_dir=tmp_path / "cache")
    assert parsed == [source[2].resolve()] and (out / "model.safetensors").is_file()
    assert gguf.GGUFReader is original and not gguf_import._READING  # undone after
    other = tmp_path / "copy.gguf"
    shutil.copy(source[2], other)
    with gguf_import.one_reading(source[2]) as reader:
        assert gguf.GGUFReader(source[2]) is reader  # the same file: the same reader
        assert gguf.GGUFReader(other) is not reader  # another file: read on its own
    assert len(parsed) == 3


class _Tok:
    """A tokenizer stand-in: bos id 2, "a" encoded as `ids`."""

    bos_token_id = 2

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids

    def __call__(self, text: str) -> dict[str, list[int]]:
        return {"input_ids": self.ids}


def test_a_tokenizer_that_drops_the_bos_its_gguf_asks_for_is_refused(
    source: tuple[PreTrainedModel, Any, Path],
) -> None:
    assert gguf_import.gguf_adds_bos(source[2]) is False  # the tiny writer asks for none
    gguf_import.check_bos(_Tok([2, 7]), "m", wants_bos=True)
    gguf_import.check_bos(_Tok([7]), "m", wants_bos=False)
    with pytest.raises(JupiterError, match=r"without the bos token .*5\.23 reads it right"):
        gguf_import.check_bos(_Tok([7]), "m", wants_bos=True)


def test_second_resolve_reads_the_cache(
    source: tuple[PreTrainedModel, Any, Path],
    imported: tuple[Path, Path],
    count_loads: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache, out = imported
    stamp = (out / "model.safetensors").stat().st_mtime_ns
    assert resolve_model(str(source[2]), base_dir=None, cache_dir=cache) == out
    # touched (new mtime): hashed again, found by content; a copy elsewhere: the same entry
    os.utime(source[2])
    assert resolve_model(str(source[2]), base_dir=None, cache_dir=cache) == out
    copy = tmp_path / "renamed.gguf"
    shutil.copy(source[2], copy)
    assert resolve_model("renamed.gguf", base_dir=tmp_path, cache_dir=cache) == out
    assert count_loads == []

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} hashed again")

    monkeypatch.setattr(gguf_import, "sha256_file", no_hashing)  # now known by path and stat
    assert resolve_model(str(copy), base_dir=None, cache_dir=cache) == out
    assert resolve_model(str(source[2]), base_dir=None, cache_dir=cache) == out
    assert (out / "model.safetensors").stat().st_mtime_ns == stamp


def test_save_refused_until_the_quantizer_is_dropped(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path
) -> None:
    path = source[2]
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name)
    if getattr(model, "hf_quantizer", None) is not None:  # transformers 5: marked as gguf
        with pytest.raises(ValueError, match="not serializable"):
            model.save_pretrained(tmp_path / "refused")
    gguf_import.drop_quantizer(model)
    model.save_pretrained(tmp_path / "saved")
    assert "quantization_config" not in json.loads((tmp_path / "saved/config.json").read_text())


def test_gguf_errors(tmp_path: Path) -> None:
    (tmp_path / "notes.gguf").write_text("not a gguf")
    (tmp_path / "empty").mkdir()
    cases = {
        "missing.gguf": "GGUF file not found",
        "notes.gguf": "is not a GGUF file (no GGUF header)",
        "empty": "is not a model folder (no config.json or adapter_config.json)",
        "no such thing": "model not found",
        " ": "empty model reference",
    }
    for ref, expected in cases.items():
        with pytest.raises(JupiterError, match=expected.replace("(", r"\(").replace(")", r"\)")):
            locate_model(ref, base_dir=tmp_path)


def test_folder_and_adapter_resolve_to_themselves(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    llama = tiny_model_dirs["llama"]
    assert resolve_model(str(llama), base_dir=None, cache_dir=tmp_path) == llama.resolve()
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    assert resolve_model("adapter", base_dir=tmp_path, cache_dir=tmp_path / "c") == adapter
    assert not (tmp_path / "c").exists()


# -------------------------------------------------------------------------- Ollama
def fake_ollama(root: Path, blob: Path, name: str = "library/tiny/latest") -> Path:
    """An Ollama store holding `blob` as model `name` (namespace/model/tag)."""
    digest = hashlib.sha256(blob.read_bytes()).hexdigest()
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    shutil.copy(blob, root / "blobs" / f"sha256-{digest}")
    manifest = root / "manifests" / "registry.ollama.ai" / name
    manifest.parent.mkdir(parents=True, exist_ok=True)
    layers = [
        {"mediaType": MODEL_LAYER, "digest": f"sha256:{digest}", "size": blob.stat().st_size},
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:00"},
    ]
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))
    return root


def test_ollama_name_resolves_through_the_store(
    source: tuple[PreTrainedModel, Any, Path],
    imported: tuple[Path, Path],
    count_loads: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = fake_ollama(tmp_path / "ollama", source[2])
    fake_ollama(store, source[2], "someone/tiny/v1")
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    cache, out = imported
    # the blob is the same GGUF: its digest names the entry already imported, nothing reloads
    for ref in ("ollama:tiny", "ollama:tiny:latest", "ollama:someone/tiny:v1"):
        assert resolve_model(ref, base_dir=None, cache_dir=cache) == out
    assert count_loads == []
    assert locate_model("ollama:tiny", base_dir=None).label == "tiny:latest"


def test_ollama_errors(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "none"))
    with pytest.raises(JupiterError, match="no Ollama model store at .*`ollama pull tiny:latest`"):
        locate_model("ollama:tiny", base_dir=None)
    store = fake_ollama(tmp_path / "ollama", source[2])
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    with pytest.raises(JupiterError) as err:
        locate_model("ollama:gemma3:270m", base_dir=None)
    line = str(err.value)
    assert "'gemma3:270m' is not in the store" in line and "(it has: tiny:latest)" in line
    assert "`ollama pull gemma3:270m`" in line and "\n" not in line
    bare = store / "manifests/registry.ollama.ai/library/bare/latest"
    bare.parent.mkdir(parents=True)
    bare.write_text(json.dumps({"layers": [{"mediaType": "text/plain", "digest": "sha256:0"}]}))
    with pytest.raises(JupiterError, match="has no model layer"):
        locate_model("ollama:bare", base_dir=None)


def test_corrupt_ollama_blob_is_refused(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = fake_ollama(tmp_path / "ollama", source[2])
    blob = next((store / "blobs").iterdir())
    blob.write_bytes(blob.read_bytes()[:-8] + b"\0" * 8)  # same name, other content
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    with pytest.raises(JupiterError, match="does not match its SHA-256"):
        resolve_model("ollama:tiny", base_dir=None, cache_dir=tmp_path / "cache")
    assert not any((tmp_path / "cache").glob("sha256-*"))


# ----------------------------------------------------------------------------- Hub
def fake_hub(cache: Path, repo: str, model_dir: Path) -> Path:
    """The HF cache layout: models--org--name/refs/main → snapshots/<commit>/files."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    root = cache / f"models--{repo.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    shutil.copytree(model_dir, root / "snapshots" / commit)
    return root / "snapshots" / commit


@pytest.mark.usefixtures("offline")
def test_hub_id_from_the_local_cache(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    snapshot = fake_hub(tmp_path / "hf" / "hub", "org/tiny", tiny_model_dirs["qwen2"])
    assert resolve_model("org/tiny", base_dir=tmp_path, cache_dir=tmp_path / "c") == snapshot
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "other"))  # wins over HF_HOME
    other = fake_hub(tmp_path / "other", "org/tiny", tiny_model_dirs["llama"])
    assert locate_model("org/tiny", base_dir=None).path == other
    with pytest.raises(JupiterError) as err:
        locate_model("org/absent", base_dir=tmp_path)
    line = str(err.value)
    assert line.startswith(
        f"model 'org/absent' is not in the local Hugging Face cache ({tmp_path / 'other'}), "
        f"nor a folder ({tmp_path / 'org/absent'})"
    )
    assert "fetch it once with `hf download org/absent`" in line and "\n" not in line


@pytest.mark.usefixtures("offline")
def test_hub_id_at_a_revision(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    main = fake_hub(tmp_path / "hub", "org/tiny", tiny_model_dirs["qwen2"])
    root = main.parent.parent
    commit = "fedcba9876543210fedcba9876543210fedcba98"
    (root / "refs" / "v1").write_text(commit)
    shutil.copytree(tiny_model_dirs["llama"], root / "snapshots" / commit)
    assert locate_model("org/tiny", base_dir=None).path == main
    assert locate_model("org/tiny@main", base_dir=None).path == main
    assert locate_model("org/tiny@v1", base_dir=None).path == root / "snapshots" / commit
    assert locate_model(f"org/tiny@{commit}", base_dir=None).path == root / "snapshots" / commit
    with pytest.raises(JupiterError) as err:
        locate_model("org/tiny@v2", base_dir=tmp_path)
    line = str(err.value)
    assert line.startswith("model 'org/tiny' at revision 'v2' is not in the local Hugging Face")
    assert "`hf download org/tiny --revision v2`" in line and "\n" not in line


@pytest.mark.usefixtures("offline")
def test_hub_repo_of_one_gguf_is_imported(
    source: tuple[PreTrainedModel, Any, Path],
    imported: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(source[2], repo / "tiny-Q8_0.gguf")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    fake_hub(tmp_path / "hub", "org/tiny-GGUF", repo)
    cache, out = imported
    assert resolve_model("org/tiny-GGUF", base_dir=None, cache_dir=cache) == out


def test_user_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUPITER_MODEL_CACHE", str(tmp_path / "j"))
    assert user_cache_dir() == tmp_path / "j"
    monkeypatch.delenv("JUPITER_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert user_cache_dir() == tmp_path / "x" / "jupiter" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache_dir() == Path("~/.cache/jupiter/models").expanduser()


# -------------------------------------------------------------------------- wiring
def domain(tmp_path: Path, base: str) -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "a.md").write_text("Tiny docs about tiny things. " * 20)
    path = tmp_path / "d.yaml"
    path.write_text(
        f"name: refs\nsources: [{{type: local, path: docs}}]\nmodel: {{base: '{base}'}}\n"
        "train: {method: lora}\n"
    )
    return path


def test_workspace_imports_a_gguf_base_into_its_own_cache(
    source: tuple[PreTrainedModel, Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.cluster.inventory import model_shape
    from jupiter.config import load_domain
    from jupiter.improve.workspace import Workspace

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    shutil.copy(source[2], tmp_path / "base.gguf")
    ws = Workspace(load_domain(str(domain(tmp_path, "base.gguf")), quick=True))
    ws.check_models()
    base = ws.model("base.gguf")
    assert base.parent == tmp_path / "home" / "runs" / "refs" / "models"  # shared with --quick
    assert ws.model("base.gguf") is base  # memoised: located once per command
    shape = model_shape(ws.cfg)  # the cluster plan reads the same import
    assert (shape.hidden, shape.layers) == (64, 2)
    bad = Workspace(load_domain(str(domain(tmp_path, "ollama:nope")), quick=True))
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "no-store"))
    with pytest.raises(JupiterError, match=r"^model\.base: no Ollama model store"):
        bad.check_models()


def jupiter(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        JUPITER_HOME=str(tmp_path),
        COLUMNS="300",
        HF_HUB_CACHE=str(tmp_path / "hub"),
        OLLAMA_MODELS=str(tmp_path / "ollama"),
    )
    return subprocess.run(
        [sys.executable, "-m", "jupiter.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_refuses_an_unknown_reference_in_one_line(tmp_path: Path) -> None:
    r = jupiter(["serve", "--model", "org/absent"], tmp_path)
    err = r.stderr.strip()
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert len(err.splitlines()) == 1, err
    assert "not in the local Hugging Face cache" in err and "`hf download org/absent`" in err
    # a domain whose base is not there: `jupiter start` stops before writing a store
    r = jupiter(["start", "--domain", str(domain(tmp_path, "ollama:nope")), "--auto"], tmp_path)
    err = r.stderr.strip()
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert err.startswith("error: model.base: no Ollama model store at"), err
    assert not list(tmp_path.glob("runs/*/jupiter.sqlite"))
