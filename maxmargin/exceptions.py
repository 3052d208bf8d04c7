"""maxmargin's exceptions: every error raised on purpose is a :class:`MaxMarginError`.

The subclasses also derive from the built-in exception a caller would otherwise catch
(``ValueError``, ``RuntimeError``, ``OSError``, ``ImportError``).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MaxMarginError",
    "DataError",
    "ParameterError",
    "SolverError",
    "NotSeparableError",
    "CertificateError",
    "OutputError",
    "DependencyError",
]


class MaxMarginError(Exception):
    """Base class of every error maxmargin raises on purpose."""


class DataError(MaxMarginError, ValueError):
    """The data cannot be used: bad labels, NaN/inf, shapes, an unreadable file."""


class ParameterError(MaxMarginError, ValueError):
    """An argument has a value maxmargin cannot accept (C <= 0, unknown mode, ...)."""


class SolverError(MaxMarginError, RuntimeError):
    """A QP solver is not installed, failed, or returned an inaccurate status."""


class NotSeparableError(MaxMarginError):
    """Hard margin asked of data that no hyperplane separates.

    Attributes
    ----------
    message : str
    certificate : SeparationCertificate or None
        A point ``z`` in both classes' convex hulls, verified before raising.
    """

    def __init__(self, message: str, certificate: Any = None) -> None:
        super().__init__(message)
        self.certificate = certificate


class CertificateError(MaxMarginError):
    """A certificate of optimality (or a check) failed."""


class OutputError(MaxMarginError, OSError):
    """An output file or directory cannot be written (missing, not writable, not a file)."""


class DependencyError(MaxMarginError, ImportError):
    """An optional package that this feature needs is not installed (the message: its ``pip``)."""
