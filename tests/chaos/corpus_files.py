"""The hand-written bad-input families about files: the YAML's syntax, sources, data lines in every
source type, eval sets, and the other files a YAML names."""

from __future__ import annotations

import json
from pathlib import Path

from corpus import (
    DOC,
    LOCAL,
    LOCAL_TEXT,
    Case,
    Fixtures,
    dump,
    mkdir,
    src,
    write,
)
from corpus_schema import SOURCE_ITEMS


def yaml_syntax_cases() -> list[Case]:
    y = "yaml_syntax"
    return [
        Case(
            y,
            "tab_indent",
            "name: bad\nsources:\n\t- {type: local, path: docs}\n",
            mentions=("bad.yaml", "line 3"),
        ),
        Case(
            y,
            "unclosed_bracket",
            "name: bad\nsources: [{type: local, path: docs}\n",
            mentions=("bad.yaml", "malformed YAML"),
        ),
        Case(
            y,
            "unclosed_quote",
            'name: "bad\nsources: [{type: local, path: docs}]\n',
            mentions=("bad.yaml", "malformed YAML"),
        ),
        Case(
            y,
            "colon_in_value",
            "name: bad: worse\nsources: [{type: local, path: docs}]\n",
            mentions=("bad.yaml", "line 1"),
        ),
        Case(y, "top_level_list", "- name: bad\n- sources: []\n", mentions=("bad.yaml", "mapping")),
        Case(y, "top_level_scalar", "just some words\n", mentions=("bad.yaml", "mapping")),
        Case(y, "empty_file", "", mentions=("bad.yaml", "name")),
        Case(y, "only_comments", "# name: bad\n# sources: []\n", mentions=("bad.yaml", "name")),
        Case(
            y,
            "missing_name",
            "sources: [{type: local, path: docs}]\n",
            mentions=("missing required key 'name'",),
        ),
        Case(y, "missing_sources", "name: bad\n", mentions=("'sources'",)),
        Case(
            y,
            "sources_mapping",
            "name: bad\nsources: {type: local, path: docs}\n",
            mentions=("sources",),
        ),
        Case(y, "sources_string", "name: bad\nsources: docs\n", mentions=("sources",)),
        Case(
            y,
            "name_with_space",
            "name: my domain\nsources: [{type: local, path: docs}]\n",
            mentions=("name", "'my domain'"),
        ),
        Case(
            y,
            "name_path",
            "name: ../escape\nsources: [{type: local, path: docs}]\n",
            mentions=("name", "../escape"),
        ),
        Case(
            y, "name_empty", "name: ''\nsources: [{type: local, path: docs}]\n", mentions=("name",)
        ),
        Case(y, "name_null", "name:\nsources: [{type: local, path: docs}]\n", mentions=("name",)),
        Case(
            y,
            "python_tag",
            "name: !!python/object:os.system bad\nsources: [{type: local, path: docs}]\n",
            mentions=("bad.yaml", "line 1"),
        ),
        Case(
            y,
            "unknown_alias",
            "name: *nowhere\nsources: [{type: local, path: docs}]\n",
            mentions=("bad.yaml", "nowhere"),
        ),
        Case(
            y,
            "nul_byte",
            b"name: bad\x00\nsources: [{type: local, path: docs}]\n",
            mentions=("bad.yaml",),
        ),
        Case(
            y,
            "deep_nesting",
            "name: bad\nsources: [{type: local, path: docs}]\ntopics: "
            + "[" * 5000
            + "]" * 5000
            + "\n",
            mentions=("bad.yaml",),
        ),
        Case(
            y,
            "mapping_key_list",
            "name: bad\nsources: [{type: local, path: docs}]\n? [a, b]\n: 1\n",
            mentions=("bad.yaml",),
        ),
        Case(
            y,
            "latin1_late_line",
            b"name: bad\nsources: [{type: local, path: docs}]\ndescription: na\xefve\n",
            mentions=("bad.yaml", "line 3", "0xef"),
        ),
        Case(
            y,
            "cp1252_quote",
            b"name: bad\ndescription: \x93quoted\x94\nsources: [{type: local, path: docs}]\n",
            mentions=("bad.yaml", "line 2"),
        ),
        Case(
            y,
            "utf16_le_no_bom",
            "name: bad\nsources: [{type: local, path: docs}]\n".encode("utf-16-le"),
            mentions=("bad.yaml",),
        ),
        Case(
            y,
            "duplicate_nested_key",
            "name: bad\nsources: [{type: local, path: docs}]\ntrain:\n  lr: 0.1\n  lr: 0.2\n",
            mentions=("bad.yaml", "duplicate key 'lr'"),
        ),
        Case(y, "quick_not_mapping", LOCAL_TEXT + "quick: yes\n", mentions=("quick",)),
        Case(
            y,
            "windows_path_escape",
            'name: bad\nsources: [{type: local, path: "C:\\docs\\x"}]\n',
            mentions=("bad.yaml",),
        ),
        Case(
            y,
            "yaml_directive_twice",
            "%YAML 1.1\n%YAML 1.1\n---\n" + LOCAL_TEXT,
            mentions=("bad.yaml",),
        ),
        Case(y, "two_documents", LOCAL_TEXT + "---\n" + LOCAL_TEXT, mentions=("bad.yaml",)),
        Case(
            y,
            "unknown_domain_name",
            argv=("start", "--domain", "klingon", "--auto"),
            mentions=("klingon",),
        ),
        Case(
            y,
            "yaml_missing_file",
            argv=("start", "--domain", "{home}/nope.yaml", "--auto"),
            mentions=("nope",),
        ),
        Case(
            y,
            "yaml_is_folder",
            setup=lambda h, fx: mkdir(h / "dom.yaml"),
            argv=("start", "--domain", "{home}/dom.yaml", "--auto"),
            mentions=("dom.yaml",),
        ),
    ]


def _git_repo(home: Path, fx: Fixtures) -> str:
    import subprocess

    repo = home / "repo"
    repo.mkdir()
    (repo / "a.md").write_text(DOC)
    env = {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
        "PATH": "/usr/bin:/bin",
    }
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True, capture_output=True)
    return src("{type: git, url: repo, ref: no-such-branch}")


def sources_cases() -> list[Case]:
    s = "sources"
    cases = [
        Case(s, "local_missing", src("{type: local, path: nowhere}"), mentions=("nowhere",)),
        Case(
            s,
            "local_is_empty_dir",
            setup=lambda h, fx: (mkdir(h / "empty"), src("{type: local, path: empty}"))[1],
            mentions=("empty",),
        ),
        Case(
            s,
            "local_include_matches_nothing",
            src("{type: local, path: docs, include: ['*.pdf']}"),
            mentions=("*.pdf",),
        ),
        Case(
            s,
            "local_exclude_everything",
            src("{type: local, path: docs, exclude: ['*']}"),
            mentions=("docs",),
        ),
        Case(
            s,
            "local_only_binary",
            setup=write("bin/a.txt", b"\x00\xff" * 100, src("{type: local, path: bin}")),
            mentions=("bin",),
        ),
        Case(
            s,
            "local_home_tilde_missing",
            src("{type: local, path: ~/no-such-jupiter-dir}"),
            mentions=("no-such-jupiter-dir",),
        ),
        Case(s, "unknown_type", src("{type: pdf, path: docs}"), mentions=("sources.0",)),
        Case(s, "no_type", src("{path: docs}"), mentions=("sources.0",)),
        Case(s, "type_not_string", src("{type: 3, path: docs}"), mentions=("sources.0",)),
        Case(
            s, "dataset_missing", src("{type: dataset, path: rows.jsonl}"), mentions=("rows.jsonl",)
        ),
        Case(
            s,
            "dataset_unsupported_suffix",
            setup=write("rows.xlsx", b"PK\x03\x04junk", src("{type: dataset, path: rows.xlsx}")),
            mentions=("rows.xlsx",),
        ),
        Case(
            s,
            "dataset_folder_without_data",
            setup=lambda h, fx: (mkdir(h / "data"), src("{type: dataset, path: data}"))[1],
            mentions=("data",),
        ),
        Case(
            s,
            "dataset_question_without_answer",
            src("{type: dataset, path: r.jsonl, columns: {question: q}}"),
            mentions=("sources.0.columns",),
        ),
        Case(
            s,
            "dataset_text_and_messages",
            src("{type: dataset, path: r.jsonl, columns: {text: t, messages: m}}"),
            mentions=("sources.0.columns",),
        ),
        Case(
            s,
            "dataset_columns_empty",
            src("{type: dataset, path: r.jsonl, columns: {}}"),
            mentions=("sources.0.columns",),
        ),
        Case(
            s, "playbooks_missing", src("{type: playbooks, path: pb.jsonl}"), mentions=("pb.jsonl",)
        ),
        Case(
            s,
            "playbooks_is_folder",
            setup=lambda h, fx: (mkdir(h / "pb"), src("{type: playbooks, path: pb}"))[1],
            mentions=("pb",),
        ),
        Case(
            s,
            "exec_logs_missing",
            src("{type: exec_logs, path: logs.jsonl}"),
            mentions=("logs.jsonl",),
        ),
        Case(
            s,
            "exec_logs_is_folder",
            setup=lambda h, fx: (mkdir(h / "logs"), src("{type: exec_logs, path: logs}"))[1],
            mentions=("logs",),
        ),
        Case(
            s,
            "exec_logs_since_after_until",
            setup=write(
                "l.jsonl",
                "",
                src("{type: exec_logs, path: l.jsonl, since: '2024-06-01', until: '2024-01-01'}"),
            ),
            mentions=("since", "until"),
        ),
        Case(
            s, "git_missing_repo", src("{type: git, url: no-repo-here}"), mentions=("no-repo-here",)
        ),
        Case(s, "git_not_a_repo", src("{type: git, url: docs}"), mentions=("docs",)),
        Case(s, "git_unknown_ref", setup=_git_repo, mentions=("no-such-branch",)),
        Case(
            s,
            "web_unreachable",
            src("{type: web, urls: ['http://127.0.0.1:9/docs/'], delay: 0, timeout: 2}"),
            mentions=("127.0.0.1:9",),
        ),
        Case(
            s,
            "web_not_a_url",
            src("{type: web, urls: ['docs.python.org/3/']}"),
            mentions=("docs.python.org/3/",),
        ),
        Case(
            s,
            "web_ftp_scheme",
            src("{type: web, urls: ['ftp://127.0.0.1/pub/']}"),
            mentions=("ftp://127.0.0.1/pub/",),
        ),
        Case(
            s,
            "stdlib_unknown_module",
            src("{type: python_stdlib, topics: false, modules: [no_such_module_xyz]}"),
            mentions=("no_such_module_xyz",),
        ),
        Case(
            s,
            "stdlib_everything_off",
            src("{type: python_stdlib, topics: false, docstrings: false}"),
            mentions=("python_stdlib",),
        ),
    ]
    # each source type without its required keys
    for kind, item in SOURCE_ITEMS.items():
        required = [k for k in item if k != "type"]
        if required:
            data = {**LOCAL, "sources": [{"type": kind}]}
            cases.append(
                Case(
                    s,
                    f"{kind}_without_{required[0]}",
                    dump(data),
                    mentions=(f"sources.0.{required[0]}",),
                )
            )
    return cases


# data files whose every record is bad in one way: the source yields nothing
BAD_LINES: dict[str, bytes] = {
    "invalid_json": b'{"text": "a note about the lever",\n{oops}\n',
    "json_array_lines": b'["a", "note"]\n["another"]\n',
    "numbers": b"42\n43\n",
    "text_is_number": b'{"text": 42}\n{"text": 3.5}\n',
    "missing_text": b'{"body": "The lever turns the widget twice."}\n',
    "empty_text": b'{"text": ""}\n{"text": "   "}\n',
    "null_text": b'{"text": null}\n',
    "lone_surrogate": b'{"text": "bad \\ud800 text here"}\n',
    "deep_nesting": b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
    "latin1_bytes": b'{"text": "caf\xe9 au lait and the lever"}\n',
    "nul_bytes": b"\x00\x00\x00\x00\n\x00\x00\n",
    "empty_file": b"",
    "blank_lines": b"\n\n   \n",
}


def _data_case(kind: str, bad: str, data: bytes) -> Case:
    name = {"dataset": "rows.jsonl", "playbooks": "playbooks.jsonl", "exec_logs": "logs.jsonl"}
    rel = name[kind]
    return Case(
        "data_lines",
        f"{kind}/{bad}",
        setup=write(rel, data, src(f"{{type: {kind}, path: {rel}}}")),
        mentions=(rel,),
    )


def data_line_cases() -> list[Case]:
    cases = [
        _data_case(k, b, d)
        for k in ("dataset", "playbooks", "exec_logs")
        for b, d in BAD_LINES.items()
    ]
    d = "data_lines"
    csv_yaml = src("{type: dataset, path: rows.csv}")
    cases += [
        Case(
            d,
            "csv/no_text_column",
            setup=write("rows.csv", "a,b\n1,2\n", csv_yaml),
            mentions=("rows.csv",),
        ),
        Case(
            d,
            "csv/header_only",
            setup=write("rows.csv", "text\n", csv_yaml),
            mentions=("rows.csv",),
        ),
        Case(
            d,
            "csv/binary",
            setup=write("rows.csv", b"\x00\xff\xfe" * 50, csv_yaml),
            mentions=("rows.csv",),
        ),
        Case(
            d,
            "csv/latin1",
            setup=write("rows.csv", b"text\ncaf\xe9 and the lever\n", csv_yaml),
            mentions=("rows.csv",),
        ),
        Case(
            d,
            "json/array_of_numbers",
            setup=write("rows.json", "[1, 2, 3]\n", src("{type: dataset, path: rows.json}")),
            mentions=("rows.json",),
        ),
        Case(
            d,
            "json/truncated_array",
            setup=write(
                "rows.json", '[{"text": "a lever"},', src("{type: dataset, path: rows.json}")
            ),
            mentions=("rows.json",),
        ),
        Case(
            d,
            "parquet/garbage",
            setup=write(
                "rows.parquet",
                b"PAR1" + b"\x15\x00" * 40 + b"PAR1",
                src("{type: dataset, path: rows.parquet}"),
            ),
            mentions=("rows.parquet",),
        ),
        Case(
            d,
            "parquet/empty",
            setup=write("rows.parquet", b"", src("{type: dataset, path: rows.parquet}")),
            mentions=("rows.parquet",),
        ),
        Case(d, "parquet/truncated", setup=_parquet_truncated, mentions=("rows.parquet",)),
        Case(
            d,
            "messages/not_a_chat",
            setup=write(
                "rows.jsonl",
                '{"m": "hello"}\n',
                src("{type: dataset, path: rows.jsonl, columns: {messages: m}}"),
            ),
            mentions=("rows.jsonl",),
        ),
        Case(
            d,
            "qa/answer_is_list",
            setup=write(
                "rows.jsonl",
                '{"q": "why?", "a": [1]}\n',
                src("{type: dataset, path: rows.jsonl, columns: {question: q, answer: a}}"),
            ),
            mentions=("rows.jsonl",),
        ),
        Case(d, "datasets_dir/bad_state", setup=_datasets_dir, mentions=("state.json",)),
        Case(
            d,
            "exec_logs/epoch_timestamps",
            setup=write(
                "logs.jsonl",
                json.dumps(
                    {
                        "code": "print(1)",
                        "language": "python",
                        "exit_code": 0,
                        "timestamp": "yesterday",
                    }
                )
                + "\n",
                src("{type: exec_logs, path: logs.jsonl}"),
            ),
            mentions=("logs.jsonl",),
        ),
        Case(
            d,
            "exec_logs/all_failed_runs",
            setup=write(
                "logs.jsonl",
                json.dumps(
                    {
                        "code": "print(1)",
                        "language": "python",
                        "exit_code": 1,
                        "timestamp": "2024-05-01T00:00:00Z",
                    }
                )
                + "\n",
                src("{type: exec_logs, path: logs.jsonl}"),
            ),
            mentions=("logs.jsonl",),
        ),
        Case(
            d,
            "playbooks/below_threshold",
            setup=write(
                "playbooks.jsonl",
                json.dumps(
                    {
                        "agent": "a",
                        "domain": "d",
                        "score": 0.1,
                        "success_rate": 0.5,
                        "interactions": 3,
                        "content": "Turn the lever twice.",
                    }
                )
                + "\n",
                src("{type: playbooks, path: playbooks.jsonl, min_score: 0.9}"),
            ),
            mentions=("playbooks.jsonl",),
        ),
    ]
    return cases


def _parquet_truncated(home: Path, fx: Fixtures) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = home / "rows.parquet"
    pq.write_table(pa.table({"text": ["The lever turns the widget twice."] * 50}), path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return src("{type: dataset, path: rows.parquet}")


def _datasets_dir(home: Path, fx: Fixtures) -> str:
    saved = home / "saved"
    saved.mkdir()
    (saved / "dataset_info.json").write_text('{"features": {"text": {"dtype": "string"}}}')
    (saved / "state.json").write_text('{"_data_files": [{"filename": "data.arrow"}]')
    return src("{type: dataset, path: saved}")


# -------------------------------------------------------------------------- eval sets
def qa_items(n: int) -> str:
    return "".join(
        json.dumps(
            {
                "id": str(i),
                "question": f"What does part {i} do?",
                "answer": f"Part {i} turns the lever.",
            }
        )
        + "\n"
        for i in range(n)
    )


EVAL_YAML = LOCAL_TEXT + "eval: {qa_path: qa.jsonl, mc_distractors: hard}\n"
BAD_QA: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "empty": (b"", ("qa.jsonl",)),
    "blank_lines": (b"\n \n\n", ("qa.jsonl",)),
    "malformed_first": (b'{"id": "1", "question": "q?"\n', ("qa.jsonl:1",)),
    "malformed_third": (qa_items(2).encode() + b"{oops}\n", ("qa.jsonl:3",)),
    "missing_answer": (b'{"id": "1", "question": "q?"}\n', ("qa.jsonl:1", "answer")),
    "missing_question": (b'{"id": "1", "answer": "a lever"}\n', ("qa.jsonl:1", "question")),
    "question_number": (
        b'{"id": "1", "question": 7, "answer": "a"}\n' + qa_items(5).encode(),
        ("qa.jsonl:1", "question"),
    ),
    "answer_list": (
        b'{"id": "1", "question": "q?", "answer": ["a", "b"]}\n' + qa_items(5).encode(),
        ("qa.jsonl:1", "answer"),
    ),
    "line_is_array": (b'["q?", "a"]\n', ("qa.jsonl:1",)),
    "line_is_string": (b'"what is this?"\n', ("qa.jsonl:1",)),
    "latin1": (b'{"id": "1", "question": "caf\xe9?", "answer": "a"}\n', ("qa.jsonl:1",)),
    "utf16": (qa_items(5).encode("utf-16"), ("qa.jsonl",)),
    "choices_not_list": (
        b'{"id": "1", "question": "q?", "answer": "a", "choices": "a,b"}\n' + qa_items(5).encode(),
        ("qa.jsonl:1", "choices"),
    ),
    "answer_not_in_choices": (
        b'{"id": "1", "question": "q?", "answer": "z", '
        b'"choices": ["a", "b", "c", "d"]}\n' + qa_items(5).encode(),
        ("qa.jsonl:1",),
    ),
    "too_few_answers": (qa_items(3).encode(), ("4",)),
    "duplicate_ids": (
        b'{"id": "1", "question": "q?", "answer": "a lever"}\n' * 6,
        ("qa.jsonl", "1"),
    ),
    "whole_file_array": (
        b"[" + qa_items(5).replace("\n", ",").rstrip(",").encode() + b"]",
        ("qa.jsonl",),
    ),
    "empty_question": (
        b'{"id": "1", "question": "", "answer": "a lever"}\n' + qa_items(5).encode(),
        ("qa.jsonl:1", "question"),
    ),
}


def eval_set_cases() -> list[Case]:
    e = "eval_set"
    cases = [
        Case(e, name, setup=write("qa.jsonl", data, EVAL_YAML), mentions=m)
        for name, (data, m) in BAD_QA.items()
    ]
    cases += [
        Case(
            e,
            "missing_file",
            LOCAL_TEXT + "eval: {qa_path: nope.jsonl}\n",
            mentions=("eval.qa_path", "nope.jsonl"),
        ),
        Case(
            e,
            "folder",
            setup=lambda h, fx: (mkdir(h / "qa"), LOCAL_TEXT + "eval: {qa_path: qa}\n")[1],
            mentions=("eval.qa_path",),
        ),
        Case(
            e,
            "mc_choices_above_items",
            setup=write(
                "qa.jsonl",
                qa_items(5),
                LOCAL_TEXT + "eval: {qa_path: qa.jsonl, mc_choices: 8, mc_distractors: hard}\n",
            ),
            mentions=("mc_choices",),
        ),
        # the same sets through `jupiter eval --qa` with a model that loads
        *[
            Case(
                e,
                f"cli/{name}",
                setup=write("qa.jsonl", BAD_QA[name][0], ""),
                argv=("eval", "--model", "{model}", "--qa", "{home}/qa.jsonl"),
                mentions=BAD_QA[name][1],
            )
            for name in (
                "empty",
                "malformed_first",
                "missing_answer",
                "latin1",
                "line_is_array",
                "question_number",
            )
        ],
        Case(
            e,
            "cli/missing_file",
            argv=("eval", "--model", "{model}", "--qa", "{home}/nope.jsonl"),
            mentions=("nope.jsonl",),
        ),
        Case(
            e,
            "cli/qa_without_model_or_domain",
            setup=write("qa.jsonl", qa_items(5), ""),
            argv=("eval", "--qa", "{home}/qa.jsonl"),
            mentions=("--model",),
        ),
    ]
    return cases


# --------------------------------------------------------------- files the YAML names
def references_cases() -> list[Case]:
    r = "references"
    return [
        Case(
            r,
            "chat_template_missing",
            LOCAL_TEXT + "model: {chat_template: mine.jinja}\n",
            mentions=("model.chat_template", "mine.jinja"),
        ),
        Case(
            r,
            "general_path_missing",
            LOCAL_TEXT + "eval: {general_path: general.txt}\n",
            mentions=("eval.general_path", "general.txt"),
        ),
        Case(
            r,
            "lm_eval_include_missing",
            LOCAL_TEXT + "eval: {lm_eval_include: tasks}\n",
            mentions=("eval.lm_eval_include", "tasks"),
        ),
        Case(
            r,
            "level_dataset_missing",
            LOCAL_TEXT + "levels: [{name: a, datasets: [missing.jsonl]}]\n",
            mentions=("levels", "missing.jsonl"),
        ),
        Case(
            r,
            "level_dataset_malformed",
            setup=write(
                "lvl.jsonl", b"{oops\n", LOCAL_TEXT + "levels: [{name: a, datasets: [lvl.jsonl]}]\n"
            ),
            mentions=("lvl.jsonl",),
        ),
        Case(
            r,
            "level_dataset_folder",
            setup=lambda h, fx: (
                mkdir(h / "lvl"),
                LOCAL_TEXT + "levels: [{name: a, datasets: [lvl]}]\n",
            )[1],
            mentions=("lvl",),
        ),
        Case(
            r,
            "task_template_missing",
            setup=lambda h, fx: (
                LOCAL_TEXT + "generator: {type: "
                "llm, tasks: [{recipe: grounded_qa, template: mine.j2}], llm: {backend: "
                f"transformers, model: '{fx.model}'}}}}\n"
            ),
            mentions=("generator.tasks.0.template", "mine.j2"),
        ),
        Case(
            r,
            "judge_template_missing",
            setup=lambda h, fx: (
                LOCAL_TEXT + "filters: {judge: "
                "{enabled: true, template: rubric.j2, llm: {backend: transformers, model: "
                f"'{fx.model}'}}}}}}\n"
            ),
            mentions=("filters.judge.template", "rubric.j2"),
        ),
        Case(
            r,
            "level_dataset_latin1",
            setup=write(
                "lvl.jsonl",
                b'{"text": "caf\xe9"}\n',
                LOCAL_TEXT + "levels: [{name: a, datasets: [lvl.jsonl]}]\n",
            ),
            mentions=("levels.0.datasets", "lvl.jsonl"),
        ),
        Case(
            r,
            "level_dataset_empty",
            setup=write(
                "lvl.jsonl", b"\n", LOCAL_TEXT + "levels: [{name: a, datasets: [lvl.jsonl]}]\n"
            ),
            mentions=("lvl.jsonl",),
        ),
        Case(
            r,
            "general_path_latin1",
            setup=write(
                "general.txt",
                b"caf\xe9 au lait\n",
                LOCAL_TEXT + "eval: {general_path: general.txt}\n",
            ),
            mentions=("eval.general_path", "general.txt"),
        ),
        Case(
            r,
            "api_key_env_unset",
            LOCAL_TEXT + "generator: {type: llm, llm: {base_url: "
            "'http://127.0.0.1:9/v1', api_key_env: JUPITER_NO_SUCH_KEY_VAR}}\n",
            mentions=("JUPITER_NO_SUCH_KEY_VAR",),
        ),
        Case(
            r,
            "embedding_model_missing",
            LOCAL_TEXT + "retrieval: {kind: embedding, embedding_model: emb}\n",
            mentions=("retrieval",),
        ),
        Case(
            r,
            "llm_base_url_not_url",
            LOCAL_TEXT + "generator: {type: llm, llm: {base_url: 'localhost:11434'}}\n",
            mentions=("localhost:11434",),
        ),
        Case(
            r,
            "transformers_teacher_missing",
            LOCAL_TEXT + "generator: {type: llm, llm: {backend: transformers, model: teacher}}\n",
            mentions=("generator.llm.model", "teacher"),
        ),
        Case(
            r,
            "transformers_teacher_empty",
            LOCAL_TEXT + "generator: {type: llm, llm: {backend: transformers}}\n",
            mentions=("generator.llm", "model"),
        ),
        Case(
            r,
            "cluster_teacher_without_cluster",
            LOCAL_TEXT + "generator: {type: llm, llm: {backend: cluster}}\n",
            mentions=("cluster",),
        ),
        Case(
            r,
            "judge_unreachable_default",
            LOCAL_TEXT + "filters: {judge: {enabled: true, "
            "llm: {base_url: 'http://127.0.0.1:9/v1'}}}\n",
            mentions=("filters.judge.llm",),
        ),
        Case(
            r,
            "eval_judge_unreachable",
            LOCAL_TEXT + "eval: {judge: true, judge_llm: {base_url: 'http://127.0.0.1:9/v1'}}\n",
            mentions=("eval.judge_llm",),
        ),
        # nothing held out and no eval.qa_path: the eval stage would have no set
        Case(
            r,
            "no_eval_set_possible",
            setup=write("one/a.md", DOC, _src_one()),
            mentions=("eval.qa_path", "held out"),
            fresh_only=True,
        ),
    ]


def _src_one() -> str:
    return src("{type: local, path: one}") + "chunking: {heldout_fraction: 0.0}\n"
