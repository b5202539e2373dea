"""Jupiter: one domain YAML in, a domain-expert language model out."""

__version__ = "0.1.0"
