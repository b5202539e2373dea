"""The extractive generator's choice scores are the same floats in every process: sums run
in sorted order, not in set order (which follows the process's string hashing)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
from jupiter.records import Chunk
from jupiter.synth.extractive import ExtractiveGenerator
texts = ["A deque keeps items at both ends and drops the oldest ones when maxlen is set.",
         "The heapq module keeps a list as a binary heap with the smallest item first.",
         "Bisect finds the insertion point in a sorted list without sorting it again."]
chunks = [Chunk(f"d{i}", "local", f"/d/{i}.md", f"t{i}", 0, len(t), t, "train")
          for i, t in enumerate(texts)]
gen = ExtractiveGenerator(chunks)
q = "which container drops the oldest items when it has a maximum length set?"
choices = ["a deque with maxlen set drops oldest items", "a heap keeps the smallest item first",
           "bisect finds insertion points in sorted lists", "a list sorted again and again"]
print([repr(x) for x in gen.choice_scores(q, choices)], gen.answer([q]))
"""


def test_choice_scores_do_not_depend_on_the_hash_seed() -> None:
    outs = set()
    for seed in ("1", "2", "3"):
        env = {"PYTHONHASHSEED": seed, "PATH": ""}
        got = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, check=True
        )
        outs.add(got.stdout)
    assert len(outs) == 1
