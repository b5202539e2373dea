"""The lineage of generators: who replaced whom, on which figures and data, and why
(`jupiter generators`); making an earlier generator active again (`jupiter rollback`); and
the run of rejected students that `promotion.patience` stops the loop on.

Which generator is in force: the YAML's `generator:` configures the teacher of the first
cycle; after that the lineage decides (a promoted student, a rollback), so long as the
YAML's generator stays what it was. When the YAML's generator changes (another type, LLM,
backend or model_path), the YAML wins: at the next stage the new generator is recorded and
activated, action `configured`, reason "generator changed in the YAML (was …)", whatever was
active, a promoted student included (it stays in the lineage: `jupiter rollback --to` it).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from rich.table import Table

from jupiter.errors import JupiterError
from jupiter.improve.workspace import Workspace
from jupiter.records import MODEL_KINDS


def _figures(g: dict[str, Any]) -> str:
    f = g["figures"]
    if not f:
        return "—"
    line = f"{f['metric']} {f['student']:.3f} vs {f['generator']:.3f}"
    if f.get("ci"):
        line += f"\nΔ CI [{f['ci'][0]:+.3f}, {f['ci'][1]:+.3f}]"
    general = f.get("general") or {}
    if general.get("student") is not None and general.get("reference") is not None:
        line += f"\ngeneral bpb {general['student']:.3f} vs {general['reference']:.3f}"
    return line


def _data(g: dict[str, Any]) -> str:
    d = g["data"]
    if not d:
        return "—"
    share = d.get("grounded_share")
    lines = [f"{d['examples']:,} examples" + (f", {share:.0%} grounded" if share else "")]
    lines += [f"{name} {n:,}" for name, n in d.get("by_generator", {}).items()]
    if d.get("ids_sha256"):
        lines.append(f"ids {d['ids_sha256'][:12]}")
    cons = d.get("consensus")
    if cons:
        out = cons.get("outliers") or {}
        kept = (
            f"{cons['merge']} merge of {cons['members_n'] - len(out)}"
            if cons["merged"]
            else f"member {cons['best_member']} of"
        )
        lines.append(
            f"consensus: {kept} {cons['members_n']} members"
            + (f"; no weight: {', '.join(sorted(out))}" if out else "")
        )
    return "\n".join(lines)


def lineage_tables(ws: Workspace) -> list[Table]:
    """The generators (rejected students too) and the activations, as rich tables."""
    gens = Table(
        title=f"{ws.cfg.name}: generators (* active)",
        show_lines=True,
        caption=yaml_generator_note(ws),
    )
    for col in ("generator", "parent", "cycle", "status", "figures", "trained on", "reason"):
        gens.add_column(col, overflow="fold")
    for g in ws.store.generators():
        name = f"* {g['id']}" if g["active"] else g["id"]
        gens.add_row(
            name,
            g["parent"] or "—",
            str(g["cycle"]),
            g["status"],
            _figures(g),
            _data(g),
            g["reason"] or "—",
        )
    events = Table(title="activations")
    for col in ("when", "after cycle", "action", "generator", "previous", "reason"):
        events.add_column(col, overflow="fold")
    for e in ws.store.generator_events():
        when = dt.datetime.fromtimestamp(e["at"]).strftime("%Y-%m-%d %H:%M")
        events.add_row(
            when,
            str(e["cycle"]),
            e["action"],
            e["generator"],
            e["previous"] or "—",
            e["reason"] or "—",
        )
    return [gens, events]


CONFIGURED = ("initial", "configured")  # activations of a generator the YAML configured


def configured_id(ws: Workspace) -> str:
    """The id of the generator the YAML configures (nothing loaded or imported)."""
    from jupiter.models.reference import model_label

    cfg, gen = ws.cfg, ws.cfg.generator
    if gen.type == "llm":
        name = gen.llm.model or gen.llm.base_url
        if gen.llm.backend in ("transformers", "mlx"):
            name = model_label(gen.llm.model, base_dir=cfg.base_dir)
        return f"llm:{gen.llm.backend}:{name}"
    if gen.type == "model" and gen.model_path:
        return f"model:{model_label(gen.model_path, base_dir=cfg.base_dir)}"
    return "extractive"


def yaml_generator_change(ws: Workspace) -> tuple[str, str] | None:
    """(the YAML's generator, the one it configured before) when the YAML's `generator:`
    changed since the workspace last recorded it; None for a new workspace or no change.
    Reads the store only."""
    if not ws.has_store():
        return None
    events = [e for e in ws.store.generator_events() if e["action"] in CONFIGURED]
    if not events:
        return None
    now, before = configured_id(ws), events[-1]["generator"]
    return (now, before) if now != before else None


def yaml_generator_note(ws: Workspace) -> str:
    """One line for `jupiter generators`: the YAML's generator and whether it is in force."""
    change = yaml_generator_change(ws)
    if change is not None:
        return (
            f"the YAML's generator is now {change[0]} (was {change[1]}): it becomes the "
            "active generator at the next stage"
        )
    active = ws.store.active_generator()
    now = configured_id(ws)
    if active is None or active["id"] == now:
        return f"the YAML's generator: {now}, in force"
    return (
        f"the YAML's generator: {now}; {active['id']} generates instead "
        f"({active['status']}); a change of generator: in the YAML is activated"
    )


def _default_target(ws: Workspace, active: dict[str, Any]) -> str:
    """The active generator's parent; for rows from before parents were kept, the
    generator recorded before it."""
    if active["parent"]:
        return str(active["parent"])
    earlier = [g["id"] for g in ws.store.generators() if g["status"] != "rejected"]
    at = earlier.index(active["id"])
    if at == 0:
        raise JupiterError(
            f"{active['id']} is the first generator of '{ws.cfg.name}': there is none before "
            "it to roll back to"
        )
    return earlier[at - 1]


def rollback(ws: Workspace, to: str | None = None) -> dict[str, Any]:
    """Make generator `to` (default: the active one's parent) active again; the change is
    recorded among the activations. The next stage that asks for the generator gets it."""
    if not ws.has_store() or ws.store.active_generator() is None:
        raise JupiterError(
            f"'{ws.cfg.name}' has no generator yet at {ws.root}: run `jupiter start --domain "
            f"{ws.cfg.name}` first"
        )
    active = ws.store.active_generator()
    assert active is not None
    target_id = to or _default_target(ws, active)
    target = ws.store.generator(target_id)
    usable = [g["id"] for g in ws.store.generators() if g["status"] != "rejected"]
    if target is None:
        raise JupiterError(
            f"no generator '{target_id}' in '{ws.cfg.name}': pick one of {', '.join(usable)} "
            f"(`jupiter generators --domain {ws.cfg.name}` lists them)"
        )
    if target["status"] == "rejected":
        raise JupiterError(
            f"{target_id} was never a generator: its student was kept out ({target['reason']}); "
            f"pick one of {', '.join(usable)}"
        )
    if target["active"]:
        raise JupiterError(f"{target_id} is already the active generator of '{ws.cfg.name}'")
    if target["kind"] in MODEL_KINDS and not Path(target["path"]).is_dir():
        raise JupiterError(f"{target_id}'s model folder {target['path']} is gone: pick another")
    if target["kind"] == "llm" and target_id != configured_id(ws):
        raise JupiterError(
            f"{target_id} is an LLM an earlier version of the YAML configured; the YAML now "
            f"configures {configured_id(ws)}: set generator.llm back to it in the YAML instead "
            "(a changed generator is activated at the next stage)"
        )
    cycle = max((c["n"] for c in ws.store.cycles()), default=0)
    why = f"rolled back from {active['id']} by `jupiter rollback`"
    ws.store.activate_generator(target_id, cycle=cycle, action="rollback", reason=why)
    return {"from": active["id"], "to": target_id, "cycle": cycle}


def rejections_in_a_row(ws: Workspace) -> list[dict[str, Any]]:
    """The decisions since the last promotion (or rollback) that kept the student out,
    oldest first. A skipped decision neither counts nor breaks the run."""
    reset = max(
        (e["at"] for e in ws.store.generator_events() if e["action"] == "rollback"), default=0.0
    )
    run: list[dict[str, Any]] = []
    for d in reversed(ws.store.decisions()):
        if d["at"] < reset or d["info"].get("promoted"):
            break
        if not d["info"].get("skipped"):
            run.append(d)
    return run[::-1]


def patience_message(ws: Workspace) -> str | None:
    """Why the loop stops, when promotion.patience students in a row were kept out."""
    patience = ws.cfg.promotion.patience
    if patience == 0 or not ws.has_store():
        return None
    run = rejections_in_a_row(ws)
    if len(run) < patience:
        return None
    last = run[-1]
    cycles = ", ".join(str(d["cycle"]) for d in run)
    return (
        f"stopped: {len(run)} students in a row were kept out (cycles {cycles}; "
        f"promotion.patience: {patience}). The last one, cycle {last['cycle']}: "
        f"{last['info'].get('reason', '?')}. More cycles of the same will not help: change "
        f"the data or the model (sources, generator, train.init: base), raise "
        f"promotion.patience (0 = never stop), or `jupiter rollback --domain {ws.cfg.name}`."
    )
