"""Near-duplicate removal over a stream of any length, in bounded memory.

`StreamingMinHashDedup` makes exactly the decisions of `MinHashLSH.add_many` (the same
signatures, candidates, confirmation and tie-break) but keeps its index as sorted runs of
compact numpy arrays instead of dicts of lists: per kept text, the num_perm uint32
signature, one uint64 key and one uint32 row per band, and its int64 stream position
(712 bytes with 128 permutations and 16 bands, against about 4 KB of Python objects in
`MinHashLSH`). A batch of texts becomes a run whose band keys are sorted, so a lookup is a
`searchsorted` per band. Runs stay in memory up to `memory_budget` bytes; then they are
merged into one run written to a temporary directory (sorted key files, as datatrove's
bucket files) and read back through memory maps. Runs of one size are merged `fan_in` at a
time (a log-structured merge: O'Neil et al., Acta Informatica 1996), so a batch is looked
up in O(fan_in * log(n / budget)) runs.

The bound: in-memory runs never hold more than `memory_budget` bytes; on top come the
signature work (a 4 MiB block of hash values and about 2 MiB of arrays over 128k
characters of text, whatever the batch), the batch itself (its texts, and 640 bytes a
text of signature and band keys) and a merge slab of memory_budget / 8. Pages of the
memory-mapped run files are the OS's page cache, clean and dropped under memory pressure,
not the process's heap (though they count in its RSS while cached).
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np

from jupiter.filters.dedup import MinHasher

_PAIRS_BLOCK = 8192  # candidate pairs compared at once: (8192, 128) uint32 is 4 MiB
_MIN_SLAB = 1 << 20  # bytes of keys a merge sorts at once, at least


@dataclass
class _Run:
    """Kept texts: keys[b] ascending, rows[b][i] the row keys[b][i] belongs to; sigs[row]
    and pos[row] (stream positions, ascending). Arrays in memory or memory-mapped files."""

    keys: np.ndarray  # (bands, m) uint64
    rows: np.ndarray  # (bands, m) uint32
    sigs: np.ndarray  # (m, num_perm) uint32
    pos: np.ndarray  # (m,) int64
    level: int = 0
    files: tuple[Path, ...] = ()

    def __len__(self) -> int:
        return len(self.pos)

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.rows.nbytes + self.sigs.nbytes + self.pos.nbytes

    def candidates(self, bkeys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query, row) pairs sharing at least one band key, each pair once."""
        found: list[np.ndarray] = []
        for band in range(bkeys.shape[1]):
            keys = self.keys[band]
            lo = np.searchsorted(keys, bkeys[:, band], side="left")
            cnt = np.searchsorted(keys, bkeys[:, band], side="right") - lo
            total = int(cnt.sum())
            if total:
                at = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt - lo, cnt)
                query = np.repeat(np.arange(len(bkeys), dtype=np.int64), cnt)
                found.append(query << 32 | self.rows[band][at].astype(np.int64))
        pair = np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
        return pair >> 32, pair & 0xFFFFFFFF


class _Spool:
    """A flat array written front to back: in memory, or to a file mapped back when done."""

    def __init__(self, dtype: type, size: int, path: Path | None) -> None:
        self.dtype, self.path, self.at = dtype, path, 0
        self.buf: np.ndarray | None = None if path else np.empty(size, dtype=dtype)
        self.file = open(path, "wb") if path else None  # noqa: SIM115 (closed in done)

    def put(self, a: np.ndarray) -> None:
        if self.file is not None:
            np.ascontiguousarray(a, dtype=self.dtype).tofile(self.file)
        else:
            assert self.buf is not None
            self.buf[self.at : self.at + a.size] = a.ravel()
        self.at += a.size

    def done(self, shape: tuple[int, ...]) -> np.ndarray:
        if self.file is None:
            assert self.buf is not None
            return self.buf.reshape(shape)
        self.file.close()
        assert self.path is not None
        return np.memmap(self.path, dtype=np.dtype(self.dtype), mode="r", shape=shape)


def _merge(runs: list[_Run], prefix: Path | None, slab: int) -> _Run:
    """One run holding `runs` (consecutive in the stream, oldest first), in memory or in
    files `prefix`.*, built about `slab` bytes at a time: band keys are uniform hashes, so
    equal ranges of the key space hold about equal numbers of keys."""
    bands, num_perm = runs[0].keys.shape[0], runs[0].sigs.shape[1]
    m = sum(len(r) for r in runs)
    if m >= 1 << 32:
        raise ValueError("a run holds fewer than 2**32 texts; lower memory_budget or fan_in")
    offsets = np.cumsum([0] + [len(r) for r in runs[:-1]]).tolist()
    n_slabs = max(1, -(-m * bands * 12 // slab))
    bounds = [np.uint64(i * (1 << 64) // n_slabs) for i in range(1, n_slabs)]
    paths = [prefix.with_suffix(s) if prefix else None for s in (".keys", ".rows", ".sigs", ".pos")]
    keys = _Spool(np.uint64, bands * m, paths[0])
    rows = _Spool(np.uint32, bands * m, paths[1])
    for band in range(bands):
        cuts = [[0, *np.searchsorted(r.keys[band], bounds).tolist(), len(r)] for r in runs]
        for s in range(n_slabs):
            k = np.concatenate(
                [r.keys[band][c[s] : c[s + 1]] for r, c in zip(runs, cuts, strict=True)]
            )
            rw = np.concatenate(
                [
                    r.rows[band][c[s] : c[s + 1]] + np.uint32(off)
                    for r, c, off in zip(runs, cuts, offsets, strict=True)
                ]
            )
            order = np.argsort(k, kind="stable")
            keys.put(k[order])
            rows.put(rw[order])
    sigs = _Spool(np.uint32, m * num_perm, paths[2])
    pos = _Spool(np.int64, m, paths[3])
    step = max(1, slab // (num_perm * 4))
    for r in runs:
        for lo in range(0, len(r), step):
            sigs.put(r.sigs[lo : lo + step])
        pos.put(r.pos)
    return _Run(
        keys.done((bands, m)),
        rows.done((bands, m)),
        sigs.done((m, num_perm)),
        pos.done((m,)),
        level=max(r.level for r in runs) + 1,
        files=tuple(p for p in paths if p is not None),
    )


class StreamingMinHashDedup(MinHasher):
    """`add_many(texts)`: for each text in order, the stream position of an earlier kept
    text it near-duplicates, or None after keeping it. Positions count every text passed
    to `add_many`, from 0. Use as a context manager (or call `close`) to remove the spill
    directory; see the module docstring for the memory bound."""

    def __init__(
        self,
        num_perm: int = 128,
        bands: int = 16,
        shingle: int = 5,
        threshold: float = 0.8,
        seed: int = 0,
        *,
        memory_budget: int = 64 << 20,
        spill_dir: str | Path | None = None,
        batch: int = 1024,
        fan_in: int = 8,
    ) -> None:
        super().__init__(num_perm, bands, shingle, threshold, seed)
        if fan_in < 2:
            raise ValueError(f"fan_in must be at least 2, got {fan_in}")
        self.memory_budget, self.batch, self.fan_in = memory_budget, batch, fan_in
        self._spill_root = Path(spill_dir) if spill_dir is not None else None
        self._dir: Path | None = None
        self._memory: list[_Run] = []
        self._disk: list[_Run] = []
        self._seen = self._kept = self._files = 0

    # public ---------------------------------------------------------------------------
    def add_many(self, texts: Sequence[str]) -> list[int | None]:
        out: list[int | None] = []
        for lo in range(0, len(texts), self.batch):
            out += self._add_batch(texts[lo : lo + self.batch])
        return out

    @property
    def bytes_in_memory(self) -> int:
        return sum(r.nbytes for r in self._memory)

    @property
    def runs_on_disk(self) -> int:
        return len(self._disk)

    def __len__(self) -> int:
        return self._kept

    def close(self) -> None:
        self._memory, self._disk = [], []
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> StreamingMinHashDedup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # one batch --------------------------------------------------------------------------
    def _add_batch(self, texts: Sequence[str]) -> list[int | None]:
        sigs, has_words = self._signatures(texts)
        bkeys = self.band_keys(sigs)
        base, self._seen = self._seen, self._seen + len(texts)
        best_agree, best_pos = self._lookup(sigs, bkeys)
        inside = self._pairs_inside(sigs, bkeys, has_words)
        kept = np.zeros(len(texts), dtype=bool)
        out: list[int | None] = []
        agrees, positions = best_agree.tolist(), best_pos.tolist()
        for j, ok in enumerate(has_words.tolist()):
            agree, pos = agrees[j], positions[j]
            for i, a in inside.get(j, ()):  # earlier texts of this batch, in order
                if kept[i] and a > agree:  # a tie keeps the earlier text
                    agree, pos = a, base + i
            if ok and pos >= 0 and agree / self.num_perm >= self.threshold:
                out.append(pos)
            else:
                kept[j] = ok
                out.append(None)
        idx = np.flatnonzero(kept)
        self._index(sigs[idx], bkeys[idx], base + idx)
        return out

    def _lookup(self, sigs: np.ndarray, bkeys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per text: the largest number of agreeing signature rows among indexed texts it
        shares a band with, and that text's position (-1 if none; ties: the earliest)."""
        qs, ps, ags = [], [], []
        for run in self._disk + self._memory:
            q, r = run.candidates(bkeys)
            for lo in range(0, len(q), _PAIRS_BLOCK):
                qb, rb = q[lo : lo + _PAIRS_BLOCK], np.sort(r[lo : lo + _PAIRS_BLOCK])
                order = np.argsort(r[lo : lo + _PAIRS_BLOCK], kind="stable")
                qb = qb[order]  # rows in order: the memory map is read front to back
                ags.append((run.sigs[rb] == sigs[qb]).sum(axis=1))
                qs.append(qb)
                ps.append(np.asarray(run.pos[rb]))
        agree = np.full(len(sigs), -1, dtype=np.int64)
        pos = np.full(len(sigs), -1, dtype=np.int64)
        if qs:
            q, p, a = np.concatenate(qs), np.concatenate(ps), np.concatenate(ags)
            order = np.lexsort((p, -a, q))  # per text: most agreeing rows, then earliest
            first = order[np.r_[True, q[order][1:] != q[order][:-1]]]
            agree[q[first]], pos[q[first]] = a[first], p[first]
        return agree, pos

    def _pairs_inside(
        self, sigs: np.ndarray, bkeys: np.ndarray, has_words: np.ndarray
    ) -> dict[int, list[tuple[int, int]]]:
        """j -> [(i, agreeing rows)] for the earlier texts i of the batch sharing a band."""
        live = np.flatnonzero(has_words)
        pairs: set[tuple[int, int]] = set()
        for band in range(self.bands):
            order = live[np.argsort(bkeys[live, band], kind="stable")]
            k = bkeys[order, band]
            same = np.flatnonzero(k[1:] == k[:-1])
            if not len(same):
                continue
            starts = same[np.r_[True, np.diff(same) > 1]]  # runs of equal keys
            for s in starts.tolist():
                e = s + 1
                while e < len(k) and k[e] == k[s]:
                    e += 1
                group = sorted(order[s:e].tolist())
                pairs.update((a, b) for n, a in enumerate(group) for b in group[n + 1 :])
        out: dict[int, list[tuple[int, int]]] = {}
        for i, j in sorted(pairs):
            out.setdefault(j, []).append((i, int((sigs[i] == sigs[j]).sum())))
        return out

    # the index ------------------------------------------------------------------------
    def _index(self, sigs: np.ndarray, bkeys: np.ndarray, pos: np.ndarray) -> None:
        if not len(pos):
            return
        by_band = np.ascontiguousarray(bkeys.T)  # (bands, m), each band's keys contiguous
        order = np.argsort(by_band, axis=1, kind="stable")
        keys = np.take_along_axis(by_band, order, axis=1)
        self._memory.append(_Run(keys, order.astype(np.uint32), sigs, pos.astype(np.int64)))
        self._kept += len(pos)
        if self.bytes_in_memory > self.memory_budget:
            self._spill()
            return
        while (group := self._full_level(self._memory)) is not None:
            size = sum(r.nbytes for r in group)
            if self.bytes_in_memory + size > self.memory_budget:  # no room to merge: spill
                self._spill()
                return
            merged = _merge(group, None, self._slab)
            self._memory = self._memory[: -len(group)] + [merged]

    @property
    def _slab(self) -> int:
        return max(self.memory_budget // 8, _MIN_SLAB)

    def _full_level(self, runs: list[_Run]) -> list[_Run] | None:
        """The newest `fan_in` runs if they are all of one level (runs only get older and
        larger towards the front, so a full level is always at the end)."""
        tail = runs[-self.fan_in :]
        if len(tail) == self.fan_in and len({r.level for r in tail}) == 1:
            return tail
        return None

    def _spill(self) -> None:
        """All in-memory runs -> one run on disk, then merge full levels on disk."""
        run = _merge(self._memory, self._new_prefix(), self._slab)
        run.level = 0
        self._memory = []
        self._disk.append(run)
        while (group := self._full_level(self._disk)) is not None:
            merged = _merge(group, self._new_prefix(), self._slab)
            self._disk = self._disk[: -len(group)] + [merged]
            for old in group:
                for f in old.files:
                    f.unlink(missing_ok=True)

    def _new_prefix(self) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="jupiter-minhash-", dir=self._spill_root))
            weakref.finalize(self, shutil.rmtree, self._dir, True)
        self._files += 1
        return self._dir / f"run-{self._files:06d}"
