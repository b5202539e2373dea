"""Open-book answers in `jupiter chat` and `jupiter serve`: the question reaches the model
after its top-k passages from the retrieval index saved with the model."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
from test_server import launch, local_chat, post, wait_ready

from jupiter.errors import JupiterError
from jupiter.models.decode import LocalLM
from jupiter.records import Chunk
from jupiter.serve.chat import ChatSession, open_book_index
from jupiter.synth.passages import PassageIndex

TEXTS = {
    "str.split": "str.split returns a list of the words in the string, split at sep.",
    "str.join": "str.join concatenates the strings of an iterable, the string between them.",
    "json.dumps": "json.dumps serializes obj to a JSON formatted str.",
}
QUESTION = "What does str.split return?"


def index() -> PassageIndex:
    return PassageIndex.from_chunks(
        Chunk(f"d{i}", "local", f"file:{t}", t, 0, len(x), x)
        for i, (t, x) in enumerate(TEXTS.items())
    )


@pytest.fixture(scope="module")
def book_model(tiny_model_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny llama dir with a retrieval index saved beside it, as `jupiter train` does."""
    out = tmp_path_factory.mktemp("book") / "model"
    shutil.copytree(tiny_model_dirs["llama"], out)
    index().save(out)
    return out


def test_chat_session_asks_with_passages_and_keeps_the_bare_question(book_model: Path) -> None:
    passages = open_book_index(book_model)
    session = ChatSession(book_model, max_new_tokens=4, passages=passages, top_k=2)
    shown = session.prompt_messages(QUESTION)[-1]["content"]
    assert shown == index().prompt(QUESTION, 2)
    assert shown.index(TEXTS["str.split"]) < shown.index(TEXTS["str.join"])
    assert TEXTS["json.dumps"] not in shown
    session.reply(QUESTION)
    assert session.messages[0] == {"role": "user", "content": QUESTION}
    assert len(session.messages) == 2  # the answer follows the bare question


def test_open_book_without_an_index_names_the_fix(tiny_model_dirs: dict[str, Path]) -> None:
    with pytest.raises(JupiterError, match="no retrieval index"):
        open_book_index(tiny_model_dirs["llama"])


def test_server_answers_open_book(book_model: Path) -> None:
    """--open-book: a chat gets passages unless it sends "open_book": false; the reply is
    what the model says to the open-book prompt, greedy."""
    lm = LocalLM(book_model, device="cpu")
    proc, url = launch(book_model, "--open-book", "--top-k", "2")
    try:
        wait_ready(proc, url)
        chat = [{"role": "user", "content": QUESTION}]
        booked = [{"role": "user", "content": index().prompt(QUESTION, 2)}]
        got = post(
            url, "chat/completions", {"messages": chat, "max_tokens": 8, "temperature": 0}
        ).json()
        want = local_chat(lm, booked, 8)
        assert got["usage"]["prompt_tokens"] == want.prompt_tokens
        assert got["choices"][0]["message"]["content"] == want.text
        one = {"messages": chat, "max_tokens": 8, "open_book_top_k": 1}
        want_one = local_chat(lm, [{"role": "user", "content": index().prompt(QUESTION, 1)}], 8)
        assert post(url, "chat/completions", one).json()["usage"]["prompt_tokens"] == (
            want_one.prompt_tokens
        )
        closed = post(
            url, "chat/completions", {"messages": chat, "max_tokens": 8, "open_book": False}
        ).json()
        assert closed["usage"]["prompt_tokens"] == local_chat(lm, chat, 8).prompt_tokens
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
