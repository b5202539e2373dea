"""What one federated run is: the server's `federated:` settings with the flags applied,
checked before any process starts (exposure beyond localhost, DP with a robust aggregator,
enough replies for Krum), and written as spec.json for the ServerApp."""

from __future__ import annotations

import ipaddress
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jupiter.config import FederatedConfig
from jupiter.errors import JupiterError

# the `federated.strategy` names and the aggregation of merge/aggregate.py behind each
METHODS = {"fedavg": "mean", "fedmedian": "median", "trimmed": "trimmed_mean", "krum": "krum"}


def split_address(address: str, flag: str) -> tuple[str, int]:
    """(host, port) of HOST:PORT ([v6]:PORT too)."""
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise JupiterError(f"{flag} {address!r} is not HOST:PORT: give e.g. 127.0.0.1:9092")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve anywhere
        return False


def _existing(paths: list[str], what: str) -> list[str]:
    out = []
    for p in paths:
        path = Path(p).expanduser()
        if not path.is_file():
            raise JupiterError(f"{what} {p} not found: check the path")
        out.append(str(path.resolve()))
    return out


@dataclass(frozen=True)
class ServerTls:
    """The SuperLink's TLS files and the public keys of the clients allowed in."""

    ca: str = ""
    cert: str = ""
    key: str = ""
    client_keys: tuple[str, ...] = ()

    @property
    def on(self) -> bool:
        return bool(self.cert)


def server_tls(address: str, ca: str, cert: str, key: str, client_keys: list[str]) -> ServerTls:
    """Beyond localhost the server needs TLS and client authentication, or it refuses."""
    host, _ = split_address(address, "--address")
    given = [p for p in (ca, cert, key) if p]
    if given and len(given) != 3:
        raise JupiterError("TLS needs all three of --ca-cert, --cert and --key")
    files = _existing(given, "TLS file")
    keys = _existing(client_keys, "--client-key")
    if not is_loopback(host) and not files:
        raise JupiterError(
            f"--address {address} is reachable beyond this machine: refusing to serve without "
            "TLS; give --ca-cert, --cert and --key, and --client-key for each client allowed "
            "in, or bind 127.0.0.1"
        )
    if not is_loopback(host) and not keys:
        raise JupiterError(
            f"--address {address} is reachable beyond this machine: refusing to accept any "
            "client; give --client-key KEY.pub for each client allowed in (ssh-keygen -t ecdsa -b 384)"
        )
    if keys and not files:
        raise JupiterError("--client-key needs TLS: give --ca-cert, --cert and --key too")
    if not files:
        return ServerTls()
    return ServerTls(files[0], files[1], files[2], tuple(keys))


@dataclass(frozen=True)
class ClientTls:
    root_cert: str = ""
    auth_key: str = ""


def client_tls(server: str, root_cert: str, auth_key: str) -> ClientTls:
    """Beyond localhost the client needs the server's CA and its own key, or it refuses."""
    host, _ = split_address(server, "--server")
    root = _existing([root_cert] if root_cert else [], "--root-cert")
    key = _existing([auth_key] if auth_key else [], "--auth-key")
    if not is_loopback(host) and not root:
        raise JupiterError(
            f"--server {server} is beyond this machine: refusing to connect without TLS; "
            "give --root-cert CA.pem (the CA that signed the server's certificate) and "
            "--auth-key KEY (this client's private key, its public key given to the server)"
        )
    if not is_loopback(host) and not key:
        raise JupiterError(
            f"--server {server} is beyond this machine: the server admits known clients only; "
            "give --auth-key KEY (its public key given to the server as --client-key)"
        )
    if key and not root:
        raise JupiterError("--auth-key needs TLS: give --root-cert CA.pem too")
    return ClientTls(root[0] if root else "", key[0] if key else "")


def min_results_of(fed: FederatedConfig) -> int:
    """The replies a round needs (federated.min_results, or the strategy's own minimum)."""
    if fed.min_results is not None:
        return fed.min_results
    return {"fedavg": 1, "fedmedian": 3, "trimmed": 3}.get(fed.strategy, 2 * fed.byzantine + 3)


def check_federated(fed: FederatedConfig) -> FederatedConfig:
    """The settings with min_results filled in; a combination that cannot work refused."""
    split_address(fed.address, "--address")
    need = min_results_of(fed)
    if fed.dp.mode != "off" and fed.strategy != "fedavg":
        raise JupiterError(
            f"differential privacy needs --strategy fedavg, not {fed.strategy}: the noise is "
            "calibrated to the mean of clipped updates, which a median or Krum does not bound"
        )
    if fed.strategy == "krum" and need <= 2 * fed.byzantine + 2:
        raise JupiterError(
            f"krum tolerating byzantine={fed.byzantine} needs at least {2 * fed.byzantine + 3} "
            f"replies a round: raise --min-results (now {need}) or lower federated.byzantine"
        )
    per_round = fed.clients_per_round or fed.min_clients
    if need > max(per_round, fed.min_clients):
        raise JupiterError(
            f"--min-results {need} is more than the {per_round} clients a round asks: raise "
            "--min-clients (or --clients-per-round), or lower --min-results"
        )
    if fed.clients_per_round is not None and fed.clients_per_round > fed.min_clients:
        raise JupiterError(
            f"--clients-per-round {fed.clients_per_round} is more than --min-clients "
            f"{fed.min_clients}: a round samples from the clients connected at the start"
        )
    return fed.model_copy(update={"min_results": need})


@dataclass
class RunSpec:
    """spec.json: what the ServerApp process needs (everything absolute)."""

    domain: str  # the server's domain YAML (or a name under config/domains)
    home: str  # JUPITER_HOME of that workspace
    out: str  # the run dir: federated.json, model/, server.log
    fed: dict[str, Any] = field(default_factory=dict)  # FederatedConfig, flags applied
    quick: bool = False

    @property
    def config(self) -> FederatedConfig:
        return FederatedConfig.model_validate(self.fed)

    def save(self, path: Path) -> None:
        from jupiter import atomic

        atomic.write_text(path, json.dumps(asdict(self), indent=1))

    @classmethod
    def load(cls, path: Path) -> RunSpec:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))
