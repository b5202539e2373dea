#!/usr/bin/env bash
# The GPU checks in one prepared run, for a lent CUDA machine with no network: the GPU tests,
# the loss kernels (benchmarks/speed/fused_loss.py), MFU of the 1b preset, LoRA throughput on a
# Gemma 3 270M-shaped and a Mistral-7B-shaped random model against PEFT + HF Trainer.
#
#   bash benchmarks/speed/gpu_check.sh [PART ...]     (default: every part, in this order)
#
# With a network: pip install -e ".[dev]" liger-kernel, then NO_WHEELS=1. Without one,
# the packages the machine lacks travel as wheels in .whl/ (installed to /tmp/site); the
# 2026-11-26 H100 run carried pydantic 2.14.4, pydantic-core 2.50.5, annotated-types,
# typing-inspection, peft 0.21.2, datasets 5.2.0, dill, multiprocess, pyarrow 24.0.0,
# trl 1.16.0 and liger-kernel 0.8.5 (cp312 manylinux wheels).
# Each part's log goes to $OUT/PART.log (default /tmp/gpu-check); a part stops at its own
# limit, and all of them together within BUDGET seconds (default 540).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
source benchmarks/gpu_env.sh
DEADLINE=$((SECONDS + ${BUDGET:-540}))

part() {  # name limit command...
  local name=$1 limit=$2 left=$((DEADLINE - SECONDS))
  shift 2
  ((left < limit)) && limit=$left
  if ((limit < 20)); then echo "=== $name: skipped (out of time)"; return; fi
  echo "=== $name (limit ${limit}s)"
  local t0=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "--- $name: exit $?, $((SECONDS - t0)) s"
  tail -n "${TAIL:-22}" "$OUT/$name.log"
}

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
python3 -c "import torch, transformers, peft, triton; print('torch', torch.__version__,
'transformers', transformers.__version__, 'peft', peft.__version__, 'triton', triton.__version__)"
parts=("$@")
((${#parts[@]})) || parts=(tests loss mfu lora270m lora7b mfu-compile)
for p in "${parts[@]}"; do
  case $p in
    tests) part tests 150 python3 -m pytest -q -p no:cacheprovider -o addopts="" -rs \
             tests/train/test_gpu.py tests/train/test_loss.py ;;
    loss) part loss 90 bash -c "python3 benchmarks/speed/fused_loss.py --repeats 5 --warmup 2 &&
             python3 benchmarks/speed/fused_loss.py --train-head --repeats 5 --warmup 2" ;;
    mfu) part mfu 90 python3 benchmarks/speed/mfu.py --preset 1b --batch 8 --ctx 2048 --steps 20 \
           --warmup 3 ;;
    mfu-compile) part mfu-compile 150 python3 benchmarks/speed/mfu.py --preset 1b --batch 8 \
                   --ctx 2048 --steps 20 --warmup 3 --compile ;;
    mfu-plain) part mfu-plain 90 python3 benchmarks/speed/mfu.py --preset 1b --batch 8 --ctx 2048 \
                 --steps 20 --warmup 3 --loss plain ;;
    mfu-plain-compile) part mfu-plain-compile 150 python3 benchmarks/speed/mfu.py --preset 1b \
                         --batch 8 --ctx 2048 --steps 20 --warmup 3 --loss plain --compile ;;
    mfu-plain-compile-b16) part mfu-plain-compile-b16 150 python3 benchmarks/speed/mfu.py \
                             --preset 1b --batch 16 --ctx 2048 --steps 12 --warmup 3 \
                             --loss plain --compile ;;
    lora270m) part lora270m 130 python3 benchmarks/speed/lora_throughput.py --config gemma3-270m \
                --batch 8 --ctx 1024 --steps 20 --warmup 3 --r 16 --alpha 32 \
                --jupiter-loss auto,fused,plain ;;
    lora7b) part lora7b 240 python3 benchmarks/speed/lora_throughput.py --config mistral-7b \
              --batch 2 --ctx 2048 --steps 10 --warmup 3 --tmp /tmp ;;
    *) echo "unknown part $p" ;;
  esac
done
