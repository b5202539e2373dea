"""`jupiter chat`: a REPL with the domain's best model, using the model's chat template."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from rich.console import Console

from jupiter.data.chat import pad_id_for
from jupiter.errors import JupiterError
from jupiter.improve.workspace import Workspace
from jupiter.records import MODEL_KINDS

if TYPE_CHECKING:
    from jupiter.synth.passages import PassageIndex


def best_model(ws: Workspace) -> Path:
    """The active generator if it is a model, else the student with the best promotion metric."""
    if not ws.has_store():
        raise JupiterError(
            f"no workspace at {ws.root}: train a model first with "
            f"`jupiter start --domain {ws.cfg.name}`"
        )
    gen = ws.store.active_generator()
    if gen and gen["kind"] in MODEL_KINDS and Path(gen["path"]).is_dir():
        return Path(gen["path"])
    metric = ws.cfg.promotion.metric
    best: tuple[float, Path] | None = None
    for row in ws.store.evals():
        if not row["model"].startswith("student:"):
            continue
        path = Path(row["report"].get("path", ""))
        score = float(row["report"].get(metric, float("-inf")))
        if path.is_dir() and (best is None or score > best[0]):
            best = (score, path)
    if best is None:
        raise JupiterError(
            f"domain '{ws.cfg.name}' has no trained model yet: run "
            f"`jupiter start --domain {ws.cfg.name}` first"
        )
    return best[1]


def open_book_index(model_dir: Path, ws: Workspace | None = None) -> PassageIndex:
    """The retrieval index saved with the model; for a model without one (a base model, an
    older student), the training chunks of the domain's workspace."""
    from jupiter.synth.passages import PassageIndex, has_index

    if has_index(model_dir) or ws is None or not ws.has_store():
        return PassageIndex.load(model_dir)  # names the fix when it is missing
    chunks = list(ws.store.iter_chunks(split="train"))
    if not chunks:
        return PassageIndex.load(model_dir)
    return PassageIndex.from_chunks(chunks, ws.cfg.retrieval_config())


class ChatSession:
    """Holds the model and the conversation so far. With `passages`, each question is asked
    open-book: its top-k passages go before it in that turn only (earlier turns keep the bare
    question, so the conversation does not fill up with old passages)."""

    def __init__(
        self,
        model_dir: Path,
        system_prompt: str = "",
        max_new_tokens: int = 128,
        temperature: float = 0.0,
        chat_template: str = "auto",
        passages: PassageIndex | None = None,
        top_k: int = 3,
    ) -> None:
        from jupiter.data.templates import stop_token_ids
        from jupiter.models.loading import load_for_inference

        self.model, self.tokenizer = load_for_inference(model_dir, chat_template=chat_template)
        # eos and the template's turn-end token (Gemma's <end_of_turn>) both end a reply
        saved = getattr(self.model.generation_config, "eos_token_id", None)
        self.stop_ids = stop_token_ids(self.tokenizer, [saved])
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.passages, self.top_k = passages, top_k
        self.messages: list[dict[str, str]] = (
            [{"role": "system", "content": system_prompt}] if system_prompt else []
        )

    def prompt_messages(self, user: str) -> list[dict[str, str]]:
        """The conversation as the model sees it for the question `user`."""
        asked = user if self.passages is None else self.passages.prompt(user, self.top_k)
        return [*self.messages, {"role": "user", "content": asked}]

    def reply(self, user: str) -> str:
        from jupiter.data.chat import fit_template

        shown = self.prompt_messages(user)
        self.messages.append({"role": "user", "content": user})
        fitted, _ = fit_template(self.tokenizer, shown)  # folds a system prompt
        prompt = self.tokenizer.apply_chat_template(
            fitted, add_generation_prompt=True, tokenize=False
        )
        ids = self.tokenizer(prompt, add_special_tokens=False, return_tensors="pt")["input_ids"]
        limit = self.model.config.max_position_embeddings - self.max_new_tokens
        ids = ids[:, -limit:]
        kwargs: dict[str, Any] = {"do_sample": False}
        if self.temperature > 0:
            kwargs = {"do_sample": True, "temperature": self.temperature, "top_p": 0.95}
        with torch.no_grad():
            out = self.model.generate(  # type: ignore[operator]
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                eos_token_id=self.stop_ids,
                pad_token_id=pad_id_for(self.tokenizer),
                **kwargs,
            )
        new = out[0, ids.shape[1] :].tolist()
        new = new[: next((i for i, t in enumerate(new) if t in self.stop_ids), len(new))]
        text = str(self.tokenizer.decode(new, skip_special_tokens=True))
        text = text.strip()
        self.messages.append({"role": "assistant", "content": text})
        return text


def chat_repl(session: ChatSession, console: Console) -> int:
    """Read questions from the console until /quit or end of input; returns turns answered."""
    console.print("[dim]type a question; /reset clears the conversation, /quit leaves[/dim]")
    if isinstance(sys.stdin, io.TextIOWrapper):  # a byte that is not UTF-8 (a pasted binary,
        sys.stdin.reconfigure(errors="replace")  # a latin-1 file) reads as U+FFFD, not a crash
    turns = 0
    while True:
        try:
            line = console.input("[bold cyan]you> [/]")
        except EOFError:
            break
        line = line.strip()
        if not line:
            continue
        if line in ("/quit", "/exit"):
            break
        if line == "/reset":
            session.messages = [m for m in session.messages if m["role"] == "system"]
            continue
        console.print(f"[bold green]jupiter>[/] {session.reply(line)}")
        turns += 1
    return turns
