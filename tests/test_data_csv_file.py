"""CSV files: separators, quotes, headers, the label column, feature names."""

import numpy as np
import pytest

import maxmargin as mm
from maxmargin import DataError
from maxmargin.data import load_csv


def test_csv_label_by_name_or_last(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,label,b\n1,yes,2\n3,no,4\n5,yes,6\n")
    ds = load_csv(f, label="label")
    assert ds.X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert ds.classes == ("no", "yes") and ds.y.tolist() == [1, -1, 1]
    g = tmp_path / "e.csv"
    g.write_text("1,2,-1\n3,4,1\n")
    assert mm.load(g).y.tolist() == [-1, 1]


def test_csv_separators_quotes_and_crlf(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("a\tb\ty\r\n1\t2\tx\r\n3\t4\tz\r\n")
    ds = mm.load(f)
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.classes == ("x", "z")
    g = tmp_path / "q.csv"
    g.write_text('1,2,"yes, really"\n3,4,no\n')
    assert mm.load(g).classes == ("no", "yes, really")


def test_csv_header_of_numbers_needs_header_true(tmp_path):
    # column names that are numbers cannot be told from data: header=True says so
    f = tmp_path / "n.csv"
    f.write_text("1,2,3\n0.5,1.5,1\n2.5,0.5,-1\n")
    with pytest.raises(DataError, match="exactly two values"):
        mm.load(f)
    assert mm.load(f, header=True).n == 2


def test_feature_names_from_csv_header_and_npz(tmp_path):
    f = tmp_path / "h.csv"
    f.write_text("height,label,,weight\n1,yes,5,2\n3,no,6,4\n")
    assert mm.load(f, label="label").feature_names == ("height", "column 3", "weight")
    g = tmp_path / "n.csv"
    g.write_text("1,2,1\n3,4,-1\n")
    assert mm.load(g).feature_names is None
    np.savez(
        tmp_path / "d.npz", X=np.eye(2), y=np.array([1, -1]), feature_names=np.array(["u", "v"])
    )
    assert mm.load(tmp_path / "d.npz").feature_names == ("u", "v")
    np.savez(tmp_path / "e.npz", X=np.eye(2), y=np.array([1, -1]), feature_names=np.array([1, 2]))
    with pytest.raises(DataError, match="'feature_names' must hold strings"):
        mm.load(tmp_path / "e.npz")
    assert mm.load("builtin:heart_scale").feature_names is None
