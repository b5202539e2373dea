"""`jupiter test`: a list of prompts through one or more models, side by side.

prompts.py reads the list (a .txt, one prompt a line; or JSONL with expected answers),
run.py decodes it through each model (batched greedy decoding with the KV cache, the
model's chat template and stop tokens: models/decode.py), report.py scores the answers
when expected ones are given and writes results.jsonl, results.md and summary.json.
"""
