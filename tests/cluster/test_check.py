"""`jupiter cluster check` and the ssh helpers, against real processes: this machine's
Python, fake interpreters that lie about their version or clock, a closed port, and a real
OpenSSH server on loopback (tests/support/sshd.py)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from jupiter import __version__
from jupiter.cluster.check import PROBE, check_cluster, cluster_check_command
from jupiter.cluster.ssh import node_python, run_on, ssh_argv, ssh_shim
from jupiter.config import ClusterConfig, Node
from jupiter.errors import JupiterError
from sshd import SSHServer, free_port

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"
PY = ".".join(map(str, sys.version_info[:3]))
LINUX = sys.platform == "linux"  # 127.0.0.2 is loopback there, and not "localhost" to Jupiter

needs_sshd = pytest.mark.skipif(not SSHServer.available(), reason="no OpenSSH server here")
needs_ssh = pytest.mark.skipif(
    not (LINUX and shutil.which("ssh")), reason="needs the ssh client and 127.0.0.2"
)


@pytest.fixture(scope="module")
def server() -> Iterator[SSHServer]:
    if not SSHServer.available():
        pytest.skip("no OpenSSH server here (.ci/install-sshd installs it)")
    if not LINUX:
        pytest.skip("127.0.0.2 is loopback on Linux only")
    with SSHServer() as s:
        yield s


def local(**kw: object) -> Node:
    return Node.model_validate({"host": "localhost", "name": "local", "memory_gb": 0.01, **kw})


def one(node: Node, timeout: float = 10, **cluster: object):  # noqa: ANN201
    (report,) = check_cluster(ClusterConfig.model_validate({"nodes": [node], **cluster}), timeout)
    return report


def fake_python(tmp_path: Path, name: str, prelude: str) -> Path:
    """An interpreter that runs `prelude` (no single quotes) before the `-c` script: this
    Python, made to lie about its version, its clock or its Jupiter."""
    script = tmp_path / name
    run = 'import sys; src = sys.argv.pop(1); exec(compile(src, "<string>", "exec"))'
    script.write_text(
        f'#!/bin/bash\n[ "$1" = "-c" ] || exit 2\nshift\n'
        f"exec {shlex.quote(sys.executable)} -c 'import sys; {prelude}; {run}' \"$@\"\n"
    )
    script.chmod(0o755)
    return script


# ------------------------------------------------------------------------------ localhost
def test_probe_survives_any_login_shell() -> None:
    # no single quotes or backslashes: quoted by shlex, it reads the same in sh, zsh, fish
    assert "'" not in PROBE and "\\" not in PROBE


def test_localhost_node_passes() -> None:
    report = one(local())
    assert report.ok, report.problems
    assert (report.name, report.host, report.python, report.jupiter) == (
        "local",
        "localhost",
        PY,
        __version__,
    )
    assert report.device == f"{os.cpu_count()} CPUs"
    assert report.free_gb is not None and report.free_gb > 0
    assert report.skew_s is not None and abs(report.skew_s) < 0.5
    assert report.warnings == []


def test_memory_below_memory_gb_is_a_warning() -> None:
    report = one(local(memory_gb=1e6))
    assert report.ok
    (warning,) = report.warnings
    assert re.fullmatch(
        r"node local: \d+\.\d GiB of memory free, below memory_gb: 1e\+06 in cluster.yaml: "
        r"free memory there, or lower memory_gb \(the automatic batch size trusts it\)",
        warning,
    ), warning


def test_wrong_python_version_fails(tmp_path: Path) -> None:
    old = fake_python(tmp_path, "python3.8", 'sys.version_info = (3, 8, 18, "final", 0)')
    report = one(local(name="studio1", python=str(old)))
    assert not report.ok and report.python == "3.8.18"
    assert report.problems == [
        f"node studio1: {old} is Python 3.8, this machine runs {HERE}: set python: in "
        f"cluster.yaml to a {HERE} interpreter with Jupiter installed"
    ]


def test_python_without_jupiter_fails() -> None:
    system = Path("/usr/bin/python3")
    if not system.is_file():
        pytest.skip("no /usr/bin/python3")
    probe = "import sys, importlib.util as u; print(sys.version_info[:2], u.find_spec('jupiter'))"
    answer = subprocess.run([system, "-c", probe], capture_output=True, text=True).stdout
    if answer.strip() != f"{sys.version_info[:2]} None":
        pytest.skip(f"/usr/bin/python3 is not a {HERE} without Jupiter: {answer.strip()}")
    report = one(local(name="sys", python=str(system)))
    assert report.problems == [
        f"node sys: Jupiter is not installed for {system}: pip install it there, or point "
        "python: at the environment that has it"
    ]


def test_other_jupiter_version_fails(tmp_path: Path) -> None:
    stale = fake_python(tmp_path, "stale", 'import jupiter; jupiter.__version__ = "0.0.1"')
    report = one(local(name="old", python=str(stale)))
    assert report.problems == [
        f"node old: Jupiter 0.0.1 is installed for {sys.executable}, this machine runs "
        f"{__version__}: install the same version there (every node runs the same code)"
    ]


def test_missing_interpreter_fails() -> None:
    report = one(local(name="gone", python="/nonexistent/python3"))
    assert report.problems == [
        "node gone: python /nonexistent/python3 not found there: set python: in cluster.yaml "
        "to the absolute path of an interpreter with Jupiter installed"
    ]


def test_clock_skew_above_two_seconds_fails(tmp_path: Path) -> None:
    fast = fake_python(tmp_path, "fast", "import time; t = time.time; time.time = lambda: t() + 5")
    report = one(local(name="fast", python=str(fast)))
    assert report.skew_s is not None and 4.5 < report.skew_s < 5.5
    assert report.problems == [
        "node fast: its clock is 5.0 s ahead of this machine's (the sync deadlines compare "
        "wall clocks): turn on NTP on both (Linux: timedatectl set-ntp true; macOS: System "
        "Settings > General > Date & Time)"
    ]


def test_silent_nodes_time_out_in_parallel(tmp_path: Path) -> None:
    slow = fake_python(tmp_path, "slow", "import time; time.sleep(60)")
    nodes = [local(name=f"slow{i}", python=str(slow)) for i in range(2)]
    start = time.monotonic()
    reports = check_cluster(ClusterConfig(nodes=nodes), timeout=0.5)
    assert time.monotonic() - start < 5  # one 1.5 s wait, not two
    assert [r.problems for r in reports] == [
        [
            f"node slow{i} (localhost): no answer within 1.5 s: check that `{slow} -c pass` "
            "returns at once here"
        ]
        for i in range(2)
    ]


def test_nvidia_without_cuda_fails() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        report = one(local(name="gpu", device_type="nvidia"), timeout=30)
        assert report.ok and report.device.startswith(f"{torch.cuda.device_count()}x ")
        return
    report = one(local(name="rtx1", device_type="nvidia"), timeout=30)
    assert report.problems == [
        "node rtx1: device_type nvidia but torch sees no CUDA device (torch's CUDA version: "
        f"{torch.version.cuda}): check `nvidia-smi` there and install a CUDA build of torch, "
        "or set device_type: cpu"
    ]


def test_mac_without_metal_fails() -> None:
    mx = pytest.importorskip("mlx.core")
    if mx.metal.is_available():
        pytest.skip("a Mac with Metal: nothing to fail")
    report = one(local(name="studio1", device_type="mac"), timeout=30)
    assert report.problems == [
        "node studio1: device_type mac but MLX sees no Metal GPU (mx.metal.is_available() is "
        "False): use an Apple Silicon Mac with macOS 13.5 or later, or set device_type: cpu"
    ]


def test_mlx_engine_on_cpu_node_needs_mlx(tmp_path: Path) -> None:
    mx = pytest.importorskip("mlx.core")
    report = one(local(name="cpu", backend="mlx"), timeout=30)
    assert report.ok and report.device == f"{os.cpu_count()} CPUs, mlx {mx.__version__}"
    no_mlx = fake_python(tmp_path, "nomlx", 'sys.modules["mlx"] = None')
    report = one(local(name="cpu", backend="mlx", python=str(no_mlx)), timeout=30)
    assert report.problems == [
        f"node cpu: the node trains with mlx but mlx does not import for {sys.executable} "
        "(ModuleNotFoundError: No module named 'mlx.core'; 'mlx' is not a package): pip install "
        "'jupiter[mlx]' there"
    ]


# -------------------------------------------------------------------------------- over ssh
@needs_ssh
def test_unreachable_node_fails_with_the_fix() -> None:
    port = free_port()  # nothing listens there
    report = one(Node(host="127.0.0.2", name="rtx1", ssh_user="ml", ssh_port=port), timeout=5)
    assert report.problems == [
        f"node rtx1 (127.0.0.2): SSH failed (Connection refused): check that sshd runs there "
        f"and that `ssh -p {port} ml@127.0.0.2` works without a password (ssh-copy-id)"
    ]


def remote(server: SSHServer, **kw: object) -> Node:
    base = {"host": server.alias_host, "ssh_port": server.port, "ssh_user": server.user}
    return Node.model_validate({"name": "remote", "memory_gb": 0.01, **base, **kw})


def test_node_over_ssh_passes(server: SSHServer) -> None:
    report = one(remote(server, python=sys.executable), ssh_options=server.ssh_options)
    assert report.ok, (report.problems, server.log()[-2000:])
    assert (report.host, report.python, report.jupiter) == ("127.0.0.2", PY, __version__)
    assert report.skew_s is not None and abs(report.skew_s) < 1
    assert report.free_gb is not None and report.free_gb > 0


def test_missing_interpreter_over_ssh_fails(server: SSHServer) -> None:
    report = one(remote(server, python="/nonexistent/python3"), ssh_options=server.ssh_options)
    assert report.problems == [
        "node remote: python /nonexistent/python3 not found there: set python: in "
        "cluster.yaml to the absolute path of an interpreter with Jupiter installed"
    ]


def test_refused_key_names_the_fix(server: SSHServer, tmp_path: Path) -> None:
    key = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    options = ["-i", str(key), *server.ssh_options[2:]]
    report = one(remote(server, python=sys.executable), ssh_options=options)
    manual = shlex.join(["ssh", "-p", str(server.port), *options, f"{server.user}@127.0.0.2"])
    assert report.problems == [
        f"node remote (127.0.0.2): SSH failed (Permission denied (publickey)): install your "
        f"key there (ssh-copy-id) so that `{manual}` works without a password"
    ]


def test_cli_returns_1_and_prints_each_problem(
    server: SSHServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = free_port()
    nodes = [
        {"host": "localhost", "name": "local", "memory_gb": 0.01},
        {**remote(server, python=sys.executable).model_dump(), "name": "studio1"},
        {"host": "127.0.0.2", "name": "rtx1", "ssh_port": closed, "ssh_user": "ml"},
    ]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"ssh_options": server.ssh_options, "nodes": nodes}))
    assert cluster_check_command(str(path)) == 1
    out = capsys.readouterr().out
    manual = shlex.join(["ssh", "-p", str(closed), *server.ssh_options, "ml@127.0.0.2"])
    assert (
        f"error: node rtx1 (127.0.0.2): SSH failed (Connection refused): check that sshd runs "
        f"there and that `{manual}` works without a password (ssh-copy-id)\n"
    ) in out
    assert out.count("error:") == 1
    assert out.rstrip().endswith("1 of 3 nodes not ready: rtx1")


def test_cli_passes_and_names_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"nodes": [{"host": "localhost", "memory_gb": 0.01}]}))
    assert cluster_check_command(str(path)) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 node ready")
    with pytest.raises(JupiterError, match="cluster file not found"):
        cluster_check_command(str(tmp_path / "nope.yaml"))


# ----------------------------------------------------------------------------- ssh helpers
def test_ssh_argv_quotes_the_command() -> None:
    node = Node(host="10.0.0.20", name="rtx1", ssh_user="ml", ssh_port=2222)
    cluster = ClusterConfig(ssh_options=["-J", "bastion"], nodes=[node])
    argv = ssh_argv(node, cluster, ["python3", "-c", "print('a b')"])
    assert argv == [
        "ssh",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=10",
        "-p",
        "2222",
        "-J",
        "bastion",
        "ml@10.0.0.20",
        "--",
        "python3 -c 'print('\"'\"'a b'\"'\"')'",
    ]
    tty = ssh_argv(node, cluster, "uptime", tty=True)
    assert tty[tty.index("2222") + 1] == "-tt" and tty[-2:] == ["--", "uptime"]


def test_node_python() -> None:
    assert node_python(local()) == sys.executable
    assert node_python(Node(host="studio1.local")) == "python3"
    assert node_python(Node(host="studio1.local", python="/opt/py/bin/python")) == (
        "/opt/py/bin/python"
    )


def test_run_on_localhost_and_over_ssh(server: SSHServer) -> None:
    argv = [sys.executable, "-c", "import sys; print(sys.argv[1:])", "a b", "it's $HOME"]
    cluster = ClusterConfig(ssh_options=server.ssh_options, nodes=[remote(server)])
    for node in (local(), remote(server)):
        done = run_on(node, cluster, argv, timeout=20)
        assert (done.returncode, done.stdout) == (0, "['a b', \"it's $HOME\"]\n"), done.stderr
    assert run_on(local(), cluster, ["/nonexistent/tool"], timeout=5).returncode == 127
    assert run_on(remote(server), cluster, ["/nonexistent/tool"], timeout=20).returncode == 127


def test_no_shim_without_options(tmp_path: Path) -> None:
    assert ssh_shim(ClusterConfig(nodes=[Node(host="a")]), tmp_path) is None
    assert not (tmp_path / "ssh").exists()


def test_ssh_shim_lets_plain_ssh_reach_the_node(server: SSHServer, tmp_path: Path) -> None:
    cluster = ClusterConfig(ssh_options=server.ssh_options, nodes=[remote(server)])
    shim = ssh_shim(cluster, tmp_path / "bin")
    assert shim == tmp_path / "bin" / "ssh" and os.access(shim, os.X_OK)
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    calls = [
        ["ssh", "127.0.0.2", "echo", "hi"],  # port and user come from cluster.yaml
        ["ssh", "-tt", "-o", "LogLevel=QUIET", "127.0.0.2", "echo hi"],  # mlx.launch's call
        ["ssh", "-l", server.user, "-oLogLevel=QUIET", "127.0.0.2", "--", "echo", "hi"],
        ["ssh", f"{server.user}@127.0.0.2", "echo", "hi"],
    ]
    for argv in calls:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=20)
        assert (done.returncode, done.stdout.strip()) == (0, "hi"), (argv, done.stderr)
