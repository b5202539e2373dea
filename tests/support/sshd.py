"""A real OpenSSH server on loopback, for tests of the code that reaches nodes over ssh.

Fresh host and client keys in a temporary folder, key login as the current user, no PAM,
no other user's files touched. Import from tests as `from sshd import SSHServer`:

    if not SSHServer.available(): pytest.skip(...)
    with SSHServer() as server:
        ssh -p server.port *server.ssh_options 127.0.0.1 cmd

Remote commands run with sshd's environment (a minimal PATH): call interpreters by their
absolute paths. On Linux the server also listens on 127.0.0.2 (`alias_host`), a loopback
address that Jupiter does not take for localhost, so a node there really goes through ssh.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

SSHD = Path("/usr/sbin/sshd")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SSHServer:
    """`sshd -D` on a free port of 127.0.0.1 (and 127.0.0.2 on Linux) while in the block."""

    def __init__(self, env: dict[str, str] | None = None, timeout: float = 10.0) -> None:
        self.env = env or {}  # SetEnv: variables every session gets
        self.timeout = timeout
        self.user = getpass.getuser()
        self.alias_host: str | None = "127.0.0.2" if sys.platform == "linux" else None
        self.port = 0
        self.ssh_options: list[str] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @staticmethod
    def available() -> bool:
        """Whether this machine can run the server: sshd, ssh and ssh-keygen installed."""
        return SSHD.is_file() and all(shutil.which(t) for t in ("ssh", "ssh-keygen"))

    @property
    def root(self) -> Path:
        assert self._tmp is not None, "use SSHServer as a context manager"
        return Path(self._tmp.name)

    def log(self) -> str:
        """What sshd printed (-e): the reason a login was refused."""
        path = self.root / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _keygen(self, name: str) -> Path:
        key = self.root / name
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
            check=True,
            capture_output=True,
        )
        return key

    def _write_config(self, host_key: Path, client_key: Path) -> Path:
        authorized = self.root / "authorized_keys"
        authorized.write_text(client_key.with_suffix(".pub").read_text())
        authorized.chmod(0o600)
        listen = ["127.0.0.1"] + ([self.alias_host] if self.alias_host else [])
        lines = [f"Port {self.port}"]
        lines += [f"ListenAddress {a}" for a in listen]
        lines += [
            f"HostKey {host_key}",
            f"AuthorizedKeysFile {authorized}",
            f"PidFile {self.root / 'sshd.pid'}",
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "StrictModes no",  # the temp folder's modes are not sshd's business here
            "UsePAM no",
            "AcceptEnv LANG LC_* JUPITER_*",
            "Subsystem sftp internal-sftp",
            "LogLevel VERBOSE",
        ]
        lines += [f"SetEnv {k}={v}" for k, v in self.env.items()]
        config = self.root / "sshd_config"
        config.write_text("\n".join(lines) + "\n")
        return config

    def _accepting(self) -> bool:
        """True once sshd answers with its banner on every address."""
        for host in ["127.0.0.1"] + ([self.alias_host] if self.alias_host else []):
            try:
                with socket.create_connection((host, self.port), timeout=1) as s:
                    if not s.recv(64).startswith(b"SSH-"):
                        return False
            except OSError:
                return False
        return True

    def _start(self, config: Path) -> None:
        if os.geteuid() == 0:  # privilege separation wants its empty directory
            Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
        log = (self.root / "sshd.log").open("ab")
        self._proc = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        log.close()
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"sshd exited with {self._proc.returncode}:\n{self.log()}")
            if self._accepting():
                return
            time.sleep(0.05)
        raise RuntimeError(f"sshd did not accept within {self.timeout} s:\n{self.log()}")

    def __enter__(self) -> SSHServer:
        self._tmp = tempfile.TemporaryDirectory(prefix="jupiter-sshd-")
        self.root.chmod(0o755)
        host_key, client_key = self._keygen("host_key"), self._keygen("client_key")
        self.ssh_options = [
            "-i",
            str(client_key),
            "-o",
            f"UserKnownHostsFile={self.root / 'known_hosts'}",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "LogLevel=ERROR",
        ]
        for attempt in range(3):  # a free port can be taken before sshd binds it
            self.port = free_port()
            try:
                self._start(self._write_config(host_key, client_key))
                return self
            except RuntimeError:
                self._stop()
                if attempt == 2:
                    self._tmp.cleanup()
                    raise
        raise AssertionError("unreachable")

    def _stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def ssh(self, *command: str, host: str = "127.0.0.1") -> list[str]:
        """The ssh argv running `command` on this server."""
        return ["ssh", "-p", str(self.port), *self.ssh_options, f"{self.user}@{host}", *command]
