"""The cycle's stages. Each takes the workspace and a cycle number, does its work through the
store, and returns a small JSON-able summary that the state machine records."""

from __future__ import annotations

import time
from typing import Any

from rich.table import Table

from jupiter.errors import JupiterError
from jupiter.improve.evalset import eval_questions
from jupiter.improve.generation import llm_generate_stage
from jupiter.improve.generator import active_generator, judge_pending
from jupiter.improve.grounding import queue_grounded_examples
from jupiter.improve.passages import train_chunks
from jupiter.improve.preflight import heldout_problem
from jupiter.improve.progress import progress_bar
from jupiter.improve.rephrasing import rephrase_stage
from jupiter.improve.workspace import Workspace
from jupiter.records import Example

EXTRACTIVE = "extractive"


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
        "documents": len(docs),
        "new_documents": new_docs,
        "chunks": len(chunks),
        "rejected_records": rejects.rejects,
        "new_chunks": new_chunks,
        "heldout_chunks": heldout,
        "bytes": sum(len(d.text.encode()) for d in docs),
        "seconds": round(time.perf_counter() - t0, 2),
    }
    ws.console.print(
        f"collect: {info['documents']} documents ({info['bytes'] / 1e6:.2f} MB), "
        f"{info['chunks']} chunks ({heldout} held out), {new_docs} new documents"
    )
    if rejects.rejects:  # nothing dropped silently: what, and where the rest is listed
        from jupiter.collect.ansibledoc import FIXES as ANSIBLE_FIXES
        from jupiter.collect.apis import FIXES as API_FIXES
        from jupiter.collect.asciidoc import INCLUDED as ASCIIDOC_INCLUDED
        from jupiter.collect.asciidoc import INCLUDED_FIX as ASCIIDOC_INCLUDED_FIX
        from jupiter.collect.docbook import INCLUDED as DOCBOOK_INCLUDED
        from jupiter.collect.docbook import INCLUDED_FIX as DOCBOOK_INCLUDED_FIX
        from jupiter.collect.doxygen import FIXES as DOXYGEN_FIXES
        from jupiter.collect.furniture import FURNITURE_ONLY, FURNITURE_ONLY_FIX
        from jupiter.collect.gidocgen import FIXES as GIDOCGEN_FIXES
        from jupiter.collect.gtkdoc import FIXES as GTKDOC_FIXES
        from jupiter.collect.haddock import FIXES as HADDOCK_FIXES
        from jupiter.collect.languages import OTHER_LANGUAGE, OTHER_LANGUAGE_FIX
        from jupiter.collect.latex import INCLUDED as LATEX_INCLUDED
        from jupiter.collect.latex import INCLUDED_FIX as LATEX_INCLUDED_FIX
        from jupiter.collect.local import NOT_INCLUDED, NOT_INCLUDED_FIX
        from jupiter.collect.manpage import FIXES as MAN_FIXES
        from jupiter.collect.notebook import FIXES as NOTEBOOK_FIXES
        from jupiter.collect.office import FIXES as OFFICE_FIXES
        from jupiter.collect.orgmode import INCLUDED as ORG_INCLUDED
        from jupiter.collect.orgmode import INCLUDED_FIX as ORG_INCLUDED_FIX
        from jupiter.collect.pdf import FIXES
        from jupiter.collect.pod import FIXES as POD_FIXES
        from jupiter.collect.pyapi import FIXES as PY_FIXES
        from jupiter.collect.rustdoc import FIXES as RUSTDOC_FIXES
        from jupiter.collect.sites import FIXES as SITE_FIXES
        from jupiter.collect.sphinxobj import FIXES as SPHINX_FIXES
        from jupiter.collect.texinfo import INCLUDED as TEXINFO_INCLUDED
        from jupiter.collect.texinfo import INCLUDED_FIX as TEXINFO_INCLUDED_FIX
        from jupiter.collect.typedoc import FIXES as TYPEDOC_FIXES
        from jupiter.collect.wikitext import FIXES as WIKI_FIXES

        fixes = {
            **FIXES,
            **PY_FIXES,
            **API_FIXES,
            **NOTEBOOK_FIXES,
            **MAN_FIXES,
            **SITE_FIXES,
            **OFFICE_FIXES,
            **POD_FIXES,
            **SPHINX_FIXES,
            **RUSTDOC_FIXES,
            **DOXYGEN_FIXES,
            **GTKDOC_FIXES,
            **GIDOCGEN_FIXES,
            **TYPEDOC_FIXES,
            **ANSIBLE_FIXES,
            **HADDOCK_FIXES,
            **WIKI_FIXES,
        }
        fixes[NOT_INCLUDED] = NOT_INCLUDED_FIX
        fixes[ASCIIDOC_INCLUDED] = ASCIIDOC_INCLUDED_FIX
        fixes[LATEX_INCLUDED] = LATEX_INCLUDED_FIX
        fixes[TEXINFO_INCLUDED] = TEXINFO_INCLUDED_FIX
        fixes[DOCBOOK_INCLUDED] = DOCBOOK_INCLUDED_FIX
        fixes[ORG_INCLUDED] = ORG_INCLUDED_FIX
        fixes[FURNITURE_ONLY] = FURNITURE_ONLY_FIX
        fixes[OTHER_LANGUAGE] = OTHER_LANGUAGE_FIX
        # reasons that share a fix are said together, the fix once
        groups: dict[str, list[str]] = {}
        for why, n in sorted(rejects.rejects.items()):
            groups.setdefault(fixes.get(why, why), []).append(f"{n} {why}")
        said = ", ".join(
            ", ".join(parts) + (f" ({fix})" if fix in fixes.values() else "")
            for fix, parts in groups.items()
        )
        ws.console.print(
            f"collect: dropped {said} (`jupiter data report --domain {ws.cfg.name}` lists "
            "the first of each)"
        )
    return info


# --------------------------------------------------------------------------- generate
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

        info = llm_generate_stage(
            ws,
            cycle,
            gen_row,
            chunks,
            gcfg.seed,
            eval_questions(ws),
            domain_keywords(ws.cfg.topics, ws.cfg.keywords),
        )
        info["direct"], info["direct_new"] = queue_direct_examples(ws, cycle)
        return info
    gen = load_generator(
        gen_row["kind"],
        chunks,
        gen_row["path"] or None,
        gen_row["id"],
        gcfg,
        ws.cfg.system_prompt,
        ws.cfg.retrieval_config(),
        # a promoted model writes in the dtype it sat the exam in (bf16 on a CPU that runs
        # it natively: 1.8x faster decoding than fp32), the numerics that won the gate
        ws.cfg.eval.dtype,
    )
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
    grounded, grounded_new = queue_grounded_examples(ws, cycle, gen_row, chunks, gcfg)
    direct, direct_new = queue_direct_examples(ws, cycle)
    info = {
        "generator": gen_row["id"],
        "made": made,
        "new": new,
        "grounded": grounded,
        "grounded_new": grounded_new,
        "direct": direct,
        "direct_new": direct_new,
        "seconds": round(time.perf_counter() - t0, 2),
    }
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
        batch = [
            ex
            for doc in ws.store.iter_documents(source=source)
            if split_of(doc.id, frac) == "train"
            for ex in direct_examples(doc, cycle)
        ]
        made += len(batch)
        new += ws.store.add_examples(batch) if batch else 0
    if made:
        ws.console.print(f"generate: {made} examples straight from logs and datasets, {new} new")
    return made, new


# ----------------------------------------------------------------------------- filter
def filter_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.filters import run_filters

    pending = list(ws.store.iter_examples(status="pending", cycle=cycle))
    # everything kept so far, this cycle's LLM examples (decided as they streamed in) too
    seen = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    t0 = time.perf_counter()
    with ws.console.status(f"filtering {len(pending)} examples…"):
        from jupiter.filters.relevance import domain_keywords

        keywords = domain_keywords(ws.cfg.topics, ws.cfg.keywords)
        result = run_filters(
            pending, ws.cfg.filters, eval_questions(ws), seen, ws.cfg.language, keywords
        )
    if ws.cfg.filters.judge.enabled:
        judge_survivors(ws, pending, result)
    with ws.store.transaction():
        ws.store.set_status(result.decisions)
        ws.store.record_filter_stats(cycle, "filter", result.counts, result.samples)
    ws.console.print(counts_table(f"filter: cycle {cycle}", result.counts))
    info: dict[str, Any] = {
        "examined": len(pending),
        "counts": result.counts,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    rephrased = rephrase_stage(ws, cycle)  # the teacher's phrasings of what was kept
    if rephrased is not None:
        info["rephrase"] = rephrased
    return info


def judge_survivors(ws: Workspace, pending: list[Example], result: Any) -> None:
    """LLM-as-judge over the Q&A examples the other filters kept; raw text is the documents'
    own and is not judged. Updates `result`'s decisions, counts and samples in place."""
    from jupiter.filters import ACCEPTED, REJECTED

    by_id = {ex.id: ex for ex in pending}
    keep = [
        i
        for i, (ex_id, status, _) in enumerate(result.decisions)
        if status == ACCEPTED and by_id[ex_id].kind == "qa"
    ]
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
