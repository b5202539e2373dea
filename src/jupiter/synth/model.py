"""A Hugging Face causal LM as a generator: a promoted student answers the template
questions (closed book), and sits the same exams as the extractive baseline.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from jupiter.config import GeneratorConfig
from jupiter.errors import JupiterError
from jupiter.models.decode import cut_left, left_pad
from jupiter.models.scoring import split_prefills
from jupiter.records import Chunk, Example
from jupiter.synth.questions import Question, iter_questions


class ModelGenerator:
    """Greedy answers and choice log-likelihoods from the model in `model_dir`."""

    def __init__(
        self,
        model_dir: Path,
        gen_id: str,
        max_new_tokens: int = 96,
        batch_size: int = 16,
        system_prompt: str = "",
        device: str | None = None,
        chat_template: str = "auto",
        dtype: str = "float32",  # or "auto": bf16 on CUDA and on a CPU that runs it natively
    ) -> None:
        import torch

        from jupiter.data.chat import pad_id_for
        from jupiter.data.templates import stop_token_ids
        from jupiter.models.decode import torch_dtype
        from jupiter.models.folder import is_model_dir
        from jupiter.models.loading import load_for_inference

        if not is_model_dir(Path(model_dir)):
            raise JupiterError(
                f"generator model not found: {model_dir} has no config.json "
                "(expected a Hugging Face model directory or a LoRA adapter)"
            )
        self.id = gen_id
        self.max_new_tokens = max_new_tokens
        self.batch_size = max(1, batch_size)
        self.system_prompt = system_prompt
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        model, self.tokenizer = load_for_inference(
            Path(model_dir),
            device=self.device,
            chat_template=chat_template,
            dtype=torch_dtype(dtype, self.device, cpu_bf16=True),
        )
        self.model = model
        self.dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
        if self.tokenizer.eos_token_id is None:
            raise JupiterError(f"the tokenizer in {model_dir} has no eos token")
        self.eos_id: int = self.tokenizer.eos_token_id
        # eos and the template's turn-end token (Gemma's <end_of_turn>) both end an answer
        saved = getattr(model.generation_config, "eos_token_id", None)
        self.stop_ids: list[int] = stop_token_ids(self.tokenizer, [saved])
        self.pad_id: int = pad_id_for(self.tokenizer)
        self.context = int(getattr(self.model.config, "max_position_embeddings", 2048))
        # the last answer batch's prompts, each with the KV cache of all its tokens but the
        # last (its prefill, cut out of the batch's cache): a multiple-choice question asked
        # with the same prompt right after scores its choices from it (models/scoring.py)
        self.prefills: dict[tuple[int, ...], Any] = {}

    # -------------------------------------------------------------------------- prompts
    def prompt_ids(self, question: str, budget: int) -> list[int]:
        """The chat prompt for `question`, cut from the left to `budget` tokens.

        Rendered to text and tokenized without specials: the template writes bos itself.
        The leading bos survives the cut, so the model still sees a well-formed start. A
        system prompt the template rejects is folded into the question, as in training.
        """
        from jupiter.data.chat import fit_template

        messages = [{"role": "user", "content": question}]
        if self.system_prompt:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        fitted, _ = fit_template(self.tokenizer, messages)
        text = self.tokenizer.apply_chat_template(
            fitted, add_generation_prompt=True, tokenize=False
        )
        if not isinstance(text, str):
            raise JupiterError("the tokenizer's chat template did not render to text")
        ids: list[int] = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return cut_left(ids, budget, self.tokenizer.bos_token_id)

    # --------------------------------------------------------------------------- answer
    def answer(self, questions: Sequence[str]) -> list[str]:
        """Greedy answers, `batch_size` prompts at a time, left-padded."""
        out: list[str] = []
        for i in range(0, len(questions), self.batch_size):
            out.extend(self._answer_batch(questions[i : i + self.batch_size]))
        return out

    def _answer_batch(self, questions: Sequence[str]) -> list[str]:
        import torch

        if not questions:
            return []
        new_tokens = max(1, min(self.max_new_tokens, self.context - 1))
        prompts = [self.prompt_ids(q, self.context - new_tokens) for q in questions]
        ids, mask = left_pad(prompts, self.pad_id)
        width = ids.shape[1]
        self.prefills = {}  # the last batch's alone: a few MB a prompt
        with torch.inference_mode():
            out = self.model.generate(  # type: ignore[operator]
                input_ids=ids.to(self.device),
                attention_mask=mask.to(self.device),
                generation_config=self._greedy_config(new_tokens),
            )
        generated = out.sequences
        # transformers 5 names the output's cache `cache` (`past_key_values` before)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        if cache is not None:
            # every position but the last generated token's went through the cache
            held = generated.shape[1] - 1
            self.prefills = split_prefills(self.model, cache, prompts, width, held)
        return [self.decode_answer(row) for row in generated[:, width:].tolist()]

    def decode_answer(self, new_ids: Sequence[int]) -> str:
        """Text of the generated tokens up to the first stop token, specials dropped."""
        ids = list(new_ids)
        end = next((i for i, t in enumerate(ids) if t in self.stop_ids), len(ids))
        ids = ids[:end]
        return str(self.tokenizer.decode(ids, skip_special_tokens=True)).strip()

    def _greedy_config(self, new_tokens: int) -> Any:
        from transformers import GenerationConfig

        # a fresh config: sampling settings saved with the model must not leak in
        return GenerationConfig(
            max_new_tokens=new_tokens,
            do_sample=False,
            num_beams=1,
            eos_token_id=list(self.stop_ids),
            pad_token_id=self.pad_id,
            bos_token_id=self.tokenizer.bos_token_id,
            return_dict_in_generate=True,  # with the cache: its prompts' prefills
        )

    # --------------------------------------------------------------------------- choose
    def choose(self, question: str, choices: Sequence[str]) -> int:
        """The choice with the highest mean log-probability per token; ties: lowest index."""
        scores = self.choice_logprobs(question, choices)
        return max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0

    def choice_logprobs(self, question: str, choices: Sequence[str]) -> list[float]:
        """Mean log-probability of each choice's tokens as the assistant's answer.

        Length-normalized so that long choices are not penalized for having more tokens
        (the "acc_norm"-style comparison of lm-evaluation-harness, per token).
        """
        out: list[float] = []
        for i in range(0, len(choices), self.batch_size):
            out.extend(self._score_batch(question, choices[i : i + self.batch_size]))
        return out

    def _score_batch(self, question: str, choices: Sequence[str]) -> list[float]:
        import torch

        from jupiter.models.scoring import shared_prefix_nll

        conts: list[list[int]] = [
            self.tokenizer(c, add_special_tokens=False)["input_ids"][: self.context - 1]
            for c in choices
        ]
        longest = max((len(c) for c in conts), default=0)
        if longest:  # the prompt once, each choice after it (a cut prompt: cut for the longest)
            prompt = self.prompt_ids(question, max(1, self.context - longest))
            prefill = self.prefills.pop(tuple(prompt), None)
            with torch.inference_mode():
                nll = shared_prefix_nll(self.model, prompt, conts, self.pad_id, prefill)
            if nll is not None:
                return [
                    float(-nll[r]) / len(c) if c else float("-inf") for r, c in enumerate(conts)
                ]
        rows: list[tuple[list[int], int]] = []  # (ids, number of choice tokens at the end)
        for choice in choices:
            c_ids: list[int] = self.tokenizer(choice, add_special_tokens=False)["input_ids"]
            c_ids = c_ids[: self.context - 1]
            prompt = self.prompt_ids(question, max(1, self.context - len(c_ids)))
            rows.append((prompt + c_ids, len(c_ids)))
        from jupiter.data.chat import IGNORE
        from jupiter.models.scoring import target_nll

        width = max(len(r) for r, _ in rows)
        # right padding: positions stay 0..n-1 for every row, the mask hides the padding;
        # the token at position p is predicted at p - 1, so a choice's targets sit one
        # position to the left of its tokens
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        targets = torch.full((len(rows), width), IGNORE, dtype=torch.long)
        for row, (r, n) in enumerate(rows):
            ids[row, : len(r)] = torch.tensor(r, dtype=torch.long)
            mask[row, : len(r)] = 1
            if n:
                targets[row, len(r) - n - 1 : len(r) - 1] = torch.tensor(r[len(r) - n :])
        with torch.inference_mode():
            nll = target_nll(
                self.model, ids.to(self.device), mask.to(self.device), targets.to(self.device)
            )
        return [float(-nll[row]) / n if n else float("-inf") for row, (_, n) in enumerate(rows)]

    # ------------------------------------------------------------------------- generate
    def generate(
        self,
        chunks: Sequence[Chunk],
        cycle: int,
        cfg: GeneratorConfig,
        limit: int | None = None,
    ) -> Iterator[Example]:
        """The template questions, answered by the model; no continuation text (raw text
        comes from the documents, not from a model)."""
        qs = iter_questions(chunks, cfg.templates, cfg.max_questions_per_chunk, cfg.seed)
        questions = islice((q for _, batch in qs for q in batch), limit)
        while True:
            batch = list(islice(questions, self.batch_size))
            if not batch:
                return
            yield from self._examples(batch, cycle)

    def _examples(self, batch: list[Question], cycle: int) -> Iterator[Example]:
        answers = self.answer([q.question for q in batch])
        for q, a in zip(batch, answers, strict=True):
            yield Example(
                kind="qa",
                generator=self.id,
                chunk_id=q.chunk_id,
                template=q.template,
                messages=[
                    {"role": "user", "content": q.question},
                    {"role": "assistant", "content": a},
                ],
                cycle=cycle,
            )
