"""Settings shared by the tests and the doctests of maxmargin/ (pytest's rootdir conftest)."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Every figure a test or an example draws through pyplot is closed after it."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
