"""What a backend returns, before maxmargin maps, polishes and certifies it."""

from __future__ import annotations

import numpy as np


class _Raw:
    """What a backend returns: status class, solver status text, x, multipliers."""

    def __init__(self, state: str, text: str, x: np.ndarray | None = None,
                 y_eq: np.ndarray | None = None, z_ineq: np.ndarray | None = None):
        self.state, self.text, self.x, self.y_eq, self.z_ineq = state, text, x, y_eq, z_ineq
