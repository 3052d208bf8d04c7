"""Dataset: validation, label mapping, subsets and splits, feature names, scale_rows."""

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import DataError
from maxmargin.data import map_labels


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
    y, classes = map_labels(np.array([3, 7, 7, 3]))
    assert y.tolist() == [-1, 1, 1, -1] and classes == (3, 7)
    y, classes = map_labels(["a", "b"], positive="a")
    assert y.tolist() == [1, -1] and classes == ("b", "a")
    with pytest.raises(DataError, match="exactly two"):
        map_labels([1, 2, 3])


def test_sparse_and_dense_agree():
    X = np.array([[0.0, 2.0], [3.0, 0.0], [1.0, 1.0]])
    a = mm.Dataset(X, [1, -1, 1])
    b = mm.Dataset(sp.csr_matrix(X), [1, -1, 1])
    assert np.allclose(a.row_norms(), b.row_norms()) and a.R == b.R == 3.0


def test_split_is_stratified_and_disjoint():
    ds = mm.make_gaussians(100, 2, seed=0)
    tr, te = ds.split(0.2, seed=1)
    assert tr.n + te.n == 100 and set(np.unique(te.y)) == {-1.0, 1.0}


def test_split_takes_random_state_through_the_conventions():
    ds = mm.make_gaussians(100, 2, seed=0)
    tr, _ = ds.split(0.2, seed=3)
    assert np.array_equal(ds.split(0.2, random_state=3)[0].X, tr.X)
    assert np.array_equal(ds.split(0.2, seed=3, random_state=3)[0].X, tr.X)
    with pytest.raises(mm.ParameterError, match="seed=0 and random_state=3 disagree"):
        ds.split(0.2, seed=0, random_state=3)  # an explicit seed, though the default's


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


def test_feature_names_from_dataframes_and_kept_by_subset_and_split():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": [1.0, 2, 3, 4, 5, 6, 7, 8], "dose": [0.0, 1, 0, 1, 0, 1, 0, 1]})
    y = pd.Series([1, -1, 1, -1, 1, -1, 1, -1])
    ds = mm.Dataset(df, y)
    assert ds.feature_names == ("age", "dose") and np.array_equal(ds.X, df.to_numpy())
    assert mm.Dataset.from_labels(df, y.map({1: "a", -1: "b"})).feature_names == ("age", "dose")
    assert ds.subset([0, 1]).feature_names == ("age", "dose")
    assert all(part.feature_names == ("age", "dose") for part in ds.split(0.25))
    # scikit-learn's rule: names only when every column name is a string
    assert mm.Dataset(pd.DataFrame(np.eye(2)), [1, -1]).feature_names is None
    assert mm.Dataset(df.to_numpy(), y).feature_names is None
    # an explicit list wins over the DataFrame's
    assert mm.Dataset(df, y, feature_names=["a", "b"]).feature_names == ("a", "b")


@pytest.mark.parametrize(
    "names, msg",
    [
        (["a"], "1 feature names for 2 features"),
        (["a", 1], "must be strings"),
        ("ab", "sequence of 2 strings"),
    ],
)
def test_bad_feature_names(names, msg):
    with pytest.raises(DataError, match=msg):
        mm.Dataset([[0.0, 1.0], [1.0, 0.0]], [1, -1], feature_names=names)


@pytest.mark.parametrize("scale", [1.0, 1e-120, 1e120])
def test_solution_json_lists_feature_names_beside_w(scale):
    # the rescaled routes (extreme scales) must keep the names too
    ds = mm.Dataset(
        [[2.0 * scale, 0.0], [-2.0 * scale, 1.0 * scale]], [1, -1], feature_names=["left", "right"]
    )
    d = mm.solve(mm.SVMProblem(ds, C=1.0)).to_dict()
    assert d["feature_names"] == ["left", "right"] and len(d["w"]) == 2
    assert (
        mm.solve(mm.SVMProblem(mm.Dataset([[1.0], [-1.0]], [1, -1]), C=1.0)).to_dict()[
            "feature_names"
        ]
        is None
    )
