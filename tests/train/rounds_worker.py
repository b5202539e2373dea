"""Run by torchrun from test_distributed.py: rounds under FSDP2 / DDP.

start → 2 steps → get_weights → set_weights(those weights + 0.01) → 2 steps → get_weights;
rank 0 writes the losses and a weight checksum to the JSON file named in argv[2].
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from jupiter.train import dist
from jupiter.train.launch import read_spec
from jupiter.train.loop import get_weights, run_steps, set_weights, start


def main() -> None:
    run = read_spec(Path(sys.argv[1]))
    state = start(run)
    run_steps(run, state, 2)
    weights = {n: w + 0.01 for n, w in get_weights(state).items()}
    set_weights(state, weights)
    back = get_weights(state)
    exact = all(torch.equal(back[n], weights[n]) for n in weights)
    run_steps(run, state, 2)
    final = get_weights(state)
    if state.dist.main:
        out = {
            "losses": state.losses,
            "exact": exact,
            "sums": {n: float(w.double().sum()) for n, w in final.items()},
        }
        Path(sys.argv[2]).write_text(json.dumps(out))
    dist.exit_rank(0)  # like the launcher's ranks: no gloo teardown at exit


if __name__ == "__main__":
    main()
