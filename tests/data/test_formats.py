"""Dataset formats: parsing, rendering, exact round trips, and the reasons malformed rows give."""

from __future__ import annotations

import pytest

from jupiter.data.formats import (
    FORMATS,
    FormatError,
    detect_format,
    from_messages,
    to_messages,
)

SYS = {"role": "system", "content": "You are terse."}
Q1 = {"role": "user", "content": "What is a list?"}
A1 = {"role": "assistant", "content": "A mutable sequence."}
Q2 = {"role": "user", "content": "And a tuple?\nBriefly."}
A2 = {"role": "assistant", "content": "An immutable one: `(1, 2)`."}

SINGLE = [Q1, A1]
SINGLE_SYS = [SYS, Q1, A1]
MULTI = [Q1, A1, Q2, A2]
MULTI_SYS = [SYS, Q1, A1, Q2, A2]

# which conversations each format holds exactly
HOLDS = {
    "messages": [SINGLE, SINGLE_SYS, MULTI, MULTI_SYS],
    "sharegpt": [SINGLE, SINGLE_SYS, MULTI, MULTI_SYS],
    "alpaca": [SINGLE, SINGLE_SYS],
    "completions": [SINGLE],
    "mistral": [SINGLE, MULTI],
}


@pytest.mark.parametrize(("fmt", "conv"), [(f, c) for f, convs in HOLDS.items() for c in convs])
def test_round_trip_is_exact(fmt: str, conv: list[dict[str, str]]) -> None:
    row = from_messages(conv, fmt)  # type: ignore[arg-type]
    assert detect_format(row) == fmt
    assert to_messages(row) == conv
    assert to_messages(row, fmt) == conv  # type: ignore[arg-type]


def test_rendered_records() -> None:
    assert from_messages(SINGLE_SYS, "alpaca") == {
        "system": "You are terse.",
        "instruction": "What is a list?",
        "input": "",
        "output": "A mutable sequence.",
    }
    assert from_messages(MULTI_SYS, "sharegpt")["conversations"][:2] == [
        {"from": "system", "value": "You are terse."},
        {"from": "human", "value": "What is a list?"},
    ]
    assert from_messages(SINGLE, "completions") == {
        "prompt": "What is a list?",
        "completion": "A mutable sequence.",
    }
    assert from_messages(MULTI, "mistral") == {
        "text": "<s>[INST] What is a list? [/INST] A mutable sequence. </s>"
        "[INST] And a tuple?\nBriefly. [/INST] An immutable one: `(1, 2)`. </s>"
    }


def test_mistral_folds_the_system_prompt_into_the_first_user_turn() -> None:
    text = from_messages(MULTI_SYS, "mistral")["text"]
    assert text.startswith("<s>[INST] You are terse.\n\nWhat is a list? [/INST]")
    msgs = to_messages({"text": text})
    assert isinstance(msgs, list) and len(msgs) == 4
    assert msgs[0] == {"role": "user", "content": "You are terse.\n\nWhat is a list?"}
    assert msgs[1:] == [A1, Q2, A2]


def test_mistral_multi_turn_parses_into_four_messages() -> None:
    text = "<s>[INST] q1 [/INST] a1 </s>[INST] q2 [/INST] a2 </s>"
    assert to_messages({"text": text}) == [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
    ]


def test_mistral_parser_tolerates_template_spacing_and_a_trailing_prompt() -> None:
    # HF template variants: no space before </s>, a space and <s> between turns
    text = "<s>[INST]q1[/INST]a1</s> <s>[INST]  q2 [/INST]"
    assert to_messages({"text": text}, "mistral") == [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
    ]


def test_other_formats_parse() -> None:
    alpaca = {"instruction": "Sum these.", "input": "1 2", "output": "3"}
    assert to_messages(alpaca) == [
        {"role": "user", "content": "Sum these.\n\n1 2"},
        {"role": "assistant", "content": "3"},
    ]
    share = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}
    assert to_messages(share) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
    ]
    assert to_messages({"text": "Raw domain text."}) == "Raw domain text."
    assert detect_format({"text": "Raw domain text."}) == "text"
    assert to_messages({"prompt": "p", "completion": "c"}) == [
        {"role": "user", "content": "p"},
        {"role": "assistant", "content": "c"},
    ]


def test_lossy_renderings_say_so_or_fold() -> None:
    assert from_messages(SINGLE_SYS, "completions")["prompt"] == "You are terse.\n\nWhat is a list?"
    with pytest.raises(FormatError, match="one user turn"):
        from_messages(MULTI, "alpaca")
    with pytest.raises(FormatError, match="one user turn"):
        from_messages(MULTI, "completions")
    with pytest.raises(FormatError, match="raw text"):
        from_messages(SINGLE, "text")
    with pytest.raises(FormatError, match=r"Mistral token \[/INST\]"):
        from_messages([Q1, {"role": "assistant", "content": "see [/INST]"}], "mistral")
    assert set(FORMATS) == {"messages", "alpaca", "sharegpt", "text", "completions", "mistral"}


@pytest.mark.parametrize(
    ("row", "fmt", "reason"),
    [
        ({"instruction": "x"}, None, "missing key 'output'"),
        ({"prompt": "x"}, None, "missing key 'completion'"),
        ({"messages": []}, None, "non-empty list"),
        ({"messages": [A1, Q1]}, None, "wrong roles order"),
        ({"messages": [Q1, Q2]}, None, "wrong roles order"),
        ({"messages": [Q1, A1, SYS]}, None, "wrong roles order"),
        ({"messages": [{"role": "tool", "content": "x"}]}, None, "unknown role"),
        ({"messages": [{"role": "user"}]}, None, "needs 'role' and 'content'"),
        ({"conversations": [{"from": "gpt", "value": "a"}]}, None, "wrong roles order"),
        ({"conversations": [{"from": "bot", "value": "a"}]}, None, "unknown speaker"),
        ({"text": "<s>[INST] q1 a1 </s>"}, None, r"unterminated \[INST\]"),
        ({"text": "<s>[INST] q1 [INST] q2 [/INST] a </s>"}, None, r"unterminated \[INST\]"),
        ({"text": "<s>[INST] q1 [/INST] a1 [INST] q2 [/INST] a2 </s>"}, None, "must end with"),
        ({"text": "plain"}, "mistral", r"must start with <s>\[INST\]"),
        ({"text": 3}, "text", "must be a string"),
        ({"foo": 1}, None, "unknown record format"),
    ],
)
def test_malformed_rows_raise_with_a_reason(row: dict, fmt: str | None, reason: str) -> None:
    with pytest.raises(FormatError, match=reason):
        to_messages(row, fmt)  # type: ignore[arg-type]


def test_format_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        to_messages({"messages": "nope"})
