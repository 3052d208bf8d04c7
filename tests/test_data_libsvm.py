"""LIBSVM / svmlight files: the format, its errors, and scikit-learn's files and reader."""

import numpy as np
import pytest
from _data import _compress, _memory

import maxmargin as mm
from maxmargin import DataError
from maxmargin.data import load_libsvm


def test_libsvm_comments_blank_lines_and_mapping(tmp_path):
    f = tmp_path / "d.svm"
    f.write_text("# header comment\n2 1:1.5 3:-2 # trailing\n\n1 2:0.5\n")
    ds = load_libsvm(f)
    assert ds.X.toarray().tolist() == [[1.5, 0, -2], [0, 0.5, 0]]
    assert ds.y.tolist() == [1.0, -1.0] and ds.classes == (1.0, 2.0)


@pytest.mark.parametrize(
    "line, msg",
    [
        ("1 a:1", "malformed"),
        ("1 -1:1", "negative"),
        ("1 2:1 1:1", "increase"),
        ("x 1:1", "not a number"),
        ("1 1:nan", "NaN"),
    ],
)
def test_libsvm_malformed_line_names_file_and_line(tmp_path, line, msg):
    f = tmp_path / "bad.svm"
    f.write_text(f"-1 1:1\n{line}\n")
    with pytest.raises(DataError, match=rf"bad\.svm:2: .*{msg}"):
        load_libsvm(f)


def _sklearn_datasets():
    """scikit-learn is optional: only the tests against its reader need it."""
    return pytest.importorskip("sklearn.datasets")


def _sparse_example() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 5)) * (rng.random((12, 5)) < 0.5)
    X[0, 0] = 1.5  # column 0 used, so a 0-based file has an index 0
    return X, np.where(rng.random(12) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("zero_based", [True, False])
def test_files_written_by_dump_svmlight_file_load_as_written(tmp_path, zero_based):
    sk_datasets = _sklearn_datasets()
    X, y = _sparse_example()
    f = tmp_path / "sk.svm"
    sk_datasets.dump_svmlight_file(X, y, str(f), zero_based=zero_based)
    ds = mm.load(f)
    # dump_svmlight_file writes 16 significant digits: X to rounding, every zero in place
    np.testing.assert_allclose(ds.X.toarray(), X, rtol=1e-15, atol=0)
    assert np.array_equal(ds.y, y) and ds.meta["zero_based"] is zero_based
    # and scikit-learn's own reader, with its "auto", reads the same numbers
    X_sk, y_sk = sk_datasets.load_svmlight_file(str(f), zero_based="auto")
    assert np.array_equal(ds.X.toarray(), X_sk.toarray()) and np.array_equal(ds.y, y_sk)


def test_zero_based_auto_is_scikit_learns_rule_and_explicit_wins(tmp_path):
    sk_datasets = _sklearn_datasets()
    # a 0-based file whose column 0 is empty cannot be told from a 1-based one: "auto"
    # reads it 1-based, as scikit-learn does; zero_based=True reads it as written
    X, y = _sparse_example()
    X[:, 0] = 0.0
    f = tmp_path / "sk.svm"
    sk_datasets.dump_svmlight_file(X, y, str(f), zero_based=True)
    auto = load_libsvm(f)
    X_sk, _ = sk_datasets.load_svmlight_file(str(f), zero_based="auto")
    assert np.array_equal(auto.X.toarray(), X_sk.toarray()) and auto.d == 4
    np.testing.assert_allclose(mm.load(f, zero_based=True).X.toarray(), X, rtol=1e-15)
    with pytest.raises(DataError, match=r"zero\.svm:1: feature index 0 < 1 .*1-based"):
        g = tmp_path / "zero.svm"
        g.write_text("1 0:1 2:1\n-1 1:1\n")
        load_libsvm(g, zero_based=False)
    with pytest.raises(mm.ParameterError, match="'zero_based'"):
        load_libsvm(f, zero_based="yes")
    csv_file = tmp_path / "d.csv"
    csv_file.write_text("1,2,1\n3,4,-1\n")
    with pytest.raises(mm.ParameterError, match=r"--index-base.*CSV"):
        mm.load(csv_file, zero_based=True)


def test_qid_is_ignored_with_one_warning(tmp_path):
    f = tmp_path / "rank.svm"
    f.write_text("1 qid:1 1:0.5 2:1\n-1 qid:1 2:2\n1 qid:2 1:1\n")
    g = tmp_path / "plain.svm"
    g.write_text("1 1:0.5 2:1\n-1 2:2\n1 1:1\n")
    with pytest.warns(UserWarning, match=r"rank\.svm: qid ignored \(3 rows") as record:
        ds = mm.load(f)
    assert len(record) == 1 and "\n" not in str(record[0].message)
    assert np.array_equal(ds.X.toarray(), mm.load(g).X.toarray())


@pytest.mark.parametrize("zero_based", [True, False])
def test_libsvm_reads_what_scikit_learn_reads_at_every_scale(tmp_path, zero_based):
    sk_datasets = _sklearn_datasets()
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=25, deadline=None)
    @given(seed=st.integers(0, 2**31 - 1), exponent=st.integers(-150, 150), gz=st.booleans())
    def check(seed, exponent, gz):
        rng = np.random.default_rng(seed)
        n, d = int(rng.integers(2, 8)), int(rng.integers(1, 6))
        X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6) * 10.0**exponent
        y = np.r_[-1.0, 1.0, np.where(rng.random(n - 2) < 0.5, -1.0, 1.0)]
        f = tmp_path / "p.svm"
        sk_datasets.dump_svmlight_file(X, y, str(f), zero_based=zero_based)
        if gz:  # scikit-learn tells gzip by the suffix only
            f = f.rename(tmp_path / "p.svm.gz")
            f.write_bytes(_compress("gz", f.read_bytes()))
        ds = load_libsvm(f)
        X_sk, y_sk = sk_datasets.load_svmlight_file(str(f), zero_based="auto")
        assert ds.X.shape[0] == n and np.array_equal(ds.y, y_sk)
        # the same numbers in the same places (scikit-learn's d is the largest index read)
        assert np.array_equal(ds.X.toarray()[:, : X_sk.shape[1]], X_sk.toarray())
        assert ds.X[:, X_sk.shape[1] :].nnz == 0
        if (X[:, 0] != 0).any() or not zero_based:  # else "auto" cannot tell (see above)
            np.testing.assert_allclose(ds.X.toarray(), X[:, : ds.d], rtol=1e-15, atol=0)
            assert not X[:, ds.d :].any()

    check()


def test_a_plain_file_too_large_is_refused_from_its_first_chunk(tmp_path, monkeypatch):
    from maxmargin.data import _text as _textdata
    from maxmargin.data import libsvm as _libsvm

    monkeypatch.setattr(_textdata, "CHUNK", 1 << 14)
    f = tmp_path / "big.svm"
    f.write_bytes(b"+1 1:1 2:1\n-1 2:1 3:1\n" * 40_000)  # 880 KB
    seen = []
    parse = _libsvm._Libsvm.line

    def counting(self, raw, lineno):
        seen.append(lineno)
        return parse(self, raw, lineno)

    monkeypatch.setattr(_libsvm._Libsvm, "line", counting)
    _memory(monkeypatch, 1 << 20)
    with pytest.raises(DataError, match=r"big\.svm: the data do not fit in memory: its 859 KiB"):
        mm.load(f)
    assert len(seen) < 2_000  # refused after the first chunk of 16 KiB (1,500 lines)
    _memory(monkeypatch, None)  # memory unknown: read
    assert mm.load(f).n == 80_000
