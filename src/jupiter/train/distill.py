"""Context distillation in the torch loop (Snell et al. 2022, "Learning by Distilling
Context"; SDFT, Yang et al. 2024; the idea behind Knowledge Modules and Cartridges): the
student reads a question alone, a teacher reads the same Q&A with its chunk before the
question (data/distill.py), and the student learns the teacher's next-token distribution on
the answer tokens:

    KL(teacher || student) at each answer position, over the whole vocabulary, both
    softened by the temperature T, times T^2 (Hinton et al. 2015: the gradients keep their
    scale whatever T).

train.objective distill: that KL instead of the answers' cross-entropy; sft+distill: both.
Tokens without a teacher (raw text, Q&A whose chunk is unknown) keep plain cross-entropy,
and a step's loss stays a mean over its target tokens:

    (sum of CE over the CE targets + kl_weight x sum of KL over the answer targets) / targets

so a batch of answers alone gives mean CE + kl_weight x mean KL (sft+distill) or
kl_weight x mean KL (distill). The student's answer logits come out of its one forward
(`logits_to_keep` = the answer positions); the teacher runs one forward per micro-batch,
without gradients, over the teacher sequences of that micro-batch's answers only.

The teacher: the base model with the LoRA adapter disabled (peft's `disable_adapter`); for
method full, a frozen copy of the run's starting weights; or the model dir that
train.distill.teacher names (same tokenizer). Its cost is timed over the first steps.

Replay against forgetting (train.replay.loss kl) runs through the same teacher, always the
base: on the base's own sampled text, KL(base || student) at every token in place of the
cross-entropy on the sampled token (of which it is the exact expectation, where training
on samples is a one-sample estimate), at temperature 1 and weight 1, so a replay token
weighs in the step's mean loss as a cross-entropy token does.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from transformers import PreTrainedModel

from jupiter.config import TrainConfig
from jupiter.data.dataset import Batch, PackedDataset
from jupiter.data.distill import DistillBatch, DistillData
from jupiter.errors import JupiterError
from jupiter.models.loss import logits_at, no_logits
from jupiter.train import dist
from jupiter.train.dist import Dist
from jupiter.train.setup import autocast_dtype

# Steps whose teacher forward is timed apart (CUDA synchronised around it), after the first
# step, whose allocations and warm-up are no step's typical cost.
MEASURED_STEPS = 3


def teacher_setting(cfg: TrainConfig) -> str | None:
    """The setting that gives a run a teacher's forward: a distilling objective, or replay
    with loss kl; None for neither."""
    if cfg.objective != "sft":
        return f"train.objective {cfg.objective}"
    if cfg.replay.fraction > 0 and cfg.replay.loss == "kl":
        return "train.replay.loss kl"
    return None


def teacher_off(cfg: TrainConfig) -> str:
    """How to turn that setting off, for the refusals."""
    return "set train.objective: sft" if cfg.objective != "sft" else "set train.replay.loss: ce"


def unsupported(what: str, where: str, fix: str) -> JupiterError:
    """The one-line refusal of a setup the distilling loop does not run in."""
    return JupiterError(f"{what} runs in the torch loop only, not with {where}: {fix}")


def picked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The (n, V) logits of mask's positions, from logits of those positions or of all."""
    return logits if logits.dim() == 2 else logits[mask]


# Elements of the vocabulary-wide KL taken at once: 4 MB per fp32 temporary whatever the
# vocabulary (Gemma's 262k tokens: 4 rows), so a step's replay positions never hold several
# (positions x vocabulary) fp32 copies at once. Small enough that glibc serves the
# temporaries from its heap and reuses them: with 64 MB ones each chunk was a fresh mmap,
# page-faulted in again (measured 2.9 s against 1.4 s for 400 rows, one thread).
KL_CHUNK_ELEMENTS = 1 << 20


class _GroupedKL(torch.autograd.Function):
    """Per group g, the sum over its rows of KL(softmax(t/T_g) || softmax(s/T_g)) x T_g^2,
    in fp32 chunks of rows. Its gradient per row, (softmax(s/T) - softmax(t/T)) x T, is
    taken in the same pass and kept in the student's dtype; backward only scales it."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: torch.autograd.function.FunctionCtx,
        student: torch.Tensor,
        teacher: torch.Tensor,
        group: torch.Tensor,
        temps: tuple[float, ...],
    ) -> torch.Tensor:
        sums = torch.zeros(len(temps), dtype=torch.float32, device=student.device)
        grad = torch.empty_like(student)
        scaled = any(t != 1.0 for t in temps)
        row_t = torch.tensor(temps, dtype=torch.float32, device=student.device)[group]
        with torch.autocast(student.device.type, enabled=False):
            for lo, hi in _chunks(student):
                t_ = row_t[lo:hi, None]
                x, y = student[lo:hi].float(), teacher[lo:hi].float()  # fp32: no copy
                if scaled:
                    x, y = x / t_, y / t_
                ls, lt = F.log_softmax(x, dim=-1), F.log_softmax(y, dim=-1)
                del x, y
                pt = lt.exp()
                kl = lt.sub_(ls).mul_(pt).sum(dim=-1)  # sum p_t (log p_t - log p_s)
                sums.index_add_(0, group[lo:hi], kl * t_[:, 0] ** 2)
                g = ls.exp_().sub_(pt)  # p_s - p_t
                grad[lo:hi] = g.mul_(t_) if scaled else g
        ctx.save_for_backward(grad, group)
        return sums

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: torch.autograd.function.FunctionCtx, grad_sums: torch.Tensor
    ) -> tuple[torch.Tensor | None, ...]:
        grad, group = ctx.saved_tensors  # type: ignore[attr-defined]
        return grad * grad_sums[group, None].to(grad.dtype), None, None, None


def _chunks(logits: torch.Tensor) -> list[tuple[int, int]]:
    n, width = logits.shape
    size = max(1, KL_CHUNK_ELEMENTS // max(1, width))
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def grouped_kl(
    student: torch.Tensor, teacher: torch.Tensor, group: torch.Tensor, temps: Sequence[float]
) -> torch.Tensor:
    """(len(temps),) fp32: for each group g, the sum over the rows r with group[r] == g of
    KL(softmax(teacher_r / T) || softmax(student_r / T)) x T^2, T = temps[g]; gradients
    flow to `student` only. The (n, V) logits are read in chunks of rows, never copied
    whole to fp32 or split by group."""
    out = _GroupedKL.apply(student, teacher.detach(), group, tuple(float(t) for t in temps))
    return out  # type: ignore[no-any-return]


def teacher_model(
    data: DistillData, cfg: TrainConfig, model: PreTrainedModel, device: torch.device
) -> torch.nn.Module | None:
    """The frozen teacher, or None: the student itself with its LoRA adapter disabled.
    Called before any step or restored checkpoint, so a copy holds the starting weights."""
    amp = autocast_dtype(cfg.precision, device)
    # bf16 weights where the forward runs in bf16 anyway: half the memory of a second model
    dtype = torch.bfloat16 if amp == torch.bfloat16 else torch.float32
    if data.teacher_dir is not None:
        from jupiter.models.loading import load_for_inference

        teacher, _ = load_for_inference(data.teacher_dir, device=device, dtype=dtype)
    elif hasattr(model, "disable_adapter"):
        return None
    else:
        teacher = copy.deepcopy(model)
        teacher.to(dtype=dtype)  # type: ignore[call-arg]
    teacher.requires_grad_(False)
    width = teacher.get_output_embeddings().weight.shape[0]
    if width != model.get_output_embeddings().weight.shape[0]:
        raise JupiterError(
            f"train.distill.teacher {data.teacher_dir} scores {width} tokens, the student "
            f"{model.get_output_embeddings().weight.shape[0]}: give a teacher with the "
            "student's tokenizer, or set it to base"
        )
    return teacher.eval()


class Distiller:
    """The teacher's side of a distilling run: each micro-batch's teacher rows, the
    teacher's forward, the KL, and the measured cost."""

    def __init__(
        self,
        data: DistillData,
        cfg: TrainConfig,
        student: PreTrainedModel,
        teacher: torch.nn.Module | None,
        d: Dist,
    ) -> None:
        self.data, self.student, self.teacher, self.d = data, student, teacher, d
        self.mask_answers = cfg.objective == "distill"  # no cross-entropy on the answers
        self.label = "distill" if cfg.objective != "sft" else "replay kl"
        self.weight, self.temperature = cfg.distill.kl_weight, cfg.distill.temperature
        # this step's summed KL and token count, on Q&A answers and on replay (no sync)
        self.step_kl = torch.zeros(2, device=d.device)
        self.step_tokens = [0, 0]
        self.teacher_s = 0.0  # this step's seconds in the teacher's forward
        self.steps = 0  # steps ended in this process
        self.timings: list[tuple[float, float]] = []  # (teacher, whole step) seconds, measured
        self.cost: dict[str, float] | None = None  # set once measured

    @classmethod
    def create(
        cls,
        data: DistillData,
        cfg: TrainConfig,
        model: PreTrainedModel,
        d: Dist,
        from_scratch: bool,
    ) -> Distiller:
        if d.world > 1 and cfg.distributed != "ddp":
            raise unsupported(
                teacher_setting(cfg) or "distilling",
                f"distributed: {cfg.distributed}",
                "set train.distributed: ddp",
            )
        if from_scratch and data.teacher_dir is None:
            raise JupiterError(
                f"train.objective {cfg.objective} needs a teacher, and a model trained from "
                "scratch starts random: set model.base, or train.distill.teacher to a model dir"
            )
        return cls(data, cfg, model, teacher_model(data, cfg, model, d.device), d)

    def batch(
        self, data: PackedDataset, epoch: int, index: int, size: int, rank: int, world: int
    ) -> Batch:
        """`data.batch(...)` with the teacher rows of its answers (a DistillBatch)."""
        b = data.batch(epoch, index, size, rank, world)
        rows = data.rows_of(epoch, index, size)[rank * size // world : (rank + 1) * size // world]
        return self.data.batch(b, np.asarray(rows), self.mask_answers)

    @torch.no_grad()
    def teacher_logits(self, b: DistillBatch) -> torch.Tensor:
        """The teacher's (n, V) logits at the answer positions, without gradients."""
        dev = self.d.device
        model = self.teacher if self.teacher is not None else self.student
        off = (
            self.student.disable_adapter()  # type: ignore[operator]
            if self.teacher is None
            else contextlib.nullcontext()
        )
        mask = b.teacher_answers.to(dev)
        was = model.training
        model.eval()  # no dropout: the target is the teacher's own distribution
        try:
            with off:
                out = model(
                    input_ids=b.teacher_ids.to(dev),
                    use_cache=False,
                    position_ids=b.teacher_positions.to(dev),
                    logits_to_keep=logits_at(mask),
                )
        finally:
            model.train(was)
        return picked(out.logits, mask)

    def logits_to_keep(self, b: Batch, labels: torch.Tensor) -> int | torch.Tensor:
        """The student's `logits_to_keep` beside the fused loss: its distilled answers'."""
        return (
            logits_at(b.answers.to(labels.device))
            if isinstance(b, DistillBatch)
            else (no_logits(labels))
        )

    def add_kl(self, loss: torch.Tensor, logits: torch.Tensor, b: Batch) -> torch.Tensor:
        """`loss` + kl_weight x the summed KL on the distilled answers of `b`, if any."""
        return loss + self.kl(logits, b) if isinstance(b, DistillBatch) else loss

    def kl(self, student_logits: torch.Tensor, b: DistillBatch) -> torch.Tensor:
        """kl_weight x the summed KL on the Q&A answers of `b`, plus the summed KL on its
        replay text (student logits from logits_at)."""
        mask = b.answers.to(self.d.device)
        student = picked(student_logits, mask)
        t0 = self._clock()
        teacher = self.teacher_logits(b)
        self.teacher_s += self._clock() - t0
        assert teacher.shape == student.shape  # the k-th answer position of each (see data)
        replay = b.replay.to(self.d.device)[mask]  # which answer positions are replay text
        # group 0: Q&A answers at the distillation temperature; 1: replay text at T = 1
        sums = grouped_kl(student, teacher, replay.long(), (self.temperature, 1.0))
        qa, rp = sums[0], sums[1]
        self.step_kl += sums.detach()
        n_replay = int(replay.sum())
        self.step_tokens[0] += student.shape[0] - n_replay
        self.step_tokens[1] += n_replay
        return self.weight * qa + rp

    def _clock(self) -> float:
        measuring = self.steps >= 1 and self.cost is None
        if measuring and self.d.device.type == "cuda":
            torch.cuda.synchronize(self.d.device)
        return time.perf_counter()

    def end_step(self, seconds: float, step: int, last: bool) -> dict[str, float]:
        """Close global step `step`, of `seconds`: its mean KL per answer token (and per
        replay token) over all ranks, and the cost once MEASURED_STEPS steps after this
        process's first were timed (or the run ends)."""
        tokens = torch.tensor([float(n) for n in self.step_tokens], device=self.d.device)
        total = dist.sum_(self.d, torch.cat([self.step_kl.float(), tokens]))
        if self.cost is None and (self.steps >= 1 or last):
            self.timings.append((self.teacher_s, seconds))
            if len(self.timings) == MEASURED_STEPS or last:
                self.cost = self._measured(step)
        self.steps += 1
        self.step_kl.zero_()
        self.step_tokens, self.teacher_s = [0, 0], 0.0
        out = {}
        for key, i in (("kl", 0), ("replay_kl", 1)):
            if total[2 + i] > 0:
                out[key] = float(total[i] / total[2 + i])
        return out

    def _measured(self, step: int) -> dict[str, float]:
        n = len(self.timings)
        teacher = sum(t for t, _ in self.timings) / n
        whole = sum(s for _, s in self.timings) / n
        # the share it adds to the rest of the step: what a step without it would take
        return {
            "teacher_s": teacher,
            "step_s": whole,
            "teacher_overhead": teacher / max(whole - teacher, 1e-9),
            "first_step": float(step + 1 - n),
            "last_step": float(step),
        }

    def cost_line(self) -> str:
        assert self.cost is not None
        first, last = int(self.cost["first_step"]), int(self.cost["last_step"])
        steps = f"step {first}" if first == last else f"steps {first}-{last}"
        return (
            f"{self.label}: one teacher forward without gradients per micro-batch "
            f"(+{self.cost['teacher_overhead']:.0%} of a step's time, measured over {steps})"
        )
