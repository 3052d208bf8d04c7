"""The comparison's document (docs/formats.md, ``maxmargin.comparison/2``): loader, CSV.

to_json -> from_json -> to_json gives the same text and a Comparison (runs without their
traces, references without their data); with the data, the references re-certify; the
tidy CSV / DataFrame exports, one row per run and checkpoint.
"""

import csv
import io
import math

import numpy as np
import pytest
from _formats import _same

import maxmargin as mm
from maxmargin import Comparison, DataError
from maxmargin.io.schema import series_fields

# --------------------------------------------------------------------------- comparisons


@pytest.fixture(scope="module")
def cmp(separable):
    holdout = mm.make_separable(10, 2, margin=0.3, seed=2)
    return mm.compare(
        separable,
        learners=["perceptron", "pegasos", "pa1"],
        lam=0.05,
        epochs=2,
        seeds=(0, 1),
        holdout=holdout,
    )


def test_comparison_round_trip(cmp, tmp_path):
    f = tmp_path / "c.json"
    cmp.to_json(f)
    saved = Comparison.from_json(f)
    assert type(saved) is Comparison and saved.holdout is None
    assert saved.holdout_name == cmp.holdout.name
    assert saved.to_json() == f.read_text() and saved.to_dict() == cmp.to_dict()
    p = saved.problem
    assert (saved.F_star, saved.R, saved.gamma, p.C, p.lam, saved.epochs) == (
        cmp.F_star,
        cmp.R,
        cmp.gamma,
        cmp.problem.C,
        cmp.problem.lam,
        cmp.epochs,
    )
    assert saved.seeds == cmp.seeds and saved.labels == cmp.labels and saved.separable
    assert np.array_equal(saved.w_star, cmp.w_star)
    for a, b in zip(saved.runs, cmp.runs, strict=True):
        assert (a.label, a.order, a.seed, a.kind) == (b.label, b.order, b.seed, b.kind)
        assert a.trace is None and a.divergence == b.divergence and a.params == b.params
        for name in series_fields(type(b)):
            assert _same(getattr(a, name), getattr(b, name)), (b.label, name)
        assert _same(a.rate, b.rate) and a.novikoff_respected == b.novikoff_respected
    assert len(saved.select(label="pegasos")) == 2
    for a, b in zip(saved.rows, cmp.rows, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == b[k] or (
                isinstance(b[k], float) and math.isnan(b[k]) and math.isnan(a[k])
            ), k


def test_comparison_solutions_recertify_from_the_data(cmp, separable):
    saved = Comparison.from_json(cmp.to_dict())
    with pytest.raises(DataError, match="without its data"):
        saved.problem.data  # noqa: B018
    again = Comparison.from_json(cmp.to_dict(), separable)
    assert again.reference.certificate.ok and again.hard_solution.certificate.ok
    assert again.problem.data is separable and again.select(label="pegasos")[0].subopt is not None
    ref = saved.reference.with_data(separable)
    assert ref.certificate.ok and np.array_equal(ref.alpha, cmp.reference.alpha)
    assert ref.primal_objective == cmp.reference.primal_objective
    hard = saved.hard_solution.with_data(separable)
    assert hard.problem.hard and hard.certificate.ok
    assert hard.margin == cmp.hard_solution.margin
    # the reference is a solution document: alpha by its non-zero entries only
    nz = cmp.to_dict()["references"][0]["solution"]["alpha"]
    assert nz["index"] == np.flatnonzero(cmp.reference.alpha).tolist()


def test_comparison_of_a_development_version_is_refused_with_one_line(cmp):
    old = {**cmp.to_dict(), "format": "maxmargin.comparison/1"}
    with pytest.raises(DataError, match="development version .* compute it again") as e:
        Comparison.from_json(old)
    assert "\n" not in str(e.value)


def test_comparison_csv_one_row_per_run_and_checkpoint(cmp):
    text = cmp.to_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(len(r.t) for r in cmp.runs)
    cols = list(rows[0])
    assert cols[:7] == ["label", "learner", "order", "seed", "intercept", "kind", "t"]
    i = 0
    for r in cmp.runs:
        for j, t in enumerate(r.t):
            row = rows[i]
            assert (row["label"], int(row["seed"]), int(row["t"])) == (r.label, r.seed, t)
            assert row["intercept"] == r.intercept == "free"
            assert int(row["mistakes"]) == r.mistakes[j]
            assert float(row["train_error"]) == r.train_error[j]
            assert float(row["test_error"]) == r.test_error[j]
            if r.subopt is None:
                assert row["subopt"] == ""  # N/A: the perceptron, PA-I
            else:
                assert float(row["subopt"]) == r.subopt[j]
            i += 1
    assert Comparison.from_json(cmp.to_dict()).to_csv() == text


def test_comparison_frame(cmp):
    pytest.importorskip("pandas")
    df = cmp.to_frame()
    assert len(df) == sum(len(r.t) for r in cmp.runs)
    peg = df[(df.label == "pegasos") & (df.seed == 1)]
    assert peg["subopt"].tolist() == cmp.select(label="pegasos", seed=1)[0].subopt.tolist()
    assert df[df.label == "perceptron"]["subopt"].isna().all()
    assert Comparison.from_json(cmp.to_dict()).to_frame().equals(df)


@pytest.fixture(scope="module")
def binary():
    """Features in {0, 1}, for Winnow (intercept none only); separable with a bias."""
    X = np.random.default_rng(4).integers(0, 2, size=(40, 5)).astype(float)
    return mm.Dataset(X, np.where(X[:, :3].sum(axis=1) >= 2, 1, -1))


def test_mixed_intercepts_round_trip_and_recertify_each_reference(binary):
    """One reference per intercept mode, written and read back, each re-certified."""
    separable = binary
    cmp = mm.compare(separable, learners=["pegasos", "winnow"], lam=0.05, epochs=2)
    doc = cmp.to_dict()
    assert [r["intercept"] for r in doc["references"]] == ["free", "none"]
    assert [r["intercept"] for r in doc["runs"]] == ["free", "none"]
    assert [row["scored_against"] for row in doc["summary"]] == [
        ref.scored_against for ref in cmp.references
    ]
    saved = Comparison.from_json(io.StringIO(cmp.to_json()))
    assert saved.to_json() == cmp.to_json() and saved.to_csv() == cmp.to_csv()
    assert [ref.intercept for ref in saved.references] == ["free", "none"]
    assert [r.intercept for r in saved.runs] == ["free", "none"]
    assert saved.rows[1]["scored_against"] == cmp.rows[1]["scored_against"]
    for ref in saved.references:
        with pytest.raises(DataError, match="without its data"):
            ref.problem.data  # noqa: B018
    again = saved.with_data(separable)
    for a, b in zip(again.references, cmp.references, strict=True):
        assert a.problem.data is separable and a.intercept == b.intercept
        assert a.solution.certificate.ok and (b.hard_solution is None) == (a.hard_solution is None)
        assert a.hard_solution is None or a.hard_solution.certificate.ok
        assert np.array_equal(a.solution.alpha, b.solution.alpha)
        assert (a.F_star, a.R, a.gamma) == (b.F_star, b.R, b.gamma)
    assert cmp.references[0].separable  # the free problem's hard margin re-certified above
    assert Comparison.from_json(cmp.to_dict(), separable).references[1].solution.certificate.ok
