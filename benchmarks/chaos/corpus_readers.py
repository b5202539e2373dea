"""Issue 26's families about the commands that read a model or a workspace: `serve`,
`chat`, `test`, `eval --model`, `dashboard`, `doctor`, `generators`, `rollback`,
`federated` and `data export`. Damage only a checksum or the header's dtype shows, flags
that are NaN, infinite, out of range or of the wrong type, outputs onto an input or a
workspace, damaged stores and files. Every case is `untouched`: no file of the case
folder (nor the shared model) changes, appears or goes."""

from __future__ import annotations

from pathlib import Path

from corpus import LOCAL_TEXT, Case, Fixtures, Setup, mkdir
from corpus_files import qa_items
from corpus_outputs import _c, both, files, model_at

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
    return [_c(f"{who}_model", damage, argv, ("m1",), both(model_at("m1", damage), QA))
            for who, argv in CONSUMERS.items() for damage in READ_DAMAGE]  # fmt: skip


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
        _c(f, "chat_template_broken_jinja", (*S, "--chat-template", f"{H}/t.jinja", "--port",
           "0"), ("t.jinja",), jinja),
        _c(f, "chat_template_latin1", (*S, "--chat-template", f"{H}/t.jinja", "--port", "0"),
           ("t.jinja",), files({"t.jinja": "{{ 'caf\xe9' }}".encode("latin-1")})),
        _c(f, "chat_template_a_folder", (*S, "--chat-template", f"{H}/t.jinja", "--port", "0"),
           ("t.jinja",), files({"t.jinja/": ""})),
        _c(f, "host_empty", (*S, "--host", "", "--port", "0"), ("--host",)),
        _c(f, "hub_id_malformed", ("serve", "--model", "a/b/c/d", "--port", "0"), ("a/b/c/d",)),
        _c(f, "model_empty_string", ("serve", "--model", "", "--port", "0"),
           ("empty model reference",)),
        _c(f, "adapter_without_base", ("serve", "--model", f"{H}/ad", "--port", "0"),
           ("ad",), files({"ad/adapter_config.json": '{"peft_type": "LORA", "r": 4}'})),
    ]  # fmt: skip


# ------------------------------------------------------------------------------ chat
def chat_cases() -> list[Case]:
    f = "chat"
    C = ("chat", "--model", "{model}")
    return [
        _c(f, "temperature_nan", (*C, "--temperature", "nan"), ("--temperature",)),
        _c(f, "temperature_inf", (*C, "--temperature", "inf"), ("--temperature",)),
        _c(f, "temperature_minus_inf", (*C, "--temperature", "-inf"), ("--temperature",)),
        _c(f, "temperature_word", (*C, "--temperature", "warm"), ("--temperature",)),
        _c(f, "max_new_tokens_negative", (*C, "--max-new-tokens", "-5"),
           ("--max-new-tokens",)),
        _c(f, "max_new_tokens_float", (*C, "--max-new-tokens", "12.5"),
           ("--max-new-tokens",)),
        _c(f, "top_k_zero", (*C, "--open-book", "--top-k", "0"), ("--top-k",)),
        _c(f, "chat_template_unknown", (*C, "--chat-template", "vicuna"), ("vicuna",)),
        _c(f, "chat_template_missing_file", (*C, "--chat-template", f"{H}/nope.jinja"),
           ("nope.jinja",)),
        _c(f, "chat_template_broken_jinja", (*C, "--chat-template", f"{H}/t.jinja"),
           ("t.jinja",), files({"t.jinja": "{% if %}"})),
        _c(f, "model_missing", ("chat", "--model", f"{H}/gone"), ("gone",)),
        _c(f, "model_garbage_gguf", ("chat", "--model", f"{H}/m.gguf"), ("m.gguf",),
           files({"m.gguf": b"GGUF\x03\0\0\0" + b"\xff" * 40})),
        _c(f, "domain_yaml_broken", ("chat", "--domain", Y), ("bad.yaml",),
           yaml="name: bad\nsources: [\n"),
        _c(f, "domain_unknown", ("chat", "--domain", "klingon", "--model", "{model}"),
           ("klingon",)),
    ]  # fmt: skip


# ------------------------------------------------------------------------------ test
def test_cases() -> list[Case]:
    f = "test"
    T = ("test", "--model", "{model}", "--prompts", f"{H}/p.txt")
    P = files({"p.txt": "What does the lever do?\n"})

    def prompts(name: str, data: str | bytes, mention: str = "p.txt") -> Case:
        return _c(f, f"prompts_{name}", (*T[:4], f"{H}/p.txt", "--out", f"{H}/res"),
                  (mention,), files({"p.txt": data}))  # fmt: skip

    def jsonl(name: str, data: str, mention: str = "p.jsonl") -> Case:
        return _c(f, f"jsonl_{name}", (*T[:4], f"{H}/p.jsonl", "--out", f"{H}/res"),
                  (mention,), files({"p.jsonl": data}))  # fmt: skip

    return [
        prompts("latin1", "caf\xe9 lever?\n".encode("latin-1")),
        prompts("utf16", "lever?\n".encode("utf-16")),
        prompts("nul_bytes", b"lever\0\0?\n"),
        prompts("only_spaces", "   \n\t\n"),
        _c(f, "prompts_a_folder", (*T[:4], f"{H}/pp", "--out", f"{H}/res"), ("pp",),
           files({"pp/": ""})),
        jsonl("array_line", '["a", "b"]\n'),
        jsonl("prompt_object", '{"prompt": {"text": "hi"}}\n'),
        jsonl("prompt_empty", '{"prompt": ""}\n'),
        jsonl("expected_list", '{"prompt": "hi", "expected": ["a"]}\n'),
        jsonl("truncated_second_line", '{"prompt": "hi"}\n{"prompt": "ho\n'),
        _c(f, "out_is_the_model", ("test", "--model", f"{H}/m1", "--prompts", f"{H}/p.txt",
           "--out", f"{H}/m1"), ("--out",), both(model_at("m1"), P)),
        _c(f, "out_inside_the_model", ("test", "--model", f"{H}/m1", "--prompts",
           f"{H}/p.txt", "--out", f"{H}/m1/results"), ("--out",), both(model_at("m1"), P)),
        _c(f, "out_is_a_file", (*T, "--out", f"{H}/p.txt"), ("p.txt",), P),
        _c(f, "out_the_workspace", (*T, "--out", f"{H}/runs/bad"), ("--out",), P, seeded=True),
        _c(f, "out_inside_the_workspace", (*T, "--out", f"{H}/runs/bad/results"), ("--out",),
           P, seeded=True),
        _c(f, "out_holds_the_prompts", (*T, "--out", H), ("--out",), P),
        _c(f, "second_model_missing", (*T, "--model", f"{H}/gone", "--out", f"{H}/res"),
           ("gone",), P),
        _c(f, "second_model_damaged", (*T, "--model", f"{H}/m1", "--out", f"{H}/res"),
           ("m1",), both(model_at("m1", "weights_truncated"), P)),
        _c(f, "max_new_tokens_nan", (*T, "--max-new-tokens", "nan", "--out", f"{H}/res"),
           ("--max-new-tokens",), P),
        _c(f, "chat_template_unknown", (*T, "--chat-template", "alpaca", "--out", f"{H}/res"),
           ("alpaca",), P),
    ]  # fmt: skip


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
        qa("answer_index_beyond", '{"id": "a", "question": "q?", "choices": ["x", "y"], '
           '"answer": 5}\n'),
        qa("nul_bytes", b'{"id": "a", "question": "q\0?", "answer": "x"\0}\n'),
        qa("deep_nesting", "[" * 50000 + "]" * 50000 + "\n"),
        _c(f, "qa_a_folder", ("eval", "--model", "{model}", "--qa", f"{H}/qq"), ("qq",),
           files({"qq/": ""})),
        _c(f, "model_without_qa", ("eval", "--model", "{model}"), ("--qa",)),
        _c(f, "max_new_tokens_zero", (*E, "--max-new-tokens", "0"), ("--max-new-tokens",), G),
        _c(f, "general_max_bytes_negative", (*E, "--general-max-bytes", "-1"),
           ("--general-max-bytes",), G),
        _c(f, "seed_word", (*E, "--seed", "lucky"), ("--seed",), G),
        _c(f, "top_k_zero", (*E, "--open-book", "--top-k", "0"), ("--top-k",), G),
        _c(f, "open_book_without_index", (*E, "--open-book"), ("index",), G),
        _c(f, "general_latin1", (*E, "--general", f"{H}/g.txt"), ("g.txt",),
           files({"qa.jsonl": qa_items(6), "g.txt": ("caf\xe9 " * 400).encode("latin-1")})),
        _c(f, "general_empty_folder", (*E, "--general", f"{H}/gdir"), ("gdir",),
           files({"qa.jsonl": qa_items(6), "gdir/": ""})),
        _c(f, "out_is_the_models_config", ("eval", "--model", f"{H}/m1", "--qa",
           f"{H}/qa.jsonl", "--out", f"{H}/m1/config.json"), ("--out",),
           both(model_at("m1"), G)),
        _c(f, "out_is_the_qa_file", (*E, "--out", f"{H}/qa.jsonl"), ("--out",), G),
        _c(f, "out_is_the_store", (*E, "--out", f"{H}/runs/bad/jupiter.sqlite"), ("--out",),
           G, seeded=True),
        _c(f, "out_is_a_folder", (*E, "--out", f"{H}/docs"), ("docs",), G),
        _c(f, "chat_template_missing", (*E, "--chat-template", f"{H}/nope.jinja"),
           ("nope.jinja",), G),
        _c(f, "mc_choices_word", (*E, "--mc-choices", "four"), ("--mc-choices",), G),
    ]  # fmt: skip


# ---------------------------------------------------------------- dashboard and doctor
def _garbage_store(home: Path, fx: Fixtures) -> str:
    mkdir(home / "runs" / "bad")
    (home / "runs" / "bad" / "jupiter.sqlite").write_bytes(b"this is not a database\n" * 40)
    return LOCAL_TEXT


def _truncated_store(home: Path, fx: Fixtures) -> str:
    import shutil

    shutil.copytree(fx.seed_store, home / "runs" / "bad")
    db = home / "runs" / "bad" / "jupiter.sqlite"
    db.write_bytes(db.read_bytes()[:8192])
    return LOCAL_TEXT


def _foreign_store(home: Path, fx: Fixtures) -> str:
    import sqlite3

    mkdir(home / "runs" / "bad")
    con = sqlite3.connect(home / "runs" / "bad" / "jupiter.sqlite")
    con.execute("create table notes (x text)")
    con.commit()
    con.close()
    return LOCAL_TEXT


def _store_a_folder(home: Path, fx: Fixtures) -> str:
    mkdir(home / "runs" / "bad" / "jupiter.sqlite")
    return LOCAL_TEXT


# what the error line names for each damaged store
STORE_NAMED = {"garbage": "jupiter.sqlite", "truncated": "jupiter.sqlite",
               "foreign": "jupiter.sqlite", "a_folder": "runs/bad"}  # fmt: skip
STORES: dict[str, Setup] = {"garbage": _garbage_store, "truncated": _truncated_store,
                            "foreign": _foreign_store, "a_folder": _store_a_folder}  # fmt: skip


def dashboard_cases() -> list[Case]:
    f = "dashboard"
    D = ("dashboard", "--domain", Y)
    return [
        _c(f, "port_word", (*D, "--port", "http"), ("--port",), yaml=LOCAL_TEXT),
        _c(f, "port_negative", (*D, "--port", "-1"), ("--port",), yaml=LOCAL_TEXT),
        _c(f, "public_without_key", (*D, "--host", "0.0.0.0", "--port", "0"), ("--api-key",),
           yaml=LOCAL_TEXT, seeded=True),
        _c(f, "host_unresolvable", (*D, "--host", "no-such-host.invalid", "--port", "0",
           "--api-key", "k"), ("no-such-host.invalid",), yaml=LOCAL_TEXT, seeded=True),
        _c(f, "yaml_broken", (*D, "--port", "0"), ("bad.yaml",), yaml="name: [bad\n"),
        _c(f, "yaml_unknown_key", (*D, "--port", "0"), ("sorces",),
           yaml=LOCAL_TEXT + "sorces: []\n"),
        *[_c(f, f"store_{name}", (*D, "--port", "0"), (STORE_NAMED[name],), setup)
          for name, setup in STORES.items()],
    ]  # fmt: skip


def doctor_cases() -> list[Case]:
    f = "doctor"
    return [
        _c(f, "timeout_nan", ("doctor", "--timeout", "nan"), ("--timeout",)),
        _c(f, "timeout_inf", ("doctor", "--timeout", "inf"), ("--timeout",)),
        _c(f, "timeout_negative", ("doctor", "--timeout", "-3"), ("--timeout",)),
        _c(f, "timeout_word", ("doctor", "--timeout", "soon"), ("--timeout",)),
        _c(f, "cluster_file_not_yaml", ("doctor", "--cluster-file", f"{H}/c.yaml"),
           ("c.yaml",), files({"c.yaml": "nodes: [{host: a\n"})),
        _c(f, "cluster_file_latin1", ("doctor", "--cluster-file", f"{H}/c.yaml"), ("c.yaml",),
           files({"c.yaml": "# caf\xe9\nnodes: [{host: a}]\n".encode("latin-1")})),
        _c(f, "cluster_file_a_folder", ("doctor", "--cluster-file", f"{H}/c.yaml"),
           ("c.yaml",), files({"c.yaml/": ""})),
        _c(f, "cluster_file_unknown_key", ("doctor", "--cluster-file", f"{H}/c.yaml"),
           ("gpus",), files({"c.yaml": "nodes: [{host: a, gpus: 2}]\n"})),
        _c(f, "domain_unknown", ("doctor", "--domain", "klingon"), ("klingon",)),
        _c(f, "domain_yaml_broken", ("doctor", "--domain", Y), ("bad.yaml",),
           yaml="name: bad\n\tsources: []\n"),
        _c(f, "domain_yaml_nan", ("doctor", "--domain", Y), ("train.lr",),
           yaml=LOCAL_TEXT + "train: {lr: .nan}\n"),
        _c(f, "json_with_bad_timeout", ("doctor", "--json", "--timeout", "nan"),
           ("--timeout",)),
    ]  # fmt: skip


# ---------------------------------------------------------------- generators, rollback
def lineage_cases() -> list[Case]:
    cases = []
    for cmd in ("generators", "rollback"):
        cases += [_c(cmd, f"store_{name}", (cmd, "--domain", Y), (STORE_NAMED[name],), setup)
                  for name, setup in STORES.items()]  # fmt: skip
        cases += [
            _c(cmd, "no_workspace", (cmd, "--domain", Y), ("bad",), yaml=LOCAL_TEXT),
            _c(cmd, "yaml_broken", (cmd, "--domain", Y), ("bad.yaml",), yaml="name: 'bad\n"),
            _c(cmd, "yaml_not_utf8", (cmd, "--domain", Y), ("bad.yaml",),
               yaml=b"name: bad\xff\xfe\n"),
        ]  # fmt: skip
    R = ("rollback", "--domain", Y)
    cases += [
        _c("rollback", "to_empty", (*R, "--to", ""), ("first generator",), yaml=LOCAL_TEXT,
           seeded=True),
        _c("rollback", "to_sql_quote", (*R, "--to", "x' OR '1'='1"), ("x' OR '1'='1",),
           yaml=LOCAL_TEXT, seeded=True),
        _c("rollback", "to_a_path", (*R, "--to", "{model}"), ("no generator",), yaml=LOCAL_TEXT,
           seeded=True),
        _c("rollback", "to_rejected_student", (*R, "--to", "cycle-001-student"),
           ("cycle-001-student",), yaml=LOCAL_TEXT, seeded=True),
    ]  # fmt: skip
    return cases


# ------------------------------------------------------------------------- federated
def _fed_yaml(extra: str = "") -> Setup:
    def setup(home: Path, fx: Fixtures) -> str:
        return LOCAL_TEXT + f"model: {{base: {fx.model}}}\ntrain: {{method: full}}\n" + extra

    return setup


FED_FLAGS: dict[str, tuple[tuple[str, ...], str]] = {
    "rounds_zero": (("--rounds", "0"), "rounds"),
    "rounds_word": (("--rounds", "ten"), "--rounds"),
    "local_steps_negative": (("--local-steps", "-1"), "local_steps"),
    "min_clients_zero": (("--min-clients", "0"), "min_clients"),
    "clients_per_round_zero": (("--clients-per-round", "0"), "clients_per_round"),
    "min_results_above_min_clients": (
        ("--min-clients", "2", "--min-results", "5"),
        "--min-results",
    ),
    "strategy_unknown": (("--strategy", "fedprox"), "fedprox"),
    "trim_fraction_nan": (("--trim-fraction", "nan"), "--trim-fraction"),
    "trim_fraction_half": (("--strategy", "trimmed", "--trim-fraction", "0.5"), "trim_fraction"),
    "byzantine_negative": (("--strategy", "krum", "--byzantine", "-1"), "byzantine"),
    "address_no_port": (("--address", "localhost"), "localhost"),
    "address_port_too_high": (("--address", "127.0.0.1:99999"), "99999"),
    "address_port_word": (("--address", "127.0.0.1:http"), "127.0.0.1:http"),
    "round_timeout_nan": (("--round-timeout", "nan"), "--round-timeout"),
    "round_timeout_zero": (("--round-timeout", "0"), "round_timeout"),
    "round_timeout_inf": (("--round-timeout", "inf"), "--round-timeout"),
    "straggler_wait_negative": (("--straggler-wait", "-1"), "straggler_wait"),
    "wait_clients_minus_inf": (("--wait-clients", "-inf"), "--wait-clients"),
    "dp_unknown": (("--dp", "local"), "local"),
    "noise_multiplier_nan": (("--dp", "server", "--noise-multiplier", "nan"), "--noise-multiplier"),
    "noise_multiplier_negative": (
        ("--dp", "server", "--noise-multiplier", "-1"),
        "noise_multiplier",
    ),
    "clip_norm_zero": (("--dp", "server", "--clip-norm", "0"), "clip_norm"),
    "clip_norm_inf": (("--dp", "server", "--clip-norm", "inf"), "--clip-norm"),
    "delta_one": (("--dp", "server", "--delta", "1"), "delta"),
    "epsilon_budget_negative": (("--dp", "server", "--epsilon-budget", "-2"), "epsilon_budget"),
    "cert_missing": (
        ("--ca-cert", f"{H}/k.pem", "--cert", f"{H}/nope.pem", "--key", f"{H}/k.pem"),
        "nope.pem",
    ),
    "key_without_cert": (("--key", f"{H}/k.pem"), "--cert"),
    "ca_cert_missing": (
        ("--ca-cert", f"{H}/ca.pem", "--cert", f"{H}/k.pem", "--key", f"{H}/k.pem"),
        "ca.pem",
    ),
    "client_key_missing": (("--client-key", f"{H}/c.pub"), "c.pub"),
    "out_a_file": (("--out", f"{H}/notes.txt"), "notes.txt"),
    "out_the_workspace": (("--out", f"{H}/runs/bad"), "runs/bad"),
    "out_the_model": (("--out", "{model}"), "--out"),
    "out_inside_the_base_model": (("--out", "{model}/run"), "--out"),
    "out_in_another_workspace": (("--out", f"{H}/runs/other/run"), "runs/other"),
}
FED_YAML: dict[str, tuple[str, str]] = {
    "yaml_rounds_nan": ("federated: {rounds: .nan}\n", "federated.rounds"),
    "yaml_round_timeout_inf": ("federated: {round_timeout_s: .inf}\n", "round_timeout_s"),
    "yaml_strategy_unknown": ("federated: {strategy: mean}\n", "federated.strategy"),
    "yaml_dp_noise_nan": (
        "federated: {dp: {mode: server, noise_multiplier: .nan}}\n",
        "noise_multiplier",
    ),
    "yaml_unknown_key": ("federated: {roundz: 3}\n", "roundz"),
}


def federated_cases() -> list[Case]:
    f = "federated"
    srv = ("federated", "server", "--domain", Y, "--wait-clients", "2")
    given = files({"notes.txt": "x", "k.pem": "not a key", "runs/other/jupiter.sqlite": ""})
    cases = [_c(f, f"server/{name}", (*srv, *flags), (m,), both(_fed_yaml(), given),
                seeded=True) for name, (flags, m) in FED_FLAGS.items()]  # fmt: skip
    cases += [_c(f, f"server/{name}", srv, (m,), _fed_yaml(extra))
              for name, (extra, m) in FED_YAML.items()]  # fmt: skip
    cli = ("federated", "client", "--domain", Y)
    cases += [
        _c(f, "server/no_base_model", srv, ("model.base",), yaml=LOCAL_TEXT),
        _c(f, "server/base_model_missing", srv, ("gone",),
           yaml=LOCAL_TEXT + "model: {base: gone}\n"),
        _c(f, "server/domain_unknown", ("federated", "server", "--domain", "klingon"),
           ("klingon",)),
        _c(f, "client/no_server", cli, ("--server",), _fed_yaml()),
        _c(f, "client/server_no_port", (*cli, "--server", "localhost"), ("localhost",),
           _fed_yaml(), seeded=True),
        _c(f, "client/server_empty", (*cli, "--server", ""), ("--server",), _fed_yaml()),
        _c(f, "client/root_cert_missing", (*cli, "--server", "127.0.0.1:9092", "--root-cert",
           f"{H}/ca.pem"), ("ca.pem",), _fed_yaml(), seeded=True),
        _c(f, "client/auth_key_missing", (*cli, "--server", "127.0.0.1:9092", "--auth-key",
           f"{H}/id"), ("id",), _fed_yaml(), seeded=True),
        _c(f, "client/auth_key_without_tls", (*cli, "--server", "127.0.0.1:9092", "--auth-key",
           f"{H}/id"), ("--root-cert",), both(_fed_yaml(), files({"id": "not a key\n"})),
           seeded=True),
        _c(f, "client/device_tpu", (*cli, "--server", "127.0.0.1:9092", "--device", "tpu"),
           ("tpu",), _fed_yaml(), seeded=True),
        _c(f, "client/no_examples", (*cli, "--server", "127.0.0.1:9092"), ("examples",),
           _fed_yaml(), seeded=True),
        _c(f, "client/no_base_model", (*cli, "--server", "127.0.0.1:9092"), ("model.base",),
           yaml=LOCAL_TEXT, seeded=True),
    ]  # fmt: skip
    return cases


# ------------------------------------------------------------------------- data export
def data_export_cases() -> list[Case]:
    f = "data_export"
    X = ("data", "export", "--domain", Y)
    S = {"yaml": LOCAL_TEXT, "seeded": True}
    return [
        _c(f, "out_the_workspace", (*X, "--out", f"{H}/runs/bad"), ("--out",), **S),
        _c(f, "out_the_store", (*X, "--out", f"{H}/runs/bad/jupiter.sqlite"), ("--out",), **S),
        _c(f, "out_a_file", (*X, "--out", f"{H}/notes.txt"), ("notes.txt",),
           files({"notes.txt": "x"}), seeded=True, yaml=LOCAL_TEXT),
        _c(f, "out_holds_the_workspace", (*X, "--out", f"{H}/runs"), ("--out",), **S),
        _c(f, "out_under_a_file", (*X, "--out", f"{H}/notes.txt/x"), ("notes.txt",),
           files({"notes.txt": "x"}), seeded=True, yaml=LOCAL_TEXT),
        _c(f, "split_nan", (*X, "--split", "nan,0.5,0.5"), ("--split",), **S),
        _c(f, "split_inf", (*X, "--split", "inf,0,0"), ("--split",), **S),
        _c(f, "split_negative", (*X, "--split", "1.1,-0.1,0"), ("--split",), **S),
        _c(f, "split_two_parts", (*X, "--split", "0.5,0.5"), ("--split",), **S),
        _c(f, "split_empty", (*X, "--split", ""), ("--split",), **S),
        _c(f, "seed_word", (*X, "--seed", "abc"), ("--seed",), **S),
        _c(f, "format_empty", (*X, "--format", ""), ("--format",), **S),
        _c(f, "status_empty", (*X, "--status", ""), ("--status",), **S),
        _c(f, "status_rejected_typo", (*X, "--status", "accepted,rejectd"), ("rejectd",), **S),
        _c(f, "no_workspace", X, ("bad",), yaml=LOCAL_TEXT),
        _c(f, "store_garbage", X, ("jupiter.sqlite",), _garbage_store),
        _c(f, "no_examples_yet", X, ("examples",), **S),
    ]  # fmt: skip


def reader_cases() -> list[Case]:
    return (damaged_reads() + serve_cases() + chat_cases() + test_cases() + eval_cases()
            + dashboard_cases() + doctor_cases() + lineage_cases() + federated_cases()
            + data_export_cases())  # fmt: skip


def command_cases() -> list[Case]:
    """Issue 26's corpus: every command-line case of the commands R4 did not cover (the
    HTTP requests to `serve` are corpus_http's)."""
    from corpus_outputs import output_cases

    return output_cases() + reader_cases()


# the cases issue 26 names (its items 1-8), as this corpus writes them
ISSUE_CASES = (
    "export/hf/out_the_workspace_force", "export/gguf/out_the_workspace_force",
    "merge/out_holds_the_inputs_force", "export/hf/out_is_the_model",
    "export/hf/weights_truncated", "export/hf/weights_flipped_checksummed",
    "export/hf/weights_missing", "export/hf/dir_empty", "export/hf/weights_nan",
    "serve_http/chat/seed_2_pow_70", "serve_http/chat/body_over_cap",
    "serve_http/chat/nested_100k_arrays", "serve_http/hangup/mid_body",
    "merge/recipe/lambda_nan", "merge/lambda_overflows_float16", "merge/input/weights_nan",
    "merge/lambda_inf", "doctor/timeout_nan", "chat/temperature_nan",
    "export/out_locked_by_a_live_writer", "merge/out_locked_by_a_live_writer",
    "test/out_is_a_file", "test/out_inside_the_model", "test/out_inside_the_workspace",
    "generators/no_workspace", "generators/store_garbage", "dashboard/public_without_key",
)  # fmt: skip
# one case per fix this corpus led to (docs/RELIABILITY.md, round 3): tests/chaos runs them
FIXED_BY_THE_COMMANDS_CORPUS = (
    "export/hf/weights_dtype_lie", "export/out_under_a_file",
    "export/out_locked_by_a_live_writer", "export/adapter_base_missing",
    "merge/input/config_list", "merge/input/weights_flipped_checksummed",
    "merge/input/weights_nan", "serve_model/weights_flipped_checksummed",
    "chat_model/checksums_not_json", "test_model/weights_flipped_checksummed",
    "serve_cli/chat_template_broken_jinja", "chat/chat_template_broken_jinja",
    "serve_cli/chat_template_latin1", "serve_cli/host_empty", "test/prompts_nul_bytes",
    "test/out_holds_the_prompts", "test/second_model_damaged",
    "eval_model/out_is_the_models_config", "eval_model/out_is_the_store",
    "doctor/cluster_file_not_yaml", "generators/store_foreign", "rollback/store_foreign",
    "federated/client/device_tpu", "federated/server/out_inside_the_base_model",
    "data_export/out_the_workspace", "data_export/split_nan",
)  # fmt: skip
HTTP_FIXED = ("serve_http/chat/lone_surrogate", "serve_http/chat/prompt_3mb")
