"""A model dir's files checked before a loader opens them: config JSON that parses, and
safetensors whose header parses and whose data is as long as the header says.

Loaders report a damaged file as a bare OSError or SafetensorError naming neither the file
nor the fix; these checks read the JSON files and each safetensors header, so a 14 GB
model is checked in milliseconds. Flipped bytes inside the weights pass them: only a
checksum finds those, so a dir holding a checksums.json (the models Jupiter trains) has
every listed file hashed against it too (a read of the weights, 1-2 s a GB): models/folder.py
writes and verifies it.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

from jupiter.errors import JupiterError
from jupiter.models.folder import (
    CHECKSUMS,
    CONFIG,
    checksums_problem,
    is_adapter_dir,
    verify_checksums,
)

JSON_FILES = (
    "config.json",
    "adapter_config.json",
    "model.safetensors.index.json",
    "tokenizer_config.json",
    "generation_config.json",
    "special_tokens_map.json",
    "tokenizer.json",  # the largest (33 MB for Gemma 3's vocabulary): parsed in ~0.3 s
)
# safetensors caps its header at 100 MB (safetensors/src/tensor.rs, MAX_HEADER_SIZE)
MAX_HEADER = 100_000_000
# bytes per element of safetensors' dtypes (safetensors/src/tensor.rs, Dtype::size)
DTYPE_BYTES = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E5M2": 1,
    "F8_E4M3": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
}


def _json_problem(path: Path) -> str | None:
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        why = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        return f"not valid JSON ({why})"
    except OSError as err:
        return f"unreadable ({err.strerror or err})"
    return None if isinstance(data, dict) else "not a JSON object"


def safetensors_problem(path: Path) -> str | None:
    """What is wrong with a safetensors file's framing, or None: an 8-byte little-endian
    header length, a JSON header, and data exactly as long as the tensors' offsets say."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                return f"truncated ({size} bytes)"
            (n,) = struct.unpack("<Q", head)
            if n > MAX_HEADER or 8 + n > size:
                return f"header length {n} does not fit the file's {size} bytes (truncated?)"
            header = json.loads(fh.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return "its header is not valid JSON"
    except OSError as err:
        return f"unreadable ({err.strerror or err})"
    if not isinstance(header, dict):
        return "its header is not a JSON object"
    end = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(isinstance(o, int) for o in offsets)
        ):
            return f"tensor {name!r} has no valid data_offsets"
        problem = _extent_problem(name, info, offsets)
        if problem:
            return problem
        end = max(end, offsets[1])
    if 8 + n + end != size:
        return f"holds {size - 8 - n} bytes of tensor data where its header says {end}"
    return None


def _extent_problem(name: str, info: dict, offsets: list[int]) -> str | None:
    """A tensor whose byte range does not hold its shape in its dtype (a header rewritten
    with another dtype): the loader's own message names neither the tensor nor the file."""
    shape, size = info.get("shape"), DTYPE_BYTES.get(str(info.get("dtype")))
    if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
        return f"tensor {name!r} has no valid shape"
    if size is None:
        return f"tensor {name!r} has an unknown dtype {info.get('dtype')!r}"
    if offsets[1] - offsets[0] != math.prod(shape) * size:
        return (
            f"tensor {name!r} ({info['dtype']} {shape}) takes {math.prod(shape) * size} "
            f"bytes where its offsets give {offsets[1] - offsets[0]}"
        )
    return None


def model_files_problem(model_dir: Path) -> str | None:
    """'FILE: what is wrong' for the first damaged file of a model or adapter dir, or None."""
    for name in JSON_FILES:
        f = model_dir / name
        if f.is_file():
            problem = _json_problem(f)
            if problem:
                return f"{f}: {problem}"
    for f in sorted(model_dir.glob("*.safetensors")):
        problem = safetensors_problem(f)
        if problem:
            return f"{f}: {problem}"
    return checksums_problem(model_dir)


def model_problem(model_dir: Path) -> str | None:
    """What is wrong with a model dir Jupiter wrote, or None: its checksums.json verified
    when it has one (the final model of a run), else the files' framing."""
    if (model_dir / CHECKSUMS).is_file():
        problem = verify_checksums(model_dir)
        return f"{model_dir}/{problem}" if problem else None  # ".../model.safetensors does …"
    return model_files_problem(model_dir)


def _stored_tensors(model_dir: Path) -> set[str] | None:
    """Tensor names in the safetensors headers of a dir (None: no safetensors to read)."""
    names: set[str] = set()
    files = sorted(model_dir.glob("*.safetensors"))
    for f in files:
        with f.open("rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            names |= set(json.loads(fh.read(n).decode("utf-8"))) - {"__metadata__"}
    return names if files else None


def model_build_problem(model_dir: Path) -> str | None:
    """What keeps a model dir from loading, seen without reading its weights: a config that
    builds no model (unknown family, a value of the wrong type), or safetensors holding
    under half of the model's tensors (another model's file; the loader would start the
    rest at random). None when fine, and for an adapter dir. Call after check_model_files.
    The loader checks every tensor (models/loading.py): this is the cheap early look."""
    model_dir = Path(model_dir)
    if is_adapter_dir(model_dir) or not (model_dir / CONFIG).is_file():
        return None
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    try:
        config = AutoConfig.from_pretrained(model_dir)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
    except Exception as err:  # noqa: BLE001 - any failure to build is the config's problem
        return f"{model_dir}/config.json builds no model ({type(err).__name__}: {one_line(err)})"
    stored = _stored_tensors(model_dir)
    if stored is None:
        return None if any(model_dir.glob("*.bin")) else f"{model_dir} holds no weights file"
    prefix = f"{model.base_model_prefix}."

    def bare(name: str) -> str:
        return name.removeprefix(prefix)

    have = {bare(n) for n in stored}
    groups: dict[int, list[str]] = {}  # tied parameters: one tensor, several names
    for name, p in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(p), []).append(name)
    missing = [names[0] for names in groups.values() if not any(bare(n) in have for n in names)]
    if len(missing) * 2 > len(groups):
        return (
            f"{model_dir}: its weights hold {len(groups) - len(missing)} of the model's "
            f"{len(groups)} tensors ({missing[0]} is missing): the file is another model's"
        )
    return None


def check_model_files(model_dir: Path) -> None:
    """JupiterError naming the damaged file and the fix."""
    problem = model_files_problem(Path(model_dir))
    if problem:
        raise JupiterError(
            f"damaged model file {problem}: download or export the model again (or point at "
            "another model)"
        )


def one_line(err: BaseException, limit: int = 200) -> str:
    """A library's message on one line: its lines joined (a config error names the field on
    the first and the value on the next), cut at `limit` characters."""
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def loader_error(model_dir: Path, err: BaseException) -> JupiterError:
    """A loader's exception (OSError, SafetensorError, ValueError …) as one line with the
    dir and the fix, for what check_model_files cannot see beforehand. A JSON error names
    the file that does not parse (the loader's message names none)."""
    if isinstance(err, json.JSONDecodeError) and Path(model_dir).is_dir():
        for f in sorted(Path(model_dir).glob("*.json")):
            problem = _json_problem(f)
            if problem:
                return JupiterError(
                    f"damaged model file {f}: {problem}: download or export "
                    "the model again (or point at another model)"
                )
    first = one_line(err)
    return JupiterError(
        f"cannot load the model in {model_dir} ({type(err).__name__}: {first}): check that "
        "its files are complete, or download or export it again"
    )


def adapter_weights_problem(adapter_dir: Path) -> str | None:
    """An adapter dir with no weights file (adapter_model.safetensors or .bin)."""
    adapter_dir = Path(adapter_dir)
    if not is_adapter_dir(adapter_dir):
        return None
    if any((adapter_dir / f"adapter_model.{ext}").is_file() for ext in ("safetensors", "bin")):
        return None
    return f"{adapter_dir} holds no adapter weights (adapter_model.safetensors)"


def nonfinite_problem(model_dir: Path) -> str | None:
    """'FILE: tensor NAME holds N NaN or infinite values' for the first such tensor of the
    dir's safetensors, or None. Reads every weight, one tensor at a time."""
    import torch
    from safetensors import safe_open

    for f in sorted(Path(model_dir).glob("*.safetensors")):
        with safe_open(str(f), framework="pt") as fh:
            for name in fh.keys():  # noqa: SIM118 - safe_open is not a mapping
                t = fh.get_tensor(name)
                if not t.is_floating_point():
                    continue
                bad = int((~torch.isfinite(t)).sum())
                if bad:
                    return f"{f}: tensor {name} holds {bad} NaN or infinite values"
    return None
