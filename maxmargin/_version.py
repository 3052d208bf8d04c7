"""The one source of maxmargin's version (pyproject.toml reads it: ``dynamic = ["version"]``)."""

__version__ = "0.2.0.dev0"
