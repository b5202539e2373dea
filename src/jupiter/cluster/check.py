"""`jupiter cluster check`: is every node of cluster.yaml ready to train?

One probe per node, in parallel: `<python> -c PROBE` on the node (through ssh unless it is
localhost) prints one JSON line of facts (Python, Jupiter, device, free memory), then
answers a time request, so the clock skew is measured over one network round trip rather
than over the ssh login and the imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from jupiter import __version__
from jupiter.cluster.ssh import node_argv, node_python, ssh_command_line, ssh_target
from jupiter.config import ClusterConfig, Node, load_cluster

# the outer sync's round deadlines compare wall clocks across machines
MAX_SKEW_S = 2.0
FACTS, TIME = "JUPITER-PROBE ", "JUPITER-TIME "

# Runs on the node's Python, whatever its version: old syntax only, and neither single
# quotes nor backslashes, so it survives any login shell's quoting (fish included).
PROBE = """
import json, os, subprocess, sys, time
GIB = 1024.0 ** 3
device_type, engine = sys.argv[1], sys.argv[2]
out = {"python": "%d.%d.%d" % tuple(sys.version_info[:3]), "executable": sys.executable,
       "cpus": os.cpu_count(), "platform": sys.platform}
def error(e):
    return "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
try:
    import jupiter
    out["jupiter"] = jupiter.__version__
except Exception as e:
    out["jupiter_error"] = error(e)
def ram_free_gb():
    if os.path.exists("/proc/meminfo"):
        for line in open("/proc/meminfo"):
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 / GIB
    text = subprocess.check_output(["vm_stat"]).decode()
    page = int(text.split("page size of ")[1].split()[0])
    pages = {}
    for line in text.splitlines()[1:]:
        key, _, value = line.partition(":")
        if value.strip().rstrip(".").isdigit():
            pages[key.strip()] = int(value.strip().rstrip("."))
    return (pages.get("Pages free", 0) + pages.get("Pages inactive", 0)) * page / GIB
try:
    out["ram_free_gb"] = ram_free_gb()
except Exception as e:
    out["ram_error"] = error(e)
if device_type == "nvidia":
    try:
        import torch
        n = torch.cuda.device_count()
        out["cuda"] = {"count": n, "version": torch.version.cuda,
                       "names": [torch.cuda.get_device_name(i) for i in range(n)]}
        if n:
            out["gpu_free_gb"] = min(torch.cuda.mem_get_info(i)[0] for i in range(n)) / GIB
    except Exception as e:
        out["torch_error"] = error(e)
if device_type == "mac" or engine == "mlx":
    try:
        import mlx.core as mx
        out["mlx"] = {"version": mx.__version__, "metal": bool(mx.metal.is_available())}
        info = mx.device_info() if hasattr(mx, "device_info") else mx.metal.device_info()
        out["mlx"]["device"] = str(info.get("device_name", ""))
        out["mlx"]["memory_gb"] = info.get("memory_size", 0) / GIB
    except Exception as e:
        out["mlx_error"] = error(e)
print("JUPITER-PROBE " + json.dumps(out))
sys.stdout.flush()
sys.stdin.readline()
print("JUPITER-TIME " + repr(time.time()))
sys.stdout.flush()
"""


@dataclass
class NodeReport:
    """What the probe found on one node; `problems` stop a run, `warnings` do not."""

    name: str
    host: str
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    python: str = ""
    jupiter: str = ""
    device: str = ""
    free_gb: float | None = None
    skew_s: float | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Probe:
    facts: dict[str, Any] | None
    skew_s: float | None
    returncode: int | None
    stderr: str
    timed_out: bool


def _read_marked(stream: IO[str], marker: str) -> str | None:
    """The first line starting with `marker` (login banners may print before it)."""
    for line in stream:
        if line.startswith(marker):
            return line[len(marker) :].strip()
    return None


def _ask_time(proc: subprocess.Popen[str]) -> float | None:
    """Remote clock minus the local midpoint of one request/answer round trip."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        t0 = time.time()
        proc.stdin.write("\n")
        proc.stdin.flush()
        answer = _read_marked(proc.stdout, TIME)
        t1 = time.time()
        return None if answer is None else float(answer) - (t0 + t1) / 2
    except (OSError, ValueError):  # the node hung up, or garbled its answer
        return None


def run_probe(node: Node, cluster: ClusterConfig, timeout: float) -> Probe:
    """Run PROBE on the node; the whole exchange is killed after 3x `timeout` (the ssh
    connect gets `timeout`; importing torch and starting CUDA may take a while)."""
    argv = [node_python(node), "-c", PROBE, node.device_type, cluster.engine_of(node)]
    argv = node_argv(node, cluster, argv, connect_timeout=timeout)
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: chatty stderr cannot block
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True
            )
        except FileNotFoundError:
            return Probe(None, None, 127, f"{argv[0]}: No such file or directory", False)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(3 * timeout, kill)
        timer.start()
        try:
            assert proc.stdout is not None and proc.stdin is not None
            raw = _read_marked(proc.stdout, FACTS)
            skew = _ask_time(proc) if raw is not None else None
            try:
                proc.stdin.close()
            except OSError:
                pass
            proc.stdout.read()
            code = proc.wait()
        finally:
            timer.cancel()
        err.seek(0)
        stderr = err.read().decode("utf-8", errors="replace")
    try:
        facts = json.loads(raw) if raw is not None else None
    except ValueError:
        facts, stderr = None, f"{stderr}\nunreadable probe answer: {raw}"
    return Probe(facts, skew, code, stderr, killed.is_set())


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


def _ssh_problem(node: Node, cluster: ClusterConfig, stderr: str) -> str:
    reason = _last_line(stderr).removeprefix("ssh: ").rstrip(".")
    # "connect to host H port P: Connection refused", "user@H: Permission denied (publickey)"
    if reason.startswith(("connect to host ", f"{ssh_target(node)}: ", f"{node.host}: ")):
        reason = reason.split(": ", 1)[-1]
    manual = f"`{ssh_command_line(node, cluster)}`"
    if "Could not resolve hostname" in reason:
        fix = f"check host: in cluster.yaml, and that {manual} works from this machine"
    elif "Host key verification failed" in reason:
        fix = f"connect once with {manual} to accept its host key"
    elif "Permission denied" in reason:
        fix = f"install your key there (ssh-copy-id) so that {manual} works without a password"
    else:
        fix = f"check that sshd runs there and that {manual} works without a password (ssh-copy-id)"
    return f"node {node.name} ({node.host}): SSH failed ({reason}): {fix}"


def _probe_problem(node: Node, cluster: ClusterConfig, probe: Probe, timeout: float) -> str:
    """Why the probe printed no facts, and what to do."""
    py = node_python(node)
    if probe.timed_out:
        where = f"through `{ssh_command_line(node, cluster)}`" if not node.is_local else "here"
        return (
            f"node {node.name} ({node.host}): no answer within {3 * timeout:g} s: check that "
            f"`{py} -c pass` returns at once {where}"
        )
    if not node.is_local and probe.returncode == 255:
        return _ssh_problem(node, cluster, probe.stderr)
    if probe.returncode == 127 or "No such file" in probe.stderr or "not found" in probe.stderr:
        return (
            f"node {node.name}: python {py} not found there: set python: in cluster.yaml to "
            "the absolute path of an interpreter with Jupiter installed"
        )
    return (
        f"node {node.name}: {py} failed ({_last_line(probe.stderr)}): set python: in "
        f"cluster.yaml to a working Python {_here()} with Jupiter installed"
    )


def _here() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def _software(report: NodeReport, node: Node, facts: dict[str, Any]) -> None:
    """Python major.minor and Jupiter's version must match this machine's."""
    report.python = str(facts.get("python", ""))
    there = ".".join(report.python.split(".")[:2])
    if there != _here():
        report.problems.append(
            f"node {node.name}: {node_python(node)} is Python {there}, this machine runs "
            f"{_here()}: set python: in cluster.yaml to a {_here()} interpreter with Jupiter "
            "installed"
        )
        return  # Jupiter's absence there would be the same problem, with the same fix
    exe, error = facts.get("executable") or node_python(node), facts.get("jupiter_error")
    report.jupiter = str(facts.get("jupiter", ""))
    if error and str(error).startswith("ModuleNotFoundError"):
        report.problems.append(
            f"node {node.name}: Jupiter is not installed for {exe}: pip install it there, or "
            "point python: at the environment that has it"
        )
    elif error:
        report.problems.append(
            f"node {node.name}: importing Jupiter failed for {exe} ({error}): reinstall it "
            "there (pip install -e . in the checkout)"
        )
    elif report.jupiter != __version__:
        report.problems.append(
            f"node {node.name}: Jupiter {report.jupiter} is installed for {exe}, this machine "
            f"runs {__version__}: install the same version there (every node runs the same code)"
        )


def _nvidia(report: NodeReport, node: Node, facts: dict[str, Any]) -> None:
    exe = facts.get("executable") or node_python(node)
    if "torch_error" in facts:
        report.problems.append(
            f"node {node.name}: device_type nvidia but torch does not import for {exe} "
            f"({facts['torch_error']}): install a CUDA build of torch there"
        )
        return
    cuda = facts.get("cuda") or {}
    count, names = int(cuda.get("count", 0)), list(cuda.get("names", []))
    if count == 0:
        report.problems.append(
            f"node {node.name}: device_type nvidia but torch sees no CUDA device (torch's CUDA "
            f"version: {cuda.get('version')}): check `nvidia-smi` there and install a CUDA "
            "build of torch, or set device_type: cpu"
        )
        return
    kinds = sorted(set(names))
    report.device = f"{count}x {', '.join(kinds)} (CUDA {cuda.get('version')})"
    report.free_gb = facts.get("gpu_free_gb")


def _mlx(report: NodeReport, node: Node, facts: dict[str, Any]) -> None:
    """On a Mac: MLX with Metal; on another node training with mlx: MLX importable."""
    exe = facts.get("executable") or node_python(node)
    if "mlx_error" in facts:
        report.problems.append(
            f"node {node.name}: the node trains with mlx but mlx does not import for {exe} "
            f"({facts['mlx_error']}): pip install 'jupiter[mlx]' there"
        )
        return
    mlx = facts.get("mlx") or {}
    if node.device_type != "mac":
        report.device = report.device or f"{facts.get('cpus')} CPUs, mlx {mlx.get('version')}"
        return
    if not mlx.get("metal"):
        report.problems.append(
            f"node {node.name}: device_type mac but MLX sees no Metal GPU "
            "(mx.metal.is_available() is False): use an Apple Silicon Mac with macOS 13.5 or "
            "later, or set device_type: cpu"
        )
        return
    report.device = f"{mlx.get('device') or 'Apple GPU'} (Metal, {mlx.get('memory_gb', 0):.0f} GiB)"


def _device(report: NodeReport, node: Node, cluster: ClusterConfig, facts: dict[str, Any]) -> None:
    report.free_gb = facts.get("ram_free_gb")
    if node.device_type == "nvidia":
        _nvidia(report, node, facts)
    if node.device_type == "mac" or cluster.engine_of(node) == "mlx":
        _mlx(report, node, facts)
    if not report.device:
        report.device = f"{facts.get('cpus')} CPUs"


def _memory(report: NodeReport, node: Node, facts: dict[str, Any]) -> None:
    if report.free_gb is None:
        reason = facts.get("ram_error", "no /proc/meminfo or vm_stat")
        report.warnings.append(f"node {node.name}: free memory unknown ({reason})")
        return
    if report.free_gb < node.memory_gb:
        what = "GPU memory" if node.device_type == "nvidia" and "gpu_free_gb" in facts else "memory"
        report.warnings.append(
            f"node {node.name}: {report.free_gb:.1f} GiB of {what} free, below memory_gb: "
            f"{node.memory_gb:g} in cluster.yaml: free memory there, or lower memory_gb (the "
            "automatic batch size trusts it)"
        )


def _clock(report: NodeReport, node: Node, skew: float | None) -> None:
    report.skew_s = skew
    if skew is None:
        report.warnings.append(f"node {node.name}: clock skew unknown (no time answer)")
    elif abs(skew) > MAX_SKEW_S:
        side = "ahead of" if skew > 0 else "behind"
        report.problems.append(
            f"node {node.name}: its clock is {abs(skew):.1f} s {side} this machine's (the "
            "sync deadlines compare wall clocks): turn on NTP on both (Linux: timedatectl "
            "set-ntp true; macOS: System Settings > General > Date & Time)"
        )


def check_node(node: Node, cluster: ClusterConfig, timeout: float = 10) -> NodeReport:
    """Probe one node and judge what it answered."""
    report = NodeReport(node.name, node.host)
    probe = run_probe(node, cluster, timeout)
    if probe.facts is None:
        report.problems.append(_probe_problem(node, cluster, probe, timeout))
        return report
    _software(report, node, probe.facts)
    _device(report, node, cluster, probe.facts)
    _memory(report, node, probe.facts)
    _clock(report, node, probe.skew_s)
    return report


def check_cluster(cluster: ClusterConfig, timeout: float = 10) -> list[NodeReport]:
    """Check every node at once (threads: the work is waiting on ssh), in cluster.yaml's
    order. `timeout` bounds the ssh connect; a whole probe gets three times that."""
    with ThreadPoolExecutor(max_workers=min(32, len(cluster.nodes))) as pool:
        return list(pool.map(lambda n: check_node(n, cluster, timeout), cluster.nodes))


def format_reports(reports: list[NodeReport]) -> Table:
    table = Table(title="cluster check")
    for col in ("node", "host", "status", "python", "jupiter", "device", "free GiB", "skew s"):
        table.add_column(col, justify="right" if col in ("free GiB", "skew s") else "left")
    for r in reports:
        status = "[red]FAIL[/]" if not r.ok else "[yellow]warn[/]" if r.warnings else "[green]ok[/]"
        free = "" if r.free_gb is None else f"{r.free_gb:.1f}"
        skew = "" if r.skew_s is None else f"{r.skew_s:+.3f}"
        cells = (r.name, r.host, status, r.python, r.jupiter, r.device, free, skew)
        table.add_row(*(c if c is status else escape(c) for c in cells))
    return table


def cluster_check_command(
    path: str | None, console: Console | None = None, timeout: float = 10
) -> int:
    """The body of `jupiter cluster check`: a table, then every problem and warning on its
    own line; 1 when any node fails, else 0."""
    console = console or Console()
    reports = check_cluster(load_cluster(path), timeout)
    console.print(format_reports(reports))
    for r in reports:
        for line in r.problems:
            console.print(f"[bold red]error:[/] {escape(line)}", highlight=False, soft_wrap=True)
        for line in r.warnings:
            console.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)
    failed = [r.name for r in reports if not r.ok]
    if failed:
        console.print(
            f"{len(failed)} of {len(reports)} nodes not ready: {', '.join(failed)}", markup=False
        )
        return 1
    console.print("1 node ready" if len(reports) == 1 else f"all {len(reports)} nodes ready")
    return 0
