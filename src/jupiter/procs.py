"""Process-wide things: the libraries' settings every Jupiter process starts with, and
whether a process still runs (for the files that name their writer by pid: locks,
half-written folders, a heartbeat's parent)."""

from __future__ import annotations

import logging
import os
import warnings


def quiet_libraries() -> None:
    """Jupiter never downloads weights at run time, and prints its own progress. Called by
    the CLI and by every process it starts on its own entry point (torchrun ranks, islands,
    the coordinator): loggers are per process, environment variables are inherited."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # read by transformers and huggingface_hub at import: no import cost for quick commands
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    # bitsandbytes on an AVX-512 CPU asks for an optional kernel package at import, and
    # peft asks transformers a deprecated question on every LoRA load: noise in a run's log
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated")


def pid_alive(pid: int) -> bool:
    """True while process `pid` exists (someone else's process counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
