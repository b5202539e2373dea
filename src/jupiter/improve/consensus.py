"""train.consensus: N members instead of one run, a vote, a merge, a quality gate.

1. Every member trains from the same start (the previous student, the base, or one saved
   from-scratch init, so that averaging them is meaningful), each with its own seed, shard
   of the examples or strategy (config.ConsensusConfig), one after another on this machine
   (or each on the whole cluster, when the domain has one).
2. Each member is scored on validation: bits per byte on the train split's held-out
   examples (train.heldout_fraction), which none of the members trained on, and which the
   eval stage does not use, so choosing among members does not flatter the eval figures.
3. The vote (merge/consensus.py): a member whose weights lie too far from the
   coordinate-wise median of all members, or whose validation loss is out of bounds, gets no
   weight, with the reason logged.
4. When at least `threshold` of the members agree, they are merged (`merge`: linear,
   median, trimmed mean or TIES, through `jupiter merge`'s engine); else no merge is made.
5. The quality gate: the merge must validate no worse than the best member, or the best
   member is kept.

The outcome (every member's figures, the vote, the decision) is the train stage's summary,
and the lineage row of the student carries it (`jupiter generators`).
"""

from __future__ import annotations

import json
import math
import shutil
import zlib
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.trainrun import (
    is_heldout,
    pack,
    run_fields,
    run_summary,
    run_training,
    save_untrained,
)
from jupiter.improve.workspace import Workspace
from jupiter.records import Example


def shard_of(key: str, members: int) -> int:
    return zlib.crc32(key.encode()) % members


def member_data(
    examples: list[Example], texts: list[str], i: int, members: int, by_shard: bool
) -> tuple[list[Example], list[str]]:
    """Member i's examples and raw texts: all of them, or its shard (by a hash of the id)."""
    if not by_shard:
        return examples, texts
    return (
        [e for e in examples if shard_of(e.id, members) == i],
        [t for t in texts if shard_of(t[:200], members) == i],
    )


def validation_texts(
    ws: Workspace, tokenizer: Any, examples: list[Example], texts: list[str]
) -> list[str]:
    """The held-out examples (rendered as the model trains on them) and held-out texts."""
    from jupiter.data.chat import _render_text
    from jupiter.data.dataset import _chat_messages

    frac = ws.cfg.train.heldout_fraction
    out: list[str] = []
    for e in examples:
        if not is_heldout(e.id, frac):
            continue
        if e.kind == "qa" and e.messages:
            out.append(_render_text(tokenizer, _chat_messages(e, ws.cfg.system_prompt), False))
        elif e.text:
            out.append(e.text)
    out += [t for t in texts if is_heldout(t[:200], frac)]
    out = [t for t in out if t.strip()]
    if not out:
        raise JupiterError(
            f"train.consensus scores its members on held-out examples, and train."
            f"heldout_fraction {frac:g} holds out none of the {len(examples)} examples: "
            "raise train.heldout_fraction (e.g. 0.05)"
        )
    return out


def _merge_recipe(
    method: str, dirs: list[Path], out: Path, base: Path | None, heldout: Path | None = None
) -> Any:
    from jupiter.merge.recipe import parse_recipe

    data: dict[str, Any] = {
        "method": method,
        "models": [{"model": str(d)} for d in dirs],
        "out": str(out),
    }
    if heldout is not None:  # greedy soup, convex: the members' validation text
        data["validation"] = {"heldout": str(heldout)}
    if method == "ties" and base is not None:
        data["base"] = str(base)
    return parse_recipe(data, "train.consensus")


def consensus_train(
    ws: Workspace,
    cycle: int,
    tokenizer: Any,
    tok_dir: Path,
    init_dir: Path | None,
    model_config: Any,
    examples: list[Example],
    texts: list[str],
) -> tuple[Path, dict[str, Any]]:
    """Train the members, vote, merge or keep the best; returns the chosen model dir and
    the stage summary's consensus record."""
    from jupiter.train.loop import TrainRun

    cfg = ws.cfg
    c = cfg.train.consensus
    assert c is not None
    if init_dir is None:  # from scratch: one saved init, so every member has the same start
        init_dir = save_untrained(ws, model_config, tok_dir)
    val_texts = validation_texts(ws, tokenizer, examples, texts)
    root = ws.train_dir(cycle) / "members"
    members: list[dict[str, Any]] = []
    dirs: list[Path] = []
    for i in range(c.members):
        mcfg = cfg.train.member_config(i)
        exs, txts = member_data(examples, texts, i, c.members, "shard" in c.vary)
        if not exs and not txts:
            raise JupiterError(
                f"train.consensus: member {i} of {c.members} has no examples in its shard: "
                "use fewer members, or drop shard from vary"
            )
        data = pack(ws, tokenizer, exs, txts, mcfg)
        run_id = f"cycle-{cycle:03d}-m{i:02d}"
        run = TrainRun(
            dataset=data.train,
            config=mcfg,
            out_dir=root / f"m{i:02d}",
            tokenizer_dir=tok_dir,
            model_config=None,
            model_dir=init_dir,
            heldout=data.heldout,
            run_id=run_id,
            progress=ws.console.is_terminal,
            **run_fields(ws),
        )
        ws.console.print(
            f"consensus: member {i + 1}/{c.members}: {data.n_examples} examples, seed "
            f"{mcfg.seed}, {mcfg.method}, lr {mcfg.lr:g}",
            highlight=False,
        )
        result = run_training(ws, cycle, run)
        summary = run_summary(run_id, result, data)
        members.append(
            {
                "member": i,
                "seed": mcfg.seed,
                "method": mcfg.method,
                "lr": mcfg.lr,
                **{
                    k: summary[k]
                    for k in (
                        "steps",
                        "examples",
                        "tokens",
                        "final_loss",
                        "heldout_loss",
                        "model_dir",
                    )
                },
            }
        )
        dirs.append(Path(result.model_dir))
    c_out = root.parent / "merged"
    chosen, record = vote_and_merge(
        dirs,
        val_texts,
        c,
        context=cfg.model.context_length,
        cache_dir=ws.models_dir,
        console=ws.console,
        base=init_dir,
        out=c_out,
    )
    for m, d, bpb in zip(members, record.pop("distances"), record.pop("losses"), strict=True):
        m |= {
            "distance": d,
            "validation_bpb": bpb,
            "outlier": record["vote"]["outliers"].get(str(m["member"])),
        }
    record["members"] = members
    record["init"] = str(init_dir)
    return chosen, record


def vote_and_merge(
    dirs: list[Path],
    val_texts: list[str],
    c: Any,
    *,
    context: int,
    cache_dir: Path,
    console: Any,
    base: Path | None,
    out: Path,
) -> tuple[Path, dict[str, Any]]:
    """Score, vote, merge the agreeing members (or not), gate; returns the chosen dir and
    the record of it all. `c` is the ConsensusConfig; `base` the members' common start (TIES
    takes its task vectors from it)."""
    from jupiter.merge.consensus import median_distances, vote
    from jupiter.merge.engine import merge_models
    from jupiter.merge.inputs import check_compatible, open_inputs
    from jupiter.merge.shards import ModelWeights
    from jupiter.merge.validation import ValidationData, Validator

    dirs = as_one_kind(dirs, cache_dir, console)
    opened = open_inputs(_merge_recipe("linear", dirs, out, None), None, cache_dir, console)
    names = check_compatible(opened)
    floating = [n for n in names if opened.reference.dtype(n).is_floating_point]
    distances = median_distances(opened.sources, floating)
    data = ValidationData(texts=val_texts, context=context)
    validator = Validator(opened.reference.dir, names, data, console)
    losses: list[float] = []
    for src, d in zip(opened.sources, distances, strict=True):
        if not math.isfinite(d):
            losses.append(math.inf)
            continue
        validator.load(src.read)
        loss = validator.bpb_with_grad(grad=False)
        losses.append(loss if math.isfinite(loss) else math.inf)
    v = vote(
        distances,
        losses,
        threshold=c.threshold,
        max_distance=c.max_distance,
        max_loss_gap=c.max_loss_gap,
    )
    for i, why in sorted(v.outliers.items()):
        console.print(f"consensus: member {i} gets no weight: {why}", highlight=False)
    best = v.best()
    record: dict[str, Any] = {
        "members_n": len(dirs),
        "merge": c.merge,
        "vote": v.record(),
        "best_member": best,
        "best_bpb": _num(losses[best]),
        "merged_bpb": None,
        "merged": False,
        "distances": [_num(d) for d in distances],
        "losses": [_num(x) for x in losses],
    }
    if not v.quorum:
        record["reason"] = (
            f"only {len(v.agree)} of {len(dirs)} members agree, below the "
            f"threshold {c.threshold:g}: no merge, the best member is kept"
        )
    elif len(v.agree) == 1:
        record["reason"] = "one member agrees: it is kept, there is nothing to merge"
    else:
        shutil.rmtree(out, ignore_errors=True)
        held = None
        if c.merge in ("greedy_soup", "convex"):  # fitted on the same validation text
            held = out.with_name(f"{out.name}-validation.jsonl")
            held.write_text("".join(json.dumps({"text": t}) + "\n" for t in val_texts))
        recipe = _merge_recipe(
            c.merge, [dirs[i] for i in v.agree], out, base if c.merge == "ties" else None, held
        )
        merge_models(
            recipe,
            base_dir=None,
            cache_dir=cache_dir,
            force=True,
            console=console,
            data=data if held else None,
            allowed_in=out.parent,
        )
        validator.load(ModelWeights(out).read)
        merged = validator.bpb_with_grad(grad=False)
        record["merged_bpb"] = _num(merged)
        if math.isfinite(merged) and merged <= losses[best]:
            record |= {
                "merged": True,
                "reason": (
                    f"{len(v.agree)} of {len(dirs)} members agree; their {c.merge} merge "
                    f"validates at {merged:.4f} bpb, no worse than the best member's "
                    f"{losses[best]:.4f}"
                ),
            }
        else:
            record["reason"] = (
                f"the merge of {len(v.agree)} agreeing members validates at "
                f"{merged:.4f} bpb, worse than the best member's "
                f"{losses[best]:.4f}: the best member is kept"
            )
    console.print(f"consensus: {record['reason']}", highlight=False)
    return (out if record["merged"] else dirs[best]), record


def as_one_kind(dirs: list[Path], cache_dir: Path, console: Any) -> list[Path]:
    """Members of mixed strategies (full and LoRA) as full models: each adapter written out
    as its base + delta beside itself, so all can be compared and merged tensor by tensor."""
    from jupiter.models.folder import is_adapter_dir

    if len({is_adapter_dir(d) for d in dirs}) == 1:
        return dirs
    return [
        adapter_as_model(d, d.parent / f"{d.name}-merged") if is_adapter_dir(d) else d for d in dirs
    ]


def adapter_as_model(adapter: Path, out: Path) -> Path:
    """An adapter's base + s B A as a plain HF dir (the adapter's tokenizer files over the
    base's); written to a temp dir and renamed, and reused when already there."""
    from safetensors.torch import save_file

    from jupiter.merge.inputs import Inputs, copy_side_files
    from jupiter.merge.lora import AdapterWeights
    from jupiter.merge.shards import ModelWeights
    from jupiter.models.folder import replace_dir
    from jupiter.models.loading import adapter_base

    if (out / "model.safetensors").is_file():
        return out
    base = ModelWeights(adapter_base(adapter))
    weights = AdapterWeights(adapter, base)
    tmp = out.with_name(f".tmp-{out.name}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    tensors = {n: weights.read(n).to(base.dtype(n)).contiguous() for n in base.names()}
    save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    copy_side_files(Inputs("adapter", [weights], [str(adapter)], base, None), tmp)
    replace_dir(tmp, out)
    return out


def _num(x: float) -> float | None:
    return round(x, 6) if math.isfinite(x) else None
