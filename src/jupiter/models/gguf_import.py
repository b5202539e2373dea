"""A GGUF file (llama.cpp's format, an Ollama blob) turned once into a Hugging Face model dir.

transformers reads GGUF by dequantizing every block, which takes ~40 s for Gemma 3 270M on a
laptop CPU; doing that on every load would dominate short commands. So the result is saved as
a plain HF dir (safetensors + tokenizer files) under the cache, in a folder named by the file's
SHA-256, with source.json saying where it came from. Later resolutions read that folder.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from jupiter.atomic import write_text
from jupiter.errors import JupiterError
from jupiter.models.folder import quiet_hf, save_hf_model, sha256_file
from jupiter.models.memory import release_heap

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

SOURCE = "source.json"
MAGIC = b"GGUF"
# Up to ~2B parameters the import keeps fp32: every dequantized GGUF value (a small integer
# times an fp16 scale) is exact in fp32, so logits match the file's. Above that fp32 costs
# 4 bytes a weight (28 GB for 7B) and bf16, the dtype such models ship in, halves it.
FP32_MAX_PARAMS = 2_000_000_000
GGUF_MISSING = "reading GGUF files needs gguf and accelerate: pip install gguf accelerate"
# Plain English every pretrained model has read the like of. A base that works reads it at
# about 1 bit per byte or less (Gemma 3 270M: 0.70; without its bos: 1.56); spelling English
# letter by letter costs ~4. An import scoring over 2.5 was mis-converted and is refused
# (transformers 5.17 made Gemma 3's tokenizer a Unigram one: 11.3 once saved).
ENGLISH = (
    "The history of the city goes back more than a thousand years. It began as a small "
    "market town on the bank of a river, where farmers from the surrounding villages came "
    "to sell grain, wool and cattle. Over the centuries it grew into a centre of trade and "
    "learning, with a university, a cathedral and a busy port. Today most of its people "
    "work in offices, shops and hospitals, and visitors come to walk its old streets."
)
MAX_ENGLISH_BPB = 2.5
CHECK_MIN_PARAMS = 50_000_000  # below this, a model may be untrained (test models are)


def is_gguf(path: Path) -> bool:
    """Whether `path` is a file starting with GGUF's magic bytes."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


def entry_dir(cache_dir: Path, digest: str) -> Path:
    return cache_dir / f"sha256-{digest}"


def is_complete(folder: Path) -> bool:
    # source.json is written last, inside the temp dir, before the rename.
    return (folder / SOURCE).is_file() and (folder / "config.json").is_file()


def read_source(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / SOURCE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _stat_key(path: Path) -> list[Any]:
    st = path.stat()
    return [str(path), st.st_size, st.st_mtime_ns]


def cached_by_stat(cache_dir: Path, path: Path) -> Path | None:
    """An import of this very file (same path, size and mtime) made earlier, found without
    hashing it again: hashing a 4 GB file takes seconds each time a command starts."""
    key = _stat_key(path)
    for source in cache_dir.glob(f"sha256-*/{SOURCE}"):
        data = read_source(source.parent)
        seen = [[data.get("source"), data.get("size"), data.get("mtime_ns")]]
        seen += data.get("also_seen_as") or []
        if key in seen and is_complete(source.parent):
            return source.parent
    return None


def remember_path(folder: Path, path: Path) -> None:
    """Note another file (a copy, a touched file) with the same content in source.json, so the
    next run finds the entry by stat instead of hashing it again."""
    data = read_source(folder)
    data["also_seen_as"] = [*(data.get("also_seen_as") or []), _stat_key(path)][-8:]
    write_text(folder / SOURCE, json.dumps(data, indent=1))


@contextmanager
def _quiet_gguf_bar() -> Iterator[None]:
    """transformers' GGUF reader draws its own tqdm bar, outside its progress-bar switch; the
    status line already says what is happening."""
    try:
        import transformers.modeling_gguf_pytorch_utils as reader
    except ImportError:
        yield
        return
    bar = getattr(reader, "tqdm", None)
    if bar is not None:
        reader.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            reader.tqdm = bar


@contextmanager
def _status(console: Console, message: str) -> Iterator[None]:
    """A spinner line on a terminal; in a log, the line itself (a long wait explained)."""
    if console.is_terminal:
        with console.status(message):
            yield
    else:
        console.print(message, highlight=False, markup=False, soft_wrap=True)
        yield


# GGUF files being read now, each parsed once: gguf's GGUFReader reads every string of a
# vocabulary in Python (12 s for Gemma 3's 262k tokens on one core) and transformers makes
# a new reader for the config, the tokenizer and the weights of the same file
_READING: dict[Path, Any] = {}


@contextmanager
def one_reading(path: Path) -> Iterator[Any]:
    """Parse the GGUF at `path` once for everything inside the block: Jupiter's own reads
    and every `gguf.GGUFReader(path)` transformers makes of this file get the same reader
    (readers only read; the file is mapped read-only). Yields that reader."""
    try:
        import gguf
    except ImportError:
        raise JupiterError(GGUF_MISSING) from None
    key = Path(path).resolve()
    if key in _READING:
        yield _READING[key]
        return
    original = gguf.GGUFReader
    try:
        reader = original(key)
    except (ValueError, IndexError, OSError) as err:
        raise _unreadable(path, err) from None

    class Shared(original):  # type: ignore[misc, valid-type]
        def __new__(cls, where: Any, mode: Any = "r") -> Any:
            shared = _READING.get(Path(where).resolve()) if mode == "r" else None
            # the shared reader is not a Shared, so its __init__ is not run again
            return shared if shared is not None else original(where, mode)

    _READING[key] = reader
    setattr(gguf, "GGUFReader", Shared)  # noqa: B010 (the class itself is replaced)
    try:
        yield reader
    finally:
        setattr(gguf, "GGUFReader", original)  # noqa: B010
        del _READING[key]


def _unreadable(path: Path, err: Exception) -> JupiterError:
    return JupiterError(f"{path} is not a readable GGUF file ({err}): download it again")


def _field(path: Path, name: str) -> Any:
    """The header field `name` of the GGUF at `path` (None when absent)."""
    with one_reading(path) as reader:
        return reader.fields.get(name)


def gguf_facts(path: Path) -> tuple[str, int]:
    """(architecture, parameter count) from the GGUF header, without reading the weights."""
    with one_reading(path) as reader:
        try:
            field = reader.fields["general.architecture"]
            arch = bytes(field.parts[field.data[0]]).decode("utf-8")
            return arch, sum(int(t.n_elements) for t in reader.tensors)
        except (KeyError, ValueError, IndexError) as err:
            raise _unreadable(path, err) from None


def gguf_license(path: Path) -> str:
    """The license a GGUF's header names (general.license, e.g. "gemma"), or ""."""
    try:
        field = _field(path, "general.license")
        return "" if field is None else bytes(field.parts[field.data[0]]).decode("utf-8")
    except (JupiterError, KeyError, ValueError, IndexError):
        return ""


def gguf_adds_bos(path: Path) -> bool:
    """Whether the GGUF's tokenizer asks for bos first (tokenizer.ggml.add_bos_token)."""
    try:
        field = _field(path, "tokenizer.ggml.add_bos_token")
        return field is not None and bool(field.parts[field.data[0]][0])
    except (JupiterError, KeyError, ValueError, IndexError):
        return False


def check_bos(tokenizer: PreTrainedTokenizerBase, label: str, wants_bos: bool) -> None:
    """Refuse a tokenizer that drops the bos token its GGUF asks for (transformers 5.18 to
    5.22 did for Gemma 3, which then reads English at twice the bits per byte)."""
    bos = tokenizer.bos_token_id
    if not wants_bos or not isinstance(bos, int):
        return
    ids = tokenizer("a")["input_ids"]
    if not ids or ids[0] != bos:
        import transformers

        raise JupiterError(
            f"{label}: transformers {transformers.__version__} reads this GGUF's tokenizer "
            "without the bos token the file asks for (tokenizer.ggml.add_bos_token). Upgrade "
            "it (pip install -U transformers; 5.23 reads it right) and run again; nothing was "
            "saved"
        )


def _count(n: int) -> str:
    return f"{n / 1e9:.1f}B" if n >= 1e9 else f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"


def import_dtype(n_params: int) -> torch.dtype:
    import torch

    return torch.float32 if n_params <= FP32_MAX_PARAMS else torch.bfloat16


def drop_quantizer(model: PreTrainedModel) -> None:
    """Make a model read from GGUF a plain one. transformers marks it as quantized with gguf
    and its save_pretrained refuses such a model ("not serializable"), even once every weight
    is a dense tensor; the marks are the quantizer, the config's quantization_config and the
    is_quantized flags of the model and its sub-models' configs."""
    from transformers import PreTrainedModel as Pretrained

    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None and hasattr(quantizer, "remove_quantization_config"):
        quantizer.remove_quantization_config(model)
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None  # type: ignore[assignment]
    for module in model.modules():
        if isinstance(module, Pretrained):
            if hasattr(module.config, "quantization_config"):
                delattr(module.config, "quantization_config")
            if getattr(module.config, "_is_quantized", False):
                module.config._is_quantized = False
    if hasattr(model, "quantization_method"):
        delattr(model, "quantization_method")
    model.is_quantized = False  # type: ignore[assignment]
    packed = {type(m).__name__ for m in model.modules() if type(m).__name__.startswith("Gguf")}
    if packed:  # weights left in GGUF blocks cannot be saved as safetensors
        raise JupiterError(
            f"transformers kept GGUF blocks packed ({', '.join(sorted(packed))}): upgrade "
            "transformers, or point the model at a Hugging Face folder instead"
        )


def load_gguf(path: Path, dtype: torch.dtype) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """(dense model, tokenizer) read from a GGUF file by transformers' own GGUF loader."""
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import quantization_config as qc

    kwargs: dict[str, Any] = {"gguf_file": path.name, "dtype": dtype}
    gguf_config = getattr(qc, "GgufConfig", None)
    if gguf_config is not None:  # transformers >= 5 can keep blocks packed: ask for dense
        kwargs["quantization_config"] = gguf_config(dequantize=True)
    try:
        with quiet_hf(), _quiet_gguf_bar():
            tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(path.parent, **kwargs)
    except ImportError as err:
        raise JupiterError(f"{GGUF_MISSING} ({err})") from None
    except (ValueError, KeyError, NotImplementedError, OSError, RuntimeError) as err:
        first = (str(err).splitlines() or [type(err).__name__])[0]
        raise JupiterError(
            f"transformers {transformers.__version__} cannot import {path} ({first}): upgrade "
            "transformers, or point the model at a Hugging Face folder instead"
        ) from None
    drop_quantizer(model)
    return model.eval(), tokenizer


def english_bpb(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> float:
    """Bits per byte of ENGLISH under `model` read through `tokenizer` (bos first when the
    tokenizer has one and does not add it itself)."""
    import math

    import torch

    ids: list[int] = tokenizer(ENGLISH)["input_ids"]
    bos = tokenizer.bos_token_id
    if isinstance(bos, int) and (not ids or ids[0] != bos):
        ids = [bos, *ids]
    x = torch.tensor([ids])
    with torch.inference_mode():
        loss = float(model(input_ids=x, labels=x).loss)
    return loss * (len(ids) - 1) / math.log(2) / len(ENGLISH.encode())


def check_reads_english(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, label: str, n_params: int
) -> float | None:
    """Refuse an import that cannot read plain English (a mis-converted tokenizer or
    weights); the figure, or None for a model too small to be held to it."""
    if n_params < CHECK_MIN_PARAMS:
        return None
    import transformers

    bpb = english_bpb(model, tokenizer)
    if not bpb <= MAX_ENGLISH_BPB:
        raise JupiterError(
            f"{label} imported by transformers {transformers.__version__} reads plain English "
            f"at {bpb:.1f} bits per byte (a working base: 1 or less; letter by letter: 4): this "
            "transformers mis-converts the file's tokenizer or weights. Upgrade it (pip "
            "install -U transformers) and run again; nothing was saved"
        )
    return bpb


def check_saved(
    model: PreTrainedModel, label: str, wants_bos: bool, n_params: int, saved: Path
) -> dict[str, Any]:
    """The import's checks on the tokenizer as saved and read back, which is what every
    later load gets (transformers 5.17 converted Gemma 3's to one that read English at 3.4
    bits per byte in memory and 11.3 once saved and read back). Returns {"english_bpb"}."""
    from transformers import AutoTokenizer

    with quiet_hf():
        again = AutoTokenizer.from_pretrained(saved)
    check_bos(again, label, wants_bos)
    english = check_reads_english(model, again, label, n_params)
    return {"english_bpb": None if english is None else round(english, 3)}


def _write_entry(
    final: Path,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    source: dict[str, Any],
    check: Callable[[Path], dict[str, Any]] | None = None,
) -> Path:
    """Save into a temp dir beside `final`, source.json last, then rename: a crash or a second
    process importing the same file at once never leaves half a folder under the final name.
    `check(temp dir)` runs on the saved files before source.json (what it returns is added
    to it); when it raises, the temp dir is removed and nothing is left."""
    tmp = final.with_name(f".tmp-{final.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        save_hf_model(model, tmp)
        tokenizer.save_pretrained(tmp)
        if check is not None:
            source = source | check(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    write_text(tmp / SOURCE, json.dumps(source, indent=1))
    try:
        os.rename(tmp, final)
    except OSError:
        if not is_complete(final):
            raise
        shutil.rmtree(tmp, ignore_errors=True)  # another process finished first: keep its copy
    return final


def import_gguf(
    path: Path,
    *,
    cache_dir: Path,
    digest: str | None = None,
    label: str = "",
    console: Console | None = None,
) -> Path:
    """The HF dir made from GGUF file `path`: cached when imported before, else imported now.

    `digest`: the file's SHA-256 when already known (an Ollama blob's name); checked as the
    file is imported, and the cache is looked up by it without reading the file."""
    console = console or Console(stderr=True)
    path = path.resolve()
    label = label or path.name
    if digest is None:
        hit = cached_by_stat(cache_dir, path)
        if hit is not None:
            return hit
    elif is_complete(entry_dir(cache_dir, digest)):
        return entry_dir(cache_dir, digest)  # found by its known digest, the file unread
    with one_reading(path):  # refuses a file that is no GGUF now, not after hashing it
        return _import(path, cache_dir, digest, label, console)


def _import(path: Path, cache_dir: Path, digest: str | None, label: str, console: Console) -> Path:
    verify = digest is not None  # a digest we did not compute ourselves
    if digest is None:
        with _status(console, f"hashing {label} (once per file)…"):
            digest = sha256_file(path)
    final = entry_dir(cache_dir, digest)
    if is_complete(final):
        if not verify:
            remember_path(final, path)
        return final
    t0 = time.perf_counter()
    arch, n_params = gguf_facts(path)
    dtype = import_dtype(n_params)
    what = f"{label} ({arch}, {_count(n_params)} parameters)"
    with _status(console, f"importing {what} from GGUF, once (about a minute for a small one)…"):
        if verify and sha256_file(path) != digest:
            raise JupiterError(
                f"{path} does not match its SHA-256 {digest[:12]}…: the file is corrupt, "
                "fetch it again"
            )
        model, tokenizer = load_gguf(path, dtype)
        import transformers

        check = functools.partial(check_saved, model, label, gguf_adds_bos(path), n_params)
        st = path.stat()
        source = {
            "source": str(path),
            "label": label,
            "sha256": digest,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "architecture": arch,
            "parameters": n_params,
            "license": gguf_license(path),
            "dtype": str(dtype).removeprefix("torch."),
            "transformers": transformers.__version__,
            "imported_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        cache_dir.mkdir(parents=True, exist_ok=True)
        _write_entry(final, model, tokenizer, source, check)
        del model, tokenizer
    release_heap()  # the dequantized copies: 1 GB held on for nothing otherwise
    console.print(
        f"imported {label} in {time.perf_counter() - t0:.0f} s ({source['dtype']}) → {final}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return final
