"""Dataset validation, loaders and generators."""

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import DataError


def test_heart_scale_loads_as_documented():
    ds = mm.load_heart_scale()
    assert (ds.n, ds.d) == (270, 13)
    assert ds.is_sparse
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert int((ds.y > 0).sum()) == 120
    # first line of the file: "+1 1:0.708333 2:1 3:1 4:-0.320755 ... 11 missing ... 13:-1"
    row = ds.X[0].toarray().ravel()
    assert row[0] == pytest.approx(0.708333) and row[10] == 0.0 and row[12] == -1.0


def test_libsvm_comments_blank_lines_and_mapping(tmp_path):
    f = tmp_path / "d.svm"
    f.write_text("# header comment\n2 1:1.5 3:-2 # trailing\n\n1 2:0.5\n")
    ds = mm.load_libsvm(f)
    assert ds.X.toarray().tolist() == [[1.5, 0, -2], [0, 0.5, 0]]
    assert ds.y.tolist() == [1.0, -1.0] and ds.classes == (1.0, 2.0)


@pytest.mark.parametrize(
    "line, msg",
    [("1 a:1", "malformed"), ("1 0:1", "1-based"), ("1 2:1 1:1", "increase"),
     ("x 1:1", "not a number"), ("1 1:nan", "NaN")],
)
def test_libsvm_malformed_line_names_file_and_line(tmp_path, line, msg):
    f = tmp_path / "bad.svm"
    f.write_text(f"-1 1:1\n{line}\n")
    with pytest.raises(DataError, match=rf"bad\.svm:2: .*{msg}"):
        mm.load_libsvm(f)


def test_csv_label_by_name_or_last(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,label,b\n1,yes,2\n3,no,4\n5,yes,6\n")
    ds = mm.load_csv(f, label="label")
    assert ds.X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert ds.classes == ("no", "yes") and ds.y.tolist() == [1, -1, 1]
    g = tmp_path / "e.csv"
    g.write_text("1,2,-1\n3,4,1\n")
    assert mm.load(g).y.tolist() == [-1, 1]


def test_npz_roundtrip(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    np.savez(tmp_path / "d.npz", X=X, y=np.array([0, 1, 0]))
    ds = mm.load(tmp_path / "d.npz")
    assert np.array_equal(ds.X, X) and ds.y.tolist() == [-1, 1, -1]
    np.savez(tmp_path / "bad.npz", A=X)
    with pytest.raises(DataError, match="'X' and 'y'"):
        mm.load(tmp_path / "bad.npz")


def test_load_missing_file():
    with pytest.raises(DataError, match="no such file"):
        mm.load("/nonexistent/file.svm")


@pytest.mark.parametrize(
    "X, y, msg",
    [
        ([[1.0], [2.0]], [0, 1], r"must be -1 or \+1.*map_labels"),
        ([[1.0], [2.0], [3.0]], [1, 2, 3], "must be -1 or"),
        ([[1.0], [2.0]], [1, 1], "only one class"),
        ([[1.0], [np.nan]], [1, -1], "NaN or infinite"),
        ([[1.0], [np.inf]], [1, -1], "NaN or infinite"),
        (np.zeros((0, 2)), [], "empty"),
        ([[1.0], [2.0]], [1, -1, 1], "2 rows but y has 3"),
        ([1.0, 2.0], [1, -1], "2-D"),
        ([["a"], ["b"]], [1, -1], "not numeric"),
    ],
)
def test_bad_data_is_a_clear_error(X, y, msg):
    with pytest.raises(DataError, match=msg):
        mm.Dataset(X, y)


def test_map_labels_any_two_values():
    y, classes = mm.map_labels(np.array([3, 7, 7, 3]))
    assert y.tolist() == [-1, 1, 1, -1] and classes == (3, 7)
    y, classes = mm.map_labels(["a", "b"], positive="a")
    assert y.tolist() == [1, -1] and classes == ("b", "a")
    with pytest.raises(DataError, match="exactly two"):
        mm.map_labels([1, 2, 3])


def test_sparse_and_dense_agree():
    X = np.array([[0.0, 2.0], [3.0, 0.0], [1.0, 1.0]])
    a = mm.Dataset(X, [1, -1, 1])
    b = mm.Dataset(sp.csr_matrix(X), [1, -1, 1])
    assert np.allclose(a.row_norms(), b.row_norms()) and a.R == b.R == 3.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("d", [1, 2, 5])
def test_make_separable_margin_is_exact_geometry(seed, d):
    ds = mm.make_separable(40, d, margin=0.3, seed=seed, offset=0.7)
    w, b = ds.meta["w"], ds.meta["b"]
    yf = ds.y * (ds.X @ w + b)
    # every point on or outside the margin, and the pair at distance exactly 2*gamma
    assert yf.min() == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(ds.X[0] - ds.X[1]) == pytest.approx(2 * 0.3, abs=1e-12)
    assert 1 / np.linalg.norm(w) == pytest.approx(0.3)


def test_generators_are_seeded():
    a, b = mm.make_gaussians(30, 3, seed=5), mm.make_gaussians(30, 3, seed=5)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, mm.make_gaussians(30, 3, seed=6).X)


def test_split_is_stratified_and_disjoint():
    ds = mm.make_gaussians(100, 2, seed=0)
    tr, te = ds.split(0.2, seed=1)
    assert tr.n + te.n == 100 and set(np.unique(te.y)) == {-1.0, 1.0}


def test_one_class_allowed_only_when_asked():
    with pytest.raises(DataError, match="only one class"):
        mm.Dataset([[1.0], [2.0]], [1, 1])
    ds = mm.Dataset([[1.0], [2.0]], [1, 1], require_both_classes=False)
    assert ds.y.tolist() == [1.0, 1.0]
    with pytest.raises(DataError, match=r"must be -1 or \+1"):  # other checks still apply
        mm.Dataset([[1.0]], [0], require_both_classes=False)


def test_scale_rows_is_the_signed_product_in_o_nnz():
    rng = np.random.default_rng(0)
    X = sp.random(30, 50, density=0.2, format="csr", random_state=1)
    v = rng.choice([-1.0, 1.0], 30) * rng.uniform(0.5, 2, 30)
    got = mm.data.scale_rows(X, v)
    assert isinstance(got, sp.csr_matrix)
    assert np.array_equal(got.toarray(), np.diag(v) @ X.toarray())
    assert not np.shares_memory(got.indices, X.indices)  # X is left alone


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


def test_positive_picks_the_plus_one_label(tmp_path):
    f = tmp_path / "d.svm"
    f.write_text("0 1:1\n1 1:2\n0 1:3\n")
    assert mm.load(f).y.tolist() == [-1, 1, -1]
    assert mm.load(f, positive=0).y.tolist() == [1, -1, 1]
    assert mm.load(f, positive="0").y.tolist() == [1, -1, 1]  # as typed on a command line
