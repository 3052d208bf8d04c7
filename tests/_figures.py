"""Helpers of the figure tests (tests/test_plotting_*.py)."""


def _line(ax, label):
    found = [ln for ln in ax.lines if ln.get_label() == label]
    assert len(found) == 1, (label, [ln.get_label() for ln in ax.lines])
    return found[0]
