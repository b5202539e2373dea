"""A byte-level BPE tokenizer trained on the domain corpus, saved as a standard HF tokenizer
with a chat template, so transformers, vLLM and mlx-lm read it unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerFast

PAD, BOS, EOS = "<|pad|>", "<|bos|>", "<|end|>"
ROLE_TOKENS = ["<|system|>", "<|user|>", "<|assistant|>"]
SPECIAL_TOKENS = [PAD, BOS, EOS, *ROLE_TOKENS]

# One turn is "<|role|>\n{content}<|end|>\n". EOS is the end-of-turn token, so a model
# trained on it learns to stop after its answer; pad is a different token (pad != eos).
# Written as eos_token (<|end|> here), so any tokenizer without a template of its own can
# take this one and still end turns with its eos.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + eos_token + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)


def train_tokenizer(
    texts: Iterable[str], vocab_size: int, out_dir: Path
) -> PreTrainedTokenizerFast:
    """Train byte-level BPE on `texts` and save it to `out_dir` as an HF tokenizer."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        additional_special_tokens=ROLE_TOKENS,
        model_max_length=1_000_000,
    )
    fast.chat_template = CHAT_TEMPLATE
    out_dir.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out_dir)
    return fast


def load_tokenizer(path: Path) -> PreTrainedTokenizerFast:
    tok = PreTrainedTokenizerFast.from_pretrained(path)
    if tok.chat_template is None:
        tok.chat_template = CHAT_TEMPLATE
    return tok
