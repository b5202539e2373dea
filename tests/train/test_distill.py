"""train.objective distill / sft+distill (context distillation) on tiny random Llamas: the
answer ids shared by student and teacher rows, the KL (0 for one model reading one prompt),
the LoRA teacher as the base itself, the KL falling as the student trains, sft untouched,
the one-line refusals, and the train stage printing and recording the teacher's cost."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from rich.console import Console
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerBase

from jupiter.config import DistillConfig, LoraConfig, ReplayConfig, TrainConfig, load_domain
from jupiter.data.chat import IGNORE, encode_text, pad_id_for
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.distill import DistillBatch, DistillData, encode_pair, replay_pair
from jupiter.errors import JupiterError
from jupiter.improve import stages
from jupiter.improve.distill import check_objective, distill_teacher
from jupiter.improve.training import train_stage
from jupiter.improve.workspace import Workspace
from jupiter.records import Example
from jupiter.synth.passages import Passage, open_book_prompt
from jupiter.train import mlx_loop
from jupiter.train.launch import Launch, launch_train
from jupiter.train.loop import TrainRun, TrainState, micro_loss, run_steps, start
from jupiter.train.trainer import train

FACTS = [
    (
        f"chunk-{i}",
        f"Module zork{i} has the function frob{i}, which returns {7 * i}.",
        f"What does zork{i}.frob{i} return?",
        f"It returns {7 * i}.",
    )
    for i in range(6)
]
CTX = 64


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    """Tiny models gain nothing from a second thread, and on cores another job keeps busy
    OpenMP's waiting threads made each step 50x slower (measured: 0.88 s against 0.018 s)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def qa(chunk_id: str, question: str, answer: str) -> Example:
    chat = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return Example("qa", "test", chunk_id, "t", messages=chat)


@pytest.fixture(scope="module")
def llama(tiny_model_dirs: dict[str, Path]) -> tuple[Path, PreTrainedTokenizerBase]:
    base = tiny_model_dirs["llama"]
    return base, AutoTokenizer.from_pretrained(base)


def packed_facts(
    tok: PreTrainedTokenizerBase, open_book: bool = True, others: bool = True
) -> tuple[PackedDataset, DistillData]:
    """Six distilled Q&A (and, with `others`, one Q&A without a chunk and one raw text),
    packed as `pack` packs; the teacher reads the chunk (open_book) or the bare question
    (the student's own prompt)."""
    examples = [qa(c, q, a) for c, _, q, a in FACTS]
    if others:
        examples.append(qa("", "What is 2 + 2?", "It is 4."))
        examples.append(Example("text", "test", "", "t", text="Raw text about lists and dicts."))
    packed = PackedDataset(encode_examples(tok, examples, [], 0.5, 0), CTX, pad_id_for(tok), 0)
    pairs = []
    for (cid, text, q, _), e in zip(FACTS, examples, strict=False):
        book = open_book_prompt(q, [Passage(cid, "zork", text)]) if open_book else q
        pair = encode_pair(tok, e.messages, book)
        assert not isinstance(pair, str), pair
        pairs.append(pair)
    return packed, DistillData.find(packed, pairs)


def config(**over: Any) -> TrainConfig:
    base = {
        "max_steps": 3,
        "micro_batch_size": 4,
        "warmup_steps": 1,
        "lr": 1e-2,
        "precision": "fp32",
        "checkpoint_every": 100,
        "checkpoint_every_epoch": False,
        "metrics": [],
        "log_every": 1,
        "gradient_checkpointing": False,
        "lora": LoraConfig(r=4, alpha=8, dropout=0.0),
    }
    return TrainConfig(**{**base, **over})


def begin(
    base: Path, out: Path, packed: PackedDataset, data: DistillData | None, **cfg: Any
) -> tuple[TrainRun, TrainState]:
    run = TrainRun(
        packed, config(**cfg), out, base, model_dir=base, device="cpu", progress=False, distill=data
    )
    return run, start(run)


def whole_batch(state: TrainState, packed: PackedDataset) -> Any:
    assert state.distill is not None
    return state.distill.batch(packed, 0, 0, packed.num_rows, 0, 1)


# ---------------------------------------------------------------------------------- data
def test_answer_ids_are_the_same_in_student_and_teacher_rows(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    _, tok = llama
    packed, data = packed_facts(tok)
    assert len(data) == 6  # the Q&A without a chunk and the raw text are not distilled
    rows = packed.rows_of(0, 0, packed.num_rows)  # a batch of every row, shuffled
    plain = packed.batch(0, 0, packed.num_rows)
    b = data.batch(plain, rows, False)
    assert isinstance(b, DistillBatch)
    assert torch.equal(b.input_ids, plain.input_ids) and torch.equal(b.labels, plain.labels)
    # the k-th answer target of the student is the k-th of the teacher, id for id
    student = b.labels[b.answers]
    teacher = b.teacher_ids[:, 1:][b.teacher_answers[:, :-1]]
    assert not b.teacher_answers[:, -1].any() and student.numel() == data.answer_tokens
    assert torch.equal(student, teacher)
    answers = tok.decode(student.tolist())
    assert all(a in answers for *_, a in FACTS)
    # at the recorded positions: the answer ids end each teacher sequence, after its chunk
    for r, pos, n, t, _ in data.spans:
        ids, targets, _ = packed.row(int(r))
        assert list(targets[pos : pos + n]) == list(data.teachers[t][-n:])
        assert "Passages:" in tok.decode(data.teachers[t][:-n])
    # objective distill: no cross-entropy on those answers, the rest untouched
    masked = data.batch(plain, rows, True)
    assert (masked.labels[b.answers] == IGNORE).all()
    assert torch.equal(masked.labels[~b.answers], plain.labels[~b.answers])
    data.save(tmp_path / "d.npz")  # what a torchrun launch reads back
    again = DistillData.load(tmp_path / "d.npz")
    assert (again.spans == data.spans).all()
    assert all((x == y).all() for x, y in zip(again.teachers, data.teachers, strict=True))


# ------------------------------------------------------------------------------------ KL
def reference_kl(s: torch.Tensor, t: torch.Tensor, temp: float) -> torch.Tensor:
    """KL(softmax(t/T) || softmax(s/T)) x T^2 summed over rows, in plain autograd."""
    ls, lt = torch.log_softmax(s.float() / temp, -1), torch.log_softmax(t.float() / temp, -1)
    return (lt.exp() * (lt - ls)).sum() * temp**2


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_grouped_kl_matches_plain_autograd_across_chunks(
    monkeypatch: pytest.MonkeyPatch, dtype: torch.dtype
) -> None:
    from jupiter.train import distill

    monkeypatch.setattr(distill, "KL_CHUNK_ELEMENTS", 3 * 50)  # 3 rows a chunk, 11 rows
    gen = torch.Generator().manual_seed(0)
    s = (torch.randn(11, 50, generator=gen) * 3).to(dtype).requires_grad_(True)
    t = (torch.randn(11, 50, generator=gen) * 3).to(dtype)
    group = torch.tensor([0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0])
    sums = distill.grouped_kl(s, t, group, (2.0, 1.0))
    (sums * torch.tensor([0.5, 1.0])).sum().backward()
    got = s.grad
    assert got is not None and got.dtype == dtype

    ref = s.detach().float().requires_grad_(True)
    a = reference_kl(ref[group == 0], t[group == 0], 2.0)
    b = reference_kl(ref[group == 1], t[group == 1], 1.0)
    (0.5 * a + b).backward()
    assert sums.tolist() == pytest.approx([float(a), float(b)], rel=1e-5)
    tol = 1e-6 if dtype == torch.float32 else 1e-2
    assert torch.allclose(got.float(), ref.grad, atol=tol)  # type: ignore[arg-type]
    assert float(a) > 1.0 and float(b) > 1.0  # far from zero: the check can fail
    # no rows: zero, still on the graph
    empty = torch.zeros(0, 50, requires_grad=True)
    none = distill.grouped_kl(empty, empty.detach(), torch.zeros(0).long(), (1.0, 1.0))
    none.sum().backward()
    assert none.tolist() == [0.0, 0.0] and empty.grad is not None


@pytest.mark.parametrize("loss", ["auto", "plain"])
def test_kl_is_zero_for_one_model_reading_one_prompt(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path, loss: str
) -> None:
    base, tok = llama
    for open_book in (False, True):
        packed, data = packed_facts(tok, open_book)
        _, state = begin(
            base, tmp_path / f"{open_book}", packed, data, objective="distill", loss=loss
        )
        assert state.distill is not None and state.distill.teacher is not None  # a frozen copy
        with torch.no_grad():
            micro_loss(state, whole_batch(state, packed), 1)
        kl = state.distill.end_step(0.0, 1, True)["kl"]
        if open_book:
            assert kl > 1e-4  # the chunk changes what the teacher expects
        else:
            assert abs(kl) < 1e-6


def test_lora_teacher_is_the_base_and_gets_no_gradient(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    base, tok = llama
    packed, data = packed_facts(tok)
    _, state = begin(base, tmp_path, packed, data, method="lora", objective="sft+distill")
    assert state.distill is not None and state.distill.teacher is None  # the adapter disabled
    with torch.no_grad():  # an adapter that changes the model (LoRA's B starts at zero)
        for name, p in state.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.5)
    b = whole_batch(state, packed)
    teacher = state.distill.teacher_logits(b)
    reference = AutoModelForCausalLM.from_pretrained(base).eval()
    with torch.no_grad():
        ref = reference(input_ids=b.teacher_ids, position_ids=b.teacher_positions).logits
        adapted = state.model(input_ids=b.teacher_ids, position_ids=b.teacher_positions).logits
    torch.testing.assert_close(teacher, ref[b.teacher_answers])
    assert not torch.allclose(adapted[b.teacher_answers], teacher, atol=1e-3)  # adapter on again
    assert state.model.training and not teacher.requires_grad
    micro_loss(state, b, 100).backward()
    grads = {n for n, p in state.model.named_parameters() if p.grad is not None}
    assert grads and all("lora_" in n for n in grads)


def test_full_teacher_is_a_frozen_copy(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    base, tok = llama
    packed, data = packed_facts(tok)
    _, state = begin(base, tmp_path, packed, data, objective="distill")
    assert state.distill is not None and state.distill.teacher is not None
    micro_loss(state, whole_batch(state, packed), 100).backward()
    assert all(p.grad is None and not p.requires_grad for p in state.distill.teacher.parameters())
    assert all(p.grad is not None for p in state.model.parameters())


def test_distilling_lowers_the_kl_on_the_training_rows(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    base, tok = llama
    packed, data = packed_facts(tok, others=False)  # the KL is the whole loss
    run, state = begin(
        base,
        tmp_path,
        packed,
        data,
        objective="distill",
        max_steps=8,
        micro_batch_size=packed.num_rows,
        lr=1e-3,
        seed=7,
    )
    steps: list[dict[str, Any]] = []
    run_steps(run, state, 8, steps.append)  # every step reads every row
    kl = [s["kl"] for s in steps]
    assert kl[0] > 1e-4 and kl[-1] < 0.5 * kl[0], kl


def test_sft_is_unchanged(llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path) -> None:
    """objective sft (the default) trains as before, distillation data or not; sft+distill
    adds kl_weight x the summed KL over the step's targets."""
    base, tok = llama
    packed, data = packed_facts(tok)
    rows = packed.num_rows
    losses: dict[str, list[float]] = {}
    kls: list[float] = []
    for name, data_, over in [
        ("default", None, {}),
        ("sft", data, {"objective": "sft", "distill": DistillConfig(kl_weight=3.0)}),
        ("both", data, {"objective": "sft+distill", "distill": DistillConfig(kl_weight=3.0)}),
    ]:
        run, state = begin(base, tmp_path / name, packed, data_, micro_batch_size=rows, **over)
        assert (state.distill is None) == (name != "both")
        steps: list[dict[str, Any]] = []
        run_steps(run, state, 2, steps.append)
        losses[name] = [s["loss"] for s in steps]
        kls = [s.get("kl", 0.0) for s in steps]
    assert losses["sft"] == losses["default"]
    targets = packed.target_count(0, 0, rows)
    added = 3.0 * kls[0] * data.answer_tokens / targets
    assert losses["both"][0] == pytest.approx(losses["default"][0] + added, rel=1e-5)


@pytest.mark.slow
def test_two_processes_distil_as_one(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    """DDP (torchrun, gloo): the teacher rows travel in the launch spec, each rank distils
    its share, and the KL's sum over the step's targets makes the same losses."""
    base, tok = llama
    packed, data = packed_facts(tok)
    results = {}
    for world, micro in ((1, 4), (2, 2)):
        cfg = config(method="lora", objective="sft+distill", micro_batch_size=micro)
        run = TrainRun(
            packed,
            cfg,
            tmp_path / str(world),
            base,
            model_dir=base,
            device="cpu",
            progress=False,
            distill=data,
        )
        results[world] = train(run) if world == 1 else launch_train(run, Launch(nproc=2))
    assert results[2].losses == pytest.approx(results[1].losses, rel=1e-5)
    assert results[2].distill is not None and results[2].distill["teacher_s"] > 0


# -------------------------------------------------------------------------------- errors
def workspace(tmp_path: Path, base: Path, train: str, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """A domain of three small local documents, fine-tuning `base` with `train`."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for i, (_, text, *_) in enumerate(FACTS[:3]):
        (docs / f"zork{i}.txt").write_text(text + "\n")
    (tmp_path / "d.yaml").write_text(
        f"name: d\nsources: [{{type: local, path: docs}}]\nchunking: {{heldout_fraction: 0.0}}\n"
        f"model: {{base: {base}, context_length: {CTX}}}\ntrain: {{{train}}}\n"
    )
    return Workspace(
        load_domain(str(tmp_path / "d.yaml")), console=Console(file=io.StringIO(), width=400)
    )


def one_line(err: pytest.ExceptionInfo[JupiterError], *words: str) -> None:
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


def test_setups_that_cannot_distil_are_refused_in_one_line(
    llama: tuple[Path, PreTrainedTokenizerBase],
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, tok = llama
    ws = workspace(tmp_path, base, "objective: distill", monkeypatch)
    with pytest.raises(JupiterError) as err:
        check_objective(ws, base, "mlx")
    one_line(err, "train.objective distill", "MLX", "set train.objective: sft")
    packed, data = packed_facts(tok)
    run = TrainRun(
        packed, config(objective="distill"), tmp_path / "m", base, model_dir=base, distill=data
    )
    with pytest.raises(JupiterError) as err:  # before mlx is even imported
        mlx_loop.start(run)
    one_line(err, "MLX", "set train.objective: sft")
    kl_replay = workspace(tmp_path, base, "replay: {fraction: 0.1, loss: kl}", monkeypatch)
    check_objective(kl_replay, base, "torch")
    assert not kl_replay.fallbacks
    check_objective(kl_replay, base, "mlx")  # a Mac: replay trains with cross-entropy, said
    assert kl_replay.fallbacks == {"train.replay.loss": "ce"}
    said = kl_replay.console.file.getvalue()  # type: ignore[attr-defined]
    assert "warning: train.replay.loss kl needs a teacher forward" in said
    assert kl_replay.cfg.train.replay.loss == "kl"  # the loaded config keeps the YAML's
    run = TrainRun(
        packed, config(replay=ReplayConfig(fraction=0.1, loss="kl")), tmp_path / "k", base
    )
    with pytest.raises(JupiterError) as err:  # the MLX loop itself has no teacher
        mlx_loop.start(run)
    one_line(err, "train.replay.loss kl", "MLX", "set train.replay.loss: ce")
    kl_replay.close()
    other = workspace(
        tmp_path,
        base,
        f"replay: {{fraction: 0.1, loss: kl}}, distill: {{teacher: {base}}}",
        monkeypatch,
    )
    with pytest.raises(JupiterError) as err:
        check_objective(other, base, "torch")
    one_line(err, "train.replay.loss kl", "set the teacher to base")
    other.close()
    with pytest.raises(JupiterError) as err:
        check_objective(ws, None, "torch")
    one_line(err, "from scratch", "set model.base, or train.distill.teacher")
    on_cluster = workspace(tmp_path, base, "replay: {fraction: 0.1, loss: kl}", monkeypatch)
    on_cluster.cluster = object()  # islands run no teacher forward: cross-entropy, said
    check_objective(on_cluster, base, "torch")
    assert on_cluster.fallbacks == {"train.replay.loss": "ce"}
    said = on_cluster.console.file.getvalue()  # type: ignore[attr-defined]
    assert "which cluster training does not run" in said
    on_cluster.close()
    ws.cluster = object()  # a distilling objective has no such stand-in: refused
    with pytest.raises(JupiterError) as err:
        check_objective(ws, base, "torch")
    one_line(err, "train.objective distill", "cluster training", "train without --cluster")
    ws.cluster = None
    with pytest.raises(JupiterError) as err:
        distill_teacher(ws, "no/such/teacher")
    one_line(err, "train.distill.teacher", "no/such/teacher", "set it to a model folder")
    with pytest.raises(JupiterError) as err:  # another family's tokenizer
        distill_teacher(ws, str(tiny_model_dirs["mistral"]), tok)
    one_line(err, "lacks the student's tokenizer", "set it to base")
    assert distill_teacher(ws, str(base), tok) == base
    fsdp = workspace(tmp_path, base, "objective: distill, distributed: fsdp", monkeypatch)
    fsdp.launch = Launch(nproc=2)
    with pytest.raises(JupiterError) as err:
        check_objective(fsdp, base, "torch")
    one_line(err, "distributed: fsdp", "set train.distributed: ddp")
    ws.close()
    fsdp.close()


# -------------------------------------------------------------------------------- replay
REPLAY = ["the cat sat on the mat and purred", "rivers run to the sea", "one two three four"]


def packed_with_replay(tok: PreTrainedTokenizerBase) -> tuple[PackedDataset, DistillData]:
    """The six facts (no teacher for them: objective sft) and three replay texts, packed."""
    examples = [qa(c, q, a) for c, _, q, a in FACTS]
    texts = [encode_text(tok, t) for t in REPLAY]
    seqs = encode_examples(tok, examples, [], 0.5, 0) + texts
    packed = PackedDataset(seqs, CTX, pad_id_for(tok), 0)
    pairs = [replay_pair(ids, labels) for ids, labels in texts]
    assert all(not isinstance(p, str) for p in pairs)
    return packed, DistillData.find(packed, pairs)  # type: ignore[arg-type]


def test_replay_texts_are_read_whole_by_the_teacher(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    _, tok = llama
    packed, data = packed_with_replay(tok)
    lengths = [len(encode_text(tok, t)[0]) for t in REPLAY]
    assert data.replay_texts == 3 and data.replay_tokens == sum(n - 1 for n in lengths)
    assert data.answer_tokens == 0 and (data.spans[:, 4] == 1).all()
    assert replay_pair([5], [5]) == "not a whole text"
    rows = packed.rows_of(0, 0, packed.num_rows)
    plain = packed.batch(0, 0, packed.num_rows)
    b = data.batch(plain, rows, False)
    assert isinstance(b, DistillBatch) and torch.equal(b.replay, b.answers)
    # the KL replaces the replay tokens' cross-entropy; the Q&A keep theirs
    assert (b.labels[b.replay] == IGNORE).all() and (plain.labels[b.replay] != IGNORE).all()
    assert torch.equal(b.labels[~b.replay], plain.labels[~b.replay])
    assert int(b.replay.sum()) == data.replay_tokens
    # the teacher's targets are the student's: the same text
    teacher = b.teacher_ids[:, 1:][b.teacher_answers[:, :-1]]
    assert torch.equal(plain.labels[b.replay], teacher)
    data.save(tmp_path / "d.npz")
    assert (DistillData.load(tmp_path / "d.npz").spans == data.spans).all()


def test_replay_kl_is_zero_at_the_start_and_replaces_the_cross_entropy(
    llama: tuple[Path, PreTrainedTokenizerBase], tmp_path: Path
) -> None:
    base, tok = llama
    packed, data = packed_with_replay(tok)
    replay = ReplayConfig(fraction=0.1, loss="kl")
    _, state = begin(base, tmp_path, packed, data, method="lora", replay=replay)
    assert state.distill is not None and state.distill.teacher is None  # the adapter disabled
    assert state.distill.label == "replay kl" and not state.distill.mask_answers
    b = whole_batch(state, packed)
    with torch.no_grad():
        micro_loss(state, b, 1)
    got = state.distill.end_step(0.0, 1, False)
    assert set(got) == {"replay_kl"} and abs(got["replay_kl"]) < 1e-6  # LoRA's B starts at 0
    with torch.no_grad():
        for name, p in state.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0.0, 0.5)
    n = packed.target_count(0, 0, packed.num_rows)
    loss = micro_loss(state, b, n)
    kl_sum = float(state.distill.step_kl[1])
    assert kl_sum > 1e-3 and float(state.distill.step_kl[0]) == 0.0
    with torch.no_grad():  # the Q&A tokens' cross-entropy, summed, beside the replay KL
        logits = state.model(input_ids=b.input_ids, position_ids=b.position_ids).logits
        ce = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), b.labels.flatten(), ignore_index=IGNORE, reduction="sum"
        )
    assert float(loss) * n == pytest.approx(float(ce) + kl_sum, rel=1e-4)
    loss.backward()
    grads = {name for name, p in state.model.named_parameters() if p.grad is not None}
    assert grads and all("lora_" in name for name in grads)


# ---------------------------------------------------------------------------- end to end
def test_train_stage_distils_prints_and_records_the_teacher_cost(
    llama: tuple[Path, PreTrainedTokenizerBase],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base, _ = llama
    train = (
        "method: lora, lora: {r: 4, alpha: 8, dropout: 0.0}, objective: sft+distill, "
        "max_steps: 3, micro_batch_size: 2, warmup_steps: 1, lr: 1.0e-3, metrics: [], "
        "precision: fp32, heldout_fraction: 0.0, log_every: 1"
    )
    ws = workspace(tmp_path, base, train, monkeypatch)
    stages.collect_stage(ws, 1)
    chunks = list(ws.store.iter_chunks(split="train"))
    assert len(chunks) == 3
    examples = []
    for c in chunks:
        i = next(i for i, (_, text, *_) in enumerate(FACTS) if text in c.text)
        examples.append(qa(c.id, FACTS[i][2], FACTS[i][3]))
    examples.append(qa("elsewhere", "What is 2 + 2?", "It is 4."))
    for e in examples:
        e.status, e.cycle = "accepted", 1
    ws.store.add_examples(examples)
    info = train_stage(ws, 1)
    said = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "distill (sft+distill): 3 answers" in said and "1 without their chunk" in said
    out = capsys.readouterr().out
    assert "distill: one teacher forward without gradients per micro-batch (+" in out
    assert "of a step's time, measured over steps 2-3)" in out
    cost = info["distill"]
    assert cost["teacher_s"] > 0 and cost["teacher_overhead"] > 0
    rows = [json.loads(line) for line in (ws.train_dir(1) / "metrics.jsonl").open()]
    logged = [r for r in rows if r["kind"] == "distill"]
    assert len(logged) == 1 and logged[0]["teacher_overhead"] == cost["teacher_overhead"]
    assert all(r["kl"] >= 0 for r in rows if r["kind"] == "train")
    assert (ws.student_dir(1) / "adapter_config.json").is_file()
    ws.close()


def test_a_mac_trains_replay_kl_with_cross_entropy_and_says_so(
    llama: tuple[Path, PreTrainedTokenizerBase],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The MLX loop runs no teacher: the train stage warns, replays with cross-entropy and
    records the fallback; the loaded config keeps the YAML's kl."""
    pytest.importorskip("mlx.core")
    from jupiter.improve import training, trainrun

    base, _ = llama
    train = (
        "method: lora, lora: {r: 4, alpha: 8, dropout: 0.0}, max_steps: 2, "
        "micro_batch_size: 2, warmup_steps: 1, lr: 1.0e-3, metrics: [], precision: fp32, "
        "heldout_fraction: 0.0, replay: {fraction: 0.2, samples: 2, max_tokens: 12, loss: kl}"
    )
    ws = workspace(tmp_path, base, train, monkeypatch)
    for module in (training, trainrun):
        monkeypatch.setattr(module, "local_engine", lambda: "mlx")
    stages.collect_stage(ws, 1)
    examples = [qa(c.id, FACTS[0][2], FACTS[0][3]) for c in ws.store.iter_chunks(split="train")]
    for e in examples:
        e.status, e.cycle = "accepted", 1
    ws.store.add_examples(examples)
    info = train_stage(ws, 1)
    said = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "train.replay.loss kl needs a teacher forward" in said and "replay kl:" not in said
    assert info["fallbacks"] == {"train.replay.loss": "ce"} and info["steps"] == 2
    assert ws.cfg.train.replay.loss == "kl"
    ws.close()
