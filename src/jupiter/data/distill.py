"""Context distillation's data (Snell et al. 2022, "Learning by Distilling Context"): for
each Q&A example, the sequence a teacher reads (its chunk as an open-book passage before the
question, then the answer) beside the one the student reads (the question alone), with the
answer's positions in both.

The student rows are the packed rows `pack` made, unchanged: a distilled example is found
in them by its tokens, so what is trained, and in which order, stays the packer's decision
and the sft rows are the distill rows. Each micro-batch's teacher sequences are packed in
the order of the student's answers (row by row, left to right), so the k-th answer position
of the student is the k-th of the teacher.

Replay texts (train.replay with loss kl) are pairs too: the teacher reads the same text,
and every token after the first is an "answer" whose cross-entropy the KL replaces.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from jupiter.data.chat import IGNORE, Message, encode_chat, encode_prompt
from jupiter.data.dataset import Batch, Encoded, PackedDataset
from jupiter.errors import JupiterError

FORMAT = 2  # version of the .npz layout written by `DistillData.save`
ONE_TURN = (["user", "assistant"], ["system", "user", "assistant"])


@dataclass(frozen=True)
class DistillPair:
    """One Q&A as the student and the teacher read it; the answer ids are the same in both
    and end both sequences' trained parts."""

    student: Encoded  # encode_chat of the chat, as `pack` encodes it
    teacher: list[int]  # the teacher's prompt ids, then the student's answer ids
    answer_start: int  # index of the first answer id in student[0]
    answer_len: int  # answer ids, the stop token included
    replay: bool = False  # a replay text: KL to the base in place of its cross-entropy


def encode_pair(
    tokenizer: PreTrainedTokenizerBase, messages: Sequence[Message], teacher_question: str
) -> DistillPair | str:
    """The pair of a one-turn chat (a system message or not, the question, the answer) whose
    teacher reads `teacher_question` instead of the question; else why not, to be counted."""
    if [m["role"] for m in messages] not in ONE_TURN:
        return "not one question and one answer"
    ids, labels = encode_chat(tokenizer, messages)
    trained = [i for i, lab in enumerate(labels) if lab != IGNORE]
    if not trained or trained[0] == 0:
        return "no answer tokens"
    start, n = trained[0], len(trained)
    # The answer must start right after the generation prompt (no token spans the two):
    # then the teacher's prompt ids, followed by the same answer ids, read the same answer.
    if ids[:start] != encode_prompt(tokenizer, messages[:-1]) or trained[-1] != start + n - 1:
        return "answer tokens merged with the prompt's"
    teacher_chat = [*messages[:-2], {**messages[-2], "content": teacher_question}]
    teacher = encode_prompt(tokenizer, teacher_chat) + ids[start : start + n]
    return DistillPair((ids, labels), teacher, start, n)


def replay_pair(ids: Sequence[int], labels: Sequence[int]) -> DistillPair | str:
    """The pair of an encoded replay text: the teacher reads it whole, and each token after
    the first (all trained) is scored against the teacher's distribution."""
    if len(ids) < 2 or any(lab == IGNORE for lab in labels[1:]):
        return "not a whole text"
    return DistillPair((list(ids), list(labels)), list(ids), 1, len(ids) - 1, replay=True)


def _key(ids: Sequence[int] | np.ndarray, targets: Sequence[int] | np.ndarray) -> bytes:
    return np.concatenate([np.asarray(ids, np.int32), np.asarray(targets, np.int32)]).tobytes()


@dataclass
class DistillBatch(Batch):
    """A packed micro-batch with the teacher's side of the answers it holds."""

    answers: torch.Tensor  # (b, L) bool: targets that are answer tokens with a teacher
    replay: torch.Tensor  # (b, L) bool: those of them that are replay text
    teacher_ids: torch.Tensor  # (t, W) int64: the teacher's sequences, packed in answer order
    teacher_positions: torch.Tensor  # (t, W): restarting at every sequence and the padding
    teacher_answers: torch.Tensor  # (t, W) bool: positions whose next token is an answer id

    def to(self, device: torch.device | str) -> DistillBatch:
        return DistillBatch(*(getattr(self, k).to(device) for k in self.__dataclass_fields__))


class DistillData:
    """The teacher sequences of the distilled answers in a packed dataset's rows.

    `spans` holds one int64 row per answer: (student row, row position of its first target,
    answer length, teacher sequence, 1 for replay text), sorted by row and position. A target at position p is
    the id that follows input p, so answer ids[s:s+n] of a sequence packed at offset o have
    their targets at o+s-1 … o+s+n-2; in the teacher's sequence T they are the last n ids,
    targets of positions len(T)-n-1 … len(T)-2.
    """

    def __init__(
        self,
        teachers: list[np.ndarray],
        spans: np.ndarray,
        context_length: int,
        pad_id: int,
        teacher_dir: Path | None = None,
    ) -> None:
        self.teachers = teachers
        self.spans = spans.reshape(-1, 5).astype(np.int64)
        self.context_length, self.pad_id = context_length, pad_id
        self.teacher_dir = teacher_dir  # None: the base model (see train/distill.py)

    @classmethod
    def find(
        cls, packed: PackedDataset, pairs: Sequence[DistillPair], teacher_dir: Path | None = None
    ) -> DistillData:
        """Every pair whose student sequence is a whole segment of a packed row (a sequence
        cut into pieces, or held out, is not: it keeps plain cross-entropy)."""
        index: dict[bytes, int] = {}
        for i, p in enumerate(pairs):
            ids, labels = p.student
            index.setdefault(_key(ids[:-1], labels[1:]), i)
        spans: list[tuple[int, int, int, int, int]] = []
        teachers: list[np.ndarray] = []
        seen: dict[int, int] = {}  # pair -> its teacher sequence
        for r in range(packed.num_rows):
            row_ids, row_targets, positions = packed.row(r)
            starts = np.flatnonzero(positions == 0)  # a segment (or the padding) starts at 0
            for s, e in zip(starts, [*starts[1:], len(positions)], strict=True):
                k = index.get(_key(row_ids[s:e], row_targets[s:e]))
                if k is None:
                    continue
                if k not in seen:
                    seen[k] = len(teachers)
                    teachers.append(np.asarray(pairs[k].teacher, np.int32))
                pair = pairs[k]
                start = int(s) + pair.answer_start - 1
                spans.append((r, start, pair.answer_len, seen[k], int(pair.replay)))
        return cls(
            teachers, np.asarray(spans, np.int64), packed.context_length, packed.pad_id, teacher_dir
        )

    def __len__(self) -> int:
        """Answers with a teacher in the rows (a repeated example counts each time)."""
        return int(self.spans.shape[0])

    @property
    def answer_tokens(self) -> int:
        """Q&A answer tokens with a teacher (replay text not counted)."""
        return int(self.spans[self.spans[:, 4] == 0, 2].sum())

    @property
    def replay_texts(self) -> int:
        return int((self.spans[:, 4] == 1).sum())

    @property
    def replay_tokens(self) -> int:
        return int(self.spans[self.spans[:, 4] == 1, 2].sum())

    def batch(self, b: Batch, rows: np.ndarray, mask_answers: bool) -> Batch:
        """`b`, the packed rows `rows`, with the teacher's side of its answers (`b` itself
        when it holds none). mask_answers: the Q&A answers' targets become IGNORE in `labels`
        (no cross-entropy on them); replay text's always do (the KL replaces it)."""
        lo = np.searchsorted(self.spans[:, 0], rows, side="left")
        hi = np.searchsorted(self.spans[:, 0], rows, side="right")
        if not (hi - lo).any():
            return b
        answers = torch.zeros(b.labels.shape, dtype=torch.bool)
        replay = torch.zeros(b.labels.shape, dtype=torch.bool)
        chosen = []
        for i in range(len(rows)):
            for _, pos, n, t, is_replay in self.spans[lo[i] : hi[i]]:
                answers[i, pos : pos + n] = True
                replay[i, pos : pos + n] = bool(is_replay)
                chosen.append((self.teachers[t], int(n)))
        labels = b.labels.masked_fill(answers if mask_answers else replay, IGNORE)
        ids, positions, teacher_answers = self._teacher_rows(chosen)
        return DistillBatch(
            b.input_ids, labels, b.position_ids, answers, replay, ids, positions, teacher_answers
        )

    def _teacher_rows(
        self, chosen: list[tuple[np.ndarray, int]]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The sequences packed next-fit, in order, into rows of the context length (or of the
        longest sequence): ids, positions and the answer mask, cut to the fullest row."""
        width = max(self.context_length, *(len(seq) for seq, _ in chosen))
        place, fill = [], [0]
        for seq, _ in chosen:
            if fill[-1] + len(seq) > width:
                fill.append(0)
            place.append((len(fill) - 1, fill[-1]))
            fill[-1] += len(seq)
        width = max(fill)
        ids = np.full((len(fill), width), self.pad_id, dtype=np.int64)
        positions = np.zeros((len(fill), width), dtype=np.int64)
        mask = np.zeros((len(fill), width), dtype=bool)
        for (seq, n), (r, off) in zip(chosen, place, strict=True):
            m = len(seq)
            ids[r, off : off + m] = seq
            positions[r, off : off + m] = np.arange(m)
            mask[r, off + m - n - 1 : off + m - 1] = True
        for r, f in enumerate(fill):  # the padding is a segment of its own
            positions[r, f:] = np.arange(width - f)
        return torch.from_numpy(ids), torch.from_numpy(positions), torch.from_numpy(mask)

    # ----------------------------------------------------------------------------- on disk
    def save(self, path: Path) -> None:
        """One .npz (written to a temp file and renamed), for the processes of a launch."""
        lengths = np.asarray([len(t) for t in self.teachers], dtype=np.int64)
        flat = np.concatenate(self.teachers) if self.teachers else np.zeros(0, np.int32)
        meta = {
            "format": FORMAT,
            "context_length": self.context_length,
            "pad_id": self.pad_id,
            "teacher_dir": str(self.teacher_dir) if self.teacher_dir else None,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as f:
            np.savez(
                f, teachers=flat, lengths=lengths, spans=self.spans, meta=np.array(json.dumps(meta))
            )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> DistillData:
        if not path.is_file():
            raise JupiterError(f"no distillation data at {path}: build it again from the examples")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"][()]))
            flat, lengths, spans = data["teachers"], data["lengths"], data["spans"]
        if meta.get("format") != FORMAT:
            raise JupiterError(
                f"{path} is not distillation data of format {FORMAT}: build it again"
            )
        teachers = np.split(flat, np.cumsum(lengths)[:-1]) if len(lengths) else []
        teacher_dir = Path(meta["teacher_dir"]) if meta.get("teacher_dir") else None
        return cls(
            list(teachers), spans, int(meta["context_length"]), int(meta["pad_id"]), teacher_dir
        )
