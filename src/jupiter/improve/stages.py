"""The cycle's stages. Each takes the workspace and a cycle number, does its work through the
store, and returns a small JSON-able summary that the state machine records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from jupiter.errors import JupiterError
from jupiter.improve.workspace import Workspace
from jupiter.models.folder import is_model_dir
from jupiter.records import MODEL_KINDS, Chunk, Example

if TYPE_CHECKING:
    from jupiter.synth.passages import PassageIndex

EXTRACTIVE = "extractive"


def progress_bar(ws: Workspace) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=ws.console,
        transient=False,
        disable=not ws.console.is_terminal,
    )


def passage_index(ws: Workspace, chunks: list[Chunk]) -> PassageIndex:
    """The domain's open-book index (`retrieval`) over `chunks`; embedding the passages
    shows a progress bar."""
    from jupiter.synth.passages import PassageIndex

    retrieval = ws.cfg.retrieval_config()
    if retrieval.kind == "bm25":
        return PassageIndex.from_chunks(chunks)
    with progress_bar(ws) as bar:
        task = bar.add_task(f"embed passages ({retrieval.kind})", total=len(chunks), rate="")
        return PassageIndex.from_chunks(
            chunks, retrieval, on_progress=lambda done, _: bar.update(task, completed=done)
        )


# ---------------------------------------------------------------------------- collect
def collect_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    """Read every source, then write documents and chunks in one transaction. Collection
    happens before the store is touched, so a failed collect leaves the store as it was."""
    from jupiter.collect import CollectResult, collect

    t0 = time.perf_counter()
    rejects = CollectResult()
    found = 0
    with progress_bar(ws) as bar:
        task = bar.add_task("collect", total=len(ws.cfg.sources), rate="")

        def advance(label: str, count: int) -> None:
            nonlocal found
            if label != "chunks":  # one call per source, then one for the chunk total
                found += count
                bar.update(task, advance=1, rate=f"{found} documents")

        docs, chunks = collect(ws.cfg, advance, cache_dir=ws.root / "cache", rejects=rejects)
    if ws.heldout_needed:  # before anything is written: the eval stage would fail on it
        from jupiter.improve.preflight import heldout_problem

        problem = heldout_problem(ws, len(docs), sum(c.split == "heldout" for c in chunks))
        if problem:
            raise JupiterError(problem)
    with ws.store.transaction():
        new_docs = ws.store.add_documents(docs)
        new_chunks = ws.store.add_chunks(chunks)
    if rejects.rejects:  # what the collectors dropped, by reason, for `jupiter status`
        ws.store.record_filter_stats(cycle, "collect", rejects.rejects, rejects.samples)
    heldout = sum(1 for c in chunks if c.split == "heldout")
    info: dict[str, Any] = {
        "documents": len(docs), "new_documents": new_docs, "chunks": len(chunks),
        "rejected_records": rejects.rejects,
        "new_chunks": new_chunks, "heldout_chunks": heldout,
        "bytes": sum(len(d.text.encode()) for d in docs),
        "seconds": round(time.perf_counter() - t0, 2),
    }  # fmt: skip
    ws.console.print(
        f"collect: {info['documents']} documents ({info['bytes'] / 1e6:.2f} MB), "
        f"{info['chunks']} chunks ({heldout} held out), {new_docs} new documents"
    )
    return info


# --------------------------------------------------------------------------- generate
def active_generator(ws: Workspace) -> dict[str, Any]:
    """The generator of record: the YAML's until a student wins; a generator changed in the
    YAML since is recorded and activated first (the rule: improve/lineage.py)."""
    from jupiter.improve.generation import initial_generator
    from jupiter.improve.lineage import yaml_generator_change

    gen = ws.store.active_generator()
    if gen is None:
        gen_id, kind, path = initial_generator(ws)
        why = "the first generator: generator.type in the domain YAML"
        with ws.store.transaction():
            ws.store.add_generator(gen_id, kind, path, 0, reason=why)
            ws.store.activate_generator(gen_id, reason=why)
        gen = ws.store.active_generator()
    elif (change := yaml_generator_change(ws)) is not None:
        gen_id, kind, path = initial_generator(ws)  # a model is located (or imported) first
        why = f"generator changed in the YAML (was {change[1]})"
        known = ws.store.generator(gen_id)
        done = max((c["n"] for c in ws.store.cycles() if c["status"] == "done"), default=0)
        with ws.store.transaction():
            if known is None or known["status"] == "initial":
                ws.store.add_generator(gen_id, kind, path, 0, reason=why)
            ws.store.activate_generator(gen_id, cycle=done, action="configured", reason=why)
        gen = ws.store.active_generator()
        ws.console.print(f"generator: {gen_id} is active now ({why})", highlight=False,
                         markup=False)  # fmt: skip
    assert gen is not None
    return gen


def train_chunks(ws: Workspace) -> list[Chunk]:
    chunks = list(ws.store.iter_chunks(split="train"))
    if not chunks:
        raise JupiterError(
            f"the workspace {ws.root} has no training chunks: run `jupiter collect "
            f"--domain {ws.cfg.name}` first"
        )
    return chunks


def generate_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    """Queue new examples (status pending) from the active generator."""
    from jupiter.synth import load_generator

    chunks = train_chunks(ws)  # before the generator is recorded: no chunks, no change
    gen_row = active_generator(ws)
    gcfg = ws.cfg.generator.model_copy(update={"seed": ws.cfg.generator.seed + cycle - 1})
    # an LLM teacher, or a promoted student writing through the LLM recipes; an extractive
    # generator rolled back to under a YAML of type llm stays extractive
    kind = gen_row["kind"]
    if kind == "llm" or (kind == "model" and ws.cfg.generator.type == "llm"):
        from jupiter.filters.relevance import domain_keywords
        from jupiter.improve.generation import llm_generate_stage

        info = llm_generate_stage(
            ws, cycle, gen_row, chunks, gcfg.seed, eval_questions(ws),
            domain_keywords(ws.cfg.topics, ws.cfg.keywords),
        )  # fmt: skip
        info["direct"], info["direct_new"] = queue_direct_examples(ws, cycle)
        return info
    gen = load_generator(
        gen_row["kind"], chunks, gen_row["path"] or None, gen_row["id"], gcfg,
        ws.cfg.system_prompt, ws.cfg.retrieval_config(),
    )  # fmt: skip
    limit = ws.cfg.max_examples
    t0 = time.perf_counter()
    made = new = 0
    batch: list[Example] = []
    with progress_bar(ws) as bar:
        task = bar.add_task(f"generate ({gen_row['id']})", total=limit, rate="")
        for ex in gen.generate(chunks, cycle, gcfg, limit):
            ex.cycle = cycle
            batch.append(ex)
            made += 1
            if len(batch) >= 256:
                new += ws.store.add_examples(batch)
                batch.clear()
            rate = made / max(time.perf_counter() - t0, 1e-9)
            bar.update(task, completed=made, rate=f"{rate:.0f} ex/s")
        new += ws.store.add_examples(batch)
    from jupiter.improve.grounding import queue_grounded_examples

    grounded, grounded_new = queue_grounded_examples(ws, cycle, gen_row, chunks, gcfg)
    direct, direct_new = queue_direct_examples(ws, cycle)
    info = {
        "generator": gen_row["id"], "made": made, "new": new,
        "grounded": grounded, "grounded_new": grounded_new,
        "direct": direct, "direct_new": direct_new,
        "seconds": round(time.perf_counter() - t0, 2),
    }  # fmt: skip
    ws.console.print(
        f"generate: {made} examples from {gen_row['id']}, {new} new in the queue "
        f"({made - new} duplicates: the same example made twice, or queued before)"
    )
    return info


def queue_direct_examples(ws: Workspace, cycle: int) -> tuple[int, int]:
    """Examples documents carry themselves (execution logs, chat or Q&A dataset rows),
    queued beside the generator's; training-split documents only. Returns (made, new)."""
    from jupiter.collect import direct_examples
    from jupiter.collect.chunking import split_of

    frac = ws.cfg.chunking.heldout_fraction
    made = new = 0
    for source in ("exec_logs", "dataset"):
        # a held-out document is the eval set's: its rows never become training examples
        batch = [ex for doc in ws.store.iter_documents(source=source)
                 if split_of(doc.id, frac) == "train"
                 for ex in direct_examples(doc, cycle)]  # fmt: skip
        made += len(batch)
        new += ws.store.add_examples(batch) if batch else 0
    if made:
        ws.console.print(f"generate: {made} examples straight from logs and datasets, {new} new")
    return made, new


# ----------------------------------------------------------------------------- filter
def eval_questions(ws: Workspace) -> list[str]:
    """Decontamination targets: the eval set's questions. The reference facts themselves come
    from the domain's documents, which the student is meant to learn (closed-book recall);
    what must never reach training is the test prompt itself."""
    from jupiter.eval.qa import load_eval_set

    if not ws.cfg.eval.qa_path:  # the automatic set, once the first eval has frozen it
        from jupiter.improve.evalset import frozen_questions

        return frozen_questions(ws)
    return [item.question for item in load_eval_set(ws.cfg.resolve(ws.cfg.eval.qa_path))]


def filter_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.filters import run_filters

    pending = list(ws.store.iter_examples(status="pending", cycle=cycle))
    # everything kept so far, this cycle's LLM examples (decided as they streamed in) too
    seen = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    t0 = time.perf_counter()
    with ws.console.status(f"filtering {len(pending)} examples…"):
        from jupiter.filters.relevance import domain_keywords

        keywords = domain_keywords(ws.cfg.topics, ws.cfg.keywords)
        result = run_filters(pending, ws.cfg.filters, eval_questions(ws), seen,
                             ws.cfg.language, keywords)  # fmt: skip
    if ws.cfg.filters.judge.enabled:
        judge_survivors(ws, pending, result)
    with ws.store.transaction():
        ws.store.set_status(result.decisions)
        ws.store.record_filter_stats(cycle, "filter", result.counts, result.samples)
    ws.console.print(counts_table(f"filter: cycle {cycle}", result.counts))
    return {
        "examined": len(pending), "counts": result.counts,
        "seconds": round(time.perf_counter() - t0, 2),
    }  # fmt: skip


def judge_survivors(ws: Workspace, pending: list[Example], result: Any) -> None:
    """LLM-as-judge over the Q&A examples the other filters kept; raw text is the documents'
    own and is not judged. Updates `result`'s decisions, counts and samples in place."""
    from jupiter.filters import ACCEPTED, REJECTED
    from jupiter.improve.generation import judge_pending

    by_id = {ex.id: ex for ex in pending}
    keep = [i for i, (ex_id, status, _) in enumerate(result.decisions)
            if status == ACCEPTED and by_id[ex_id].kind == "qa"]  # fmt: skip
    reasons, _scores = judge_pending(ws, [by_id[result.decisions[i][0]] for i in keep])
    for i, reason in zip(keep, reasons, strict=True):
        if not reason:
            continue
        ex_id = result.decisions[i][0]
        result.decisions[i] = (ex_id, REJECTED, reason)
        result.counts[ACCEPTED] -= 1
        result.counts[reason] = result.counts.get(reason, 0) + 1
        samples = result.samples.setdefault(reason, [])
        if len(samples) < 5:
            samples.append(by_id[ex_id].content()[:300])


def counts_table(title: str, counts: dict[str, int]) -> Table:
    from jupiter.filters import format_counts

    table = Table(title=title)
    table.add_column("outcome")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    for reason, n, share in format_counts(counts):
        table.add_row(reason, str(n), share)
    return table


# ------------------------------------------------------------------------------ train
def ensure_tokenizer(ws: Workspace) -> Path:
    """Train the domain tokenizer once per workspace, on the training chunks."""
    from jupiter.data.tokenizer import train_tokenizer

    if (ws.tokenizer_dir / "tokenizer.json").is_file():
        return ws.tokenizer_dir
    texts = [c.text for c in train_chunks(ws)]
    tmp = ws.tokenizer_dir.with_name("tokenizer.tmp")
    with ws.console.status(f"training a {ws.cfg.model.vocab_size}-token BPE tokenizer…"):
        train_tokenizer(texts, ws.cfg.model.vocab_size, tmp)
    tmp.replace(ws.tokenizer_dir)
    return ws.tokenizer_dir


def init_model_dir(ws: Workspace, cycle: int) -> Path | None:
    """Cycle > 1 continues from the last student unless train.init is base (or scratch).
    After `jupiter rollback`, the students made before it are set aside: training goes on
    from the generator rolled back to when it is a model, else from the base (or scratch)."""
    if ws.cfg.train.init in ("base", "scratch"):
        return None
    rollbacks = [e["cycle"] for e in ws.store.generator_events() if e["action"] == "rollback"]
    after = max(rollbacks, default=0)  # students of this cycle and before are set aside
    for n in range(cycle - 1, after, -1):
        d = ws.student_dir(n)
        if is_model_dir(d):
            return d
    active = ws.store.active_generator() if rollbacks else None
    if active is not None and active["kind"] in MODEL_KINDS and Path(active["path"]).is_dir():
        return Path(active["path"])
    return None
    for n in range(cycle - 1, 0, -1):
        d = ws.student_dir(n)
        if is_model_dir(d):
            return d
    return None
