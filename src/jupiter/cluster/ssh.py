"""Running commands on the nodes of cluster.yaml: through OpenSSH, or directly on localhost.

Plain `ssh` (not paramiko) so that the user's ~/.ssh/config, agent and keys apply as they
do in a terminal; BatchMode makes a missing key fail at once instead of prompting.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from jupiter.config import ClusterConfig, Node
from jupiter.errors import JupiterError

CONNECT_TIMEOUT_S = 10
# ssh(1) options that take an argument (OpenSSH 9's getopt string), for the shim's parsing
SSH_ARG_FLAGS = "BbcDEeFIiJLlmOoPpQRSWw"


def node_python(node: Node) -> str:
    """The interpreter that runs Jupiter on the node: its `python:`, else this one on
    localhost, else `python3` from the remote login's PATH."""
    if node.python:
        return node.python
    return sys.executable if node.is_local else "python3"


def ssh_target(node: Node) -> str:
    return f"{node.ssh_user}@{node.host}" if node.ssh_user else node.host


def ssh_command_line(node: Node, cluster: ClusterConfig) -> str:
    """What a user types to reach the node by hand: for the fixes in error messages."""
    argv = ["ssh", "-p", str(node.ssh_port), *cluster.ssh_options, ssh_target(node)]
    return shlex.join(argv)


def ssh_argv(
    node: Node,
    cluster: ClusterConfig,
    remote_command: str | list[str],
    tty: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> list[str]:
    """The ssh argv running `remote_command` on the node. A list is shell-quoted (the remote
    side parses one string with the login shell); a string is sent as it is."""
    command = remote_command if isinstance(remote_command, str) else shlex.join(remote_command)
    argv = ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={max(1, round(connect_timeout))}"]
    argv += ["-p", str(node.ssh_port)]
    if tty:
        argv.append("-tt")  # forced: our stdin is rarely a terminal
    return [*argv, *cluster.ssh_options, ssh_target(node), "--", command]


def node_argv(
    node: Node,
    cluster: ClusterConfig,
    argv: list[str],
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> list[str]:
    """`argv` itself on localhost, else wrapped in ssh."""
    if node.is_local:
        return list(argv)
    return ssh_argv(node, cluster, argv, connect_timeout=connect_timeout)


def run_on(
    node: Node, cluster: ClusterConfig, argv: list[str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run argv on the node and capture its output as text. A missing program answers 127,
    as a remote shell does, so callers read local and remote failures the same way; ssh's
    own failures answer 255. Raises subprocess.TimeoutExpired after `timeout` seconds."""
    full = node_argv(node, cluster, argv, connect_timeout=min(timeout, CONNECT_TIMEOUT_S))
    try:
        return subprocess.run(
            full,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        if not node.is_local:
            raise JupiterError(
                "ssh not found on this machine: install the OpenSSH client"
            ) from None
        return subprocess.CompletedProcess(full, 127, "", f"{argv[0]}: No such file or directory")


def _real_ssh(folder: Path) -> str:
    """The ssh on PATH, skipping `folder` so a shim never execs itself."""
    skip = folder.resolve()
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    path = os.pathsep.join(d for d in dirs if Path(d).resolve() != skip)
    found = shutil.which("ssh", path=path)
    if found is None:
        raise JupiterError("ssh not found on this machine: install the OpenSSH client")
    return found


def _host_cases(cluster: ClusterConfig) -> list[str]:
    """`case` arms adding each node's port (and user, unless the caller named one)."""
    arms: list[str] = []
    for node in cluster.nodes:
        if node.ssh_port == 22 and not node.ssh_user:
            continue
        user = (
            f'[ -n "$user" ] || extra+=(-l {shlex.quote(node.ssh_user)}); ' if node.ssh_user else ""
        )
        arms.append(f"  {shlex.quote(node.host)}) {user}extra+=(-p {node.ssh_port}) ;;")
    return arms


SHIM = """#!/bin/bash
# Written by Jupiter (jupiter.cluster.ssh.ssh_shim): ssh with cluster.yaml's options, for
# tools that run plain `ssh host cmd` (mlx.launch). Put this folder first on PATH.
set -u
args=("$@")
dest=""
i=0
# find the destination: the first argument that is neither an option nor an option's value
while [ "$i" -lt "${#args[@]}" ]; do
  a=${args[$i]}
  case $a in
    --) dest=${args[$((i + 1))]:-}; break ;;
    -?*)
      j=1
      while [ "$j" -lt "${#a}" ]; do
        case "__ARGFLAGS__" in
          *"${a:$j:1}"*) [ "$((j + 1))" -eq "${#a}" ] && i=$((i + 1)); break ;;
        esac
        j=$((j + 1))
      done ;;
    *) dest=$a; break ;;
  esac
  i=$((i + 1))
done
user=""
host=$dest
case $dest in *@*) user=${dest%@*}; host=${dest##*@} ;; esac
extra=()
case $host in
__CASES__
esac
exec __SSH__ -o BatchMode=yes __OPTIONS__ ${extra[@]+"${extra[@]}"} "$@"
"""


def ssh_shim(cluster: ClusterConfig, folder: Path) -> Path | None:
    """Write an executable `ssh` into `folder` that runs the real ssh with the cluster's
    ssh_options, BatchMode, and each node's ssh_port and ssh_user (looked up by the host the
    caller names). None when cluster.yaml sets none of these: plain ssh already does."""
    cases = _host_cases(cluster)
    if not cluster.ssh_options and not cases:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    text = (
        SHIM.replace("__ARGFLAGS__", SSH_ARG_FLAGS)
        .replace("__CASES__", "\n".join(cases) or "  '') ;;")
        .replace("__SSH__", shlex.quote(_real_ssh(folder)))
        .replace("__OPTIONS__", shlex.join(cluster.ssh_options))
    )
    shim = folder / "ssh"
    shim.write_text(text, encoding="utf-8")
    shim.chmod(0o755)
    return shim
