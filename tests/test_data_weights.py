"""Example weights from a text file (load_weights)."""

import pytest

import maxmargin as mm
from maxmargin import DataError


def test_weights_past_n_are_counted_not_kept(tmp_path):
    f = tmp_path / "w.txt"
    f.write_text("1\n" * 5)
    with pytest.raises(DataError, match="has 5 weights, but the data have 3 examples"):
        mm.data.load_weights(f, n=3)
    assert mm.data.load_weights(f).tolist() == [1.0] * 5
