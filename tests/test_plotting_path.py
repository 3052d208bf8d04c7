"""maxmargin.plotting.path: what the grid and exact path figures draw.

Each figure is checked against the numbers of the path it draws, so a figure that draws
the wrong thing fails.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from _figures import _line

import maxmargin as mm
from maxmargin.plotting import path as path_plots


def test_path_figures_draw_the_path_arrays(grid_path):
    p = grid_path
    ax = path_plots.plot_width(p)
    x, y = _line(ax, "width $2/\\|w(C)\\|$").get_data()
    np.testing.assert_array_equal(x, p.C)
    np.testing.assert_array_equal(y, p.width)
    hard = p.hard_margin_limit
    assert set(_line(ax, "hard-margin width $2/\\|w^\\star\\|$").get_ydata()) == {
        2.0 / np.linalg.norm(hard.w)
    }
    cstar = _line(ax, f"$C^\\star$ = {hard.C_star:.3g} (= hard margin above)")
    assert set(cstar.get_xdata()) == {hard.C_star}
    ax = path_plots.plot_support_vectors(p)
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), p.n_margin_sv)
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), p.n_bound_sv)
    assert ax.get_xscale() == "log"
    ax = path_plots.plot_errors(p)
    np.testing.assert_array_equal(_line(ax, "training error").get_ydata(), p.train_error)
    ax = path_plots.plot_coefficients(p)
    for j in range(p.d):
        np.testing.assert_array_equal(_line(ax, f"w[{j}]").get_ydata(), p.w[:, j])
    np.testing.assert_array_equal(_line(ax, "intercept $b$").get_ydata(), p.b)
    ax = path_plots.plot_objective(p)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), p.primal, rtol=1e-9)
    ax = path_plots.plot_tradeoff(p)
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(x, p.norm_reg**2)
    np.testing.assert_array_equal(y, p.slack_sum)


def test_coefficients_have_distinct_colours_and_their_names_at_the_line_ends(heart):
    features = [f"feature {j}" for j in range(heart.d)]
    names = [f"w[{name}]" for name in features]
    data = mm.Dataset(heart.X, heart.y, feature_names=features, name="heart")
    p = mm.regularization_path(data, C="1e-2:1e1:4")
    ax = path_plots.plot_coefficients(p)  # the path keeps its data's names
    assert {t.get_text() for t in ax.texts} == set(names)
    unnamed = mm.regularization_path(heart, C="1e-2:1e1:4")
    ax = path_plots.plot_coefficients(unnamed)  # none: w[j], 0-based
    assert {t.get_text() for t in ax.texts} == {f"w[{j}]" for j in range(p.d)}
    ax = path_plots.plot_coefficients(unnamed, feature_names=features)
    drawn = [ln for ln in ax.lines if ln.get_label() in names]
    assert len(drawn) == heart.d == 13
    assert len({ln.get_color() for ln in drawn}) == 13  # no colour repeats
    labels = {t.get_text(): t for t in ax.texts}
    assert set(labels) == set(names)
    for ln in drawn:  # each name sits at its line's right end, in its colour
        text = labels[ln.get_label()]
        assert text.xy == (p.C[-1], ln.get_ydata()[-1])
        assert text.get_color() == ln.get_color()
    ax.figure.canvas.draw()  # the names do not overlap one another
    from matplotlib.text import Text

    boxes = sorted((Text.get_window_extent(t) for t in ax.texts), key=lambda b: b.y0)
    assert all(a.y1 <= b.y0 + 0.5 for a, b in zip(boxes, boxes[1:], strict=False))
    few = path_plots.plot_coefficients(p, max_features=3)
    top = np.argsort(-np.abs(p.w[-1]))[:3]
    assert [ln.get_label() for ln in few.lines[:3]] == [names[j] for j in top]


def test_the_best_held_out_C_is_marked_at_the_argmin_of_the_holdout_error(gauss):
    train, test = gauss.split(0.4, seed=1)
    p = mm.regularization_path(train, C="1e-3:1e2:9", holdout=test)
    best = int(np.argmin(p.holdout_error))  # numpy's argmin: the first, the smallest C
    label = f"best held-out $C$ = {p.C[best]:.3g} (error {p.holdout_error[best]:.3g})"
    for fn in (
        path_plots.plot_width,
        path_plots.plot_errors,
        path_plots.plot_objective,
        path_plots.plot_coefficients,
        path_plots.plot_support_vectors,
    ):
        ax = fn(p)
        assert set(_line(ax, label).get_xdata()) == {p.C[best]}, fn.__name__
    star = _line(path_plots.plot_errors(p), "_best")
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (p.C[best], p.holdout_error[best])
    assert star.get_marker() == "*"
    tradeoff = path_plots.plot_tradeoff(p)
    x, y = _line(tradeoff, label).get_data()
    assert (x[0], y[0]) == (p.norm_reg[best] ** 2, p.slack_sum[best])
    none = mm.regularization_path(train, C="1e-2:1e1:3")
    assert not [
        ln for ln in path_plots.plot_errors(none).lines if ln.get_label().startswith("best")
    ]


def test_learners_figure_draws_epochs_to_eps(separable):
    st = mm.learners_along_path(
        separable, lam=[0.01, 0.1, 1.0], learners=["pegasos"], epochs=3, eps=(0.5,)
    )
    ax = path_plots.plot_learners_vs_lambda(st)
    ok = np.isfinite(st.epochs_to_eps[0, 0])
    line = _line(ax, "pegasos")
    np.testing.assert_array_equal(line.get_xdata(), st.lam[ok])
    np.testing.assert_array_equal(line.get_ydata(), st.epochs_to_eps[0, 0][ok])
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")


def test_exact_path_figures_draw_the_exact_curves(separable):
    ep = mm.regularization_path(separable, exact=True)
    ax = path_plots.plot_coefficients(ep, C_range=(1e-3, 1e2))
    x, y = _line(ax, "w[0]").get_data()
    np.testing.assert_allclose(y, ep.coefficients(x)[0][:, 0], rtol=1e-12)
    np.testing.assert_allclose(_line(ax, "intercept $b$").get_ydata(), ep.coefficients(x)[1])
    assert set(ep.breakpoints[(ep.breakpoints >= 1e-3) & (ep.breakpoints <= 1e2)]) <= set(x)
    ticks = [c for c in ax.collections if c.get_label().startswith("breakpoints")]
    inside = ((ep.breakpoints >= 1e-3) & (ep.breakpoints <= min(1e2, ep.C_end))).sum()
    assert len(ticks) == 1 and len(ticks[0].get_segments()) == inside
    ax = path_plots.plot_width(ep)
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(y, 2.0 / np.linalg.norm(ep.coefficients(x)[0], axis=1))
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    hard = mm.solve(mm.SVMProblem(separable, hard=True))  # the hard-margin width, a line
    width = _line(ax, "hard-margin width $2/\\|w^\\star\\|$").get_ydata()[0]
    assert width == pytest.approx(2.0 / np.linalg.norm(hard.w), rel=1e-9)
    ax = path_plots.plot_support_vectors(ep)
    assert ax.lines[0].get_drawstyle() == "steps-post"
    x, y = ax.lines[1].get_data()  # a step at each breakpoint: the left set after it
    k0 = ep.segment_of(x[0])
    np.testing.assert_array_equal(x[1:-1], ep.bounds[k0 + 1 : k0 + x.size - 1])
    np.testing.assert_array_equal(y[:-1], ep.n_left[k0 : k0 + x.size - 1])
    ax = path_plots.plot_objective(ep, C_range=(1e-3, 1e2))
    x, y = ax.lines[0].get_data()
    W, B = ep.coefficients(x)
    for k in (0, len(x) // 2):  # P(C) as the problem computes it, at C
        at = mm.SVMProblem(separable, C=float(x[k]), intercept=ep.intercept)
        assert y[k] == pytest.approx(float(at.primal_objective(W[k], B[k])), rel=1e-9)
    dots = _line(
        path_plots.plot_tradeoff(ep, C_range=(1e-3, 1e2)), f"breakpoints ({inside} in view)"
    )
    assert len(dots.get_xdata()) == inside


def test_objective_of_a_weighted_path_is_its_primal(gauss):
    """With example weights the slack part is the weighted sum, for either kind of path.

    The exact path's figure used to draw the unweighted sum (4.30 instead of 7.07).
    """
    s = np.random.default_rng(0).integers(1, 4, gauss.n).astype(float)
    for p in (
        mm.regularization_path(gauss, C="1e-2:1e1:4", sample_weight=s),
        mm.regularization_path(gauss, 10.0, exact=True, sample_weight=s),
    ):
        x, y = path_plots.plot_objective(p, C_range=(1e-2, 10.0)).lines[0].get_data()
        W, B = (p.w, p.b) if isinstance(p, mm.RegularizationPath) else p.coefficients(x)
        for k in (0, len(x) // 2, len(x) - 1):
            problem = mm.SVMProblem(gauss, C=float(x[k]), sample_weight=s)
            assert y[k] == pytest.approx(float(problem.primal_objective(W[k], B[k])), rel=1e-9)


def test_a_grid_path_draws_the_range_it_is_given(gauss, tmp_path):
    p = mm.regularization_path(gauss, C="1e-3:1e3:7")
    x = path_plots.plot_width(p, C_range=(1e-2, 10.0)).lines[0].get_xdata()
    np.testing.assert_array_equal(x, p.C[(p.C >= 1e-2) & (p.C <= 10.0)])
    with pytest.raises(mm.ParameterError, match="outside this path"):
        path_plots.save_path_figures(p, tmp_path / "off", C_range=(1e4, 1e5))
    with pytest.raises(mm.ParameterError, match="0 < lo < hi"):
        path_plots.plot_errors(p, C_range=(1.0, 0.1))
    assert not (tmp_path / "off").exists()


def test_exact_path_marks_its_best_held_out_C(gauss):
    train, test = gauss.split(0.4, seed=1)
    ep = mm.regularization_path(train, 100.0, exact=True, holdout=test)
    ax = path_plots.plot_errors(ep, C_range=(1e-3, 1e2))
    x, err = _line(ax, "held-out error").get_data()
    k = int(np.argmin(err))
    star = _line(ax, "_best")
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (x[k], err[k])
    label = f"best held-out $C$ = {x[k]:.3g} (error {err[k]:.3g})"
    assert set(_line(ax, label).get_xdata()) == {x[k]}
    sx, sy = _line(path_plots.plot_tradeoff(ep, C_range=(1e-3, 1e2)), label).get_data()
    w, b = ep.coefficients(x[k])  # the same C on the trade-off curve
    problem = mm.SVMProblem(train, C=1.0)
    assert sx[0] == pytest.approx(float(problem.regularizer(w, b)), rel=1e-12)
    assert sy[0] == pytest.approx(float(problem.hinge(w, b).sum()), rel=1e-9, abs=1e-12)


def test_coefficient_labels_are_the_csv_columns(named, separable):
    """The coefficients are named as in grid.csv: w[<name>], else w[j] with j 0-based."""
    for data in (named, separable):
        p = mm.regularization_path(data, C=[0.1, 1.0])
        header = next(csv.reader(io.StringIO(p.to_csv())))
        columns = {c for c in header if c.startswith("w[")}
        assert len(columns) == data.d
        assert {t.get_text() for t in path_plots.plot_coefficients(p).texts} == columns
        ep = mm.regularization_path(data, 10.0, exact=True)
        assert {t.get_text() for t in path_plots.plot_coefficients(ep).texts} == columns


def test_an_exact_path_read_without_its_data_draws_what_needs_none(tmp_path):
    data = mm.Dataset(mm.make_gaussians(30, 2, seed=4).X, mm.make_gaussians(30, 2, seed=4).y,
                      feature_names=("age", "dose"))  # fmt: skip
    ep = mm.regularization_path(data, exact=True)
    saved = mm.ExactPath.from_json(io.StringIO(ep.to_json()))
    for plot in (path_plots.plot_width, path_plots.plot_support_vectors):
        a, b = plot(saved), plot(ep)
        for u, v in zip(a.lines, b.lines, strict=True):
            np.testing.assert_array_equal(u.get_xydata(), v.get_xydata())
    ax = path_plots.plot_coefficients(saved)  # the data's feature names, from the file
    np.testing.assert_array_equal(
        _line(ax, "w[dose]").get_ydata(),
        _line(path_plots.plot_coefficients(ep), "w[dose]").get_ydata(),
    )
    for plot in (path_plots.plot_errors, path_plots.plot_objective, path_plots.plot_tradeoff):
        with pytest.raises(mm.DataError, match="without them.*with_data"):
            plot(saved)
    files = path_plots.save_path_figures(saved, tmp_path / "saved", formats=("png",))
    assert [f.name for f in files] == [
        "path_width.png", "path_support_vectors.png", "path_coefficients.png"
    ]  # fmt: skip
    again = mm.ExactPath.from_json(io.StringIO(ep.to_json()), data)  # with the data: all
    assert len(path_plots.save_path_figures(again, tmp_path / "again", formats=("png",))) == 6
