"""The `exec_logs` source: code that was run, with what it printed and how it exited.

Each JSONL line is one run: {"code", "language", "stdout", "stderr", "exit_code" (or
"exit_status" or "success"), "timestamp" (ISO 8601 or epoch seconds), optional "task"}.
The language is detected from the code; the record's "language" is only a hint that must
agree. Kept runs become documents, and `log_examples` turns one into a chat example.
"""

from __future__ import annotations

import ast
import math
import re
from datetime import date, datetime, timedelta, timezone
from typing import Any

from jupiter.collect.agent_logs import read_jsonl
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig, ExecLogSource
from jupiter.errors import JupiterError
from jupiter.records import Document, Example, content_id

SOURCE = "exec_logs"
TAGS = ("functions", "classes", "loops", "queries", "error_handling", "imports", "async")
LANGUAGE_NAMES = {"python": "Python", "javascript": "JavaScript", "sql": "SQL"}
ALIASES = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "node": "javascript",
    "nodejs": "javascript",
    "sqlite": "sql",
    "postgresql": "sql",
    "postgres": "sql",
    "mysql": "sql",
}
MAX_OUTPUT_CHARS = 500  # stdout shown in an example; long logs teach little past this

_I = re.IGNORECASE | re.MULTILINE
# A SQL statement opening the snippet (after `--` comment lines).
SQL_START = re.compile(
    r"\A(?:\s*--[^\n]*\n)*\s*(?:SELECT\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\w*\s+)?(?:TABLE|VIEW|INDEX|UNIQUE|TRIGGER|FUNCTION|PROCEDURE)\b"
    r"|DROP\s+(?:TABLE|VIEW|INDEX)\b|ALTER\s+TABLE\b|WITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s*\(|PRAGMA\s)",
    re.IGNORECASE,
)
# SQL inside another language's string: a query the code runs.
SQL_STRING = re.compile(r"""["'`]\s*(?:SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WITH)\s""", _I)
SQL_TABLES = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([A-Za-z_][\w.]*)", _I)
JS_MARKERS = re.compile(
    r"\b(?:const|let|var)\s+[\w{\[]|\bfunction\b\s*\w*\s*\(|=>|===|!==|\bconsole\.\w+\("
    r"|\brequire\(|\bdocument\.|\bwindow\.|\bprocess\.\w|\bexport\s|\bimport\s.*\bfrom\s+['\"]"
)
PY_MARKERS = re.compile(
    r"^\s*(?:def\s+\w+\s*\(.*\)\s*(?:->.*)?:|class\s+\w+.*:|import\s+\w|from\s+[\w.]+\s+import\s"
    r"|elif\b.*:|except\b.*:)|\bprint\(|\bself\.|\bNone\b",
    re.MULTILINE,
)
REGEX_TAGS: dict[str, dict[str, re.Pattern[str]]] = {
    "python": {
        "functions": re.compile(r"^\s*(?:async\s+)?def\s+\w+", re.M),
        "classes": re.compile(r"^\s*class\s+\w+", re.M),
        "loops": re.compile(r"^\s*(?:async\s+)?(?:for|while)\b|\bfor\s+\w+\s+in\b", re.M),
        "queries": SQL_STRING,
        "error_handling": re.compile(r"^\s*(?:try\s*:|except\b)", re.M),
        "imports": re.compile(r"^\s*(?:import\s+\w|from\s+[\w.]+\s+import\s)", re.M),
        "async": re.compile(r"\basync\s+(?:def|for|with)\b|\bawait\b"),
    },
    "javascript": {
        "functions": re.compile(r"\bfunction\b\s*\*?\s*\w*\s*\(|=>"),
        "classes": re.compile(r"\bclass\s+\w+"),
        "loops": re.compile(r"\b(?:for|while)\s*\(|\bdo\s*\{|\.forEach\("),
        "queries": re.compile(SQL_STRING.pattern + r"|\.query\(|\.execute\(", _I),
        "error_handling": re.compile(r"\btry\s*\{|\.catch\("),
        "imports": re.compile(r"^\s*import\s|\brequire\(|\bimport\(", re.M),
        "async": re.compile(r"\basync\b|\bawait\b|\.then\(|\bnew\s+Promise\b"),
    },
    "sql": {
        "functions": re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\b", _I),
        "loops": re.compile(r"\bWITH\s+RECURSIVE\b|\bLOOP\b|\bWHILE\b", _I),
        "queries": re.compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE)\b", _I),
        "error_handling": re.compile(r"\bEXCEPTION\s+WHEN\b|\bBEGIN\s+TRY\b|\bROLLBACK\b", _I),
    },
}
# Names of defined functions, for the explanation when there is no syntax tree.
FUNCTION_NAMES = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+(\w+)", re.M),
    "javascript": re.compile(
        r"\bfunction\s*\*?\s*(\w+)|\b(\w+)\s*=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*=>|\w+\s*=>)"
    ),
    "sql": re.compile(r"\b(?:FUNCTION|PROCEDURE)\s+([\w.]+)", re.I),
}
# Task sentence parts, in the order they read best.
TASK_PHRASES = (
    ("classes", "defines a class"),
    ("functions", "defines a function"),
    ("queries", "queries a database"),
    ("loops", "loops over data"),
    ("error_handling", "handles errors"),
    ("async", "runs asynchronously"),
)
QUERY_CALLS = {"execute", "executemany", "executescript", "read_sql", "read_sql_query"}
SECRET = re.compile(
    r"(?:api[_-]?key|secret|passw(?:or)?d|token)\s*[:=]\s*['\"][^'\"]{6,}['\"]"
    r"|AKIA[0-9A-Z]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bsk-[A-Za-z0-9]{20,}|\bghp_\w{30,}",
    re.IGNORECASE,
)


def collect_exec_logs(src: ExecLogSource, cfg: DomainConfig) -> CollectResult:
    """One document per kept run, in file and line order."""
    window = (_bound(src.since, "since", end=False), _bound(src.until, "until", end=True))
    result = CollectResult()
    for where, rec in read_jsonl(cfg.resolve(src.path), "exec_logs", result):
        doc_or_reason = _check(rec, where, src, window)
        if isinstance(doc_or_reason, Document):
            result.documents.append(doc_or_reason)
        else:
            result.reject(doc_or_reason, where)
    return result


def _check(
    rec: Any, where: str, src: ExecLogSource, window: tuple[datetime | None, datetime | None]
) -> Document | str:
    """The run as a document, or the reason it is dropped."""
    if not isinstance(rec, dict):
        return "bad_json"
    code, exit_code = rec.get("code"), _exit_code(rec)
    if not isinstance(code, str) or rec.get("timestamp") is None or exit_code is None:
        return "missing_field"
    if not code.strip():
        return "empty"
    when = parse_time(rec["timestamp"])
    if when is None:
        return "bad_timestamp"
    if src.successful_only and exit_code != 0:
        return "failed_run"
    language = detect_language(code)
    hint = rec.get("language")
    if isinstance(hint, str) and hint.strip():
        hint = ALIASES.get(hint.strip().lower(), hint.strip().lower())
        if language is not None and hint != language:
            return "language_mismatch"
    # Undetectable, or a language this source does not want: both are unknown to it.
    if language is None or language not in src.languages:
        return "unknown_language"
    since, until = window
    if (since is not None and when < since) or (until is not None and when > until):
        return "out_of_time_range"
    quality = quality_score(rec, language)
    if quality < src.min_quality:
        return "below_min_quality"
    meta = {
        "language": language,
        "tags": pattern_tags(code, language),
        "quality": quality,
        "stdout": _text(rec.get("stdout")),
        "stderr": _text(rec.get("stderr")),
        "exit_code": exit_code,
        "timestamp": when.isoformat(),
        "task": _text(rec.get("task") or rec.get("prompt")),
    }
    return Document(SOURCE, f"exec:{where}", f"{language} run {when.isoformat()}", code, meta)


def _exit_code(rec: dict[str, Any]) -> int | None:
    """exit_code, else exit_status, else 0/1 from a boolean "success"; None if none is usable."""
    for key in ("exit_code", "exit_status"):
        v = rec.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, str) and re.fullmatch(r"-?\d+", v.strip()):
            return int(v)
    ok = rec.get("success")
    return (0 if ok else 1) if isinstance(ok, bool) else None


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


# ------------------------------------------------------------------------------ time
def parse_time(value: Any) -> datetime | None:
    """An aware UTC datetime from ISO 8601 (naive means UTC; a trailing Z is accepted) or
    epoch seconds (a number or numeric string); None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", value):
        value = float(value)
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return None
        try:
            return datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    text = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _bound(value: str | None, key: str, end: bool) -> datetime | None:
    """A time-range bound; a bare date means its whole day (until 2024-05-01 keeps runs of
    that day), so both bounds are inclusive."""
    if value is None:
        return None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        day = datetime.combine(date.fromisoformat(value.strip()), datetime.min.time(), timezone.utc)
        return day + timedelta(days=1, microseconds=-1) if end else day
    when = None if value.strip().isdigit() else parse_time(value)  # dates, not epoch numbers
    if when is None:
        raise JupiterError(
            f"exec_logs {key}: {value!r} is not an ISO 8601 date or time (e.g. 2024-05-01 or"
            f" 2024-05-01T12:00:00Z)"
        )
    return when


# -------------------------------------------------------------------------- language
def detect_language(code: str) -> str | None:
    """The language of the code itself ("python", "javascript" or "sql"); None for prose
    and for other languages."""
    text = code.strip()
    if not text:
        return None
    tree = _parse_python(text)
    if SQL_START.search(text) and tree is None:
        return "sql"
    js = len(JS_MARKERS.findall(text))
    py = len(PY_MARKERS.findall(text))
    if tree is not None and _is_program(tree) and js <= py:
        return "python"
    if js > 0:
        return "javascript"
    # Python that does not parse (a typo, Python 2) still reads as Python when it is plain.
    return "python" if py >= 2 else None


def _parse_python(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):  # ValueError: NUL bytes
        return None


def _is_program(tree: ast.Module) -> bool:
    """True when the module does something: a lone name or constant ("hello") is not code."""
    return any(
        not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Name | ast.Constant))
        for s in tree.body
    )


# -------------------------------------------------------------------------- patterns
def pattern_tags(code: str, language: str) -> list[str]:
    """Which of TAGS the code shows, in TAGS order: Python through its syntax tree when it
    parses (else by regex), JavaScript and SQL by regex."""
    tree = _parse_python(code) if language == "python" else None
    if tree is not None:
        found = set(_python_facts(tree))
    else:
        found = {tag for tag, rx in REGEX_TAGS.get(language, {}).items() if rx.search(code)}
    return [t for t in TAGS if t in found]


def _python_facts(tree: ast.Module) -> dict[str, list[str]]:
    """tag -> names that show it (function names, loop iterables, tables, modules …)."""
    facts: dict[str, list[str]] = {}

    def add(tag: str, name: str) -> None:
        names = facts.setdefault(tag, [])
        if name and name not in names:
            names.append(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            add("functions", node.name)
        if isinstance(node, ast.ClassDef):
            add("classes", node.name)
        if isinstance(node, ast.For | ast.AsyncFor):
            add("loops", ast.unparse(node.iter))
        elif isinstance(node, ast.While):
            facts.setdefault("loops", [])  # no iterable to name
        elif isinstance(node, ast.comprehension):
            add("loops", ast.unparse(node.iter))
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for h in getattr(node, "handlers", []):
                add("error_handling", ast.unparse(h.type) if h.type is not None else "")
            facts.setdefault("error_handling", [])
        if isinstance(node, ast.Import):
            for alias in node.names:
                add("imports", alias.name)
        elif isinstance(node, ast.ImportFrom):
            add("imports", node.module or ".")
        if isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith):
            facts.setdefault("async", [])
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL_START.search(node.value):
                for table in SQL_TABLES.findall(node.value):
                    add("queries", table)
                facts.setdefault("queries", [])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in QUERY_CALLS:
                facts.setdefault("queries", [])
    return facts


def _facts(code: str, language: str) -> dict[str, list[str]]:
    """Like _python_facts for any language: names where a regex can find them."""
    tree = _parse_python(code) if language == "python" else None
    if tree is not None:
        return _python_facts(tree)
    facts: dict[str, list[str]] = {tag: [] for tag in pattern_tags(code, language)}
    if "functions" in facts and language in FUNCTION_NAMES:
        found = (next(g for g in m.groups() if g) for m in FUNCTION_NAMES[language].finditer(code))
        facts["functions"] = list(dict.fromkeys(found))
    if "classes" in facts:
        facts["classes"] = list(dict.fromkeys(re.findall(r"\bclass\s+(\w+)", code)))
    if "queries" in facts:
        facts["queries"] = list(dict.fromkeys(SQL_TABLES.findall(code)))
    return facts


# ---------------------------------------------------------------------------- quality
def quality_score(rec: dict[str, Any], language: str) -> float:
    """A score in [0, 1]: the sum of the weights of the checks the run passes."""
    code = _text(rec.get("code"))
    lines = [ln for ln in code.splitlines() if ln.strip()]
    tree = _parse_python(code) if language == "python" else None
    score = 0.0
    # 0.25: it ran cleanly; a failed run can still be right code, but often is not.
    score += 0.25 if _exit_code(rec) == 0 else 0.0
    # 0.15: it printed something, so an example can show what the code does.
    score += 0.15 if _text(rec.get("stdout")).strip() else 0.0
    # 0.15: it is well formed (Python: the parser accepts it; others: balanced brackets).
    parses = tree is not None if language == "python" else _balanced(code)
    score += 0.15 if parses else 0.0
    # 0.15: a teachable length; one-liners say little, very long dumps are hard to learn from.
    score += 0.15 if 3 <= len(lines) <= 150 else 0.075 if len(lines) <= 400 else 0.0
    # 0.10: comments or docstrings, the code's own explanation.
    score += 0.10 if _documented(code, language, tree) else 0.0
    # 0.10: nothing on stderr (warnings, tracebacks): the output is the program's own.
    score += 0.10 if not _text(rec.get("stderr")).strip() else 0.0
    # 0.10: no secret-like strings (API keys, passwords, private keys) to memorise.
    score += 0.10 if not SECRET.search(code) else 0.0
    return round(min(max(score, 0.0), 1.0), 6)


def _balanced(code: str) -> bool:
    depth: list[str] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    stripped = re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`", "", code)
    for ch in stripped:
        if ch in "([{":
            depth.append(ch)
        elif ch in pairs and (not depth or depth.pop() != pairs[ch]):
            return False
    return not depth


def _documented(code: str, language: str, tree: ast.Module | None) -> bool:
    if tree is not None:
        kinds = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        if any(ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, kinds)):
            return True
    marks = {"python": r"#", "javascript": r"//|/\*", "sql": r"--|/\*"}[language]
    return re.search(rf"(?:^|\s)(?:{marks})", code) is not None


# --------------------------------------------------------------------------- examples
def log_examples(doc: Document) -> list[Example]:
    """One chat example: the task as the question; the code, what it does and what it
    printed as the answer."""
    language = str(doc.meta.get("language") or detect_language(doc.text) or "python")
    facts = _facts(doc.text, language)
    task = str(doc.meta.get("task") or "") or _derived_task(facts, language)
    answer = f"```{language}\n{doc.text.strip()}\n```\n\n{_explanation(facts, language)}"
    stdout = str(doc.meta.get("stdout") or "").strip()
    if stdout:
        if len(stdout) > MAX_OUTPUT_CHARS:
            stdout = stdout[:MAX_OUTPUT_CHARS].rstrip() + "\n… (truncated)"
        answer += f"\n\nOutput:\n```\n{stdout}\n```"
    messages = [{"role": "user", "content": task}, {"role": "assistant", "content": answer}]
    # The id the whole document would have as one chunk: examples stay traceable to it.
    chunk_id = content_id("chunk", doc.id, 0, len(doc.text))
    return [Example("qa", SOURCE, chunk_id, "exec_log", messages=messages)]


def _derived_task(facts: dict[str, list[str]], language: str) -> str:
    parts = [phrase for tag, phrase in TASK_PHRASES if tag in facts]
    what = _join(parts) if parts else "does a small task"
    return f"Write {LANGUAGE_NAMES.get(language, language)} code that {what}, and show its output."


def _explanation(facts: dict[str, list[str]], language: str) -> str:
    def named(tag: str, noun: str, plural: str = "") -> str:
        found = [f"`{n}`" for n in facts[tag][:5]]
        if not noun:
            return _join(found)
        if not found:
            return f"a {noun}"
        return f"{plural or noun + 's'} {_join(found)}" if len(found) > 1 else f"{noun} {found[0]}"

    lines = []
    if facts.get("imports"):
        lines.append(f"It imports {named('imports', '')}.")
    if "classes" in facts:
        lines.append(f"It defines {named('classes', 'class', 'classes')}.")
    if "functions" in facts:
        lines.append(f"It defines {named('functions', 'function')}.")
    if "loops" in facts:
        lines.append(
            f"It loops over {named('loops', '')}." if facts["loops"] else "It uses a loop."
        )
    if "queries" in facts:
        lines.append(f"It queries {named('queries', 'table')}.")
    if "error_handling" in facts:
        how = {"python": "try/except", "javascript": "try/catch"}.get(language, "a handler")
        caught = f" ({named('error_handling', '')})" if facts["error_handling"] else ""
        lines.append(f"It handles errors with {how}{caught}.")
    if "async" in facts:
        lines.append("It runs asynchronously with async/await.")
    return " ".join(lines) or f"It is a short {LANGUAGE_NAMES.get(language, language)} snippet."


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
