"""BM25 and the code-aware tokenizer."""

from __future__ import annotations

import pytest

from jupiter.records import Chunk
from jupiter.synth.retrieval import BM25Index, tokenize


def test_tokenize_splits_identifiers_and_keeps_the_dotted_name() -> None:
    assert tokenize("What does json.dumps do?") == ["json.dumps", "json", "dumps"]
    assert tokenize("sort_keys") == ["sort_keys", "sort", "keys"]
    assert tokenize("JSONEncoder") == ["jsonencoder", "json", "encoder"]
    # Python keywords are content here, English function words are not
    assert tokenize("the for statement is in a loop") == ["for", "statement", "is", "in", "loop"]


def test_bm25_scores_by_hand() -> None:
    index = BM25Index(["apple banana", "banana banana cherry", "cherry"], k1=1.2, b=0.0)
    # b = 0: no length normalization, so tf saturation and idf are all there is
    import math

    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert index.scores("banana")[0] == pytest.approx(idf * 1 * 2.2 / (1 + 1.2))
    assert index.scores("banana")[1] == pytest.approx(idf * 2 * 2.2 / (2 + 1.2))
    assert index.search("banana", k=5) == [
        (1, pytest.approx(index.scores("banana")[1])),
        (0, pytest.approx(index.scores("banana")[0])),
    ]
    assert index.search("durian") == []


def test_ties_go_to_the_lower_index() -> None:
    index = BM25Index(["same words", "other", "same words"])
    assert [i for i, _ in index.search("same", k=3)] == [0, 2]


def test_json_dumps_chunk_ranks_first(stdlib_chunks: list[Chunk]) -> None:
    index = BM25Index([c.text for c in stdlib_chunks], titles=[c.title for c in stdlib_chunks])
    top = stdlib_chunks[index.search("What does json.dumps do?", k=3)[0][0]]
    assert top.title == "json.dumps" and top.start == 0
    top = stdlib_chunks[index.search("Explain the assert statement", k=3)[0][0]]
    assert top.uri == "pydoc:topics/assert"
    top = stdlib_chunks[index.search("canonical path eliminating symbolic links", k=3)[0][0]]
    assert top.title == "os.path.realpath"


def test_titles_must_match_texts() -> None:
    with pytest.raises(ValueError):
        BM25Index(["a", "b"], titles=["a"])
