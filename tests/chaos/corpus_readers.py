"""The bad-input families of the commands that read a model: `serve`, `chat`, `test` and
`eval --model`: damage only a checksum or the header's dtype shows, flags that are NaN,
infinite, out of range or of the wrong type, outputs onto an input or a workspace, bad
prompt, QA and template files. Every case is `untouched`: no file of the case folder (nor
the shared model) changes, appears or goes. command_cases() gathers these, the workspace
commands' (corpus_workspaces.py) and export's and merge's (corpus_outputs.py)."""

from __future__ import annotations

from corpus import Case
from corpus_files import qa_items
from corpus_outputs import _c, both, files, model_at, output_cases
from corpus_workspaces import (
    dashboard_cases,
    data_export_cases,
    doctor_cases,
    federated_cases,
    lineage_cases,
)

H = "{home}"
Y = "{yaml}"
READ_DAMAGE = ("weights_flipped_checksummed", "checksums_not_json", "weights_dtype_lie")
CONSUMERS = {
    "serve": ("serve", "--model", f"{H}/m1", "--port", "0"),
    "chat": ("chat", "--model", f"{H}/m1"),
    "eval": ("eval", "--model", f"{H}/m1", "--qa", f"{H}/qa.jsonl"),
    "test": ("test", "--model", f"{H}/m1", "--prompts", f"{H}/p.txt", "--out", f"{H}/res"),
}
QA = files({"qa.jsonl": qa_items(6), "p.txt": "What does the lever do?\n"})


def damaged_reads() -> list[Case]:
    return [
        _c(f"{who}_model", damage, argv, ("m1",), both(model_at("m1", damage), QA))
        for who, argv in CONSUMERS.items()
        for damage in READ_DAMAGE
    ]


# ----------------------------------------------------------------------------- serve
def serve_cases() -> list[Case]:
    f = "serve_cli"
    S = ("serve", "--model", "{model}")
    jinja = files({"t.jinja": "{% for m in messages %}{{ m.content }"})
    return [
        _c(f, "port_word", (*S, "--port", "http"), ("--port",)),
        _c(f, "port_float", (*S, "--port", "80.5"), ("--port",)),
        _c(f, "max_batch_negative", (*S, "--max-batch", "-4", "--port", "0"), ("--max-batch",)),
        _c(f, "max_batch_word", (*S, "--max-batch", "many", "--port", "0"), ("--max-batch",)),
        _c(f, "top_k_zero", (*S, "--top-k", "0", "--port", "0"), ("--top-k",)),
        _c(f, "open_book_without_index", (*S, "--open-book", "--port", "0"), ("index",)),
        _c(
            f,
            "chat_template_broken_jinja",
            (*S, "--chat-template", f"{H}/t.jinja", "--port", "0"),
            ("t.jinja",),
            jinja,
        ),
        _c(
            f,
            "chat_template_latin1",
            (*S, "--chat-template", f"{H}/t.jinja", "--port", "0"),
            ("t.jinja",),
            files({"t.jinja": "{{ 'caf\xe9' }}".encode("latin-1")}),
        ),
        _c(
            f,
            "chat_template_a_folder",
            (*S, "--chat-template", f"{H}/t.jinja", "--port", "0"),
            ("t.jinja",),
            files({"t.jinja/": ""}),
        ),
        _c(f, "host_empty", (*S, "--host", "", "--port", "0"), ("--host",)),
        _c(f, "hub_id_malformed", ("serve", "--model", "a/b/c/d", "--port", "0"), ("a/b/c/d",)),
        _c(
            f,
            "model_empty_string",
            ("serve", "--model", "", "--port", "0"),
            ("empty model reference",),
        ),
        _c(
            f,
            "adapter_without_base",
            ("serve", "--model", f"{H}/ad", "--port", "0"),
            ("ad",),
            files({"ad/adapter_config.json": '{"peft_type": "LORA", "r": 4}'}),
        ),
    ]


# ------------------------------------------------------------------------------ chat
def chat_cases() -> list[Case]:
    f = "chat"
    C = ("chat", "--model", "{model}")
    return [
        _c(f, "temperature_nan", (*C, "--temperature", "nan"), ("--temperature",)),
        _c(f, "temperature_inf", (*C, "--temperature", "inf"), ("--temperature",)),
        _c(f, "temperature_minus_inf", (*C, "--temperature", "-inf"), ("--temperature",)),
        _c(f, "temperature_word", (*C, "--temperature", "warm"), ("--temperature",)),
        _c(f, "max_new_tokens_negative", (*C, "--max-new-tokens", "-5"), ("--max-new-tokens",)),
        _c(f, "max_new_tokens_float", (*C, "--max-new-tokens", "12.5"), ("--max-new-tokens",)),
        _c(f, "top_k_zero", (*C, "--open-book", "--top-k", "0"), ("--top-k",)),
        _c(f, "chat_template_unknown", (*C, "--chat-template", "vicuna"), ("vicuna",)),
        _c(
            f,
            "chat_template_missing_file",
            (*C, "--chat-template", f"{H}/nope.jinja"),
            ("nope.jinja",),
        ),
        _c(
            f,
            "chat_template_broken_jinja",
            (*C, "--chat-template", f"{H}/t.jinja"),
            ("t.jinja",),
            files({"t.jinja": "{% if %}"}),
        ),
        _c(f, "model_missing", ("chat", "--model", f"{H}/gone"), ("gone",)),
        _c(
            f,
            "model_garbage_gguf",
            ("chat", "--model", f"{H}/m.gguf"),
            ("m.gguf",),
            files({"m.gguf": b"GGUF\x03\0\0\0" + b"\xff" * 40}),
        ),
        _c(
            f,
            "domain_yaml_broken",
            ("chat", "--domain", Y),
            ("bad.yaml",),
            yaml="name: bad\nsources: [\n",
        ),
        _c(
            f, "domain_unknown", ("chat", "--domain", "klingon", "--model", "{model}"), ("klingon",)
        ),
    ]


# ------------------------------------------------------------------------------ test
def test_cases() -> list[Case]:
    f = "test"
    T = ("test", "--model", "{model}", "--prompts", f"{H}/p.txt")
    P = files({"p.txt": "What does the lever do?\n"})

    def prompts(name: str, data: str | bytes, mention: str = "p.txt") -> Case:
        return _c(
            f,
            f"prompts_{name}",
            (*T[:4], f"{H}/p.txt", "--out", f"{H}/res"),
            (mention,),
            files({"p.txt": data}),
        )

    def jsonl(name: str, data: str, mention: str = "p.jsonl") -> Case:
        return _c(
            f,
            f"jsonl_{name}",
            (*T[:4], f"{H}/p.jsonl", "--out", f"{H}/res"),
            (mention,),
            files({"p.jsonl": data}),
        )

    return [
        prompts("latin1", "caf\xe9 lever?\n".encode("latin-1")),
        prompts("utf16", "lever?\n".encode("utf-16")),
        prompts("nul_bytes", b"lever\0\0?\n"),
        prompts("only_spaces", "   \n\t\n"),
        _c(
            f,
            "prompts_a_folder",
            (*T[:4], f"{H}/pp", "--out", f"{H}/res"),
            ("pp",),
            files({"pp/": ""}),
        ),
        jsonl("array_line", '["a", "b"]\n'),
        jsonl("prompt_object", '{"prompt": {"text": "hi"}}\n'),
        jsonl("prompt_empty", '{"prompt": ""}\n'),
        jsonl("expected_list", '{"prompt": "hi", "expected": ["a"]}\n'),
        jsonl("truncated_second_line", '{"prompt": "hi"}\n{"prompt": "ho\n'),
        _c(
            f,
            "out_is_the_model",
            ("test", "--model", f"{H}/m1", "--prompts", f"{H}/p.txt", "--out", f"{H}/m1"),
            ("--out",),
            both(model_at("m1"), P),
        ),
        _c(
            f,
            "out_inside_the_model",
            ("test", "--model", f"{H}/m1", "--prompts", f"{H}/p.txt", "--out", f"{H}/m1/results"),
            ("--out",),
            both(model_at("m1"), P),
        ),
        _c(f, "out_is_a_file", (*T, "--out", f"{H}/p.txt"), ("p.txt",), P),
        _c(f, "out_the_workspace", (*T, "--out", f"{H}/runs/bad"), ("--out",), P, seeded=True),
        _c(
            f,
            "out_inside_the_workspace",
            (*T, "--out", f"{H}/runs/bad/results"),
            ("--out",),
            P,
            seeded=True,
        ),
        _c(f, "out_holds_the_prompts", (*T, "--out", H), ("--out",), P),
        _c(
            f,
            "second_model_missing",
            (*T, "--model", f"{H}/gone", "--out", f"{H}/res"),
            ("gone",),
            P,
        ),
        _c(
            f,
            "second_model_damaged",
            (*T, "--model", f"{H}/m1", "--out", f"{H}/res"),
            ("m1",),
            both(model_at("m1", "weights_truncated"), P),
        ),
        _c(
            f,
            "max_new_tokens_nan",
            (*T, "--max-new-tokens", "nan", "--out", f"{H}/res"),
            ("--max-new-tokens",),
            P,
        ),
        _c(
            f,
            "chat_template_unknown",
            (*T, "--chat-template", "alpaca", "--out", f"{H}/res"),
            ("alpaca",),
            P,
        ),
    ]


# -------------------------------------------------------------------------- eval --model
def eval_cases() -> list[Case]:
    f = "eval_model"
    E = ("eval", "--model", "{model}", "--qa", f"{H}/qa.jsonl")
    G = files({"qa.jsonl": qa_items(6)})

    def qa(name: str, data: str | bytes) -> Case:
        return _c(f, f"qa_{name}", E, ("qa.jsonl",), files({"qa.jsonl": data}))

    return [
        qa("a_number_per_line", "1\n2\n3\n"),
        qa("question_null", '{"id": "a", "question": null, "answer": "x"}\n'),
        qa("choices_a_string", '{"id": "a", "question": "q?", "choices": "abc", "answer": 0}\n'),
        qa(
            "answer_index_beyond",
            '{"id": "a", "question": "q?", "choices": ["x", "y"], "answer": 5}\n',
        ),
        qa("nul_bytes", b'{"id": "a", "question": "q\0?", "answer": "x"\0}\n'),
        qa("deep_nesting", "[" * 50000 + "]" * 50000 + "\n"),
        _c(
            f,
            "qa_a_folder",
            ("eval", "--model", "{model}", "--qa", f"{H}/qq"),
            ("qq",),
            files({"qq/": ""}),
        ),
        _c(f, "model_without_qa", ("eval", "--model", "{model}"), ("--qa",)),
        _c(f, "max_new_tokens_zero", (*E, "--max-new-tokens", "0"), ("--max-new-tokens",), G),
        _c(
            f,
            "general_max_bytes_negative",
            (*E, "--general-max-bytes", "-1"),
            ("--general-max-bytes",),
            G,
        ),
        _c(f, "seed_word", (*E, "--seed", "lucky"), ("--seed",), G),
        _c(f, "top_k_zero", (*E, "--open-book", "--top-k", "0"), ("--top-k",), G),
        _c(f, "open_book_without_index", (*E, "--open-book"), ("index",), G),
        _c(
            f,
            "general_latin1",
            (*E, "--general", f"{H}/g.txt"),
            ("g.txt",),
            files({"qa.jsonl": qa_items(6), "g.txt": ("caf\xe9 " * 400).encode("latin-1")}),
        ),
        _c(
            f,
            "general_empty_folder",
            (*E, "--general", f"{H}/gdir"),
            ("gdir",),
            files({"qa.jsonl": qa_items(6), "gdir/": ""}),
        ),
        _c(
            f,
            "out_is_the_models_config",
            ("eval", "--model", f"{H}/m1", "--qa", f"{H}/qa.jsonl", "--out", f"{H}/m1/config.json"),
            ("--out",),
            both(model_at("m1"), G),
        ),
        _c(f, "out_is_the_qa_file", (*E, "--out", f"{H}/qa.jsonl"), ("--out",), G),
        _c(
            f,
            "out_is_the_store",
            (*E, "--out", f"{H}/runs/bad/jupiter.sqlite"),
            ("--out",),
            G,
            seeded=True,
        ),
        _c(f, "out_is_a_folder", (*E, "--out", f"{H}/docs"), ("docs",), G),
        _c(
            f,
            "chat_template_missing",
            (*E, "--chat-template", f"{H}/nope.jinja"),
            ("nope.jinja",),
            G,
        ),
        _c(f, "mc_choices_word", (*E, "--mc-choices", "four"), ("--mc-choices",), G),
    ]


def reader_cases() -> list[Case]:
    return (
        damaged_reads()
        + serve_cases()
        + chat_cases()
        + test_cases()
        + eval_cases()
        + dashboard_cases()
        + doctor_cases()
        + lineage_cases()
        + federated_cases()
        + data_export_cases()
    )


def command_cases() -> list[Case]:
    """Every command-line case of the commands the first corpus did not cover (export, merge,
    serve, chat, test, eval --model, dashboard, doctor ...; the HTTP requests to `serve` are
    corpus_http's)."""
    return output_cases() + reader_cases()


# the inputs reported failing before this corpus was written, as it writes them
REPORTED_CASES = (
    "export/hf/out_the_workspace_force",
    "export/gguf/out_the_workspace_force",
    "merge/out_holds_the_inputs_force",
    "export/hf/out_is_the_model",
    "export/hf/weights_truncated",
    "export/hf/weights_flipped_checksummed",
    "export/hf/weights_missing",
    "export/hf/dir_empty",
    "export/hf/weights_nan",
    "serve_http/chat/seed_2_pow_70",
    "serve_http/chat/body_over_cap",
    "serve_http/chat/nested_100k_arrays",
    "serve_http/hangup/mid_body",
    "merge/recipe/lambda_nan",
    "merge/lambda_overflows_float16",
    "merge/input/weights_nan",
    "merge/lambda_inf",
    "doctor/timeout_nan",
    "chat/temperature_nan",
    "export/out_locked_by_a_live_writer",
    "merge/out_locked_by_a_live_writer",
    "test/out_is_a_file",
    "test/out_inside_the_model",
    "test/out_inside_the_workspace",
    "generators/no_workspace",
    "generators/store_garbage",
    "dashboard/public_without_key",
)
# one case per fix this corpus led to (docs/RELIABILITY.md): tests/chaos runs them
FIXED_BY_THE_COMMANDS_CORPUS = (
    "export/hf/weights_dtype_lie",
    "export/out_under_a_file",
    "export/out_locked_by_a_live_writer",
    "export/adapter_base_missing",
    "merge/input/config_list",
    "merge/input/weights_flipped_checksummed",
    "merge/input/weights_nan",
    "serve_model/weights_flipped_checksummed",
    "chat_model/checksums_not_json",
    "test_model/weights_flipped_checksummed",
    "serve_cli/chat_template_broken_jinja",
    "chat/chat_template_broken_jinja",
    "serve_cli/chat_template_latin1",
    "serve_cli/host_empty",
    "test/prompts_nul_bytes",
    "test/out_holds_the_prompts",
    "test/second_model_damaged",
    "eval_model/out_is_the_models_config",
    "eval_model/out_is_the_store",
    "doctor/cluster_file_not_yaml",
    "generators/store_foreign",
    "rollback/store_foreign",
    "federated/client/device_tpu",
    "federated/server/out_inside_the_base_model",
    "data_export/out_the_workspace",
    "data_export/split_nan",
)
HTTP_FIXED = ("serve_http/chat/lone_surrogate", "serve_http/chat/prompt_3mb")
