"""The bad-input families of the commands that read or write a workspace: `dashboard`,
`doctor`, `generators`, `rollback`, `federated` and `data export`. Damaged stores, flags
that are NaN, infinite, out of range or of the wrong type, outputs onto the workspace or
an input, broken YAML. Every case is `untouched` (corpus_readers.py)."""

from __future__ import annotations

from pathlib import Path

from corpus import LOCAL_TEXT, Case, Fixtures, Setup, mkdir
from corpus_outputs import _c, both, files

H = "{home}"
Y = "{yaml}"


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
STORE_NAMED = {
    "garbage": "jupiter.sqlite",
    "truncated": "jupiter.sqlite",
    "foreign": "jupiter.sqlite",
    "a_folder": "runs/bad",
}
STORES: dict[str, Setup] = {
    "garbage": _garbage_store,
    "truncated": _truncated_store,
    "foreign": _foreign_store,
    "a_folder": _store_a_folder,
}


def dashboard_cases() -> list[Case]:
    f = "dashboard"
    D = ("dashboard", "--domain", Y)
    return [
        _c(f, "port_word", (*D, "--port", "http"), ("--port",), yaml=LOCAL_TEXT),
        _c(f, "port_negative", (*D, "--port", "-1"), ("--port",), yaml=LOCAL_TEXT),
        _c(
            f,
            "public_without_key",
            (*D, "--host", "0.0.0.0", "--port", "0"),
            ("--api-key",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            f,
            "host_unresolvable",
            (*D, "--host", "no-such-host.invalid", "--port", "0", "--api-key", "k"),
            ("no-such-host.invalid",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(f, "yaml_broken", (*D, "--port", "0"), ("bad.yaml",), yaml="name: [bad\n"),
        _c(
            f,
            "yaml_unknown_key",
            (*D, "--port", "0"),
            ("sorces",),
            yaml=LOCAL_TEXT + "sorces: []\n",
        ),
        *[
            _c(f, f"store_{name}", (*D, "--port", "0"), (STORE_NAMED[name],), setup)
            for name, setup in STORES.items()
        ],
    ]


def doctor_cases() -> list[Case]:
    f = "doctor"
    return [
        _c(f, "timeout_nan", ("doctor", "--timeout", "nan"), ("--timeout",)),
        _c(f, "timeout_inf", ("doctor", "--timeout", "inf"), ("--timeout",)),
        _c(f, "timeout_negative", ("doctor", "--timeout", "-3"), ("--timeout",)),
        _c(f, "timeout_word", ("doctor", "--timeout", "soon"), ("--timeout",)),
        _c(
            f,
            "cluster_file_not_yaml",
            ("doctor", "--cluster-file", f"{H}/c.yaml"),
            ("c.yaml",),
            files({"c.yaml": "nodes: [{host: a\n"}),
        ),
        _c(
            f,
            "cluster_file_latin1",
            ("doctor", "--cluster-file", f"{H}/c.yaml"),
            ("c.yaml",),
            files({"c.yaml": "# caf\xe9\nnodes: [{host: a}]\n".encode("latin-1")}),
        ),
        _c(
            f,
            "cluster_file_a_folder",
            ("doctor", "--cluster-file", f"{H}/c.yaml"),
            ("c.yaml",),
            files({"c.yaml/": ""}),
        ),
        _c(
            f,
            "cluster_file_unknown_key",
            ("doctor", "--cluster-file", f"{H}/c.yaml"),
            ("gpus",),
            files({"c.yaml": "nodes: [{host: a, gpus: 2}]\n"}),
        ),
        _c(f, "domain_unknown", ("doctor", "--domain", "klingon"), ("klingon",)),
        _c(
            f,
            "domain_yaml_broken",
            ("doctor", "--domain", Y),
            ("bad.yaml",),
            yaml="name: bad\n\tsources: []\n",
        ),
        _c(
            f,
            "domain_yaml_nan",
            ("doctor", "--domain", Y),
            ("train.lr",),
            yaml=LOCAL_TEXT + "train: {lr: .nan}\n",
        ),
        _c(f, "json_with_bad_timeout", ("doctor", "--json", "--timeout", "nan"), ("--timeout",)),
    ]


# ---------------------------------------------------------------- generators, rollback
def lineage_cases() -> list[Case]:
    cases = []
    for cmd in ("generators", "rollback"):
        cases += [
            _c(cmd, f"store_{name}", (cmd, "--domain", Y), (STORE_NAMED[name],), setup)
            for name, setup in STORES.items()
        ]
        cases += [
            _c(cmd, "no_workspace", (cmd, "--domain", Y), ("bad",), yaml=LOCAL_TEXT),
            _c(cmd, "yaml_broken", (cmd, "--domain", Y), ("bad.yaml",), yaml="name: 'bad\n"),
            _c(
                cmd,
                "yaml_not_utf8",
                (cmd, "--domain", Y),
                ("bad.yaml",),
                yaml=b"name: bad\xff\xfe\n",
            ),
        ]
    R = ("rollback", "--domain", Y)
    cases += [
        _c(
            "rollback",
            "to_empty",
            (*R, "--to", ""),
            ("first generator",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            "rollback",
            "to_sql_quote",
            (*R, "--to", "x' OR '1'='1"),
            ("x' OR '1'='1",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            "rollback",
            "to_a_path",
            (*R, "--to", "{model}"),
            ("no generator",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
        _c(
            "rollback",
            "to_rejected_student",
            (*R, "--to", "cycle-001-student"),
            ("cycle-001-student",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
    ]
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
    cases = [
        _c(f, f"server/{name}", (*srv, *flags), (m,), both(_fed_yaml(), given), seeded=True)
        for name, (flags, m) in FED_FLAGS.items()
    ]
    cases += [
        _c(f, f"server/{name}", srv, (m,), _fed_yaml(extra))
        for name, (extra, m) in FED_YAML.items()
    ]
    cli = ("federated", "client", "--domain", Y)
    cases += [
        _c(f, "server/no_base_model", srv, ("model.base",), yaml=LOCAL_TEXT),
        _c(
            f,
            "server/base_model_missing",
            srv,
            ("gone",),
            yaml=LOCAL_TEXT + "model: {base: gone}\n",
        ),
        _c(
            f, "server/domain_unknown", ("federated", "server", "--domain", "klingon"), ("klingon",)
        ),
        _c(f, "client/no_server", cli, ("--server",), _fed_yaml()),
        _c(
            f,
            "client/server_no_port",
            (*cli, "--server", "localhost"),
            ("localhost",),
            _fed_yaml(),
            seeded=True,
        ),
        _c(f, "client/server_empty", (*cli, "--server", ""), ("--server",), _fed_yaml()),
        _c(
            f,
            "client/root_cert_missing",
            (*cli, "--server", "127.0.0.1:9092", "--root-cert", f"{H}/ca.pem"),
            ("ca.pem",),
            _fed_yaml(),
            seeded=True,
        ),
        _c(
            f,
            "client/auth_key_missing",
            (*cli, "--server", "127.0.0.1:9092", "--auth-key", f"{H}/id"),
            ("id",),
            _fed_yaml(),
            seeded=True,
        ),
        _c(
            f,
            "client/auth_key_without_tls",
            (*cli, "--server", "127.0.0.1:9092", "--auth-key", f"{H}/id"),
            ("--root-cert",),
            both(_fed_yaml(), files({"id": "not a key\n"})),
            seeded=True,
        ),
        _c(
            f,
            "client/device_tpu",
            (*cli, "--server", "127.0.0.1:9092", "--device", "tpu"),
            ("tpu",),
            _fed_yaml(),
            seeded=True,
        ),
        _c(
            f,
            "client/no_examples",
            (*cli, "--server", "127.0.0.1:9092"),
            ("examples",),
            _fed_yaml(),
            seeded=True,
        ),
        _c(
            f,
            "client/no_base_model",
            (*cli, "--server", "127.0.0.1:9092"),
            ("model.base",),
            yaml=LOCAL_TEXT,
            seeded=True,
        ),
    ]
    return cases


# ------------------------------------------------------------------------- data export
def data_export_cases() -> list[Case]:
    f = "data_export"
    X = ("data", "export", "--domain", Y)
    S = {"yaml": LOCAL_TEXT, "seeded": True}
    return [
        _c(f, "out_the_workspace", (*X, "--out", f"{H}/runs/bad"), ("--out",), **S),
        _c(f, "out_the_store", (*X, "--out", f"{H}/runs/bad/jupiter.sqlite"), ("--out",), **S),
        _c(
            f,
            "out_a_file",
            (*X, "--out", f"{H}/notes.txt"),
            ("notes.txt",),
            files({"notes.txt": "x"}),
            seeded=True,
            yaml=LOCAL_TEXT,
        ),
        _c(f, "out_holds_the_workspace", (*X, "--out", f"{H}/runs"), ("--out",), **S),
        _c(
            f,
            "out_under_a_file",
            (*X, "--out", f"{H}/notes.txt/x"),
            ("notes.txt",),
            files({"notes.txt": "x"}),
            seeded=True,
            yaml=LOCAL_TEXT,
        ),
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
    ]
