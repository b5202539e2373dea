"""The hand-written bad-input families about models and commands: damaged model dirs through each
command and YAML key that opens one, command-line flags, and cluster.yaml."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus import (
    LOCAL_TEXT,
    START,
    Case,
    Fixtures,
    Setup,
    mkdir,
    write,
)
from corpus_files import qa_items


# -------------------------------------------------------------------------- model dirs
def _st_header(header: bytes, data: bytes = b"\0" * 16, length: int | None = None) -> bytes:
    n = len(header) if length is None else length
    return struct.pack("<Q", n) + header + data


GOOD_HEADER = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
# damage -> what is done to a copy of the tiny model, and the file the error names
DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "config_not_json": (lambda d: (d / "config.json").write_text('{"model_type": '), "config.json"),
    "config_empty": (lambda d: (d / "config.json").write_text(""), "config.json"),
    "config_list": (lambda d: (d / "config.json").write_text("[1, 2]"), "config.json"),
    "config_missing": (lambda d: (d / "config.json").unlink(), "config.json"),
    "config_unknown_family": (
        lambda d: _edit_config(d, model_type="no-such-family"),
        "no-such-family",
    ),
    "config_no_model_type": (lambda d: _edit_config(d, model_type=None), "config.json"),
    "config_hidden_size_string": (lambda d: _edit_config(d, hidden_size="big"), "m1"),
    "weights_truncated": (lambda d: _truncate(d / "model.safetensors", 0.5), "model.safetensors"),
    "weights_empty": (lambda d: (d / "model.safetensors").write_bytes(b""), "model.safetensors"),
    "weights_header_not_json": (
        lambda d: (d / "model.safetensors").write_bytes(_st_header(b"{not json at all}   ")),
        "model.safetensors",
    ),
    "weights_header_too_long": (
        lambda d: (d / "model.safetensors").write_bytes(_st_header(GOOD_HEADER, length=1 << 40)),
        "model.safetensors",
    ),
    "weights_missing": (lambda d: (d / "model.safetensors").unlink(), "m1"),
    "weights_wrong_tensors": (
        lambda d: (d / "model.safetensors").write_bytes(
            _st_header(GOOD_HEADER.ljust(-(-len(GOOD_HEADER) // 8) * 8))
        ),
        "m1",
    ),
    "tokenizer_corrupt": (lambda d: (d / "tokenizer.json").write_text('{"version": '), "tokenizer"),
    "dir_empty": (lambda d: [p.unlink() for p in d.iterdir()], "m1"),
}
CONSUMERS: dict[str, tuple[tuple[str, ...], str]] = {
    "serve": (("serve", "--model", "{home}/m1", "--port", "0"), ""),
    "chat": (("chat", "--model", "{home}/m1"), ""),
    "eval": (("eval", "--model", "{home}/m1", "--qa", "{home}/qa.jsonl"), ""),
    "test": (("test", "--model", "{home}/m1", "--prompts", "{home}/prompts.txt"), ""),
    "model.base": (START, LOCAL_TEXT + "model: {base: m1}\ntrain: {method: full}\n"),
    "generator.model_path": (START, LOCAL_TEXT + "generator: {type: model, model_path: m1}\n"),
}


def _edit_config(d: Path, **changes: Any) -> None:
    conf = json.loads((d / "config.json").read_text())
    for k, v in changes.items():
        if v is None:
            conf.pop(k, None)
        else:
            conf[k] = v
    (d / "config.json").write_text(json.dumps(conf))


def _truncate(p: Path, share: float) -> None:
    p.write_bytes(p.read_bytes()[: int(p.stat().st_size * share)])


def _damaged_model(damage: str, yaml_text: str) -> Setup:
    def setup(home: Path, fx: Fixtures) -> str:
        import shutil

        shutil.copytree(fx.model, home / "m1")
        DAMAGE[damage][0](home / "m1")
        (home / "qa.jsonl").write_text(qa_items(6))
        (home / "prompts.txt").write_text("What does the lever do?\n")
        return yaml_text

    return setup


def model_dir_cases() -> list[Case]:
    cases = []
    for consumer, (argv, yaml_text) in CONSUMERS.items():
        for damage, (_, names) in DAMAGE.items():
            mentions = (
                ("m1", names)
                if consumer in ("serve", "chat", "eval", "test")
                else (consumer, names)
            )
            cases.append(
                Case(
                    "model_dirs",
                    f"{consumer}/{damage}",
                    argv=argv,
                    setup=_damaged_model(damage, yaml_text),
                    mentions=mentions,
                )
            )
    m = "model_dirs"
    cases += [
        Case(
            m,
            "serve/missing_dir",
            argv=("serve", "--model", "{home}/gone", "--port", "0"),
            mentions=("gone",),
        ),
        Case(m, "chat/missing_dir", argv=("chat", "--model", "{home}/gone"), mentions=("gone",)),
        Case(
            m,
            "serve/a_file",
            setup=write("weights.bin", b"\0" * 64, ""),
            argv=("serve", "--model", "{home}/weights.bin", "--port", "0"),
            mentions=("weights.bin",),
        ),
        Case(
            m,
            "serve/gguf_garbage",
            setup=write("m.gguf", b"GGUF" + b"\0" * 60, ""),
            argv=("serve", "--model", "{home}/m.gguf", "--port", "0"),
            mentions=("m.gguf",),
        ),
        Case(
            m,
            "serve/hub_id_not_cached",
            argv=("serve", "--model", "nobody/no-such-model-xyz", "--port", "0"),
            mentions=("nobody/no-such-model-xyz",),
        ),
        Case(
            m,
            "serve/ollama_unknown",
            argv=("serve", "--model", "ollama:no-such-model-xyz", "--port", "0"),
            mentions=("no-such-model-xyz",),
        ),
        Case(
            m,
            "chat/no_student_yet",
            LOCAL_TEXT,
            argv=("chat", "--domain", "{yaml}"),
            mentions=("bad",),
            seeded=True,
        ),
    ]
    return cases


# ------------------------------------------------------------------------------- CLI
def cli_cases() -> list[Case]:
    c = "cli"
    Y = "{yaml}"
    domain_commands = [
        "collect",
        "generate",
        "filter",
        "train",
        "status",
        "generators",
        "rollback",
        "dashboard",
        "data report",
        "data export",
        "config show",
        "cluster plan",
        "chat",
        "eval",
    ]
    cases = [
        Case(
            c,
            f"{cmd.replace(' ', '_')}/unknown_domain",
            argv=(*cmd.split(), "--domain", "klingon"),
            mentions=("klingon",),
        )
        for cmd in domain_commands
    ]
    typos = {
        "start": "--atuo",
        "collect": "--quik",
        "train": "--nprocs",
        "eval": "--modle",
        "serve": "--prot",
        "chat": "--temprature",
        "status": "--jsn",
        "data report": "--htm",
        "data export": "--fromat",
        "merge": "--methd",
        "doctor": "--domian",
        "test": "--prompt",
        "cluster plan": "--cluster",
        "config presets": "--contxt",
        "dashboard": "--hots",
    }
    cases += [
        Case(c, f"{cmd.replace(' ', '_')}/option_typo", argv=(*cmd.split(), opt), mentions=(opt,))
        for cmd, opt in typos.items()
    ]
    S = True  # these run against the seeded workspace: its store must stay as it was
    cases += [
        Case(c, "no_command_args_typo", argv=("strat",), mentions=("strat",)),
        Case(
            c,
            "train/nproc_zero",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--nproc", "0"),
            mentions=("--nproc",),
            seeded=S,
        ),
        Case(
            c,
            "train/nproc_word",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--nproc", "two"),
            mentions=("--nproc", "two"),
        ),
        Case(
            c,
            "train/nnodes_negative",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--nnodes", "-1"),
            mentions=("--nnodes",),
            seeded=S,
        ),
        Case(
            c,
            "train/node_rank_beyond",
            LOCAL_TEXT,
            argv=(
                "train",
                "--domain",
                Y,
                "--nnodes",
                "2",
                "--node-rank",
                "2",
                "--master",
                "127.0.0.1:29500",
            ),
            mentions=("--node-rank",),
            seeded=S,
        ),
        Case(
            c,
            "train/nnodes_without_master",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--nnodes", "2"),
            mentions=("--master",),
            seeded=S,
        ),
        Case(
            c,
            "train/master_without_port",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--nnodes", "2", "--master", "node0"),
            mentions=("--master",),
            seeded=S,
        ),
        Case(
            c,
            "train/cluster_and_nproc",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--cluster", "--nproc", "2"),
            mentions=("--cluster",),
            seeded=S,
        ),
        Case(
            c,
            "train/cluster_file_missing",
            LOCAL_TEXT,
            argv=("train", "--domain", Y, "--cluster", "--cluster-file", "{home}/nope.yaml"),
            mentions=("nope.yaml",),
            seeded=S,
        ),
        Case(
            c,
            "train/before_collect",
            LOCAL_TEXT,
            argv=("train", "--domain", Y),
            mentions=("collect",),
        ),
        Case(
            c,
            "filter/before_generate",
            LOCAL_TEXT,
            argv=("filter", "--domain", Y),
            mentions=("generate",),
            seeded=S,
        ),
        Case(
            c,
            "start/auto_and_interactive",
            LOCAL_TEXT,
            argv=("start", "--domain", Y, "--auto", "--interactive"),
            mentions=("--auto", "--interactive"),
            seeded=S,
        ),
        Case(
            c,
            "rollback/unknown_generator",
            LOCAL_TEXT,
            argv=("rollback", "--domain", Y, "--to", "no-such-generator"),
            mentions=("no-such-generator",),
            seeded=S,
        ),
        Case(
            c,
            "rollback/nothing_to_roll_back",
            LOCAL_TEXT,
            argv=("rollback", "--domain", Y),
            mentions=("first generator",),
            seeded=S,
        ),
        Case(
            c,
            "serve/port_too_high",
            argv=("serve", "--model", "{model}", "--port", "70000"),
            mentions=("--port", "70000"),
        ),
        Case(
            c,
            "serve/port_negative",
            argv=("serve", "--model", "{model}", "--port", "-1"),
            mentions=("--port",),
        ),
        Case(
            c,
            "serve/max_batch_zero",
            argv=("serve", "--model", "{model}", "--max-batch", "0"),
            mentions=("--max-batch",),
        ),
        Case(
            c,
            "serve/public_without_key",
            argv=("serve", "--model", "{model}", "--host", "0.0.0.0", "--port", "0"),
            mentions=("--api-key",),
        ),
        Case(
            c,
            "serve/host_unresolvable",
            argv=(
                "serve",
                "--model",
                "{model}",
                "--host",
                "no-such-host.invalid",
                "--port",
                "0",
                "--api-key",
                "k",
            ),
            mentions=("no-such-host.invalid",),
        ),
        Case(
            c,
            "serve/chat_template_unknown",
            argv=("serve", "--model", "{model}", "--chat-template", "alpaca", "--port", "0"),
            mentions=("alpaca",),
        ),
        Case(
            c,
            "serve/chat_template_missing_file",
            argv=(
                "serve",
                "--model",
                "{model}",
                "--chat-template",
                "{home}/t.jinja",
                "--port",
                "0",
            ),
            mentions=("t.jinja",),
        ),
        Case(c, "serve/no_model", argv=("serve",), mentions=("--model",)),
        Case(
            c,
            "chat/temperature_negative",
            argv=("chat", "--model", "{model}", "--temperature", "-1"),
            mentions=("--temperature",),
        ),
        Case(
            c,
            "chat/max_new_tokens_zero",
            argv=("chat", "--model", "{model}", "--max-new-tokens", "0"),
            mentions=("--max-new-tokens",),
        ),
        Case(
            c,
            "chat/open_book_without_index",
            argv=("chat", "--model", "{model}", "--open-book"),
            mentions=("open",),
        ),
        Case(
            c,
            "eval/mc_choices_one",
            argv=("eval", "--model", "{model}", "--qa", "{home}/qa.jsonl", "--mc-choices", "1"),
            mentions=("--mc-choices",),
        ),
        Case(
            c,
            "eval/distractors_unknown",
            setup=write("qa.jsonl", qa_items(6), ""),
            argv=(
                "eval",
                "--model",
                "{model}",
                "--qa",
                "{home}/qa.jsonl",
                "--distractors",
                "clever",
            ),
            mentions=("clever",),
        ),
        Case(
            c,
            "eval/max_items_zero",
            argv=("eval", "--model", "{model}", "--qa", "{home}/qa.jsonl", "--max-items", "0"),
            mentions=("--max-items",),
        ),
        Case(
            c,
            "eval/general_missing",
            setup=write("qa.jsonl", qa_items(6), ""),
            argv=(
                "eval",
                "--model",
                "{model}",
                "--qa",
                "{home}/qa.jsonl",
                "--general",
                "{home}/nope.txt",
            ),
            mentions=("nope.txt",),
        ),
        Case(
            c,
            "eval/passages_without_open_book",
            setup=write("qa.jsonl", qa_items(6), ""),
            argv=(
                "eval",
                "--model",
                "{model}",
                "--qa",
                "{home}/qa.jsonl",
                "--passages",
                "{home}/nowhere",
            ),
            mentions=("--passages",),
        ),
        Case(
            c,
            "eval/model_and_domain_without_qa",
            LOCAL_TEXT,
            argv=("eval", "--domain", Y, "--model", "{model}"),
            mentions=("--qa",),
            seeded=S,
        ),
        Case(
            c,
            "eval/domain_before_any_cycle",
            LOCAL_TEXT,
            argv=("eval", "--domain", Y),
            mentions=("bad",),
            seeded=S,
        ),
        Case(
            c,
            "eval/export_lm_eval_without_domain",
            argv=("eval", "--export-lm-eval", "{home}/out"),
            mentions=("--domain",),
        ),
        Case(
            c,
            "test/prompts_missing",
            argv=("test", "--model", "{model}", "--prompts", "{home}/nope.txt"),
            mentions=("nope.txt",),
        ),
        Case(
            c,
            "test/prompts_empty",
            setup=write("p.txt", "\n\n", ""),
            argv=("test", "--model", "{model}", "--prompts", "{home}/p.txt"),
            mentions=("p.txt",),
        ),
        Case(
            c,
            "test/prompts_bad_jsonl",
            setup=write("p.jsonl", "{oops\n", ""),
            argv=("test", "--model", "{model}", "--prompts", "{home}/p.jsonl"),
            mentions=("p.jsonl",),
        ),
        Case(
            c,
            "test/prompts_jsonl_no_prompt",
            setup=write("p.jsonl", '{"q": "hi"}\n', ""),
            argv=("test", "--model", "{model}", "--prompts", "{home}/p.jsonl"),
            mentions=("p.jsonl", "prompt"),
        ),
        Case(
            c,
            "test/max_batch_zero",
            setup=write("p.txt", "hi\n", ""),
            argv=("test", "--model", "{model}", "--prompts", "{home}/p.txt", "--max-batch", "0"),
            mentions=("--max-batch",),
        ),
        Case(
            c,
            "dashboard/port_too_high",
            LOCAL_TEXT,
            argv=("dashboard", "--domain", Y, "--port", "99999"),
            mentions=("--port",),
            seeded=S,
        ),
        Case(
            c,
            "data_export/format_unknown",
            LOCAL_TEXT,
            argv=("data", "export", "--domain", Y, "--format", "parquet"),
            mentions=("parquet",),
            seeded=S,
        ),
        Case(
            c,
            "data_export/split_not_summing",
            LOCAL_TEXT,
            argv=("data", "export", "--domain", Y, "--split", "0.9,0.2,0.1"),
            mentions=("--split",),
            seeded=S,
        ),
        Case(
            c,
            "data_export/split_words",
            LOCAL_TEXT,
            argv=("data", "export", "--domain", Y, "--split", "most,some,few"),
            mentions=("--split",),
            seeded=S,
        ),
        Case(
            c,
            "data_export/status_unknown",
            LOCAL_TEXT,
            argv=("data", "export", "--domain", Y, "--status", "approved"),
            mentions=("approved",),
            seeded=S,
        ),
        Case(
            c,
            "data_export/experts_without_experts",
            LOCAL_TEXT,
            argv=("data", "export", "--domain", Y, "--experts"),
            mentions=("experts",),
            seeded=S,
        ),
        Case(
            c,
            "data_report/html_is_a_folder",
            LOCAL_TEXT,
            argv=("data", "report", "--domain", Y, "--html", "{home}/docs"),
            mentions=("docs",),
            seeded=S,
        ),
        Case(
            c,
            "config_presets/context_zero",
            argv=("config", "presets", "--context", "0"),
            mentions=("--context",),
        ),
        Case(
            c,
            "config_presets/batch_negative",
            argv=("config", "presets", "--batch", "-2"),
            mentions=("--batch",),
        ),
        Case(
            c,
            "config_cluster/missing",
            argv=("config", "cluster", "--path", "{home}/nope.yaml"),
            mentions=("nope.yaml",),
        ),
        Case(c, "doctor/timeout_zero", argv=("doctor", "--timeout", "0"), mentions=("--timeout",)),
        Case(
            c,
            "doctor/cluster_file_missing",
            argv=("doctor", "--cluster-file", "{home}/nope.yaml"),
            mentions=("nope.yaml",),
        ),
        Case(c, "init/bad_name", argv=("init", "--domain", "my domain!"), mentions=("my domain!",)),
        Case(
            c,
            "init/exists",
            setup=lambda h, fx: (
                mkdir(h / "config" / "domains"),
                (h / "config" / "domains" / "chem.yaml").write_text("name: chem\n"),
                None,
            )[2],
            argv=("init", "--domain", "chem"),
            mentions=("chem.yaml",),
        ),
        Case(
            c,
            "merge/no_models",
            argv=("merge", "--method", "linear", "--out", "{home}/out"),
            mentions=("--model",),
        ),
        Case(
            c,
            "merge/method_unknown",
            argv=(
                "merge",
                "--method",
                "blend",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--out",
                "{home}/out",
            ),
            mentions=("blend",),
        ),
        Case(
            c,
            "merge/recipe_missing",
            argv=("merge", "--recipe", "{home}/nope.yaml"),
            mentions=("nope.yaml",),
        ),
        Case(
            c,
            "merge/one_model",
            argv=("merge", "--method", "linear", "--model", "{model}", "--out", "{home}/out"),
            mentions=("--model",),
        ),
        Case(
            c,
            "merge/weight_not_number",
            argv=(
                "merge",
                "--method",
                "weighted",
                "--model",
                "{model}:heavy",
                "--model",
                "{model}",
                "--out",
                "{home}/out",
            ),
            mentions=("heavy",),
        ),
        Case(
            c,
            "merge/missing_model",
            argv=(
                "merge",
                "--method",
                "linear",
                "--model",
                "{home}/gone",
                "--model",
                "{model}",
                "--out",
                "{home}/out",
            ),
            mentions=("gone",),
        ),
        Case(
            c,
            "merge/density_above_one",
            argv=(
                "merge",
                "--method",
                "ties",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--base",
                "{model}",
                "--density",
                "1.5",
                "--out",
                "{home}/out",
            ),
            mentions=("density",),
        ),
        Case(
            c,
            "merge/out_exists",
            setup=lambda h, fx: (mkdir(h / "out"), (h / "out" / "x").write_text("x"), None)[2],
            argv=(
                "merge",
                "--method",
                "linear",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--out",
                "{home}/out",
            ),
            mentions=("out",),
        ),
        Case(
            c,
            "merge/recipe_unknown_key",
            setup=write(
                "r.yaml", "method: linear\nmodels: [{model: a}, {model: b}]\nout: o\nbogus: 1\n", ""
            ),
            argv=("merge", "--recipe", "{home}/r.yaml"),
            mentions=("bogus",),
        ),
    ]
    return cases


# --------------------------------------------------------------------------- cluster
def _cluster(text: str) -> Setup:
    return write("cluster.yaml", text, LOCAL_TEXT)


CLUSTER_BAD: dict[str, tuple[str, tuple[str, ...]]] = {
    "unknown_key": ("nodes: [{host: localhost, gpus: 2}]\n", ("nodes.0.gpus",)),
    "processes_zero": ("nodes: [{host: localhost, processes: 0}]\n", ("processes",)),
    "ssh_port_too_high": ("nodes: [{host: a, ssh_port: 70000}]\n", ("ssh_port",)),
    "device_type_gpu": ("nodes: [{host: a, device_type: gpu}]\n", ("device_type",)),
    "memory_zero": ("nodes: [{host: a, memory_gb: 0}]\n", ("memory_gb",)),
    "island_bad_chars": ("nodes: [{host: a, island: 'lab 1'}]\n", ("island",)),
    "nodes_empty": ("nodes: []\n", ("nodes",)),
    "nodes_mapping": ("nodes: {host: a}\n", ("nodes",)),
    "inner_steps_zero": ("sync: {inner_steps: 0}\n", ("sync.inner_steps",)),
    "aggregate_unknown": ("sync: {aggregate: average}\n", ("sync.aggregate", "average")),
    "outer_momentum_one": ("sync: {outer_momentum: 1.0}\n", ("sync.outer_momentum",)),
    "trim_half": ("sync: {trim_fraction: 0.5}\n", ("sync.trim_fraction",)),
    "dtype_fp8": ("sync: {dtype: fp8}\n", ("sync.dtype", "fp8")),
    "backend_unknown": ("backend: jax\n", ("backend", "jax")),
    "mlx_backend_unknown": ("mlx_backend: nccl\n", ("mlx_backend", "nccl")),
    "ssh_options_string": ("ssh_options: -i key\n", ("ssh_options",)),
    "malformed": ("nodes: [{host: a\n", ("cluster.yaml",)),
    "top_level_list": ("- host: a\n", ("cluster.yaml",)),
    "generator_bad_url": (
        "nodes: [{host: a, role: generator, generator: {timeout: 0}}]\n",
        ("generator.timeout",),
    ),
    "jaccl_without_rdma": (
        "mlx_backend: jaccl\nnodes: [{host: a, device_type: mac}, {host: b, device_type: mac}]\n",
        ("jaccl",),
    ),
    "duplicate_node_names": ("nodes: [{host: a, name: n1}, {host: b, name: n1}]\n", ("n1",)),
}


def cluster_cases() -> list[Case]:
    cases = [
        Case(
            "cluster",
            f"plan/{name}",
            setup=_cluster(text),
            argv=("cluster", "plan", "--domain", "{yaml}", "--cluster-file", "{home}/cluster.yaml"),
            mentions=m,
        )
        for name, (text, m) in CLUSTER_BAD.items()
    ]
    cases.append(
        Case(
            "cluster",
            "plan/missing_file",
            LOCAL_TEXT,
            argv=("cluster", "plan", "--domain", "{yaml}", "--cluster-file", "{home}/nope.yaml"),
            mentions=("nope.yaml",),
        )
    )
    return cases
