"""Dataset validation, loaders and generators."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import maxmargin as mm
from maxmargin import DataError


def test_heart_scale_loads_as_documented():
    ds = mm.load("builtin:heart_scale")
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


# --------------------------------------------------------------------------- loaders
# Files written by scikit-learn, compressed files, qid, standard input.


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
    auto = mm.load_libsvm(f)
    X_sk, _ = sk_datasets.load_svmlight_file(str(f), zero_based="auto")
    assert np.array_equal(auto.X.toarray(), X_sk.toarray()) and auto.d == 4
    np.testing.assert_allclose(mm.load(f, zero_based=True).X.toarray(), X, rtol=1e-15)
    with pytest.raises(DataError, match=r"zero\.svm:1: feature index 0 < 1 .*1-based"):
        g = tmp_path / "zero.svm"
        g.write_text("1 0:1 2:1\n-1 1:1\n")
        mm.load_libsvm(g, zero_based=False)
    with pytest.raises(mm.ParameterError, match="'zero_based'"):
        mm.load_libsvm(f, zero_based="yes")
    csv_file = tmp_path / "d.csv"
    csv_file.write_text("1,2,1\n3,4,-1\n")
    with pytest.raises(mm.ParameterError, match=r"--index-base.*CSV"):
        mm.load(csv_file, zero_based=True)


def _compress(how: str, data: bytes) -> bytes:
    import bz2
    import gzip

    return gzip.compress(data) if how == "gz" else bz2.compress(data)


@pytest.mark.parametrize("how", ["gz", "bz2"])
def test_compressed_files_by_magic_bytes_and_suffix(tmp_path, how):
    svm = b"+1 1:0.5 3:1\n-1 2:2 # a comment\n"
    csv_text = b"a,b,y\n1,2,yes\n3,4,no\n"
    plain_svm = tmp_path / "p.svm"
    plain_svm.write_bytes(svm)
    for name in (f"d.svm.{how}", "d.svm"):  # the suffix says so, or only the bytes do
        f = tmp_path / "c" / name
        f.parent.mkdir(exist_ok=True)
        f.write_bytes(_compress(how, svm))
        ds = mm.load(f)
        assert np.array_equal(ds.X.toarray(), mm.load(plain_svm).X.toarray())
    f = tmp_path / f"d.csv.{how}"
    f.write_bytes(_compress(how, csv_text))
    ds = mm.load(f)  # .csv under the compression suffix: read as CSV
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.feature_names == ("a", "b")
    damaged = tmp_path / f"bad.svm.{how}"
    damaged.write_bytes(_compress(how, svm * 50)[:40])
    with pytest.raises(DataError, match=rf"bad\.svm\.{how}: a damaged or truncated"):
        mm.load(damaged)


def test_text_starting_like_a_bzip2_header_is_text(tmp_path):
    f = tmp_path / "b.csv"
    f.write_text("BZh,x,y\n1,2,1\n3,4,-1\n")
    assert mm.load(f).feature_names == ("BZh", "x")


def test_qid_is_ignored_with_one_warning(tmp_path):
    f = tmp_path / "rank.svm"
    f.write_text("1 qid:1 1:0.5 2:1\n-1 qid:1 2:2\n1 qid:2 1:1\n")
    g = tmp_path / "plain.svm"
    g.write_text("1 1:0.5 2:1\n-1 2:2\n1 1:1\n")
    with pytest.warns(UserWarning, match=r"rank\.svm: qid ignored \(3 rows") as record:
        ds = mm.load(f)
    assert len(record) == 1 and "\n" not in str(record[0].message)
    assert np.array_equal(ds.X.toarray(), mm.load(g).X.toarray())


class _Stdin:
    """A piped standard input holding ``data``."""

    def __init__(self, data: bytes, tty: bool = False) -> None:
        import io

        self.buffer = io.BytesIO(data)
        self._tty = tty
        self.closed = False

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize("compress", [False, True])
def test_stdin_libsvm_or_csv_told_by_content(monkeypatch, compress):
    svm = b"# comment\n+1 1:0.5 3:1\n-1 qid:3 2:2\n"
    csv_text = b"a;b;label\n1;2;yes\n3;4;no\n"
    wrap = (lambda b: _compress("gz", b)) if compress else (lambda b: b)
    monkeypatch.setattr("sys.stdin", _Stdin(wrap(svm)))
    with pytest.warns(UserWarning, match="<stdin>: qid ignored"):
        ds = mm.load("-")
    assert ds.X.toarray().tolist() == [[0.5, 0, 1], [0, 2, 0]] and ds.name == "stdin"
    monkeypatch.setattr("sys.stdin", _Stdin(wrap(csv_text)))
    ds = mm.load("-", label="label")
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.feature_names == ("a", "b")
    monkeypatch.setattr("sys.stdin", _Stdin(wrap(b"1 0:1 1:2\n-1 1:1\n")))
    assert mm.load_libsvm("-").X.toarray().tolist() == [[1, 2], [0, 1]]  # 0-based


def test_stdin_refused_when_a_terminal_or_empty(monkeypatch):
    monkeypatch.setattr("sys.stdin", _Stdin(b"", tty=True))
    with pytest.raises(DataError, match="stdin is a terminal; pipe the data in"):
        mm.load("-")
    monkeypatch.setattr("sys.stdin", _Stdin(b"\n\n"))
    with pytest.raises(DataError, match="<stdin>: empty"):
        mm.load("-")
    with pytest.raises(DataError, match="cannot be read from standard input"):
        mm.load_npz("-")


@pytest.mark.parametrize(
    "text, fmt",
    [
        ("1 1:2 3:4\n-1\n", "libsvm"),
        ("-1 qid:2 4:1\n", "libsvm"),
        ("1,2,3\n", "csv"),
        ("a\tb\ty\n1\t2\t1\n", "csv"),
        ("x:1,y\n1,1\n", "csv"),
        ("1 2 3\n", "csv"),
        ("# only a comment\n", "csv"),
    ],
)
def test_sniff_format(text, fmt):
    assert mm.data._sniff_format(text) == fmt


# --------------------------------------------------------------------------- feature names


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
        ds = mm.load_libsvm(f)
        X_sk, y_sk = sk_datasets.load_svmlight_file(str(f), zero_based="auto")
        assert ds.X.shape[0] == n and np.array_equal(ds.y, y_sk)
        # the same numbers in the same places (scikit-learn's d is the largest index read)
        assert np.array_equal(ds.X.toarray()[:, : X_sk.shape[1]], X_sk.toarray())
        assert ds.X[:, X_sk.shape[1] :].nnz == 0
        if (X[:, 0] != 0).any() or not zero_based:  # else "auto" cannot tell (see above)
            np.testing.assert_allclose(ds.X.toarray(), X[:, : ds.d], rtol=1e-15, atol=0)
            assert not X[:, ds.d :].any()

    check()


# --------------------------------------------------------------------------- bounded memory


def _members(how: str, text: bytes, count: int) -> bytes:
    """``count`` gzip members (bzip2 streams) of ``text``: small, inflating ``count`` fold."""
    return _compress(how, text) * count


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 64 KiB, so that a test sees many without megabytes of text."""
    from maxmargin.data import _text as _textdata

    monkeypatch.setattr(_textdata, "CHUNK", 1 << 16)


def _memory(monkeypatch, nbytes):
    from maxmargin import _validation

    monkeypatch.setattr(_validation, "available_memory", lambda: nbytes)


@pytest.mark.parametrize("how", ["gz", "bz2"])
def test_a_compression_bomb_is_refused_as_it_inflates(tmp_path, monkeypatch, small_chunks, how):
    import tracemalloc

    # 2,000 members of 140 KB of text: ~0.5 MB that inflate to 280 MB (2 million rows per
    # 140 MB); the old reader held the whole text, its lines and a Python float per number
    f = tmp_path / f"bomb.svm.{how}"
    f.write_bytes(_members(how, b"+1 1:1\n-1 2:1\n" * 10_000, 2_000))
    _memory(monkeypatch, 4 << 20)  # 4 MiB "available"
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match="do not fit in memory") as e:
            mm.load(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = str(e.value)
    assert f"decompressed from {'gzip' if how == 'gz' else 'bzip2'}" in msg
    assert "more text follows" in msg and "80% of 4 MiB available" in msg
    assert "\n" not in msg
    assert peak < 24 << 20  # a few chunks' worth, not the 280 MB


def test_many_gzip_members_and_bzip2_streams_read_whole(tmp_path):
    text = b"+1 1:0.5 3:1\n-1 2:2\n"
    for how in ("gz", "bz2"):
        f = tmp_path / f"m.svm.{how}"
        f.write_bytes(_members(how, text, 3))
        ds = mm.load(f)
        assert ds.n == 6 and ds.X.toarray().tolist() == [[0.5, 0, 1], [0, 2, 0]] * 3


def test_a_plain_file_too_large_is_refused_from_its_first_chunk(tmp_path, monkeypatch):
    from maxmargin.data import _text as _textdata

    monkeypatch.setattr(_textdata, "CHUNK", 1 << 14)
    f = tmp_path / "big.svm"
    f.write_bytes(b"+1 1:1 2:1\n-1 2:1 3:1\n" * 40_000)  # 880 KB
    seen = []
    parse = _textdata._Libsvm.line

    def counting(self, raw, lineno):
        seen.append(lineno)
        return parse(self, raw, lineno)

    monkeypatch.setattr(_textdata._Libsvm, "line", counting)
    _memory(monkeypatch, 1 << 20)
    with pytest.raises(DataError, match=r"big\.svm: the data do not fit in memory: its 859 KiB"):
        mm.load(f)
    assert len(seen) < 2_000  # refused after the first chunk of 16 KiB (1,500 lines)
    _memory(monkeypatch, None)  # memory unknown: read
    assert mm.load(f).n == 80_000


@pytest.mark.parametrize("kind", ["svm", "csv"])
def test_reader_memory_is_proportional_to_the_data(tmp_path, small_chunks, kind):
    import tracemalloc

    rng = np.random.default_rng(0)
    f = tmp_path / f"d.{kind}"
    if kind == "svm":
        lines = [
            f"{'+1' if i % 2 else '-1'} "
            + " ".join(f"{j}:{rng.random():.3f}" for j in sorted(rng.choice(50, 3, False) + 1))
            for i in range(25_000)
        ]
    else:
        lines = [
            ",".join(f"{v:.3f}" for v in rng.random(5)) + (",yes" if i % 2 else ",no")
            for i in range(25_000)
        ]
    f.write_text("\n".join(lines) + "\n")
    tracemalloc.start()
    try:
        ds = mm.load(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    X = ds.X
    held = ds.y.nbytes + (
        X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes
    )
    # the buffers, copied once while they grow or become a matrix (the old reader: 6 to
    # 14 times, its lines and a Python float per number all alive at once)
    assert peak < 2.5 * held, (peak, held)


def _load_or_error(f, **kw):
    try:
        ds = mm.load(f, **kw)
    except DataError as e:
        return str(e)
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    return X.tolist(), ds.y.tolist(), ds.classes, ds.feature_names


def test_chunk_boundaries_change_nothing(tmp_path, monkeypatch):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from maxmargin.data import _text as _textdata

    line = st.one_of(
        st.sampled_from(["+1 1:0.5 3:1", "-1 2:2", "1 4:1e-3 # note", "", "  ", "-1 1:x"]),
        st.sampled_from(["+1 0:1", "-1 3:1 2:1", "1 qid:4 2:5", "é 1:1"]),
    )
    csv_line = st.sampled_from(["1,2,yes", "3.5,-4,no", "", "a,b,y", "1,x,yes", "1,2,3,no"])

    @settings(max_examples=60, deadline=None)
    @given(
        lines=st.lists(line, min_size=1, max_size=12),
        rows=st.lists(csv_line, min_size=1, max_size=12),
        eol=st.sampled_from(["\n", "\r\n", "\r"]),
        bom=st.booleans(),
        how=st.sampled_from([None, "gz", "bz2"]),
        chunk=st.integers(1, 40),
    )
    def check(lines, rows, eol, bom, how, chunk):
        for name, body in (("d.svm", lines), ("d.csv", rows)):
            raw = (b"\xef\xbb\xbf" if bom else b"") + eol.join(body).encode()
            f = tmp_path / name
            f.write_bytes(raw if how is None else _compress(how, raw))
            with monkeypatch.context() as m:
                m.setattr(_textdata, "CHUNK", 1 << 22)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    whole = _load_or_error(f)
                m.setattr(_textdata, "CHUNK", chunk)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    assert _load_or_error(f) == whole

    check()


def test_a_bad_byte_is_placed_in_the_whole_text(tmp_path, small_chunks):
    f = tmp_path / "latin.csv"
    f.write_bytes(b"1,2,1\n-1,3,4\n" * 20_000 + b"1,caf\xe9,1\n")
    with pytest.raises(DataError, match=r"byte 0xe9 at offset 260005\)"):
        mm.load(f)


def test_an_npz_too_large_is_refused_from_its_headers(tmp_path, monkeypatch):
    np.savez_compressed(tmp_path / "z.npz", X=np.zeros((500, 1000)), y=np.ones(500))
    _memory(monkeypatch, 4 << 20)  # the zeros compress to kilobytes, inflate to 4 MB
    with pytest.raises(DataError, match=r"z\.npz \(arrays X \(500, 1000\) and y \(500,\)\) needs"):
        mm.load(tmp_path / "z.npz")


def test_weights_past_n_are_counted_not_kept(tmp_path):
    f = tmp_path / "w.txt"
    f.write_text("1\n" * 5)
    with pytest.raises(DataError, match="has 5 weights, but the data have 3 examples"):
        mm.data.load_weights(f, n=3)
    assert mm.data.load_weights(f).tolist() == [1.0] * 5
