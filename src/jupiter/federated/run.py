"""`jupiter federated server` and `client`: the domain's `federated:` settings with the
flags over them, every check made before a process starts, then deploy.py's processes."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from jupiter.config import FederatedConfig, domain_path, load_domain
from jupiter.errors import JupiterError
from jupiter.federated.spec import RunSpec, check_federated, client_tls, server_tls
from jupiter.outputs import check_output, output_lock


def settings(base: FederatedConfig, flags: dict[str, Any]) -> FederatedConfig:
    """The YAML's `federated:` with the flags given (not None) over it, checked."""
    data = base.model_dump()
    dp = flags.pop("dp", {})
    data.update({k: v for k, v in flags.items() if v is not None})
    data["dp"].update({k: v for k, v in dp.items() if v is not None})
    try:
        fed = FederatedConfig.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        where = ".".join(str(p) for p in e["loc"])
        raise JupiterError(
            f"federated.{where}: {e['msg'].removeprefix('Value error, ')} (got {e.get('input')!r})"
        ) from None
    return check_federated(fed)


def home() -> str:
    return str(Path(os.environ.get("JUPITER_HOME", ".")).resolve())


def workspace_of(domain: str, quick: bool, console: Console) -> Any:
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(domain, quick=quick), quick=quick, console=console)
    if not ws.cfg.model.base:
        raise JupiterError(
            f"domain {ws.cfg.name}: federated training needs model.base, the pretrained base "
            "every party holds (LoRA adapters or full weights of it travel): set it in the YAML"
        )
    if ws.cfg.train.lora.freeze_a:
        raise JupiterError(
            f"domain {ws.cfg.name}: train.lora.freeze_a is not carried to federated clients "
            "yet (each would draw its own A): remove it for `jupiter federated`"
        )
    ws.model(ws.cfg.model.base)  # resolved now: a wrong path fails before any process starts
    return ws


def start_server(
    domain: str,
    quick: bool,
    flags: dict[str, Any],
    out: Path | None,
    tls_files: dict[str, Any],
    console: Console,
) -> dict[str, Any]:
    """Check everything, then run the federation to its end; the run's federated.json."""
    from jupiter.federated.deploy import serve_federation

    ws = workspace_of(domain, quick, console)
    fed = settings(ws.cfg.federated, flags)
    tls = server_tls(
        fed.address, tls_files["ca"], tls_files["cert"], tls_files["key"], tls_files["client_keys"]
    )
    run_dir = (out or ws.root / "federated" / time.strftime("run-%Y%m%d-%H%M%S")).resolve()
    if run_dir.is_dir() and any(run_dir.iterdir()):
        raise JupiterError(f"{run_dir} already holds a run: give another --out")
    # a file, or a folder inside the base model, another workspace or this one's root:
    # never (outputs.py); an empty folder is taken, as before
    check_output(
        run_dir,
        [ws.model(ws.cfg.model.base or "")],
        force=True,
        manifest="federated.json",
        allowed_in=ws.root,
    )
    spec = RunSpec(
        domain=str(domain_path(domain)),
        home=home(),
        out=str(run_dir),
        fed=fed.model_dump(mode="json"),
        quick=quick,
    )
    ws.close()
    with output_lock(run_dir):  # a second server given the same --out fails in one line
        return serve_federation(spec, tls, console)


def summary(record: dict[str, Any]) -> str:
    dp = record.get("dp")
    eps = f", ε {dp['epsilon']:.4g} at δ {dp['delta']:g}" if dp else ", no DP"
    why = record.get("stop_reason") or f"all {record['rounds_planned']} rounds"
    return f"federated: {record['rounds_done']} rounds ({why}){eps}; global model {record['model']}"


def start_client(
    domain: str,
    quick: bool,
    server: str,
    root_cert: str,
    auth_key: str,
    keep: bool,
    device: str,
    console: Console,
) -> int:
    """Check the workspace has data and a base, then serve as a SuperNode until stopped."""
    from jupiter.federated.deploy import join_federation

    tls = client_tls(server, root_cert, auth_key)
    ws = workspace_of(domain, quick, console)
    try:
        n = ws.has_store() and sum(
            ws.store.count("examples", "status = ?", (s,)) for s in ("accepted", "used")
        )
    finally:
        ws.close()
    if not n:
        raise JupiterError(
            f"domain {ws.cfg.name}: no accepted examples in {ws.store_path} to train on: run "
            f"`jupiter generate` and `jupiter filter --domain {domain}` first"
        )
    root = ws.root / "federated"
    values = {
        "domain": str(domain_path(domain)),
        "home": home(),
        "quick": quick,
        "device": device,
        "keep-dir": str(root / "updates") if keep else "",
    }
    code = join_federation(root, server, tls, values, console)
    if code not in (0, 130):  # 130: the user left (Ctrl-C / SIGTERM)
        raise JupiterError(
            f"the SuperNode stopped with status {code}: the server at {server} could not be "
            "reached or refused this client (its key not registered there?); see the lines above"
        )
    return code
