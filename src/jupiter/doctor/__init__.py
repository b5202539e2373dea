"""`jupiter doctor`: what this machine and the domain's surroundings can do, one line per
check (ok / warn / fail), every warn and fail with its fix.

Each check is a small function of a `Context` returning `Check` records (result.py), listed
in run.py in the order they print: system (Python, torch, accelerators, GPUs, collective
backends, disk, memory), optional packages, the configured LLM servers, the Hugging Face
cache and the domain's model references, and the cluster file's nodes.
"""
