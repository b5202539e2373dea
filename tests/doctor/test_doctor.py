"""`jupiter doctor`: each failure mode faked (a CPU-only torch beside an NVIDIA driver,
hidden devices, old GPUs, a missing package behind a refusing import finder, a closed port,
a real fake LLM server, a full disk, a bad cluster file, a Hub id not in the cache) and the
fix it prints asserted."""

from __future__ import annotations

import importlib.abc
import json
import shutil
import socket
import sys
import threading
from collections import namedtuple
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from climain import run_main as _main
from fakellm import FakeLLM
from jupiter.config import load_domain
from jupiter.doctor import system
from jupiter.doctor.nodes import cluster_checks, split_fix
from jupiter.doctor.packages import package_checks
from jupiter.doctor.result import Check, Context
from jupiter.doctor.run import report_json, run_checks
from jupiter.doctor.servers import hf_cache_check, model_checks, server_checks
from tinyhf import save_tiny

GIB = 1024**3


def domain(tmp_path: Path, extra: str = "", name: str = "d") -> Context:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nsources: [{{type: python_stdlib, modules: [json]}}]\n{extra}")
    return Context(cfg=load_domain(str(path)), home=tmp_path)


def by_name(checks: list[Check], name: str) -> Check:
    (found,) = [c for c in checks if c.name == name]
    return found


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------------ accelerators
def no_gpu(monkeypatch: pytest.MonkeyPatch, cuda_build: str | None) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", cuda_build)
    monkeypatch.setattr(torch.version, "hip", None, raising=False)


def test_cpu_torch_beside_an_nvidia_driver_names_the_cuda_wheel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    no_gpu(monkeypatch, None)
    monkeypatch.setattr(system, "nvidia_driver", lambda: "550.54.14")
    (line,) = [c for c in system.accelerator_check(Context()) if c.name == "cuda"]
    assert line.status == "fail" and "CPU-only build" in line.detail
    assert line.fix == (
        "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu126"
    )
    # no driver and no NVIDIA device on the bus: a CPU machine is fine as it is
    monkeypatch.setattr(system, "nvidia_driver", lambda: None)
    monkeypatch.setattr(system, "pci_gpus", lambda: {})
    (line,) = [c for c in system.accelerator_check(Context()) if c.name == "cuda"]
    assert line.status == "ok" and line.fix == ""


def test_cuda_build_without_a_usable_gpu_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    no_gpu(monkeypatch, "12.6")
    monkeypatch.setattr(system, "nvidia_driver", lambda: "550.54.14")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    (line,) = system.accelerator_check(Context())
    assert line.status == "fail" and "hides every device" in line.detail
    assert line.fix == "unset CUDA_VISIBLE_DEVICES"

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")

    def too_old() -> None:
        raise RuntimeError("The NVIDIA driver on your system is too old (found version 11040)")

    monkeypatch.setattr(torch.cuda, "init", too_old)
    (line,) = system.accelerator_check(Context())
    assert line.status == "fail" and "driver on your system is too old" in line.detail
    assert "update the driver" in line.fix and "whl/cu118" in line.fix

    monkeypatch.setattr(system, "nvidia_driver", lambda: None)
    monkeypatch.setattr(system, "pci_gpus", lambda: {system.NVIDIA: 1})
    (line,) = system.accelerator_check(Context())
    assert line.status == "fail" and "no NVIDIA driver is loaded" in line.detail
    assert "install the NVIDIA driver" in line.fix


def fake_gpus(
    monkeypatch: pytest.MonkeyPatch, gpus: list[tuple[str, int, int, int]], arch: list[str]
) -> None:
    """CUDA with these (name, GiB, major, minor) devices and torch kernels for `arch`."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: len(gpus))
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    props = [SimpleNamespace(name=n, total_memory=g * GIB, major=a, minor=b) for n, g, a, b in gpus]
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props[i])
    monkeypatch.setattr(torch.cuda, "get_arch_list", lambda: arch)


def test_gpus_count_memory_capability_and_bf16(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gpus = [("NVIDIA A100", 80, 8, 0), ("Tesla T4", 16, 7, 5), ("GTX 1080", 8, 6, 1)]
    fake_gpus(monkeypatch, gpus, ["sm_70", "sm_75", "sm_80", "sm_90"])
    (acc,) = system.accelerator_check(Context())
    assert acc.status == "ok" and acc.detail == "CUDA 12.6, 3 GPUs"
    a100, t4, pascal = system.gpu_checks(Context())
    assert a100.status == "ok" and a100.detail == (
        "NVIDIA A100, 80.0 GiB, compute capability 8.0, bf16 yes"
    )
    assert t4.status == "ok" and "bf16 no (precision auto trains in fp16)" in t4.detail
    assert pascal.status == "fail" and "no kernels for sm_61" in pascal.detail
    assert "whl/cu118" in pascal.fix
    # a config asking for bf16 on a GPU without it
    ctx = domain(tmp_path, "train: {precision: bf16}")
    t4 = system.gpu_checks(ctx)[1]
    assert t4.status == "fail" and t4.fix == "set train.precision: auto (fp16 on this GPU) or fp32"


def test_arch_support_follows_cubin_and_ptx_compatibility() -> None:
    assert system.arch_supported((8, 6), ["sm_80"])  # same major, older minor: binary compatible
    assert not system.arch_supported((8, 0), ["sm_86"])
    assert system.arch_supported((9, 0), ["sm_80", "compute_80"])  # PTX JIT-compiles forward
    assert not system.arch_supported((6, 1), ["sm_70", "sm_75", "compute_75"])


def test_nccl_missing_beside_cuda_gpus_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_gpus(monkeypatch, [("NVIDIA A100", 80, 8, 0)], ["sm_80"])
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: False)
    nccl = by_name(system.collectives_check(Context()), "nccl")
    assert nccl.status == "warn" and "fall back to gloo" in nccl.detail
    assert nccl.fix.endswith("--index-url https://download.pytorch.org/whl/cu126")


# --------------------------------------------------------------------------- disk, memory
def test_low_disk_and_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(100 * GIB, 99 * GIB, GIB))
    (disk,) = system.disk_check(Context(home=tmp_path / "runs" / "not-yet"))
    assert disk.status == "fail" and disk.detail.startswith(f"1.0 GiB free under {tmp_path}")
    assert disk.fix.endswith("export JUPITER_HOME=/path/with/space")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(100 * GIB, 90 * GIB, 10 * GIB))
    assert system.disk_check(Context(home=tmp_path))[0].status == "warn"
    monkeypatch.setattr(system, "available_memory_gb", lambda: 1.5)
    (mem,) = system.memory_check(Context())
    assert mem.status == "warn" and mem.detail == "1.5 GiB available" and "qlora" in mem.fix


# ------------------------------------------------------------------------------- packages
class Refuse(importlib.abc.MetaPathFinder):
    """An import finder that makes these modules look uninstalled."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None


@pytest.fixture
def missing(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    names: set[str] = set()
    finder = Refuse(names)
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    yield names


def test_missing_packages_warn_or_fail_with_the_pip_line(
    missing: set[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing |= {"bitsandbytes", "flwr", "lm_eval", "flash_attn"}
    for name in missing:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    checks = package_checks(Context())
    flwr = by_name(checks, "flwr")
    assert flwr.status == "warn" and flwr.fix == 'pip install "jupiter[federated]"'
    assert "federated training" in flwr.detail
    assert by_name(checks, "lm-eval").fix == "pip install lm-eval"
    # a CUDA-only package on a machine without CUDA is only noted
    flash = by_name(checks, "flash-attn")
    assert flash.status == "ok" and "of use on a CUDA GPU" in flash.detail
    bnb = by_name(checks, "bitsandbytes")
    assert bnb.status == "ok" and bnb.detail.startswith("not installed")
    assert by_name(checks, "peft").status == "ok" and by_name(checks, "peft").detail[0].isdigit()
    # the domain asks for QLoRA: now it fails
    ctx = domain(tmp_path, "model: {base: base}\ntrain: {method: qlora}")
    bnb = by_name(package_checks(ctx), "bitsandbytes")
    assert bnb.status == "fail" and "train.method: qlora" in bnb.detail
    assert bnb.fix == 'pip install "jupiter[qlora]"'


# ------------------------------------------------------------------------------ servers
def llm_yaml(url: str, model: str = "teacher") -> str:
    return f"generator: {{type: llm, llm: {{base_url: '{url}', model: {model}}}}}\n"


def test_unreachable_server_names_how_to_start_it(tmp_path: Path) -> None:
    port = closed_port()
    ctx = domain(tmp_path, llm_yaml(f"http://127.0.0.1:{port}/v1"))
    (line,) = server_checks(ctx)
    assert line.status == "fail" and line.name == f"generator.llm (http://127.0.0.1:{port}/v1)"
    assert "connection refused" in line.detail
    assert line.fix == (
        f"start the server at http://127.0.0.1:{port}/v1 (a Jupiter model: "
        f"`jupiter serve --model DIR --port {port}`), or set generator.llm."
        "base_url to where it runs"
    )


def test_reachable_server_and_its_models(tmp_path: Path) -> None:
    with FakeLLM(model="teacher") as llm:
        (up,) = server_checks(domain(tmp_path, llm_yaml(llm.base_url)))
        assert up.status == "ok" and "'teacher' served" in up.detail and llm.gets == 1
        judge = "filters: {judge: {enabled: true, llm: {base_url: '%s', model: other}}}\n"
        ctx = domain(tmp_path, llm_yaml(llm.base_url) + judge % llm.base_url)
        gen, wrong = server_checks(ctx)
    assert gen.status == "ok"
    assert wrong.status == "fail" and "does not serve 'other' (it serves: teacher)" in wrong.detail
    assert wrong.fix == "set filters.judge.llm.model to one it serves"


class OllamaTags(BaseHTTPRequestHandler):
    """Ollama's native API only: /api/tags lists the pulled models."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        ok = self.path == "/api/tags"
        body = json.dumps({"models": [{"name": "llama3.1:latest"}]} if ok else {}).encode()
        self.send_response(200 if ok else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_ollama_tags_and_a_model_to_pull(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OllamaTags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        (good,) = server_checks(domain(tmp_path, llm_yaml(url, "llama3.1")))
        (bad,) = server_checks(domain(tmp_path, llm_yaml(url, "qwen3:8b")))
    finally:
        server.shutdown()
        server.server_close()
    assert good.status == "ok"
    assert bad.status == "fail" and bad.fix.startswith("`ollama pull qwen3:8b`, or set")


def test_api_key_variable_not_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCTOR_TEST_KEY", raising=False)
    extra = (
        "generator: {type: llm, llm: {base_url: 'http://127.0.0.1:1/v1', model: m, "
        "api_key_env: DOCTOR_TEST_KEY}}\n"
    )
    (line,) = server_checks(domain(tmp_path, extra))
    assert line.status == "fail" and line.fix == "export DOCTOR_TEST_KEY=<the server's key>"


# ------------------------------------------------------------------------ cache, models
def test_hub_model_missing_then_found_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    ctx = domain(tmp_path, "model: {base: acme/tiny-llama}\ntrain: {method: lora}")
    (cache,) = hf_cache_check(ctx)
    assert cache.status == "ok" and "empty" in cache.detail
    (base,) = model_checks(ctx)
    assert base.status == "fail" and base.name == "model.base"
    assert base.fix == "hf download acme/tiny-llama"
    # the Hub cache's layout: refs/main names the snapshot folder
    repo = tmp_path / "hf" / "hub" / "models--acme--tiny-llama"
    commit = "0123456789abcdef0123456789abcdef01234567"
    save_tiny("llama", repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    (cache,) = hf_cache_check(ctx)
    assert cache.detail.endswith("1 models, 0 datasets")
    (base,) = model_checks(ctx)
    assert base.status == "ok" and base.detail.startswith("acme/tiny-llama: hub at ")


# ------------------------------------------------------------------------------ cluster
def test_bad_cluster_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  - {host: localhost, name: a, memory_gb: 8, colour: blue}\n")
    (line,) = cluster_checks(Context(cluster_file=str(bad)))
    assert line.status == "fail" and line.name == "cluster file" and "colour" in line.detail
    assert line.fix.startswith(f"fix {bad}")
    nopy = tmp_path / "nopy.yaml"
    nopy.write_text(
        "nodes:\n  - {host: localhost, name: a, memory_gb: 0.01, python: /no/such/python}\n"
    )
    (node,) = cluster_checks(Context(cluster_file=str(nopy), timeout=5))
    assert node.status == "fail" and node.name == "node a (localhost)"
    assert node.detail == "python /no/such/python not found there"
    assert node.fix.startswith("set python: in cluster.yaml to the absolute path")
    assert cluster_checks(Context()) == []  # no --cluster-file: no node probed


def test_split_fix_of_cluster_messages() -> None:
    msg = (
        "node s1 (10.0.0.2): SSH failed (Connection refused): check that sshd runs there and "
        "that `ssh 10.0.0.2` works without a password (ssh-copy-id)"
    )
    assert split_fix(msg) == (
        "SSH failed (Connection refused)",
        "check that sshd runs there and that `ssh 10.0.0.2` works without a password (ssh-copy-id)",
    )
    mem = (
        "node a: 3.0 GiB of memory free, below memory_gb: 16 in cluster.yaml: free memory "
        "there, or lower memory_gb (the automatic batch size trusts it)"
    )
    what, fix = split_fix(mem)
    assert what == "3.0 GiB of memory free, below memory_gb: 16 in cluster.yaml"
    assert fix.startswith("free memory there")


# ------------------------------------------------------------------------------ the command
def test_a_check_that_raises_is_a_failed_line() -> None:
    def broken_check(ctx: Context) -> list[Check]:
        raise OSError("boom")

    (line,) = run_checks(Context(), (broken_check,))
    assert line.status == "fail" and line.name == "broken" and "OSError: boom" in line.detail
    assert report_json([line])["ok"] is False


def test_cli_json_and_lines_exit_1_on_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = closed_port()
    yaml_path = tmp_path / "srv.yaml"
    yaml_path.write_text(
        "name: srv\nsources: [{type: python_stdlib, modules: [json]}]\n"
        + llm_yaml(f"http://127.0.0.1:{port}/v1")
    )
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    assert _main(monkeypatch, "doctor", "--domain", str(yaml_path), "--json") == 1
    out = capsys.readouterr().out
    doc = json.loads(out)  # the whole of stdout is one JSON document
    assert doc["ok"] is False and doc["counts"]["fail"] >= 1
    names = [c["name"] for c in doc["checks"]]
    assert names[:2] == ["python", "torch"] and "disk" in names and "memory" in names
    server = [c for c in doc["checks"] if c["group"] == "servers"]
    assert (
        len(server) == 1 and server[0]["status"] == "fail" and "jupiter serve" in server[0]["fix"]
    )
    assert all(c["fix"] for c in doc["checks"] if c["status"] != "ok")
    assert _main(monkeypatch, "doctor", "--domain", str(yaml_path)) == 1
    lines = capsys.readouterr().out.splitlines()
    fails = [ln for ln in lines if ln.startswith("fail")]
    assert fails and all("→ fix: " in ln for ln in fails)
    assert lines[-1].endswith(f"{doc['counts']['fail']} fail")
