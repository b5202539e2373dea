"""A federation on 127.0.0.1 for the tests: a tiny random Llama base, client workspaces with
disjoint queues of accepted examples, a server domain, and the `jupiter federated` commands
run as real processes (each in its own process group, so a test can kill a whole client)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from safetensors.torch import load_file

from jupiter.config import load_domain
from jupiter.improve.workspace import Workspace
from jupiter.records import Example

JUPITER = str(Path(sys.executable).parent / "jupiter")
TRAIN = """train:
  method: lora
  lora: {r: 4, alpha: 8, dropout: 0.0}
  micro_batch_size: 2
  precision: fp32
  gradient_checkpointing: false
  heldout_fraction: 0.0
  lr: 0.02
  min_lr: 0.002
  warmup_steps: 0
promotion: {real_data_fraction: 0.0}
model: {base: BASE, context_length: 64}
"""
TOPICS = ["json", "os", "re", "csv", "math", "time", "sys", "io", "glob"]


def write_domain(root: Path, name: str, base: Path, extra: str = "") -> Path:
    path = root / f"{name}.yaml"
    text = f"name: {name}\nsources: [{{type: local, path: docs}}]\n" + TRAIN.replace(
        "BASE", str(base)
    )
    path.write_text(text + extra, encoding="utf-8")
    return path


def examples(client: int, n: int) -> list[Example]:
    """n chats of this client's own: no question or answer is shared between clients."""
    out = []
    for i in range(n):
        topic = TOPICS[(client * 3 + i) % len(TOPICS)]
        q = f"Client {client} asks {i}: what does module {topic} provide?"
        a = f"Module {topic} provides tools {client}-{i} for Python programs."
        msgs = [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        out.append(
            Example("qa", "extractive", f"chunk-{client}-{i}", "what_does", msgs, status="accepted")
        )
    return out


def fill_queue(home: Path, yaml: Path, exs: list[Example]) -> None:
    """Queue the examples as accepted in the workspace of `yaml` under JUPITER_HOME `home`."""
    saved = os.environ.get("JUPITER_HOME")
    os.environ["JUPITER_HOME"] = str(home)
    try:
        ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO()))
        try:
            assert ws.store.add_examples(exs) == len(exs)
        finally:
            ws.close()
    finally:
        if saved is None:
            os.environ.pop("JUPITER_HOME")
        else:
            os.environ["JUPITER_HOME"] = saved


def env(home: Path, **extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e.update(
        JUPITER_HOME=str(home), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", COLUMNS="400"
    )  # an error stays on one line in the logs
    e.update(extra)
    return e


def start(args: list[str], home: Path, log: Path, **extra: str) -> subprocess.Popen[bytes]:
    sink = log.open("wb")
    return subprocess.Popen(
        [JUPITER, "federated", *args],
        env=env(home, **extra),
        cwd=home,
        stdout=sink,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    """The command and every process it started in its group (a crash of that machine)."""
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
    proc.wait(30)


def wait_for(pred: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def record(out: Path) -> dict:
    return json.loads((out / "federated.json").read_text())


def kept(home: Path, name: str) -> Path:
    """Where client `name` keeps what it received and sent (--keep-updates)."""
    return home / "runs" / name / "federated" / "updates"


def round_file(home: Path, name: str, run: str, rnd: int, what: str) -> dict:
    """What client `name` received or sent in round `rnd` of run `run` (its own copy)."""
    path = kept(home, name) / run / f"round-{rnd:03d}-{what}.safetensors"
    assert path.is_file(), path
    return load_file(str(path))


def make_tls(out: Path, clients: list[str]) -> None:
    """A CA, a server certificate for 127.0.0.1 and localhost, and an OpenSSH ECDSA P-384
    key pair per client (what SuperNode authentication takes)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    out.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    day = datetime.timedelta(days=1)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = ec.generate_private_key(ec.SECP384R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("jupiter test CA"))
        .issuer_name(name("jupiter test CA"))
        .public_key(ca_key.public_key())
        .serial_number(1)
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP384R1())
    san = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(2)
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(san, critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (out / "ca.pem").write_bytes(ca.public_bytes(pem))
    (out / "server.pem").write_bytes(cert.public_bytes(pem))
    (out / "server.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    for c in clients:
        k = ec.generate_private_key(ec.SECP384R1())
        (out / f"{c}.key").write_bytes(
            k.private_bytes(pem, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
        )
        (out / f"{c}.pub").write_bytes(
            k.public_key().public_bytes(
                serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
            )
        )
