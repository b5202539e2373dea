"""The bad-input families of the commands that write a model: `export` and `merge`. A
damaged input (each way a model folder can be damaged, NaN and infinite weights among
them), an --out that is, holds or sits inside an input or a workspace (with and without
--force), bad flags and bad recipes. Every case is `untouched`: the inputs, the workspace
and every other file of the case folder keep their bytes, and no output appears."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from corpus import LOCAL_TEXT, Case, Fixtures, Setup, mkdir
from corpus_models import DAMAGE

FINAL = "runs/bad/cycles/cycle-001/train/final"  # where a cycle leaves its student


def _rewrite_weights(d: Path, value: float) -> None:
    from safetensors.torch import load_file, save_file

    tensors = load_file(d / "model.safetensors")
    name = sorted(tensors)[0]
    tensors[name].view(-1)[3] = value
    save_file(tensors, d / "model.safetensors", metadata={"format": "pt"})


def _checksummed_flip(d: Path) -> None:
    from jupiter.models.folder import write_checksums

    write_checksums(d)
    data = bytearray((d / "model.safetensors").read_bytes())
    data[-64] ^= 0xFF  # framing intact: only the checksum sees it
    (d / "model.safetensors").write_bytes(bytes(data))


def _dtype_lie(d: Path) -> None:
    """The header says F16 for tensors whose bytes were written as F32."""
    p = d / "model.safetensors"
    raw = p.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = raw[8 : 8 + n].replace(b'"F32"', b'"F16"')
    p.write_bytes(raw[:8] + header + raw[8 + n :])


# more damage than corpus_models.DAMAGE: what only a checksum, a dtype or a finite check sees
NEW_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "weights_flipped_checksummed": (_checksummed_flip, "model.safetensors"),
    "checksums_not_json": (lambda d: (d / "checksums.json").write_text("{sha"), "checksums"),
    "weights_dtype_lie": (_dtype_lie, "model.safetensors"),
    "weights_nan": (lambda d: _rewrite_weights(d, float("nan")), "m1"),
    "weights_inf": (lambda d: _rewrite_weights(d, float("inf")), "m1"),
}
ALL_DAMAGE = {**DAMAGE, **NEW_DAMAGE}


def model_at(
    rel: str,
    damage: str = "",
    extra: Callable[[Path], None] | None = None,
    yaml_text: str | None = None,
) -> Setup:
    """A copy of the tiny model at home/rel, damaged as named."""

    def setup(home: Path, fx: Fixtures) -> str | None:
        shutil.copytree(fx.model, home / rel)
        if damage:
            ALL_DAMAGE[damage][0](home / rel)
        if extra is not None:
            extra(home)
        return yaml_text

    return setup


def both(*setups: Setup) -> Setup:
    def setup(home: Path, fx: Fixtures) -> str | None:
        text = None
        for s in setups:
            text = s(home, fx) or text
        return text

    return setup


def files(spec: dict[str, str | bytes], yaml_text: str | None = None) -> Setup:
    def setup(home: Path, fx: Fixtures) -> str | None:
        for rel, data in spec.items():
            p = home / rel
            mkdir(p.parent)
            if rel.endswith("/"):
                mkdir(p)
                continue
            p.write_bytes(data.encode() if isinstance(data, str) else data)
        return yaml_text

    return setup


def lock_held(rel_out: str) -> Setup:
    """A live writer's lock beside --out: this corpus runner's own pid (alive while the
    case runs)."""

    def setup(home: Path, fx: Fixtures) -> None:
        import os

        out = home / rel_out
        mkdir(out.parent)
        (out.parent / f".{out.name}.lock").write_text(str(os.getpid()))

    return setup


def _c(
    family: str,
    name: str,
    argv: tuple[str, ...],
    mentions: tuple[str, ...] = (),
    setup: Setup | None = None,
    seeded: bool = False,
    pattern: str = "",
    yaml: str | None = None,
) -> Case:
    return Case(
        family,
        name,
        yaml=yaml,
        setup=setup,
        argv=argv,
        mentions=mentions,
        seeded=seeded,
        pattern=pattern,
        untouched=True,
    )


# ---------------------------------------------------------------------------- export
FORMATS = ("hf", "gguf", "ollama", "mlx")


def export_cases() -> list[Case]:
    f = "export"
    H = "{home}"
    cases = []
    for damage, (_, names) in ALL_DAMAGE.items():
        for to in ("hf", "gguf"):
            cases.append(
                _c(
                    f,
                    f"{to}/{damage}",
                    ("export", "--model", f"{H}/m1", "--to", to, "--out", f"{H}/out"),
                    ("m1", names),
                    model_at("m1", damage),
                )
            )
    for damage in (
        "weights_truncated",
        "weights_missing",
        "weights_flipped_checksummed",
        "weights_nan",
        "config_not_json",
    ):
        for to in ("ollama", "mlx"):
            cases.append(
                _c(
                    f,
                    f"{to}/{damage}",
                    ("export", "--model", f"{H}/m1", "--to", to, "--out", f"{H}/out"),
                    ("m1",),
                    model_at("m1", damage),
                )
            )
    # --out onto what it was given: the model itself, inside it, the folder holding it, the
    # workspace the model lives in and a folder of that workspace; --force or not
    outs = {
        "is_the_model": (FINAL, "--out"),
        "inside_the_model": (f"{FINAL}/gguf", "--out"),
        "holds_the_model": ("runs/bad/cycles", "--out"),
        "the_workspace": ("runs/bad", "--out"),
        "inside_the_workspace": ("runs/bad/exports/x", "--out"),
    }
    for to in FORMATS:
        for name, (rel, word) in outs.items():
            for force in (False, True):
                argv = (
                    "export",
                    "--model",
                    f"{H}/{FINAL}",
                    "--to",
                    to,
                    "--out",
                    f"{H}/{rel}",
                    *(("--force",) if force else ()),
                )
                cases.append(
                    _c(
                        f,
                        f"{to}/out_{name}{'_force' if force else ''}",
                        argv,
                        (word,),
                        model_at(FINAL),
                        seeded=True,
                    )
                )
    M = ("export", "--model", f"{H}/m1")
    mine = files({"mine/notes.txt": "my notes\n"})
    cases += [
        _c(
            f,
            "out_is_a_file",
            (*M, "--to", "hf", "--out", f"{H}/notes.txt"),
            ("notes.txt",),
            both(model_at("m1"), files({"notes.txt": "x"})),
        ),
        _c(
            f,
            "out_under_a_file",
            (*M, "--to", "hf", "--out", f"{H}/notes.txt/x"),
            ("notes.txt",),
            both(model_at("m1"), files({"notes.txt": "x"})),
        ),
        _c(
            f,
            "out_not_jupiters_force",
            (*M, "--to", "hf", "--out", f"{H}/mine", "--force"),
            ("mine",),
            both(model_at("m1"), mine),
        ),
        _c(
            f,
            "out_exists_no_force",
            (*M, "--to", "gguf", "--out", f"{H}/mine"),
            ("mine",),
            both(model_at("m1"), mine),
        ),
        _c(
            f,
            "out_a_merge_force",
            (*M, "--to", "hf", "--out", f"{H}/merged", "--force"),
            ("merged",),
            both(model_at("m1"), files({"merged/merge.json": "{}"})),
        ),
        _c(
            f,
            "out_is_home_force",
            (*M, "--to", "hf", "--out", H, "--force"),
            ("--out",),
            model_at("m1"),
        ),
        _c(
            f,
            "out_locked_by_a_live_writer",
            (*M, "--to", "hf", "--out", f"{H}/new"),
            ("new",),
            both(model_at("m1"), lock_held("new")),
        ),
        _c(
            f,
            "out_beside_into_other_model_force",
            (*M, "--to", "hf", "--out", f"{H}/m2", "--force"),
            ("m2",),
            both(model_at("m1"), model_at("m2")),
        ),
        _c(
            f,
            "to_unknown",
            (*M, "--to", "safetensors", "--out", f"{H}/o"),
            ("safetensors",),
            model_at("m1"),
        ),
        _c(f, "to_empty", (*M, "--to", "", "--out", f"{H}/o"), ("--to",), model_at("m1")),
        _c(f, "no_to", (*M, "--out", f"{H}/o"), ("--to",), model_at("m1")),
        _c(f, "no_out", (*M, "--to", "hf"), ("--out",), model_at("m1")),
        _c(
            f,
            "hf_quant_q4",
            (*M, "--to", "hf", "--quant", "q4", "--out", f"{H}/o"),
            ("q4",),
            model_at("m1"),
        ),
        _c(
            f,
            "gguf_quant_q4_k",
            (*M, "--to", "gguf", "--quant", "q4_k", "--out", f"{H}/o"),
            ("q4_k",),
            model_at("m1"),
        ),
        _c(
            f,
            "mlx_quant_q3",
            (*M, "--to", "mlx", "--quant", "q3", "--out", f"{H}/o"),
            ("q3",),
            model_at("m1"),
        ),
        _c(
            f,
            "ollama_quant_int8",
            (*M, "--to", "ollama", "--quant", "int8", "--out", f"{H}/o"),
            ("int8",),
            model_at("m1"),
        ),
        _c(
            f,
            "model_missing",
            ("export", "--model", f"{H}/gone", "--to", "hf", "--out", f"{H}/o"),
            ("gone",),
        ),
        _c(
            f,
            "model_a_file",
            ("export", "--model", f"{H}/notes.txt", "--to", "hf", "--out", f"{H}/o"),
            ("notes.txt",),
            files({"notes.txt": "x"}),
        ),
        _c(
            f,
            "model_garbage_gguf",
            ("export", "--model", f"{H}/m.gguf", "--to", "hf", "--out", f"{H}/o"),
            ("m.gguf",),
            files({"m.gguf": b"GGUF" + b"\x07" * 60}),
        ),
        _c(
            f,
            "model_ollama_unknown",
            ("export", "--model", "ollama:no-such-model-xyz", "--to", "hf", "--out", f"{H}/o"),
            ("no-such-model-xyz",),
        ),
        _c(
            f,
            "model_hub_id_not_cached",
            ("export", "--model", "nobody/no-such-model-xyz", "--to", "gguf", "--out", f"{H}/o"),
            ("nobody/no-such-model-xyz",),
        ),
        _c(
            f,
            "model_and_domain",
            ("export", "--model", f"{H}/m1", "--domain", "{yaml}", "--to", "hf", "--out", f"{H}/o"),
            ("--model", "--domain"),
            model_at("m1"),
            yaml=LOCAL_TEXT,
        ),
        _c(
            f, "neither_model_nor_domain", ("export", "--to", "hf", "--out", f"{H}/o"), ("--model",)
        ),
        _c(
            f,
            "domain_unknown",
            ("export", "--domain", "klingon", "--to", "hf", "--out", f"{H}/o"),
            ("klingon",),
        ),
        _c(
            f,
            "domain_no_student",
            ("export", "--domain", "{yaml}", "--to", "hf", "--out", f"{H}/o"),
            ("bad",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "domain_before_collect",
            ("export", "--domain", "{yaml}", "--to", "hf", "--out", f"{H}/o"),
            ("bad",),
            yaml=LOCAL_TEXT,
        ),
        _c(
            f,
            "cycle_zero",
            ("export", "--domain", "{yaml}", "--cycle", "0", "--to", "hf", "--out", f"{H}/o"),
            ("--cycle",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "cycle_not_run",
            ("export", "--domain", "{yaml}", "--cycle", "7", "--to", "hf", "--out", f"{H}/o"),
            ("7",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "cycle_word",
            ("export", "--domain", "{yaml}", "--cycle", "last", "--to", "hf", "--out", f"{H}/o"),
            ("--cycle",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "checkpoint_bogus",
            (
                "export",
                "--domain",
                "{yaml}",
                "--checkpoint",
                "latest",
                "--to",
                "hf",
                "--out",
                f"{H}/o",
            ),
            ("latest",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "checkpoint_not_there",
            (
                "export",
                "--domain",
                "{yaml}",
                "--checkpoint",
                "step-99",
                "--to",
                "hf",
                "--out",
                f"{H}/o",
            ),
            ("train",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "best_without_eval",
            ("export", "--domain", "{yaml}", "--best", "--to", "hf", "--out", f"{H}/o"),
            ("bad",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "best_with_model",
            ("export", "--model", f"{H}/m1", "--best", "--to", "hf", "--out", f"{H}/o"),
            ("--best",),
            model_at("m1"),
        ),
        _c(
            f,
            "adapter_base_missing",
            ("export", "--model", f"{H}/ad", "--to", "hf", "--out", f"{H}/o"),
            ("nowhere",),
            files(
                {
                    "ad/adapter_config.json": json.dumps(
                        {
                            "peft_type": "LORA",
                            "base_model_name_or_path": "/nowhere/base",
                            "r": 4,
                            "target_modules": ["q_proj"],
                            "lora_alpha": 8,
                        }
                    ),
                    "ad/adapter_model.safetensors": b"\x08" + b"\0" * 7 + b"{}      ",
                }
            ),
        ),
        _c(
            f,
            "adapter_config_not_json",
            ("export", "--model", f"{H}/ad", "--to", "gguf", "--out", f"{H}/o"),
            ("adapter_config.json",),
            files({"ad/adapter_config.json": "{peft"}),
        ),
    ]
    return cases


# ----------------------------------------------------------------------------- merge
def merge_cases() -> list[Case]:
    f = "merge"
    H = "{home}"
    two = ("merge", "--method", "linear", "--model", f"{H}/x/a", "--model", f"{H}/x/b")
    ab = both(model_at("x/a"), model_at("x/b"))
    cases = []
    for damage, (_, names) in ALL_DAMAGE.items():
        cases.append(
            _c(
                f,
                f"input/{damage}",
                (
                    "merge",
                    "--method",
                    "linear",
                    "--model",
                    f"{H}/m1",
                    "--model",
                    "{model}",
                    "--out",
                    f"{H}/o",
                ),
                ("m1", names),
                model_at("m1", damage),
            )
        )
    for damage in (
        "weights_truncated",
        "weights_missing",
        "weights_nan",
        "weights_flipped_checksummed",
        "config_missing",
        "dir_empty",
    ):
        cases.append(
            _c(
                f,
                f"base/{damage}",
                (
                    "merge",
                    "--method",
                    "task_arithmetic",
                    "--model",
                    "{model}",
                    "--model",
                    "{model}",
                    "--base",
                    f"{H}/m1",
                    "--out",
                    f"{H}/o",
                ),
                ("m1",),
                model_at("m1", damage),
            )
        )
    outs = {
        "is_an_input": "x/a",
        "inside_an_input": "x/a/inner",
        "holds_the_inputs": "x",
        "the_workspace": "runs/bad",
        "inside_the_workspace": "runs/bad/merged",
    }
    for name, rel in outs.items():
        for force in (False, True):
            cases.append(
                _c(
                    f,
                    f"out_{name}{'_force' if force else ''}",
                    (*two, "--out", f"{H}/{rel}", *(("--force",) if force else ())),
                    ("--out",),
                    ab,
                    seeded=True,
                )
            )
    for force in (False, True):
        cases.append(
            _c(
                f,
                f"out_is_the_base{'_force' if force else ''}",
                (
                    "merge",
                    "--method",
                    "task_arithmetic",
                    "--model",
                    f"{H}/x/a",
                    "--model",
                    f"{H}/x/b",
                    "--base",
                    f"{H}/base",
                    "--out",
                    f"{H}/base",
                    *(("--force",) if force else ()),
                ),
                ("--out",),
                both(ab, model_at("base")),
            )
        )
    OUT = ("--out", f"{H}/o")
    ta = (
        "merge",
        "--method",
        "task_arithmetic",
        "--model",
        "{model}",
        "--model",
        "{model}",
        "--base",
        "{model}",
        *OUT,
    )
    lin = ("merge", "--method", "linear", "--model", "{model}", "--model", "{model}", *OUT)
    cases += [
        _c(
            f,
            "out_a_file",
            (*two, "--out", f"{H}/notes.txt"),
            ("notes.txt",),
            both(ab, files({"notes.txt": "x"})),
        ),
        _c(
            f,
            "out_export_force",
            (*two, "--out", f"{H}/exp", "--force"),
            ("exp",),
            both(ab, files({"exp/export.json": "{}"})),
        ),
        _c(
            f,
            "out_not_jupiters_force",
            (*two, "--out", f"{H}/mine", "--force"),
            ("mine",),
            both(ab, files({"mine/notes.txt": "mine"})),
        ),
        _c(
            f,
            "out_locked_by_a_live_writer",
            (*two, "--out", f"{H}/new"),
            ("new",),
            both(ab, lock_held("new")),
        ),
        _c(f, "no_out", two, ("--out",), ab),
        _c(f, "lambda_nan", (*ta, "--lambda", "nan"), ("--lambda",)),
        _c(f, "lambda_inf", (*ta, "--lambda", "inf"), ("--lambda",)),
        _c(f, "lambda_minus_inf", (*ta, "--lambda", "-inf"), ("--lambda",)),
        _c(f, "lambda_word", (*ta, "--lambda", "lots"), ("--lambda",)),
        _c(
            f,
            "lambda_overflows_float16",
            (*ta, "--lambda", "1e39", "--dtype", "float16"),
            ("--lambda",),
        ),
        _c(f, "density_nan", (*ta[:2], "ties", *ta[3:], "--density", "nan"), ("--density",)),
        _c(f, "density_zero", (*ta[:2], "ties", *ta[3:], "--density", "0"), ("density",)),
        _c(
            f,
            "density_negative",
            (*ta[:2], "dare_ties", *ta[3:], "--density", "-0.1"),
            ("density",),
        ),
        _c(
            f,
            "t_nan",
            (
                "merge",
                "--method",
                "slerp",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--t",
                "nan",
            ),
            ("--t",),
        ),
        _c(
            f,
            "t_above_one",
            (
                "merge",
                "--method",
                "slerp",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--t",
                "1.5",
            ),
            ("t",),
        ),
        _c(
            f,
            "t_negative",
            (
                "merge",
                "--method",
                "slerp",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--t",
                "-0.5",
            ),
            ("t",),
        ),
        _c(
            f,
            "slerp_three_models",
            (
                "merge",
                "--method",
                "slerp",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
            ),
            ("slerp",),
        ),
        _c(
            f,
            "trim_fraction_nan",
            (
                "merge",
                "--method",
                "trimmed_mean",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--trim-fraction",
                "nan",
            ),
            ("--trim-fraction",),
        ),
        _c(
            f,
            "trim_fraction_half",
            (
                "merge",
                "--method",
                "trimmed_mean",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--trim-fraction",
                "0.5",
            ),
            ("trim_fraction",),
        ),
        _c(
            f,
            "byzantine_negative",
            (
                "merge",
                "--method",
                "krum",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--byzantine",
                "-1",
            ),
            ("byzantine",),
        ),
        _c(
            f,
            "byzantine_too_many",
            (
                "merge",
                "--method",
                "krum",
                "--model",
                "{model}",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
                "--byzantine",
                "5",
            ),
            ("byzantine",),
        ),
        _c(f, "dtype_float8", (*lin, "--dtype", "float8"), ("float8",)),
        _c(f, "lora_unknown", (*lin, "--lora", "sum"), ("sum",)),
        _c(
            f,
            "ties_without_base",
            ("merge", "--method", "ties", "--model", "{model}", "--model", "{model}", *OUT),
            ("--base",),
        ),
        _c(
            f,
            "weight_nan",
            ("merge", "--method", "weighted", "--model", "{model}:nan", "--model", "{model}", *OUT),
            ("nan",),
        ),
        _c(
            f,
            "weight_inf",
            ("merge", "--method", "weighted", "--model", "{model}:inf", "--model", "{model}", *OUT),
            ("inf",),
        ),
        _c(
            f,
            "weight_negative",
            (
                "merge",
                "--method",
                "weighted",
                "--model",
                "{model}:-1",
                "--model",
                "{model}:1",
                *OUT,
            ),
            ("-1",),
        ),
        _c(
            f,
            "weights_all_zero",
            ("merge", "--method", "weighted", "--model", "{model}:0", "--model", "{model}:0", *OUT),
            ("weight",),
        ),
        _c(
            f,
            "weight_on_median",
            (
                "merge",
                "--method",
                "median",
                "--model",
                "{model}:2",
                "--model",
                "{model}",
                "--model",
                "{model}",
                *OUT,
            ),
            ("median",),
        ),
        _c(f, "max_items_zero", (*lin, "--max-items", "0"), ("--max-items",)),
        _c(f, "qa_missing", (*lin, "--qa", f"{H}/nope.jsonl"), ("nope.jsonl",)),
        _c(f, "heldout_missing", (*lin, "--heldout", f"{H}/nope.txt"), ("nope.txt",)),
        _c(f, "domain_unknown", (*lin, "--domain", "klingon"), ("klingon",)),
        _c(
            f,
            "different_architectures",
            (
                "merge",
                "--method",
                "linear",
                "--model",
                "{model}",
                "--model",
                f"{H}/qwen-model",
                *OUT,
            ),
            ("qwen-model",),
            _other_family("qwen-model"),
        ),
    ]
    cases += recipe_cases()
    return cases


def _other_family(rel: str) -> Setup:
    def setup(home: Path, fx: Fixtures) -> None:
        from tinyhf import save_tiny

        save_tiny("qwen2", home / rel)

    return setup


def _recipe(
    head: str, models: str = "[{model: {model}}, {model: {model}}]", out: str = "{home}/o"
) -> str:
    return f"{head}\nmodels: {models}\nout: {out}\n"


def recipe_file(text: str | bytes) -> Setup:
    """r.yaml, with {model} and {home} filled in."""

    def setup(home: Path, fx: Fixtures) -> None:
        data = (
            text
            if isinstance(text, bytes)
            else (text.replace("{model}", str(fx.model)).replace("{home}", str(home)).encode())
        )
        (home / "r.yaml").write_bytes(data)

    return setup


RECIPES: dict[str, tuple[str | bytes, tuple[str, ...]]] = {
    "not_yaml": ("method: [linear\n", ("r.yaml",)),
    "a_list": ("- linear\n- {model}\n", ("r.yaml",)),
    "empty": ("", ("r.yaml",)),
    "a_scalar": ("linear\n", ("r.yaml",)),
    "method_unknown": (_recipe("method: blend"), ("blend",)),
    "method_missing": (_recipe("params: {lambda: 1}"), ("method",)),
    "lambda_nan": (
        _recipe("method: task_arithmetic\nbase: {model}\nparams: {lambda: .nan}"),
        ("lambda",),
    ),
    "lambda_inf": (
        _recipe("method: task_arithmetic\nbase: {model}\nparams: {lambda: .inf}"),
        ("lambda",),
    ),
    "lambda_string": (
        _recipe("method: task_arithmetic\nbase: {model}\nparams: {lambda: big}"),
        ("lambda",),
    ),
    "density_two": (_recipe("method: ties\nbase: {model}\nparams: {density: 2}"), ("density",)),
    "t_nan": (_recipe("method: slerp\nparams: {t: .nan}"), ("t",)),
    "trim_fraction_inf": (
        _recipe(
            "method: trimmed_mean\nparams: {trim_fraction: .inf}",
            "[{model: {model}}, {model: {model}}, {model: {model}}]",
        ),
        ("trim_fraction",),
    ),
    "parameter_unknown": (_recipe("method: linear\nparams: {alpha: 1}"), ("alpha",)),
    "models_empty": (_recipe("method: linear", "[]"), ("models",)),
    "models_a_mapping": (_recipe("method: linear", "{model: {model}}"), ("models",)),
    "model_entry_no_model": (
        _recipe("method: linear", "[{weight: 1}, {model: {model}}]"),
        ("model",),
    ),
    "weight_string": (
        _recipe("method: weighted", "[{model: {model}, weight: heavy}, {model: {model}}]"),
        ("weight",),
    ),
    "weight_nan": (
        _recipe("method: weighted", "[{model: {model}, weight: .nan}, {model: {model}}]"),
        ("weight",),
    ),
    "model_path_missing": (
        _recipe("method: linear", "[{model: {home}/gone}, {model: {model}}]"),
        ("gone",),
    ),
    "out_missing": ("method: linear\nmodels: [{model: {model}}, {model: {model}}]\n", ("out",)),
    "out_is_an_input": (_recipe("method: linear", out="{model}"), ("out",)),
    "out_inside_an_input": (_recipe("method: linear", out="{model}/merged"), ("out",)),
    "dtype_unknown": (_recipe("method: linear\ndtype: fp8"), ("fp8",)),
    "latin1": ("method: linear\n# caf\xe9\n".encode("latin-1") + _recipe("").encode(), ("r.yaml",)),
    "tab_indent": ("method: linear\nmodels:\n\t- model: a\n", ("r.yaml",)),
    "python_tag": ("method: !!python/object/apply:os.system ['true']\n", ("r.yaml",)),
    "validation_unknown_key": (_recipe("method: linear\nvalidation: {domian: x}"), ("domian",)),
}


def recipe_cases() -> list[Case]:
    cases = [
        _c(
            "merge",
            f"recipe/{name}",
            ("merge", "--recipe", "{home}/r.yaml"),
            mentions,
            recipe_file(text),
        )
        for name, (text, mentions) in RECIPES.items()
    ]
    cases.append(
        _c(
            "merge",
            "recipe/a_folder",
            ("merge", "--recipe", "{home}/r.yaml"),
            ("r.yaml",),
            files({"r.yaml/": ""}),
        )
    )
    return cases


def output_cases() -> list[Case]:
    return export_cases() + merge_cases()
