"""The sync store on a folder, file://, memory:// and a real sftp server; atomic puts; the
codec's round trips; the weights digest; one-line errors for bad URLs."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from jupiter.cluster.codec import decode, encode, to_fp32, weights_digest
from jupiter.cluster.syncstore import SyncStore
from jupiter.errors import JupiterError
from jupiter.merge.aggregate import Contribution, aggregate


@pytest.fixture(params=["path", "relative", "file", "memory"])
def store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> SyncStore:
    if request.param == "path":
        return SyncStore(str(tmp_path / "store"))
    if request.param == "relative":
        monkeypatch.chdir(tmp_path)
        return SyncStore("runs/store")
    if request.param == "file":
        return SyncStore(f"file://{tmp_path}/store")
    return SyncStore(f"memory://jupiter-test-{uuid.uuid4().hex}/store")


def exercise(store: SyncStore) -> None:
    store.put("global/round-000001.safetensors", b"one")
    store.put("global/round-000002.safetensors", b"two!")
    store.put("global/round-000002.safetensors", b"TWO")  # overwrite
    store.put("pseudo/round-000002/mac.safetensors", b"pg")
    store.put_json("latest.json", {"round": 2, "islands": ["mac", "gpu"]})
    assert store.get("global/round-000002.safetensors") == b"TWO"
    assert store.get_json("latest.json") == {"round": 2, "islands": ["mac", "gpu"]}
    assert store.exists("pseudo/round-000002/mac.safetensors")
    assert not store.exists("pseudo/round-000002/gpu.safetensors") and not store.exists("pseudo")
    assert store.list() == [
        "global/round-000001.safetensors",
        "global/round-000002.safetensors",
        "latest.json",
        "pseudo/round-000002/mac.safetensors",
    ]
    assert store.list("global/") == store.list("global/round-") == store.list()[:2]
    assert store.list("pseudo/round-000002/") == ["pseudo/round-000002/mac.safetensors"]
    assert store.list("nothing/") == []
    store.delete("global/round-000001.safetensors")
    store.delete("global/round-000001.safetensors")  # twice is fine
    assert store.list("global/") == ["global/round-000002.safetensors"]
    with pytest.raises(JupiterError, match="has no key 'global/round-000001.safetensors'"):
        store.get("global/round-000001.safetensors")
    json_len = len(b'{\n "islands": [\n  "mac",\n  "gpu"\n ],\n "round": 2\n}')
    assert store.bytes_put == 3 + 4 + 3 + 2 + json_len
    assert store.bytes_got == 3 + json_len  # the failed get counts nothing


def test_put_get_list_exists_delete(store: SyncStore) -> None:
    exercise(store)


@pytest.mark.parametrize(
    "key", ["", "/abs", "../up", "a/../b", "a/.hidden", "a\\b", "a//b", "k.tmp-1"]
)
def test_bad_keys(store: SyncStore, key: str) -> None:
    with pytest.raises(JupiterError, match="not a plain relative path"):
        store.put(key, b"x")


def test_local_put_interrupted_before_rename_leaves_old_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SyncStore(str(tmp_path))
    store.put("a/old.bin", b"old")

    def crash(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(JupiterError, match="put 'a/new.bin' failed.*No space left"):
        store.put("a/new.bin", b"new" * 1000)
    with pytest.raises(JupiterError):
        store.put("a/old.bin", b"newer")
    monkeypatch.undo()
    assert not store.exists("a/new.bin") and store.get("a/old.bin") == b"old"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["old.bin"]  # no temp left over


def test_memory_put_interrupted_before_move_leaves_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    store = SyncStore(f"memory://jupiter-test-{uuid.uuid4().hex}")
    fs = store._fs

    def crash(src: str, dst: str) -> None:
        assert fs.cat_file(src) == b"partial?"  # the bytes were written, under a temp name
        assert store.list() == []  # ... which nobody lists
        raise ConnectionError("link down")

    monkeypatch.setattr(fs, "mv", crash)
    with pytest.raises(JupiterError, match="put 'k/v.bin' failed.*link down"):
        store.put("k/v.bin", b"partial?")
    monkeypatch.undo()
    assert not store.exists("k/v.bin") and store.list() == [] and fs.find(store._root) == []


def test_reader_never_sees_a_partial_file(tmp_path: Path) -> None:
    store = SyncStore(str(tmp_path))
    big = [bytes([c]) * 2_000_000 for c in b"ab"]
    store.put("w.bin", big[0])
    stop, seen = threading.Event(), set()

    def read() -> None:
        while not stop.is_set():
            seen.add(store.get("w.bin"))

    reader = threading.Thread(target=read)
    reader.start()
    for i in range(40):
        store.put("w.bin", big[i % 2])
    stop.set()
    reader.join()
    assert seen <= set(big) and seen


def test_unknown_protocol_missing_package_unreachable() -> None:
    with pytest.raises(JupiterError, match="sync store foo://x/y: unknown protocol 'foo'"):
        SyncStore("foo://x/y")
    try:
        import s3fs  # noqa: F401
    except ImportError:
        with pytest.raises(JupiterError, match="s3:// protocol needs s3fs.*pip install s3fs"):
            SyncStore("s3://bucket/run")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(JupiterError, match=r"sftp://me:\*\*\*@127.0.0.1.*is unreachable") as e:
        SyncStore(f"sftp://me:secret@127.0.0.1:{port}/run")
    assert "secret" not in str(e.value)


def test_local_folder_that_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(JupiterError, match="cannot create the folder"):
        SyncStore(str(tmp_path / "file" / "store"))


@pytest.fixture
def sftp_url(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real sshd on 127.0.0.1 (key auth, internal sftp), as the current user."""
    sshd, keygen = shutil.which("sshd") or "/usr/sbin/sshd", shutil.which("ssh-keygen")
    if not (os.path.exists(sshd) and keygen):
        pytest.skip("needs sshd and ssh-keygen")
    for k in ("host", "client"):
        subprocess.run(
            [keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / k)], check=True
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "sshd_config"
    cfg.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp_path / 'host'}\n"
        f"AuthorizedKeysFile {tmp_path / 'client.pub'}\nPidFile {tmp_path / 'pid'}\n"
        "StrictModes no\nPasswordAuthentication no\nUsePAM no\nSubsystem sftp internal-sftp\n"
    )
    proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(cfg)], stderr=subprocess.PIPE)
    try:
        for _ in range(50):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                pytest.skip(f"sshd cannot run here: {proc.stderr.read().decode()[-200:]}")  # type: ignore[union-attr]
            time.sleep(0.1)
        yield (
            f"sftp://{os.environ.get('USER', 'root')}@127.0.0.1:{port}{tmp_path}/store",
            tmp_path / "client",
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_real_sftp_server(sftp_url: tuple[str, Path]) -> None:
    url, key = sftp_url
    store = SyncStore(url, {"key_filename": str(key)})
    exercise(store)  # overwriting needs posix_rename: plain sftp rename refuses to replace


# ------------------------------------------------------------------------------- codec
def tensors(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"layer.w": torch.randn(16, 8, generator=g) * 3, "layer.b": torch.randn(8, generator=g)}


def test_codec_fp32_exact_with_metadata() -> None:
    t = {**tensors(), "step": torch.tensor([7], dtype=torch.int64)}
    out, meta = decode(encode(t, "fp32", {"info": '{"tokens": 5}'}))
    assert meta == {"info": '{"tokens": 5}'}
    assert out.keys() == t.keys() and all(torch.equal(out[k], t[k]) for k in t)
    assert out["step"].dtype == torch.int64  # integers are never cast


@pytest.mark.parametrize(
    ("dtype", "torch_dtype", "eps"),
    [("bf16", torch.bfloat16, 2**-8), ("fp16", torch.float16, 2**-11)],
)
def test_codec_half_precision_within_rounding(
    dtype: str, torch_dtype: torch.dtype, eps: float
) -> None:
    t = tensors()
    data = encode(t, dtype)  # type: ignore[arg-type]
    out, meta = decode(data)
    assert meta == {} and out["layer.w"].dtype == torch_dtype
    back = to_fp32(out)
    for k in t:
        assert back[k].dtype == torch.float32
        # round to nearest: relative error at most half a unit in the last place
        assert ((back[k] - t[k]).abs() <= eps * t[k].abs() + 1e-7).all()
    assert 2 * sum(v.nbytes for v in out.values()) == sum(v.nbytes for v in t.values())


def test_codec_numpy_and_tied_tensors() -> None:
    t = tensors()
    shared = {"emb": t["layer.w"], "head": t["layer.w"], "np": t["layer.b"].numpy()}
    out, _ = decode(encode(shared, "fp32"))
    assert torch.equal(out["emb"], out["head"]) and torch.equal(out["np"], t["layer.b"])


def test_fp16_overflow_becomes_inf_and_is_rejected() -> None:
    honest = [
        Contribution(f"h{i}", to_fp32(decode(encode(tensors(i), "fp16"))[0])) for i in range(3)
    ]
    big = tensors(9)
    big["layer.b"][0] = 1e5  # beyond fp16's 65504
    blown = to_fp32(decode(encode(big, "fp16"))[0])
    assert torch.isinf(blown["layer.b"][0])
    _, info = aggregate([*honest, Contribution("big", blown)], "mean")
    assert info["rejected"] == {"big": "non_finite"} and info["used"] == ["h0", "h1", "h2"]


def test_decode_garbage() -> None:
    with pytest.raises(JupiterError, match="contribution x is not a safetensors payload"):
        decode(b"\x00" * 20, source="contribution x")


def test_weights_digest() -> None:
    a, b = tensors(), tensors()
    assert weights_digest(a) == weights_digest(dict(reversed(list(b.items()))))
    assert weights_digest(a) == weights_digest({k: v.numpy() for k, v in a.items()})  # MLX side
    flipped = {k: v.clone() for k, v in a.items()}
    flipped["layer.b"].view(torch.int32)[3] ^= 1  # one bit, in the last place of the mantissa
    assert not torch.equal(flipped["layer.b"], a["layer.b"])
    assert weights_digest(flipped) != weights_digest(a)
    assert weights_digest(
        {"other.b" if k == "layer.b" else k: v for k, v in a.items()}
    ) != weights_digest(a)
    assert weights_digest({k: v.to(torch.float64) for k, v in a.items()}) != weights_digest(a)
    assert weights_digest({k: v.reshape(-1) for k, v in a.items()}) != weights_digest(a)
    # what travels through the store is what was digested
    assert weights_digest(decode(encode(a, "fp32"))[0]) == weights_digest(a)
    assert len(weights_digest(a)) == 64


@pytest.mark.parametrize(("dtype", "levels", "per_value"), [("int8", 127, 1.0), ("int4", 7, 0.5)])
def test_codec_integers_per_group_within_half_a_step(
    dtype: str, levels: int, per_value: float
) -> None:
    t = {**tensors(), "odd": torch.randn(5, 13) * 1e-4, "step": torch.tensor([7])}
    data = encode(t, dtype, {"info": "x"})  # type: ignore[arg-type]
    out, meta = decode(data)
    assert meta["info"] == "x" and out["step"].dtype == torch.int64
    assert int(out["step"]) == 7
    for k in ("layer.w", "layer.b", "odd"):
        assert out[k].dtype == torch.float32 and out[k].shape == t[k].shape
        flat = torch.nn.functional.pad(t[k].reshape(-1), (0, (-t[k].numel()) % 64))
        step = flat.reshape(-1, 64).abs().amax(dim=1) / levels  # a group's integer step
        err = torch.nn.functional.pad((out[k] - t[k]).reshape(-1), (0, (-t[k].numel()) % 64))
        # half a step, and the bf16 rounding of the scale (2^-8 of the group's absmax)
        bound = step * 0.5 + step * levels * 2**-8
        assert (err.reshape(-1, 64).abs() <= bound[:, None] + 1e-12).all(), k
    values = sum(t[k].numel() for k in ("layer.w", "layer.b", "odd"))
    payload = len(data) - 8 - int.from_bytes(data[:8], "little") - 8  # tensors' bytes
    groups = 2 + 1 + 2  # 128, 8 and 65 values in groups of 64
    assert payload <= per_value * (values + 64 * 3) + 2 * groups
    assert decode(encode({"z": torch.zeros(10)}, dtype))[0]["z"].abs().sum() == 0  # type: ignore[arg-type]


def test_a_non_finite_value_survives_integer_coding_and_is_rejected() -> None:
    honest = [Contribution(f"h{i}", decode(encode(tensors(i), "int8"))[0]) for i in range(3)]
    bad = tensors(9)
    bad["layer.b"][0] = float("inf")
    blown = decode(encode(bad, "int8"))[0]
    assert not torch.isfinite(blown["layer.b"]).all()
    _, info = aggregate([*honest, Contribution("bad", blown)], "mean")
    assert info["rejected"] == {"bad": "non_finite"}
