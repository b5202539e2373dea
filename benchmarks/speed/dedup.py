"""Deduplication: Jupiter's exact and MinHash dedup against datatrove's MinHash pipeline,
on one generated corpus with planted duplicates, in one run.

The corpus (seeded): documents of about 500 words drawn from a 50,000-word vocabulary with
Zipf frequencies, in sentences and paragraphs. A fifth of the documents are planted
copies of an earlier document: exact copies (only whitespace differs) and near copies
(contiguous spans of words substituted, deleted or inserted, a paragraph moved) edited
until the true Jaccard similarity of their word 5-shingles with the source falls to a
target drawn uniformly from [0.80, 0.95]. The source of a cluster is always its earliest
member, so a document is a true duplicate exactly when it is a planted copy.

Every side reads the same JSON-lines file and runs in its own interpreter pinned to one
core (one thread for numpy), so that its peak memory is its own: the peak RSS (VmHWM), and
anonymous and file-backed RSS sampled every 50 ms (mapped files count in RSS as well):
- Jupiter exact: `ExactDedup` on every text;
- Jupiter MinHash: `MinHashLSH.add_many` in batches of 1,024 (all in memory);
- Jupiter streaming MinHash: `StreamingMinHashDedup` with a 32 MiB memory budget
  (`--stream-mib`), so a 100k run spills sorted runs to disk;
- datatrove: MinhashDedupSignature -> MinhashDedupBuckets -> MinhashDedupCluster ->
  MinhashDedupFilter with local folders, workers=1, the same 5-shingles and 16 bands of
  8 hashes (128 in all); its removed documents are read back from the `.remove` file.
  Adapted to this environment (see `_run_datatrove`): a whitespace word tokenizer (its
  English one needs spaCy), a plain reader of the file (its JsonlReader needs orjson) and
  its xxhash wrapper encoding str first (xxhash 4 rejects str).
Times are end to end, reading the corpus file included; docs/s is documents over seconds.

    python benchmarks/speed/dedup.py [--docs 100000 | --quick] [--sides exact,minhash,...]
        [--threshold 0.8] [--stream-mib 32] [--core 0] [--seed 0]
"""

from __future__ import annotations

import os

# one thread per side: the figures are single-core rates
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse
import dataclasses
import importlib
import json
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

VOCAB = 50_000
ZIPF_OFFSET = 2.7  # Zipf-Mandelbrot p(r) ~ 1 / (r + 2.7): close to English word frequencies
WORDS_MEAN, WORDS_SD = 500, 60
EXACT_SHARE, NEAR_SHARE = 0.05, 0.15  # of all documents: planted copies
TARGET_JACCARD = (0.80, 0.95)
SHINGLE = 5
NUM_PERM, BANDS = 128, 16  # Jupiter's defaults; datatrove gets 16 buckets x 8 hashes
BATCH = 1024
SIDES = ("exact", "minhash", "streaming", "datatrove")
LABELS = {
    "exact": "Jupiter exact (`ExactDedup`)",
    "minhash": "Jupiter MinHash (`MinHashLSH`, in memory)",
    "streaming": "Jupiter streaming MinHash (`StreamingMinHashDedup`, {mib} MiB budget)",
    "datatrove": "datatrove MinHash (4 stages, workers=1)",
}


# ---------------------------------------------------------------------------- corpus
@dataclass
class Corpus:
    """texts in stream order; kind: 0 original, 1 exact copy, 2 near copy; source: the
    index of a copy's source (-1 for an original); jaccard: a near copy's true 5-shingle
    Jaccard similarity with its source (nan otherwise)."""

    texts: list[str]
    kind: np.ndarray
    source: np.ndarray
    jaccard: np.ndarray

    @property
    def positive(self) -> np.ndarray:
        return self.kind > 0


# shingles an edit of n words changes: (in the source, in the copy), k = shingle - 1
_CHANGED = {
    0: lambda n, k: (n + k, n + k),  # substitute n words
    1: lambda n, k: (n + k, k),  # delete n
    2: lambda n, k: (k, n + k),  # insert n
    3: lambda n, k: (3 * k, 3 * k),  # move a paragraph: three joins change
}


class _Writer:
    """Draws documents as paragraphs (int arrays) of word ids, -1 marking a sentence end."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        lengths = rng.integers(2, 11, size=2 * VOCAB)
        letters = (rng.integers(0, 26, size=(2 * VOCAB, 10)) + ord("a")).astype(np.uint8)
        unique = dict.fromkeys(
            r[:n].tobytes().decode() for r, n in zip(letters, lengths, strict=True)
        )
        vocab = sorted(list(unique)[:VOCAB], key=len)  # shorter words are the frequent ones
        # each word four ways: plain, ending a sentence, starting one, both
        forms = [(w, w + ".", w.capitalize(), w.capitalize() + ".") for w in vocab]
        self.forms = np.array([f for four in forms for f in four], dtype=object)
        p = 1.0 / (np.arange(VOCAB) + ZIPF_OFFSET)
        cdf = np.cumsum(p / p.sum())
        # inverse-CDF table: a uniform 22-bit draw -> word id (the rarest word has p ~ 2e-6)
        grid = (np.arange(1 << 22) + 0.5) / (1 << 22)
        self.table = np.minimum(np.searchsorted(cdf, grid), VOCAB - 1)

    def draw(self, n: int) -> np.ndarray:
        return self.table[self.rng.integers(0, 1 << 22, size=n)]

    def document(self) -> list[np.ndarray]:
        rng = self.rng
        total = int(np.clip(rng.normal(WORDS_MEAN, WORDS_SD), 300, 700))
        ends = np.cumsum(rng.integers(6, 26, size=total // 6 + 1))  # sentence ends
        ends = np.r_[ends[ends < total], total]
        flat = np.insert(self.draw(total), ends, -1)  # each -1 right after a sentence
        marks = np.flatnonzero(flat < 0) + 1
        per_para = np.cumsum(rng.integers(2, 7, size=len(marks)))  # sentences a paragraph
        cuts = marks[per_para[per_para < len(marks)] - 1]
        return np.split(flat, cuts)

    def render(self, paras: list[np.ndarray], sep: str = "\n\n") -> str:
        flat = np.concatenate(paras)
        mark = flat < 0
        ends = np.zeros_like(mark)  # followed by a sentence end
        ends[:-1] = mark[1:]
        starts = np.ones_like(mark)  # first of its sentence
        starts[1:] = mark[:-1]
        word = ~mark
        pieces = self.forms[flat[word] * 4 + ends[word] + 2 * starts[word]].tolist()
        bounds = np.cumsum([0] + [int(np.count_nonzero(p >= 0)) for p in paras]).tolist()
        return sep.join(" ".join(pieces[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True))

    def near_copy(self, paras: list[np.ndarray], target: float) -> tuple[list[np.ndarray], float]:
        """Span edits and paragraph moves until the 5-shingle Jaccard with the source is
        about `target` (within 0.02 above it); returns the copy and its true Jaccard.

        An edit of n words changes about n + 4 shingles on each side it touches; the true
        similarity is measured after each round and the estimate recalibrated on it, since
        overlapping edits change fewer.
        """
        rng, k = self.rng, SHINGLE - 1
        src = _shingle_ids(paras)
        copy = list(paras)
        lost = new = 0
        for _ in range(6):
            while True:
                op, n = int(rng.integers(4)), int(rng.integers(1, 7))
                lose, gain = _CHANGED[op](n, k)
                if (len(src) - lost - lose) / (len(src) + new + gain) < target:
                    break
                lost, new = lost + lose, new + gain
                self._edit(copy, op, n)
            got = _shingle_ids(copy)
            inter = len(np.intersect1d(src, got, assume_unique=True))
            jacc = inter / (len(src) + len(got) - inter)
            if jacc <= target + 0.02:
                break
            lost, new = len(src) - inter, len(got) - inter
        return copy, jacc

    def _edit(self, paras: list[np.ndarray], op: int, n: int) -> None:
        """op 0: substitute n words, 1: delete n, 2: insert n, 3: move a paragraph."""
        rng = self.rng
        if op == 3 and len(paras) > 1:
            para = paras.pop(int(rng.integers(len(paras))))
            paras.insert(int(rng.integers(len(paras) + 1)), para)
            return
        i = int(rng.integers(len(paras)))
        p = paras[i]
        at = int(rng.integers(len(p) + 1))
        keep_to = at + n if op in (0, 1) else at
        middle = self.draw(n) if op in (0, 2) else p[:0]
        paras[i] = np.concatenate([p[:at], middle, p[keep_to:]])
        if not len(paras[i]):
            del paras[i]


def _shingle_ids(paras: list[np.ndarray]) -> np.ndarray:
    """Hashes of the word 5-shingles (as `jupiter.filters.dedup.shingles` sees the text)."""
    ids = np.concatenate(paras)
    ids = ids[ids >= 0].astype(np.uint64)
    m = len(ids) - SHINGLE + 1
    h = np.zeros(m, dtype=np.uint64)
    for j in range(SHINGLE):
        h = h * np.uint64(VOCAB + 1) + ids[j : j + m]
    return np.unique(h)


def make_corpus(n: int, seed: int = 0) -> Corpus:
    rng = np.random.default_rng(seed)
    writer = _Writer(rng)
    n_exact, n_near = round(n * EXACT_SHARE), round(n * NEAR_SHARE)
    n_orig = n - n_exact - n_near
    # item i < n_orig is an original; the rest are copies of a random original
    kind = np.r_[np.zeros(n_orig, np.int64), np.ones(n_exact, np.int64), np.full(n_near, 2)]
    of = np.r_[np.arange(n_orig), rng.integers(0, n_orig, size=n_exact + n_near)]
    pos = rng.permutation(n)
    texts: list[str] = [""] * n
    out_kind = np.zeros(n, np.int64)
    source = np.full(n, -1, np.int64)
    jacc = np.full(n, np.nan)
    by_cluster: dict[int, list[int]] = {}
    for i in range(n):
        by_cluster.setdefault(int(of[i]), []).append(i)
    for members in by_cluster.values():
        slots = sorted(int(pos[i]) for i in members)  # the earliest goes to the original
        copies = [i for i in members if kind[i] > 0]
        first = slots[0]
        paras = writer.document()
        texts[first] = writer.render(paras)
        for i, slot in zip(copies, slots[1:], strict=True):
            source[slot], out_kind[slot] = first, kind[i]
            if kind[i] == 1:  # an exact copy: only line breaks and spacing differ
                texts[slot] = writer.render(paras, sep=[" ", "\n", "\n\n  "][slot % 3])
                continue
            copy, jacc[slot] = writer.near_copy(paras, rng.uniform(*TARGET_JACCARD))
            texts[slot] = writer.render(copy)
    return Corpus(texts, out_kind, source, jacc)


# ---------------------------------------------------------------------------- sides
@dataclass
class Options:
    threshold: float  # Jupiter's confirmation threshold
    stream_mib: int  # the streaming side's memory budget
    docs: int = 0  # documents in the corpus file (counted before a side's clock starts)


def _batches(path: Path) -> Iterator[list[str]]:
    """The corpus file's texts, BATCH at a time (no side holds the whole corpus)."""
    batch: list[str] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            batch.append(json.loads(line)["text"])
            if len(batch) == BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def _run_exact(path: Path, work: Path, opts: Options) -> tuple[list[bool], dict[str, object]]:
    from jupiter.filters.dedup import ExactDedup

    exact = ExactDedup()
    flags: list[bool] = []
    for texts in _batches(path):
        flags += exact.add_many(texts)
    return flags, {}


def _run_minhash(path: Path, work: Path, opts: Options) -> tuple[list[bool], dict[str, object]]:
    from jupiter.filters.dedup import MinHashLSH

    lsh = MinHashLSH(NUM_PERM, BANDS, SHINGLE, opts.threshold, seed=0)
    flags: list[bool] = []
    for texts in _batches(path):
        keys = [str(len(flags) + i) for i in range(len(texts))]
        flags += [d is not None for d in lsh.add_many(keys, texts)]
    return flags, {"kept": len(lsh)}


def _run_streaming(path: Path, work: Path, opts: Options) -> tuple[list[bool], dict[str, object]]:
    from jupiter.filters.dedup_stream import StreamingMinHashDedup

    flags: list[bool] = []
    with StreamingMinHashDedup(
        NUM_PERM,
        BANDS,
        SHINGLE,
        opts.threshold,
        seed=0,
        memory_budget=opts.stream_mib << 20,
        spill_dir=work,
        batch=BATCH,
    ) as dedup:
        for texts in _batches(path):
            flags += [d is not None for d in dedup.add_many(texts)]
        extra = {
            "kept": len(dedup),
            "runs_on_disk": dedup.runs_on_disk,
            "index_MB_in_memory": round(dedup.bytes_in_memory / 2**20, 1),
        }
    return flags, extra


def _run_datatrove(path: Path, work: Path, opts: Options) -> tuple[list[bool], dict[str, object]]:
    """datatrove's four MinHash stages, each run by a LocalPipelineExecutor with one
    worker, on local folders; the removed documents come from the `.remove` file (uint32
    indices in reading order: one reader task over one file)."""
    import datatrove.utils.hashes.xxhash as dt_xxhash
    import xxhash
    from datatrove.data import Document
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.utils.word_tokenizers import WordTokenizer

    class SplitTokenizer(WordTokenizer):
        """English needs spaCy in datatrove, not installed here; its `simplify_text` has
        already lowercased the text and removed punctuation, so splitting on whitespace
        gives the same words, faster than spaCy would."""

        def word_tokenize(self, text: str) -> list[str]:
            return text.split()

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(0, len(text))]

    def xxhash64(data: str | bytes) -> int:
        """xxhash 4 (installed here) rejects str: datatrove issue #508. The fix proposed
        upstream (PR #519), encoding in datatrove's wrapper, patched in."""
        return xxhash.xxh64_intdigest(data.encode("utf-8") if isinstance(data, str) else data)

    dt_xxhash.xxhash64 = xxhash64

    def read(data: object, rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        """The corpus file as datatrove Documents (datatrove's JsonlReader needs orjson,
        not installed here; this reads the file as Jupiter's sides do)."""
        for i, texts in enumerate(_batches(path)):
            for j, text in enumerate(texts):
                yield Document(text=text, id=str(i * BATCH + j))

    config = MinhashConfig(n_grams=SHINGLE, num_buckets=BANDS, hashes_per_bucket=NUM_PERM // BANDS)
    stages = {
        "signatures": (
            [
                read,
                MinhashDedupSignature(str(work / "sigs"), config=config, language=SplitTokenizer()),
            ],
            1,
        ),
        "buckets": (
            [MinhashDedupBuckets(str(work / "sigs"), str(work / "buckets"), config=config)],
            BANDS,
        ),
        "cluster": (
            [MinhashDedupCluster(str(work / "buckets"), str(work / "remove"), config=config)],
            1,
        ),
        "filter": ([read, MinhashDedupFilter(str(work / "remove"))], 1),
    }
    seconds: dict[str, object] = {}
    for name, (pipeline, tasks) in stages.items():
        t0 = time.perf_counter()
        LocalPipelineExecutor(
            pipeline, tasks=tasks, workers=1, logging_dir=str(work / "logs" / name)
        ).run()
        seconds[f"{name}_s"] = round(time.perf_counter() - t0, 2)
    removed_file = work / "remove" / "000000.remove"
    removed = np.fromfile(removed_file, dtype="<u4") if removed_file.exists() else []
    flags = np.zeros(opts.docs, dtype=bool)
    flags[np.asarray(removed, dtype=np.int64)] = True
    return flags.tolist(), seconds


RUNNERS = {
    "exact": _run_exact,
    "minhash": _run_minhash,
    "streaming": _run_streaming,
    "datatrove": _run_datatrove,
}


# imported before the clock starts: module import is not the work measured
PRELOAD = {
    "exact": ("jupiter.filters.dedup",),
    "minhash": ("jupiter.filters.dedup",),
    "streaming": ("jupiter.filters.dedup_stream",),
    "datatrove": (
        "datatrove.executor",
        "datatrove.pipeline.dedup.minhash",
        "datatrove.data",
        "datatrove.utils.hashes.xxhash",
        "xxhash",
    ),
}


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc, in MiB (VmRSS, VmHWM the peak RSS,
    RssAnon, RssFile); ru_maxrss would count the parent's pages too, as it survives the
    fork + exec that started this interpreter."""
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def worker(side: str, corpus: Path, out: Path, core: int, opts: Options) -> None:
    """One side in this interpreter, pinned to one core: flags and figures to `out`."""
    os.sched_setaffinity(0, {core})
    for module in PRELOAD[side]:
        importlib.import_module(module)
    with corpus.open(encoding="utf-8") as f:
        opts = dataclasses.replace(opts, docs=sum(1 for _ in f))
    peaks = {"RssAnon": 0.0, "RssFile": 0.0}
    done = threading.Event()

    def sample() -> None:  # the process's own memory and its mapped files, apart
        while not done.wait(0.05):
            for field in peaks:
                peaks[field] = max(peaks[field], _status_mb(field))

    with tempfile.TemporaryDirectory(prefix=f"dedup-{side}-") as tmp:
        base = _status_mb("VmRSS")
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        flags, extra = RUNNERS[side](corpus, Path(tmp), opts)
        seconds = time.perf_counter() - t0
        done.set()
        sampler.join()
    peak = _status_mb("VmHWM")
    extra["sampled_peak_MB_anon_file"] = [round(peaks["RssAnon"]), round(peaks["RssFile"])]
    np.save(out.with_suffix(".npy"), np.array(flags, dtype=bool))
    out.write_text(
        json.dumps(
            {"seconds": seconds, "docs": len(flags), "base_MB": base, "peak_MB": peak, **extra}
        )
    )


# ---------------------------------------------------------------------------- scoring
def score(flagged: np.ndarray, positive: np.ndarray) -> tuple[float, float, float]:
    """Precision, recall, F1 of `flagged` documents against the planted duplicates."""
    tp = int(np.count_nonzero(flagged & positive))
    p = tp / max(int(flagged.sum()), 1)
    r = tp / max(int(positive.sum()), 1)
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def _run_side(
    side: str, corpus: Path, work: Path, core: int, opts: Options
) -> dict[str, object] | None:
    out = work / f"{side}.json"
    cmd = [
        sys.executable,
        __file__,
        "--side",
        side,
        "--corpus",
        str(corpus),
        "--out",
        str(out),
        "--core",
        str(core),
        "--threshold",
        str(opts.threshold),
        "--stream-mib",
        str(opts.stream_mib),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{side} failed:\n{proc.stderr[-3000:]}")
        return None
    result = json.loads(out.read_text())
    result["flags"] = np.load(out.with_suffix(".npy"))
    return result


def _describe(corpus: Corpus, seconds: float) -> None:
    near = corpus.jaccard[corpus.kind == 2]
    n_words = np.mean([len(t.split()) for t in corpus.texts[:2000]])
    q = np.percentile(near, [0, 25, 50, 75, 100]) if len(near) else [np.nan] * 5
    print(
        f"corpus: {len(corpus.texts):,} documents, ~{n_words:.0f} words each, "
        f"{np.count_nonzero(corpus.kind == 1):,} exact and {len(near):,} near copies "
        f"planted ({seconds:.1f} s to generate)\n"
        f"near copies' true 5-shingle Jaccard: min {q[0]:.3f}, quartiles {q[1]:.3f} / "
        f"{q[2]:.3f} / {q[3]:.3f}, max {q[4]:.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="10,000 documents")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, default=0, help="the CPU core every side runs on")
    ap.add_argument("--sides", default=",".join(SIDES), help="comma-separated subset")
    ap.add_argument(
        "--threshold", type=float, default=0.8, help="Jupiter's confirmation (its default 0.8)"
    )
    ap.add_argument("--stream-mib", type=int, default=32, help="the streaming side's budget")
    ap.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)
    ap.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    opts = Options(args.threshold, args.stream_mib)
    if args.side:
        worker(args.side, args.corpus, args.out, args.core, opts)
        return
    n = 10_000 if args.quick else args.docs
    t0 = time.perf_counter()
    corpus = make_corpus(n, args.seed)
    _describe(corpus, time.perf_counter() - t0)
    print(f"python {platform.python_version()}, numpy {np.__version__}, one core (#{args.core})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="dedup-bench-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for i, text in enumerate(corpus.texts):
                f.write(json.dumps({"id": str(i), "text": text}) + "\n")
        for side in args.sides.split(","):
            res = _run_side(side, path, Path(tmp), args.core, opts)
            if res is None:
                continue
            flags = res.pop("flags")
            rows.append((side, n / res["seconds"], res, *score(flags, corpus.positive)))
            _diagnose(side, flags, corpus, res)
    _table(rows, opts)


def _diagnose(side: str, flags: np.ndarray, corpus: Corpus, res: dict[str, object]) -> None:
    """Where each side's errors are: recall per kind of copy and per band of true Jaccard;
    false positives that are the source of a cluster (a later copy was kept instead)."""
    near = corpus.kind == 2
    bands = []
    for lo, hi in ((0.80, 0.82), (0.82, 0.85), (0.85, 0.90), (0.90, 1.01)):
        m = near & (corpus.jaccard >= lo) & (corpus.jaccard < hi)
        bands.append(f"[{lo:.2f}, {min(hi, 1):.2f}) {flags[m].mean() if m.any() else 0:.3f}")
    false = flags & ~corpus.positive
    sources = np.zeros(len(flags), dtype=bool)
    sources[corpus.source[corpus.source >= 0]] = True
    extra = {k: v for k, v in res.items() if k not in ("seconds", "docs", "peak_MB", "base_MB")}
    print(
        f"{side}: {res['seconds']:.1f} s; recall on exact copies "
        f"{flags[corpus.kind == 1].mean():.3f}, on near copies {flags[near].mean():.3f} "
        f"(by true Jaccard: {', '.join(bands)}); false positives {int(false.sum())}, "
        f"{int((false & sources).sum())} of them a cluster's source; {extra}"
    )


def _table(
    rows: list[tuple[str, float, dict[str, object], float, float, float]], opts: Options
) -> None:
    print("\n| side | docs/s | peak RSS MiB (above start) | precision | recall | F1 |")
    print("|---|---|---|---|---|---|")
    for side, rate, res, p, r, f1 in rows:
        peak, base = float(res["peak_MB"]), float(res["base_MB"])  # type: ignore[arg-type]
        label = LABELS[side].format(mib=opts.stream_mib)
        print(
            f"| {label} | {rate:,.0f} | {peak:,.0f} ({peak - base:+,.0f}) | "
            f"{p:.4f} | {r:.4f} | {f1:.4f} |"
        )
    rates = {side: rate for side, rate, *_ in rows}
    if "datatrove" in rates:
        for side in ("minhash", "streaming"):
            if side in rates:
                print(f"{side} / datatrove: {rates[side] / rates['datatrove']:.2f}x")


if __name__ == "__main__":
    main()
