"""This machine: Python, torch, the accelerator torch can use (CUDA, ROCm, MPS), MLX, each
GPU, the collective backends, free disk under JUPITER_HOME and free memory.

The accelerator check says why a GPU that is there goes unused: a CPU-only torch wheel
beside an NVIDIA driver, a GPU on the PCI bus with no driver loaded, CUDA_VISIBLE_DEVICES
hiding every device, or a torch build without kernels for the GPU's architecture.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

from jupiter.doctor.result import Check, Context, fail, ok, warn

MIN_PYTHON = (3, 10)  # pyproject.toml's requires-python
MIN_TORCH = (2, 3)  # pyproject.toml's torch>=2.3
# the wheel index of a current CUDA build of torch (pytorch.org's install selector)
CUDA_WHEELS = "https://download.pytorch.org/whl/cu126"
ROCM_WHEELS = "https://download.pytorch.org/whl/rocm6.3"
# a 1B-parameter full fine-tune writes about 12 GiB a checkpoint (fp32 weights + Adam's two
# moments); keep_checkpoints keeps 2 plus the best: under 20 GiB a run soon stops
WARN_DISK_GB, FAIL_DISK_GB = 20.0, 2.0
WARN_RAM_GB = 4.0  # below this, even the tiny preset's data loading and a 270M model crowd
NVIDIA, AMD = "0x10de", "0x1002"  # PCI vendor ids
PCI = Path("/sys/bus/pci/devices")
GIB = 1024.0**3


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("+")[0].split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def python_check(ctx: Context) -> list[Check]:
    ver = ".".join(map(str, sys.version_info[:3]))
    where = f"{ver} ({sys.executable})"
    if sys.version_info[:2] < MIN_PYTHON:
        need = ".".join(map(str, MIN_PYTHON))
        return [
            fail(
                "system",
                "python",
                where,
                f"use Python {need} or newer: "
                f"python{need} -m venv .venv && .venv/bin/pip install jupiter",
            )
        ]
    return [ok("system", "python", where)]


def torch_check(ctx: Context) -> list[Check]:
    if importlib.util.find_spec("torch") is None:
        return [fail("system", "torch", "not installed", "pip install torch")]
    import torch

    ver = str(torch.__version__)
    if _version_tuple(ver) < MIN_TORCH:
        need = ".".join(map(str, MIN_TORCH))
        return [
            fail(
                "system",
                "torch",
                f"{ver} is older than {need}",
                f'pip install --upgrade "torch>={need}"',
            )
        ]
    cuda, hip = torch.version.cuda, getattr(torch.version, "hip", None)
    build = f"CUDA {cuda}" if cuda else f"ROCm {hip}" if hip else "CPU-only"
    return [ok("system", "torch", f"{ver} ({build} build)")]


# ----------------------------------------------------------------------------- accelerators
def nvidia_driver() -> str | None:
    """The loaded NVIDIA kernel driver's version (Linux), "present" when only nvidia-smi is
    found, else None."""
    proc = Path("/proc/driver/nvidia/version")
    if proc.is_file():
        words = proc.read_text(errors="replace").split()
        found = [w for w in words if w.count(".") >= 1 and w.replace(".", "").isdigit()]
        return found[0] if found else "loaded"
    return "present" if shutil.which("nvidia-smi") else None


def pci_gpus() -> dict[str, int]:
    """Display controllers on the PCI bus by vendor id (Linux; {} elsewhere)."""
    out: dict[str, int] = {}
    if not PCI.is_dir():
        return out
    for dev in PCI.iterdir():
        try:
            cls = (dev / "class").read_text().strip()
            vendor = (dev / "vendor").read_text().strip()
        except OSError:
            continue
        if cls.startswith("0x03"):  # PCI class 03: display controller
            out[vendor] = out.get(vendor, 0) + 1
    return out


def _cuda_init_error() -> str:
    """Why CUDA did not come up, in torch's own words (first line)."""
    import torch

    try:
        torch.cuda.init()
    except Exception as e:  # noqa: BLE001 - whatever torch says is the diagnosis
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    return "torch.cuda.is_available() is False"


def _gpu_build_unusable(torch: Any) -> Check:
    """A CUDA or ROCm build of torch that sees no GPU: say why."""
    name = "cuda" if torch.version.cuda else "rocm"
    build = (
        f"torch {torch.__version__} (CUDA {torch.version.cuda})"
        if torch.version.cuda
        else (f"torch {torch.__version__} (ROCm {torch.version.hip})")
    )
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return fail(
            "system",
            name,
            f"{build} sees no GPU: CUDA_VISIBLE_DEVICES={visible!r} hides every device",
            "unset CUDA_VISIBLE_DEVICES",
        )
    driver, gpus = nvidia_driver(), pci_gpus()
    if torch.version.cuda and driver is None and gpus.get(NVIDIA):
        return fail(
            "system",
            name,
            "an NVIDIA GPU is on the PCI bus but no NVIDIA driver is loaded",
            "install the NVIDIA driver (afterwards `nvidia-smi` lists the GPU)",
        )
    if torch.version.cuda and driver is not None:
        return fail(
            "system",
            name,
            f"NVIDIA driver {driver} is loaded but {build} cannot use it: {_cuda_init_error()}",
            "update the driver, or install a torch built "
            "for an older CUDA: pip install --force-reinstall torch --index-url "
            "https://download.pytorch.org/whl/cu118",
        )
    return ok("system", name, f"no GPU on this machine: {build} runs on the CPU")


def _cpu_build(torch: Any) -> Check:
    """A CPU-only torch: fine, unless a GPU sits unused beside it."""
    build = f"torch {torch.__version__} is a CPU-only build"
    if nvidia_driver() is not None or pci_gpus().get(NVIDIA):
        return fail(
            "system",
            "cuda",
            f"an NVIDIA GPU is here but {build}: training runs on the CPU",
            f"pip install --force-reinstall torch --index-url {CUDA_WHEELS}",
        )
    if pci_gpus().get(AMD) and sys.platform == "linux":
        return warn(
            "system",
            "rocm",
            f"an AMD GPU is here but {build}",
            f"pip install --force-reinstall torch --index-url {ROCM_WHEELS}",
        )
    return ok("system", "cuda", "no GPU found: torch runs on the CPU")


def accelerator_check(ctx: Context) -> list[Check]:
    """CUDA or ROCm (with the reason a GPU goes unused), and MPS on a Mac."""
    if importlib.util.find_spec("torch") is None:
        return []
    import torch

    out: list[Check] = []
    hip = getattr(torch.version, "hip", None)
    if torch.cuda.is_available():
        n = torch.cuda.device_count()
        what = f"ROCm {hip}" if hip else f"CUDA {torch.version.cuda}"
        out.append(ok("system", "rocm" if hip else "cuda", f"{what}, {n} GPU{'s' * (n != 1)}"))
    elif torch.version.cuda or hip:
        out.append(_gpu_build_unusable(torch))
    else:
        out.append(_cpu_build(torch))
    if sys.platform == "darwin":
        mps = torch.backends.mps
        if mps.is_available():
            out.append(ok("system", "mps", f"Apple GPU ({platform.machine()})"))
        elif mps.is_built():
            out.append(
                warn(
                    "system",
                    "mps",
                    "torch has MPS but macOS does not offer it here",
                    "update macOS to 12.3 or newer on an Apple-silicon Mac",
                )
            )
    return out


def mlx_check(ctx: Context) -> list[Check]:
    """MLX: the engine of Mac nodes (mlx[cpu] runs the same code on Linux)."""
    apple = sys.platform == "darwin" and platform.machine() == "arm64"
    try:
        ver = importlib.metadata.version("mlx")
    except importlib.metadata.PackageNotFoundError:
        if apple:
            return [
                warn(
                    "system",
                    "mlx",
                    "not installed: training and generation on this Mac's GPU need it",
                    'pip install "jupiter[mlx]"',
                )
            ]
        return [ok("system", "mlx", "not installed (the engine of Apple-silicon Macs)")]
    if not apple:
        return [ok("system", "mlx", f"{ver} (CPU: Metal is on Apple silicon only)")]
    import mlx.core as mx

    if not mx.metal.is_available():
        return [
            warn(
                "system",
                "mlx",
                f"{ver} but Metal is not available",
                "run on macOS 14 or newer, natively (not under Rosetta)",
            )
        ]
    return [ok("system", "mlx", f"{ver} (Metal)")]


# ------------------------------------------------------------------------------------ GPUs
def arch_supported(cap: tuple[int, int], arch_list: list[str]) -> bool:
    """torch's kernels run on a GPU of compute capability `cap`: a cubin of the same major
    and no newer minor (binary compatible), or PTX of an older or equal capability (JIT)."""
    if not arch_list:  # a build that does not say: trust it
        return True
    for arch in arch_list:
        kind, _, num = arch.partition("_")
        if not num.isdigit():
            continue
        major, minor = int(num[:-1]), int(num[-1])
        if kind == "sm" and major == cap[0] and minor <= cap[1]:
            return True
        if kind == "compute" and (major, minor) <= cap:
            return True
    return False


def _gpu_line(ctx: Context, i: int, torch: Any) -> Check:
    props = torch.cuda.get_device_properties(i)
    cap = (int(props.major), int(props.minor))
    mem = props.total_memory / GIB
    hip = getattr(torch.version, "hip", None)
    bf16 = bool(torch.cuda.is_bf16_supported()) if hip else cap >= (8, 0)
    name = f"gpu {i}"
    detail = f"{props.name}, {mem:.1f} GiB, compute capability {cap[0]}.{cap[1]}, bf16 " + (
        "yes" if bf16 else "no (precision auto trains in fp16)"
    )
    if not hip and not arch_supported(cap, list(torch.cuda.get_arch_list())):
        return fail(
            "gpu",
            name,
            f"{detail}; torch {torch.__version__} has no kernels for sm_{cap[0]}{cap[1]}",
            "install a torch built for this GPU: pip install "
            "--force-reinstall torch --index-url https://download.pytorch.org/whl/cu118",
        )
    if not bf16 and ctx.cfg is not None and ctx.cfg.train.precision == "bf16":
        return fail(
            "gpu",
            name,
            f"{detail}; train.precision is bf16",
            "set train.precision: auto (fp16 on this GPU) or fp32",
        )
    return ok("gpu", name, detail)


def gpu_checks(ctx: Context) -> list[Check]:
    """Every CUDA/ROCm device: name, memory, compute capability, bf16."""
    if importlib.util.find_spec("torch") is None:
        return []
    import torch

    if not torch.cuda.is_available():
        return []
    return [_gpu_line(ctx, i, torch) for i in range(torch.cuda.device_count())]


def collectives_check(ctx: Context) -> list[Check]:
    """gloo (CPU ranks, and the fallback) and NCCL (GPU ranks) for --nproc and --cluster."""
    if importlib.util.find_spec("torch") is None:
        return []
    import torch
    import torch.distributed as dist

    if not dist.is_available():
        return [
            warn(
                "system",
                "torch.distributed",
                "this torch has no torch.distributed: --nproc and --cluster cannot train",
                "pip install --force-reinstall torch",
            )
        ]
    out = [
        ok("system", "gloo", "available (CPU ranks)")
        if dist.is_gloo_available()
        else warn(
            "system",
            "gloo",
            "not in this torch build: CPU ranks cannot sync",
            "pip install --force-reinstall torch",
        )
    ]
    cuda = torch.cuda.is_available() and not getattr(torch.version, "hip", None)
    if dist.is_nccl_available():
        ver = ".".join(map(str, torch.cuda.nccl.version())) if cuda else ""
        out.append(ok("system", "nccl", f"available{' (' + ver + ')' if ver else ''}"))
    elif cuda:
        out.append(
            warn(
                "system",
                "nccl",
                "not in this torch build: GPU ranks fall back to gloo (much slower all-reduce)",
                f"pip install --force-reinstall torch --index-url {CUDA_WHEELS}",
            )
        )
    else:
        out.append(ok("system", "nccl", "not needed here (no CUDA GPU)"))
    return out


# ---------------------------------------------------------------------------- disk, memory
def _existing(path: Path) -> Path:
    path = path.expanduser().absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def disk_check(ctx: Context) -> list[Check]:
    where = _existing(ctx.home)
    free = shutil.disk_usage(where).free / GIB
    detail = f"{free:.1f} GiB free under {where} (JUPITER_HOME)"
    fix = (
        f"free space on {where}'s disk, or point runs at a disk with room: "
        "export JUPITER_HOME=/path/with/space"
    )
    if free < FAIL_DISK_GB:
        return [fail("system", "disk", detail, fix)]
    if free < WARN_DISK_GB:
        return [warn("system", "disk", detail + f" (checkpoints want {WARN_DISK_GB:g}+)", fix)]
    return [ok("system", "disk", detail)]


def available_memory_gb() -> float | None:
    """Memory available to a new process: MemAvailable on Linux, free pages elsewhere."""
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 / GIB
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") / GIB
    except (ValueError, OSError, AttributeError):
        return None


def memory_check(ctx: Context) -> list[Check]:
    free = available_memory_gb()
    if free is None:
        return [ok("system", "memory", "free memory unknown on this system")]
    detail = f"{free:.1f} GiB available"
    if free < WARN_RAM_GB:
        return [
            warn(
                "system",
                "memory",
                detail,
                "close other programs, or train smaller: "
                "train.method: qlora, a smaller model.preset or model.context_length",
            )
        ]
    return [ok("system", "memory", detail)]
