""".npz archives: X and y (and feature names), and archives too large to read."""

import numpy as np
import pytest
from _data import _memory

import maxmargin as mm
from maxmargin import DataError


def test_npz_roundtrip(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    np.savez(tmp_path / "d.npz", X=X, y=np.array([0, 1, 0]))
    ds = mm.load(tmp_path / "d.npz")
    assert np.array_equal(ds.X, X) and ds.y.tolist() == [-1, 1, -1]
    np.savez(tmp_path / "bad.npz", A=X)
    with pytest.raises(DataError, match="'X' and 'y'"):
        mm.load(tmp_path / "bad.npz")


def test_an_npz_too_large_is_refused_from_its_headers(tmp_path, monkeypatch):
    np.savez_compressed(tmp_path / "z.npz", X=np.zeros((500, 1000)), y=np.ones(500))
    _memory(monkeypatch, 4 << 20)  # the zeros compress to kilobytes, inflate to 4 MB
    with pytest.raises(DataError, match=r"z\.npz \(arrays X \(500, 1000\) and y \(500,\)\) needs"):
        mm.load(tmp_path / "z.npz")
