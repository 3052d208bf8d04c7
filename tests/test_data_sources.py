"""load, the front door (by suffix, compression, standard input, builtin:NAME); bounded memory."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _data import _compress, _memory

import maxmargin as mm
from maxmargin import DataError
from maxmargin.data import load_libsvm, load_npz


def test_heart_scale_loads_as_documented():
    ds = mm.load("builtin:heart_scale")
    assert (ds.n, ds.d) == (270, 13)
    assert ds.is_sparse
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert int((ds.y > 0).sum()) == 120
    # first line of the file: "+1 1:0.708333 2:1 3:1 4:-0.320755 ... 11 missing ... 13:-1"
    row = ds.X[0].toarray().ravel()
    assert row[0] == pytest.approx(0.708333) and row[10] == 0.0 and row[12] == -1.0


def test_load_missing_file():
    with pytest.raises(DataError, match="no such file"):
        mm.load("/nonexistent/file.svm")


def test_positive_picks_the_plus_one_label(tmp_path):
    f = tmp_path / "d.svm"
    f.write_text("0 1:1\n1 1:2\n0 1:3\n")
    assert mm.load(f).y.tolist() == [-1, 1, -1]
    assert mm.load(f, positive=0).y.tolist() == [1, -1, 1]
    assert mm.load(f, positive="0").y.tolist() == [1, -1, 1]  # as typed on a command line


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
    assert load_libsvm("-").X.toarray().tolist() == [[1, 2], [0, 1]]  # 0-based


def test_stdin_refused_when_a_terminal_or_empty(monkeypatch):
    monkeypatch.setattr("sys.stdin", _Stdin(b"", tty=True))
    with pytest.raises(DataError, match="stdin is a terminal; pipe the data in"):
        mm.load("-")
    monkeypatch.setattr("sys.stdin", _Stdin(b"\n\n"))
    with pytest.raises(DataError, match="<stdin>: empty"):
        mm.load("-")
    with pytest.raises(DataError, match="cannot be read from standard input"):
        load_npz("-")


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
    assert mm.data.sources.sniff_format(text) == fmt


def _members(how: str, text: bytes, count: int) -> bytes:
    """``count`` gzip members (bzip2 streams) of ``text``: small, inflating ``count`` fold."""
    return _compress(how, text) * count


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 64 KiB, so that a test sees many without megabytes of text."""
    from maxmargin.data import _text as _textdata

    monkeypatch.setattr(_textdata, "CHUNK", 1 << 16)


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
