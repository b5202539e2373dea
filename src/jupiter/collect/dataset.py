"""The `dataset` source: records from JSONL, Parquet or CSV files, or a Hugging Face
`datasets` folder written by `save_to_disk`.

`columns` maps roles to column names: a `text` column, or a `question` + `answer` pair,
or a `messages` column (a chat: a list of {role, content}); `id` and `title` optionally.
Files are read record by record (Parquet in batches), so a large file is never loaded
whole; every record that yields no document is counted with its reason.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jupiter.collect.jsonl import BAD_JSON, document_problem, parse_line, text_problem
from jupiter.collect.result import CollectResult
from jupiter.config import DatasetSource, DomainConfig
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "dataset"
MISSING = "missing_field"  # a record without a column `columns` maps
JSON_SUFFIXES = {".jsonl", ".json", ".ndjson"}
SUFFIXES = JSON_SUFFIXES | {".parquet", ".csv"}
HF_MARKERS = ("dataset_info.json", "state.json", "dataset_dict.json")
PARQUET_BATCH = 1024
# A record: its index in the file, where it is (for reject samples), and its fields.
Row = tuple[int, str, dict[str, Any]]


def collect_dataset(src: DatasetSource, cfg: DomainConfig) -> CollectResult:
    """One document per usable record, in file then record order."""
    columns = src.columns  # checked by the schema: one content mode, known roles
    root = cfg.resolve(src.path)
    result = CollectResult()
    first_keys: list[str] | None = None  # the fields of the first record lacking a column
    for file, rows in _tables(root, columns, result):
        for i, where, record in rows:
            if first_keys is None and lacks_column(record, columns):
                first_keys = [str(k) for k in record]
            try:
                doc = to_document(file, i, where, record, columns, result)
            except RecursionError:  # an id or title nested too deep to print
                result.reject(BAD_JSON, where)
                continue
            if doc is None:
                continue
            problem = document_problem(doc)  # a lone surrogate the store cannot hold
            if problem:
                result.reject(problem, where)
                continue
            result.documents.append(doc)
            if src.max_documents and len(result.documents) >= src.max_documents:
                return result
    if not result.documents and set(result.rejects) == {MISSING} and first_keys is not None:
        result.hint = column_hint(columns, first_keys)
    return result


def lacks_column(record: dict[str, Any], columns: dict[str, str]) -> bool:
    return any(col not in record for col in columns.values())


# common record shapes and the mapping that reads them (Alpaca, prompt/completion, chats)
SHAPES: tuple[dict[str, str], ...] = (
    {"messages": "messages"},
    {"question": "question", "answer": "answer"},
    {"question": "instruction", "answer": "output"},
    {"question": "prompt", "answer": "completion"},
    {"question": "prompt", "answer": "response"},
    {"question": "input", "answer": "output"},
    {"text": "content"},
    {"text": "body"},
    {"text": "document"},
)


def column_hint(columns: dict[str, str], keys: list[str]) -> str:
    """Which mapped column the records lack, the fields they have, and a mapping that
    reads them when their shape is a common one."""
    missing = next(col for col in columns.values() if col not in keys)
    have = ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "") if keys else "none"
    fits = next((m for m in SHAPES if set(m.values()) <= set(keys)), None)
    if fits is None:
        fix = "map the roles text, question + answer, or messages to these fields"
    else:
        fix = "map them with columns: {" + ", ".join(f"{k}: {v}" for k, v in fits.items()) + "}"
    return f"the records have no field '{missing}' (they have: {have}); {fix}"


def to_document(
    file: str,
    i: int,
    where: str,
    record: dict[str, Any],
    columns: dict[str, str],
    result: CollectResult,
) -> Document | None:
    """The record as a document, or None after counting why it is dropped."""
    if lacks_column(record, columns):
        result.reject(MISSING, where)
        return None
    meta: dict[str, Any] = {"file": file, "row": i}
    if "text" in columns:
        text = record[columns["text"]]
    elif "messages" in columns:
        messages = _messages(record[columns["messages"]])
        if messages is None:
            result.reject("bad_messages", where)
            return None
        text = "\n\n".join(m["content"] for m in messages if m["content"].strip())
        meta["messages"] = messages
    else:
        question, answer = record[columns["question"]], record[columns["answer"]]
        if not _filled(question) or not _filled(answer):
            result.reject("empty", where)
            return None
        text = f"{question.strip()}\n\n{answer.strip()}"
        meta |= {"question": question, "answer": answer}
    if not _filled(text):
        result.reject("empty", where)
        return None
    rid = record.get(columns.get("id", ""))
    rid = str(i) if rid is None else str(rid)
    if "id" in columns:
        meta["id"] = rid
    title = record.get(columns.get("title", ""))
    title = f"{Path(file).name}#{rid}" if title is None else str(title)
    return Document(SOURCE, f"{file}#{rid}", title, text, meta)


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _messages(value: Any) -> list[dict[str, str]] | None:
    """A chat as [{role, content}], or None when it is not one. CSV cells hold it as JSON."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return None
    if not isinstance(value, list):
        return None
    out = []
    for m in value:
        if not isinstance(m, dict):
            return None
        role, content = m.get("role"), m.get("content")
        if not isinstance(role, str) or not isinstance(content, str):
            return None
        out.append({"role": role, "content": content})
    return out


# ---------------------------------------------------------------------------- readers
def _tables(
    root: Path, columns: dict[str, str], result: CollectResult
) -> Iterator[tuple[str, Iterator[Row]]]:
    """(file label, its records) for the file, the saved dataset or each file in the dir."""
    if not root.exists():
        raise JupiterError(
            f"dataset source not found: {root} (fix sources[].path in the domain YAML)"
        )
    if root.is_dir() and any((root / m).is_file() for m in HF_MARKERS):
        yield from _saved_dataset(root, columns)
        return
    if root.is_file():
        files = [root]
        if root.suffix.lower() not in SUFFIXES:
            raise JupiterError(
                f"dataset source {root}: unsupported file type; use .jsonl, .json, .parquet"
                f" or .csv, or a datasets save_to_disk folder"
            )
    else:
        files = sorted(
            p
            for p in root.rglob("*")
            if p.is_file()
            and p.suffix.lower() in SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(root).parts)
        )
        if not files:
            raise JupiterError(
                f"dataset source {root}: no .jsonl, .json, .parquet or .csv files in this folder"
            )
    for f in files:
        suffix = f.suffix.lower()
        if suffix in JSON_SUFFIXES:
            yield str(f), _json_rows(f, result)
        elif suffix == ".csv":
            yield str(f), _csv_rows(f, result)
        else:
            yield str(f), _parquet_rows(f, columns)


def _json_rows(path: Path, result: CollectResult) -> Iterator[Row]:
    """JSON lines, one at a time; a .json file holding one array is read whole."""
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if path.suffix.lower() == ".json" and head.startswith(b"["):
        yield from _json_array(path, result)
        return
    i = 0
    with path.open("rb") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                record, reason = parse_line(line.decode("utf-8-sig" if n == 1 else "utf-8"))
            except UnicodeDecodeError:
                record, reason = None, BAD_JSON
            if isinstance(record, dict):
                yield i, where, record
            else:
                result.reject(reason or BAD_JSON, where)
            i += 1


def _json_array(path: Path, result: CollectResult) -> Iterator[Row]:
    try:
        records = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        result.reject(BAD_JSON, str(path))
        return
    for i, record in enumerate(records):
        problem = text_problem(record) if isinstance(record, dict) else BAD_JSON
        if problem:
            result.reject(problem, f"{path}#{i}")
        else:
            yield i, f"{path}#{i}", record


def _utf8_lines(fh: Any, path: Path, result: CollectResult) -> Iterator[str]:
    """A file's lines as text; a line that is not UTF-8 is counted (bad_encoding) and read
    as a blank line, which the CSV reader skips: its row is dropped, not garbled."""
    for n, raw in enumerate(fh, 1):
        try:
            yield raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError:
            result.reject("bad_encoding", f"{path}:{n}")
            yield "\n"


def _csv_rows(path: Path, result: CollectResult) -> Iterator[Row]:
    # Documentation cells outgrow csv's default 128 KiB field limit.
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    with path.open("rb") as fh:
        reader = csv.DictReader(_utf8_lines(fh, path, result))
        for i, record in enumerate(reader):
            # DictReader fills absent trailing cells with None: treat them as missing.
            yield (
                i,
                f"{path}:{reader.line_num}",
                {k: v for k, v in record.items() if k is not None and v is not None},
            )


def _parquet_rows(path: Path, columns: dict[str, str]) -> Iterator[Row]:
    import pyarrow.parquet as pq

    i = 0
    try:  # pyarrow says ArrowInvalid (a ValueError) or OSError for a corrupt file
        pf = pq.ParquetFile(path)
        present = [c for c in dict.fromkeys(columns.values()) if c in pf.schema_arrow.names]
        for batch in pf.iter_batches(batch_size=PARQUET_BATCH, columns=present):
            for record in batch.to_pylist():
                yield i, f"{path}#{i}", record
                i += 1
    except (OSError, ValueError) as err:
        raise JupiterError(
            f"dataset source {path}: not a readable Parquet file after {i} records "
            f"({_first_line(err)}): write it again, or move it out of the source folder"
        ) from None


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0][:200]


def _check_saved_json(root: Path) -> None:
    """A save_to_disk folder's JSON files parse: the loader's own error names none."""
    for name in HF_MARKERS:
        f = root / name
        if not f.is_file():
            continue
        try:
            json.loads(f.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            raise JupiterError(
                f"dataset source {f}: not valid JSON ({_first_line(err)}): save the dataset "
                "again with save_to_disk, or point sources[].path at its data files"
            ) from None


def _saved_dataset(root: Path, columns: dict[str, str]) -> Iterator[tuple[str, Iterator[Row]]]:
    """A `save_to_disk` folder: one Dataset, or a DatasetDict read split by split."""
    try:
        import datasets
    except ImportError:
        raise JupiterError(
            f"dataset source {root} is a Hugging Face datasets folder: pip install datasets"
        ) from None
    _check_saved_json(root)
    try:
        loaded = datasets.load_from_disk(str(root))  # memory-mapped Arrow: nothing read yet
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise JupiterError(
            f"dataset source {root}: not a readable datasets folder ({type(err).__name__}: "
            f"{_first_line(err)}): save it again with save_to_disk"
        ) from None
    splits = loaded.items() if isinstance(loaded, datasets.DatasetDict) else [("", loaded)]
    for name, ds in splits:
        label = f"{root}/{name}" if name else str(root)
        yield label, _dataset_rows(label, ds, columns)


def _dataset_rows(label: str, ds: Any, columns: dict[str, str]) -> Iterator[Row]:
    present = [c for c in dict.fromkeys(columns.values()) if c in ds.column_names]
    total = len(ds)  # taken first: a dataset with no columns selected reports 0 rows
    ds = ds.select_columns(present)  # unused columns are never read
    for start in range(0, total, PARQUET_BATCH):
        try:  # the Arrow files are read here, batch by batch
            batch = ds[start : start + PARQUET_BATCH] if present else {}  # column -> values
        except (OSError, ValueError) as err:
            raise JupiterError(
                f"dataset source {label}: its Arrow data is unreadable at record {start} "
                f"({_first_line(err)}): save the dataset again with save_to_disk"
            ) from None
        for j in range(min(PARQUET_BATCH, total - start)):
            i = start + j
            yield i, f"{label}#{i}", {c: batch[c][j] for c in present}
