"""Loading Hugging Face causal LMs (Llama, Mistral, Qwen2 …) for fine-tuning and for inference.

Three training methods:
- full: every weight trainable, fp32 master weights (the loop's autocast computes in bf16);
- lora: the base frozen (in `base_dtype`), low-rank adapters (Hu et al. 2021) trained in fp32;
- qlora: the base quantized to 4-bit NF4 with double quantization (Dettmers et al. 2023),
  adapters on top.

A LoRA run saves only the adapter (`adapter_config.json` + `adapter_model.safetensors`) whose
config names the base by absolute path, so any checkpoint loads back for chat and eval, merged.
peft and bitsandbytes are optional: imported only by the methods that need them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import torch
from huggingface_hub.errors import StrictDataclassError
from safetensors import SafetensorError
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from jupiter.config import LoraConfig
from jupiter.errors import JupiterError
from jupiter.models.folder import ADAPTER_CONFIG, is_adapter_dir, quiet_hf, save_model_dir
from jupiter.models.integrity import check_model_files, loader_error
from jupiter.models.lora_dropout import use_adapter_dropout
from jupiter.models.memory import Method
from jupiter.models.reference import HUB_ID
from jupiter.wspath import from_stored, workspace_of

ATTENTION = ("sdpa", "flash_attention_2", "eager")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")
PEFT_MISSING = "LoRA needs peft: pip install peft (or use train.method: full)"
BNB_MISSING = "qlora needs bitsandbytes: pip install bitsandbytes (or use method: lora)"
FLASH_MISSING = (
    "model.attention: flash_attention_2 needs flash-attn: pip install flash-attn "
    "--no-build-isolation (or set model.attention: sdpa)"
)


@functools.lru_cache(maxsize=1)
def _has_flash_attn() -> bool:
    # An import, not find_spec: a flash-attn built against another torch is found but fails.
    try:
        import flash_attn  # noqa: F401
    except Exception:
        return False
    return True


def attention_impl(requested: str, device: torch.device) -> str:
    """The attention kernel to load with: "auto" takes flash-attn on CUDA when it imports, else
    PyTorch's sdpa; an explicit choice is honoured, or refused with the fix."""
    if requested == "auto":
        return "flash_attention_2" if device.type == "cuda" and _has_flash_attn() else "sdpa"
    if requested not in ATTENTION:
        raise JupiterError(
            f"unknown model.attention '{requested}': choose auto, {', '.join(ATTENTION)}"
        )
    if requested == "flash_attention_2":
        if not _has_flash_attn():
            raise JupiterError(FLASH_MISSING)
        if device.type != "cuda":
            raise JupiterError(
                f"model.attention: flash_attention_2 runs on CUDA only, not on {device.type}:"
                " set model.attention: auto or sdpa"
            )
    return requested


def _check_model_dir(path: Path) -> None:
    if not (path / "config.json").is_file():
        raise JupiterError(f"not an HF model dir (no config.json): {path}")
    check_model_files(path)


# what transformers and safetensors raise for files they cannot read (a config value of
# the wrong type is a TypeError, or huggingface_hub's StrictDataclassError)
LOAD_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    RuntimeError,
    TypeError,
    SafetensorError,
    StrictDataclassError,
)


def _from_pretrained(path: Path, **kwargs: Any) -> PreTrainedModel:
    """AutoModelForCausalLM.from_pretrained, a damaged dir said in one line. Weights the
    files lack would be initialized at random: refused (a file of another model, a lost
    shard)."""
    try:
        with quiet_hf():
            loaded: Any = AutoModelForCausalLM.from_pretrained(
                path, output_loading_info=True, **kwargs
            )
        model: PreTrainedModel = loaded[0]
        info: dict[str, Any] = loaded[1]
    except torch.OutOfMemoryError:
        raise  # not the files' fault: the caller's memory advice applies
    except LOAD_ERRORS as err:
        raise loader_error(path, err) from None
    missing = sorted(info.get("missing_keys") or [])
    if missing:
        raise JupiterError(
            f"damaged model dir {path}: its weights lack {len(missing)} of the model's tensors "
            f"(e.g. {missing[0]}), which would start at random: download or export the model "
            "again (or point at another model)"
        )
    return model


def _import_peft() -> Any:
    try:
        import peft
    except ImportError:
        raise JupiterError(PEFT_MISSING) from None
    return peft


def linear_targets(model: torch.nn.Module) -> list[str]:
    """Names (last component) of every linear layer but the output head: with Llama, Mistral
    and Qwen2 that is q/k/v/o and gate/up/down, the "all-linear" set of the QLoRA paper."""
    head = model.get_output_embeddings() if isinstance(model, PreTrainedModel) else None
    # bitsandbytes' Linear4bit subclasses nn.Linear, so quantized layers are found too.
    return sorted(
        {
            name.rsplit(".", 1)[-1]
            for name, m in model.named_modules()
            if isinstance(m, torch.nn.Linear) and m is not head
        }
    )


def _enable_checkpointing(model: PreTrainedModel, adapters: bool) -> None:
    # Non-reentrant checkpointing (PyTorch's recommended mode) needs no input that requires
    # grad; the hook is still set for adapters in case a wrapper swaps in the reentrant kind.
    kwargs = {"use_reentrant": False}
    if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.x
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    if adapters:
        model.enable_input_require_grads()


def _device_map_target(device: torch.device) -> int | str:
    """accelerate's placement for a quantized load: a CUDA index, else the device name."""
    if device.type != "cuda":
        return str(device)
    return device.index if device.index is not None else torch.cuda.current_device()


def _load_base(
    path: Path, method: Method, attention: str, device: torch.device, base_dtype: torch.dtype
) -> PreTrainedModel:
    kwargs: dict[str, Any] = {"attn_implementation": attention_impl(attention, device)}
    if method == "full":
        kwargs["dtype"] = torch.float32  # fp32 master weights; autocast does bf16
    elif method == "lora":
        kwargs["dtype"] = base_dtype
    else:
        try:
            import bitsandbytes  # noqa: F401
        except ImportError:
            raise JupiterError(BNB_MISSING) from None
        from transformers import BitsAndBytesConfig

        # NF4 + double quantization + bf16 compute: the QLoRA recipe (Dettmers et al. 2023).
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16,
        )
        kwargs["dtype"] = torch.bfloat16
        kwargs["device_map"] = {"": _device_map_target(device)}
    return _from_pretrained(path, **kwargs)


def load_for_training(
    path: Path,
    method: Method,
    lora: LoraConfig,
    *,
    attention: str = "auto",
    device: torch.device,
    base_dtype: torch.dtype = torch.float32,
    gradient_checkpointing: bool = False,
    seed: int = 0,
) -> PreTrainedModel:
    """The model at HF dir `path` ready to train with `method`, on `device`, in train() mode.

    lora and qlora return a `peft.PeftModel` whose `save_pretrained` writes only the adapter
    (with `lora.freeze_a`, its A matrices drawn from `seed`).
    """
    path = Path(path).resolve()
    _check_model_dir(path)
    if method not in ("full", "lora", "qlora"):
        raise JupiterError(f"unknown train.method '{method}': choose full, lora or qlora")
    if method != "full":
        return _with_adapters(
            path, method, lora, attention, device, base_dtype, gradient_checkpointing, seed
        )
    model = _load_base(path, method, attention, device, base_dtype)
    model = model.to(device)  # type: ignore[arg-type]
    if gradient_checkpointing:
        _enable_checkpointing(model, adapters=False)
    model.requires_grad_(True)
    return model.train()


def _with_adapters(
    path: Path,
    method: Method,
    lora: LoraConfig,
    attention: str,
    device: torch.device,
    base_dtype: torch.dtype,
    gradient_checkpointing: bool,
    seed: int,
) -> PreTrainedModel:
    peft = _import_peft()  # before the load: a missing package fails fast
    model = _load_base(path, method, attention, device, base_dtype)
    if method == "qlora":
        # Freezes the base and upcasts the non-quantized weights (norms, embeddings) to fp32.
        model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
    else:
        model = model.to(device)  # type: ignore[arg-type]
        model.requires_grad_(False)
    if gradient_checkpointing:
        _enable_checkpointing(model, adapters=True)
    targets = lora.target_modules
    config = peft.LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=linear_targets(model) if targets == "all-linear" else list(targets),
        task_type="CAUSAL_LM",
    )
    wrapped = peft.get_peft_model(model, config)
    # Adapters train in fp32 whatever the base holds; a bf16 base stays frozen in bf16.
    for p in wrapped.parameters():
        if p.requires_grad and p.dtype != torch.float32:
            p.data = p.data.float()
    if lora.freeze_a:
        freeze_lora_a(wrapped, seed)
    use_adapter_dropout(wrapped)  # PEFT's dropout and input cast, cheap on the CPU
    # Absolute, so a checkpoint loads from any working directory.
    wrapped.peft_config["default"].base_model_name_or_path = str(path)
    result: PreTrainedModel = wrapped.train()
    return result


@torch.no_grad()
def freeze_lora_a(model: Any, seed: int) -> int:
    """LoRA-FA: every A set to its seeded start (models/lora_fa.py) and frozen; how many."""
    from jupiter.models.lora_fa import frozen_a

    n = 0
    for name, p in model.named_parameters():
        if ".lora_A." in name:
            saved = name.replace(".default.", ".")
            p.copy_(torch.from_numpy(frozen_a(saved, p.shape[0], p.shape[1], seed)))
            p.requires_grad_(False)
            n += 1
    return n


def load_adapter_weights(model: PreTrainedModel, adapter_dir: Path) -> None:
    """Copy a saved adapter's weights into a model from `load_for_training` (lora / qlora), to
    resume or continue it. PEFT saves keys without the adapter name, so a plain
    load_state_dict does not fit them; peft's own loader does."""
    peft = _import_peft()
    from safetensors.torch import load_file

    weights = Path(adapter_dir) / "adapter_model.safetensors"
    if not weights.is_file():
        raise JupiterError(f"no adapter_model.safetensors in adapter dir {adapter_dir}")
    try:
        result = peft.set_peft_model_state_dict(model, load_file(weights))
    except RuntimeError as err:  # shapes differ: another rank
        raise JupiterError(
            f"adapter {adapter_dir} does not fit the model (is train.lora.r the one it was"
            f" trained with?): {str(err).splitlines()[0]}"
        ) from None
    missing = [k for k in result.missing_keys if ".lora_" in k]
    if missing or result.unexpected_keys:
        raise JupiterError(
            f"adapter {adapter_dir} does not fit the model (train.lora.target_modules differ?):"
            f" missing {missing[:3]}, unexpected {list(result.unexpected_keys)[:3]}"
        )


def load_model_weights(model_dir: Path, model: torch.nn.Module) -> None:
    """Copy the weights of an HF dir (or a PEFT adapter dir, into a PEFT model) into `model`."""
    if is_adapter_dir(model_dir):
        load_adapter_weights(model, model_dir)  # type: ignore[arg-type]
        return
    from safetensors.torch import load_file

    files = sorted(model_dir.glob("*.safetensors"))
    if not files:
        raise JupiterError(f"no .safetensors weights in {model_dir}")
    weights: dict[str, torch.Tensor] = {}
    for f in files:
        weights.update(load_file(f))
    missing, unexpected = model.load_state_dict(weights, strict=False)
    # save_pretrained drops the output head when it is tied to the embedding.
    tied = {"lm_head.weight"} if getattr(model.config, "tie_word_embeddings", False) else set()
    if unexpected or set(missing) - tied:
        raise JupiterError(
            f"weights in {model_dir} do not fit the model: missing {sorted(set(missing) - tied)},"
            f" unexpected {sorted(unexpected)}"
        )


def trainable_parameters(model: torch.nn.Module) -> tuple[int, int]:
    """(trainable, total) parameter counts; a 4-bit weight counts as its unpacked size."""
    trainable = total = 0
    for p in model.parameters():
        n = p.numel()
        if type(p).__name__ == "Params4bit":
            # Two 4-bit values per byte of the storage dtype (uint8 by default).
            n *= 2 * p.element_size()
        total += n
        trainable += n if p.requires_grad else 0
    return trainable, total


def adapter_base(adapter_dir: Path) -> Path:
    """The base model dir an adapter was trained on (relative paths are from the adapter)."""
    cfg_path = Path(adapter_dir) / ADAPTER_CONFIG
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise JupiterError(f"unreadable adapter config {cfg_path}: {err}") from None
    name = cfg.get("base_model_name_or_path")
    if not name:
        raise JupiterError(f"{cfg_path} names no base_model_name_or_path: set it to the base dir")
    base = Path(name).expanduser()
    base = base if base.is_absolute() else (Path(adapter_dir) / base)
    home = workspace_of(Path(adapter_dir).resolve())
    if home is not None and base.is_absolute():
        # an adapter of a copied or moved workspace names the original's base: this
        # workspace's own copy of it wins (wspath.py)
        base = Path(from_stored(str(base), home))
    if not base.exists() and HUB_ID.match(name):
        # an adapter from the Hub names its base by Hub id: the local HF cache may hold it
        from jupiter.models.reference import locate_model

        base = locate_model(name, base_dir=Path(adapter_dir)).path
    if not (base / "config.json").is_file():
        raise JupiterError(
            f"adapter {adapter_dir} needs its base model {base}, which is missing: put the base"
            f" model there, or point base_model_name_or_path in {cfg_path} at it"
        )
    return base.resolve()


def _has_tokenizer(path: Path) -> bool:
    return any((path / f).is_file() for f in TOKENIZER_FILES)


def _stored_dtype(model_dir: Path) -> torch.dtype:
    """The dtype the weights of an HF dir were saved in (fp32 when the config does not say)."""
    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    name = cfg.get("dtype") or cfg.get("torch_dtype") or "float32"
    dtype = getattr(torch, str(name), None)
    return dtype if isinstance(dtype, torch.dtype) else torch.float32


def load_for_inference(
    path: Path,
    *,
    device: torch.device | str = "cpu",
    dtype: torch.dtype = torch.float32,
    chat_template: str = "auto",
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """(model in eval() mode, tokenizer) from a plain HF dir or a PEFT adapter dir; an adapter
    is applied to its base and merged in, so the result is a plain transformers model.

    The tokenizer gets `chat_template` (data/templates.py): a base model without a template
    renders chats as training rendered them.
    """
    from jupiter.data.templates import set_chat_template

    path = Path(path)
    if not path.is_dir():
        raise JupiterError(f"model dir not found: {path}")
    if is_adapter_dir(path):
        base = adapter_base(path)
        peft = _import_peft()
        check_model_files(base)
        check_model_files(path)
        model = _from_pretrained(base, dtype=dtype)
        try:
            with quiet_hf():
                model = peft.PeftModel.from_pretrained(model, path).merge_and_unload()
        except LOAD_ERRORS as err:
            raise loader_error(path, err) from None
    else:
        _check_model_dir(path)
        base = path
        model = _from_pretrained(path, dtype=dtype)
    tok_dir = path if _has_tokenizer(path) else base
    if not _has_tokenizer(tok_dir):
        raise JupiterError(f"no tokenizer files in {path} or {base}")
    try:
        tokenizer = AutoTokenizer.from_pretrained(tok_dir)
    except LOAD_ERRORS as err:
        raise loader_error(tok_dir, err) from None
    set_chat_template(tokenizer, chat_template, getattr(model.config, "model_type", None))
    flat_head(model)
    return model.to(device).eval(), tokenizer  # type: ignore[arg-type]


def _flat_linear(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    lead = x.shape[:-1]
    out = torch.nn.functional.linear(x.reshape(-1, x.shape[-1]), self.weight, self.bias)
    return out.view(*lead, out.shape[-1])


def flat_head(model: torch.nn.Module) -> bool:
    """Make the output head project its input as one 2-D matrix; whether it could.

    The head reads a strided slice of the hidden states (the last position while decoding,
    `logits_to_keep`). torch.matmul folds such a 3-D input into one matrix product only when
    the weight requires grad; a frozen weight (a merged adapter: peft freezes the base) gets
    a batched product instead, which copies the whole vocab x hidden weight once per row:
    a merged Gemma 3 270M student sat its exam 6-12x slower than its base. Same logits,
    same saved weights (only this instance's forward changes).
    """
    head = getattr(model, "get_output_embeddings", lambda: None)()
    if type(head) is not torch.nn.Linear:
        return False
    head.forward = _flat_linear.__get__(head)  # type: ignore[method-assign]
    return True


def merge_adapter(adapter_dir: Path, out: Path) -> Path:
    """Write `out`: the adapter merged into its base, as a plain HF dir (safetensors +
    tokenizer) in the base's own dtype, readable without peft."""
    if not is_adapter_dir(adapter_dir):
        raise JupiterError(f"not a LoRA adapter dir (no {ADAPTER_CONFIG}): {adapter_dir}")
    dtype = _stored_dtype(adapter_base(adapter_dir))
    model, tokenizer = load_for_inference(adapter_dir, device="cpu", dtype=dtype)
    return save_model_dir(Path(out), model, tokenizer)
