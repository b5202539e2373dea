"""The domain's surroundings: the LLM servers its config calls (a real GET of the
OpenAI-compatible /v1/models, or Ollama's /api/tags, with a short timeout), the Hugging
Face cache, and every model reference of the config found where it points."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from jupiter.config import DomainConfig, LLMConfig
from jupiter.doctor.result import Check, Context, fail, ok, warn
from jupiter.errors import JupiterError

OLLAMA_PORT = 11434


def llm_servers(cfg: DomainConfig) -> list[tuple[str, LLMConfig]]:
    """(YAML key, llm) of every OpenAI-compatible server the config names for a part that
    is on: the generator's teacher, the filters' judge, the eval judge."""
    gen, judge, ecfg = cfg.generator, cfg.filters.judge, cfg.eval
    found: list[tuple[str, LLMConfig]] = []
    if gen.type == "llm":
        found.append(("generator.llm", gen.llm))
    if judge.enabled:
        found.append(("filters.judge.llm", judge.llm) if judge.llm else ("generator.llm", gen.llm))
    if ecfg.judge:
        chosen = (
            ("eval.judge_llm", ecfg.judge_llm)
            if ecfg.judge_llm
            else ("filters.judge.llm", judge.llm)
            if judge.llm
            else ("generator.llm", gen.llm)
        )
        found.append(chosen)
    out, seen = [], set()
    for key, llm in found:
        if llm.backend == "openai" and (llm.base_url, llm.model) not in seen:
            seen.add((llm.base_url, llm.model))
            out.append((key, llm))
    return out


def _root(base_url: str) -> str:
    """The server's root: /v1 taken off (where Ollama's own API lives)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _start_fix(key: str, llm: LLMConfig) -> str:
    port = urlsplit(llm.base_url).port
    if port == OLLAMA_PORT:
        return f"start Ollama (`ollama serve`), or set {key}.base_url to where the server runs"
    return (
        f"start the server at {llm.base_url} (a Jupiter model: `jupiter serve --model DIR "
        f"--port {port or 8000}`), or set {key}.base_url to where it runs"
    )


def _served(body: object) -> list[str]:
    """Model names of an OpenAI /models body ({"data": [{"id"}]}) or Ollama's /api/tags
    ({"models": [{"name"}]})."""
    if not isinstance(body, dict):
        return []
    rows = body.get("data") if "data" in body else body.get("models")
    if not isinstance(rows, list):
        return []
    return [str(r.get("id") or r.get("name")) for r in rows if isinstance(r, dict)]


def _serves(served: list[str], model: str) -> bool:
    return model in served or f"{model}:latest" in served


def probe_llm(key: str, llm: LLMConfig, timeout: float) -> Check:
    """One GET of the server's model list; the configured model looked up in it."""
    import httpx

    name = f"{key} ({llm.base_url})"
    headers = {}
    if llm.api_key_env:
        if not os.environ.get(llm.api_key_env):
            return fail(
                "servers",
                name,
                f"{key}.api_key_env names {llm.api_key_env}, which is not set",
                f"export {llm.api_key_env}=<the server's key>",
            )
        headers["Authorization"] = f"Bearer {os.environ[llm.api_key_env]}"
    t0 = time.perf_counter()
    try:
        with httpx.Client(timeout=timeout, headers=headers, trust_env=False) as client:
            resp = client.get(llm.base_url.rstrip("/") + "/models")
            ollama = resp.status_code == 404
            if ollama:
                resp = client.get(_root(llm.base_url) + "/api/tags")
    except httpx.ConnectError:
        return fail(
            "servers", name, "connection refused: nothing listens there", _start_fix(key, llm)
        )
    except httpx.TimeoutException:
        return fail("servers", name, f"no answer within {timeout:g} s", _start_fix(key, llm))
    except httpx.HTTPError as e:
        return fail("servers", name, f"{type(e).__name__}: {e}", _start_fix(key, llm))
    ms = 1000 * (time.perf_counter() - t0)
    if resp.status_code in (401, 403):
        return fail(
            "servers",
            name,
            f"HTTP {resp.status_code}: the server wants a key",
            f"set {key}.api_key_env to the variable holding it, and export it",
        )
    if resp.status_code >= 400:
        return fail(
            "servers",
            name,
            f"HTTP {resp.status_code} from its model list",
            f"check that {llm.base_url} is an OpenAI-compatible /v1 root",
        )
    try:
        served = _served(resp.json())
    except ValueError:
        served = []
    if llm.model and served and not _serves(served, llm.model):
        pull = (
            f"`ollama pull {llm.model}`, or "
            if ollama or urlsplit(llm.base_url).port == OLLAMA_PORT
            else ""
        )
        return fail(
            "servers",
            name,
            f"up, but does not serve '{llm.model}' (it serves: {', '.join(served[:8])})",
            f"{pull}set {key}.model to one it serves",
        )
    what = f"'{llm.model}' served" if llm.model else f"serves {', '.join(served[:3]) or 'models'}"
    return ok("servers", name, f"up ({ms:.0f} ms), {what}")


def server_checks(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return []
    return [probe_llm(key, llm, ctx.timeout) for key, llm in llm_servers(ctx.cfg)]


# ------------------------------------------------------------------------ HF cache, models
def hf_cache_check(ctx: Context) -> list[Check]:
    """The local Hub cache Jupiter reads Hub ids from (it never downloads)."""
    from jupiter.models.reference import hub_cache_dir

    cache = hub_cache_dir()
    where = f"{cache}" + (
        f" (HF_HOME={os.environ['HF_HOME']})" if os.environ.get("HF_HOME") else ""
    )
    if not cache.is_dir():
        return [ok("models", "hf cache", f"{where}: empty (nothing fetched yet)")]
    repos = [p.name for p in cache.iterdir() if p.name.startswith(("models--", "datasets--"))]
    models = sum(r.startswith("models--") for r in repos)
    detail = f"{where}: {models} models, {len(repos) - models} datasets"
    if not os.access(cache, os.W_OK):
        return [
            warn(
                "models",
                "hf cache",
                f"{detail}; not writable, so `hf download` cannot add to it",
                f"export HF_HOME=/a/writable/folder (or chmod u+w {cache})",
            )
        ]
    return [ok("models", "hf cache", detail)]


def _model_fix(key: str, ref: str, err: JupiterError) -> str:
    from jupiter.models.reference import HUB_ID

    text = str(err)
    if HUB_ID.match(ref) and not Path(ref).expanduser().exists() and "hf download" in text:
        return f"hf download {ref}"
    if ref.startswith("ollama:") and "ollama pull" in text:
        return f"ollama pull {ref.removeprefix('ollama:')}"
    return f"set {key} to a model folder, a .gguf file, a Hub id in the cache or ollama:NAME"


def model_checks(ctx: Context) -> list[Check]:
    """Every model reference of the domain config: found (a Hub id in the local cache, an
    Ollama model in Ollama's store) and its files intact."""
    if ctx.cfg is None:
        return []
    from jupiter.improve.workspace import Workspace
    from jupiter.models.integrity import check_model_files
    from jupiter.models.reference import locate_model

    out = []
    for key, ref in Workspace(ctx.cfg).model_refs():
        try:
            found = locate_model(ref, base_dir=ctx.cfg.base_dir)
            if not found.gguf:
                check_model_files(found.path)
        except JupiterError as err:
            out.append(fail("models", key, str(err), _model_fix(key, ref, err)))
            continue
        out.append(ok("models", key, f"{ref}: {found.kind} at {found.path}"))
    return out
