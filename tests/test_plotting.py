"""maxmargin.plotting: what every figure draws (its lines' data, labels, guides, scales).

Each figure is checked against the numbers of the result it draws, recomputed here where
a line is a formula (a boundary, a guide), so a figure that draws the wrong thing fails.
"""

from __future__ import annotations

import matplotlib.image
import numpy as np
import pytest

import maxmargin as mm
from maxmargin.plotting import boundary, comparison
from maxmargin.plotting import path as path_plots


@pytest.fixture(scope="module")
def cmp(separable):
    return mm.compare(separable, learners=["perceptron", "pegasos", "subgradient"],
                      lam=0.05, epochs=4, seeds=(0, 1))


def _line(ax, label):
    found = [ln for ln in ax.lines if ln.get_label() == label]
    assert len(found) == 1, (label, [ln.get_label() for ln in ax.lines])
    return found[0]


def _mean(cmp, label, key):
    return np.mean([getattr(r, key) for r in cmp.select(label=label)], axis=0)


def _positive(t, v):
    keep = np.isfinite(v) & (v > 0)
    return t[keep], v[keep]


def test_suboptimality_draws_the_mean_curves_and_the_theory_slope(cmp):
    ax = comparison.plot_suboptimality(cmp)
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    for lab, slope in (("pegasos", -1.0), ("subgradient", -0.5)):
        t = cmp.select(label=lab)[0].t
        x, y = _line(ax, f"{lab}: average").get_data()
        np.testing.assert_array_equal((x, y), _positive(t, _mean(cmp, lab, "subopt_avg")))
        x, y = _line(ax, f"{lab}: last iterate").get_data()
        np.testing.assert_array_equal((x, y), _positive(t, _mean(cmp, lab, "subopt")))
        guides = [ln for ln in ax.lines if ln.get_label() == f"theory slope {slope:g}"]
        assert len(guides) == 1
        gx, gy = guides[0].get_data()
        fitted = np.polyfit(np.log(gx), np.log(gy), 1)[0]
        assert fitted == pytest.approx(slope, rel=1e-9)
    assert not any(ln.get_label().startswith("perceptron") for ln in ax.lines)
    assert len(ax.lines) == 6 and ax.get_legend() is not None


def test_gaps_draw_the_true_and_the_implied_dual_gap(cmp):
    ax = comparison.plot_gaps(cmp)
    t = cmp.select(label="pegasos")[0].t
    x, y = _line(ax, "pegasos: true gap F - F*").get_data()
    np.testing.assert_array_equal((x, y), _positive(t, _mean(cmp, "pegasos", "subopt")))
    _, dual = _line(ax, "pegasos: implied-dual gap F - lam D(clip a)").get_data()
    _, true = _positive(t, _mean(cmp, "pegasos", "subopt"))
    assert len(dual) == len(true) and (dual >= true * (1 - 1e-9)).all()  # weak duality
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")


def test_regret_draws_each_learner_and_pegasos_bound(cmp):
    ax = comparison.plot_regret(cmp)
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "symlog")
    for lab in ("perceptron", "pegasos", "subgradient"):
        np.testing.assert_array_equal(_line(ax, lab).get_ydata(),
                                      _mean(cmp, lab, "regret"))
    bound = _line(ax, "pegasos: G^2(1+ln t)/(2 lam)").get_ydata()
    np.testing.assert_array_equal(bound, _mean(cmp, "pegasos", "regret_bound"))
    assert (_line(ax, "pegasos").get_ydata() <= bound).all()
    assert len(ax.lines) == 4  # the subgradient has no logarithmic bound


def test_mistakes_draw_novikoff_and_the_general_bound(cmp):
    ax = comparison.plot_mistakes(cmp)
    assert cmp.separable and (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    nov = _line(ax, f"Novikoff (R/gamma*)^2 = {cmp.novikoff:.4g}")
    assert set(nov.get_ydata()) == {cmp.novikoff}
    general = _line(ax, "general bound L + R|u| sqrt(L) + R^2 |u|^2").get_ydata()
    np.testing.assert_array_equal(general, _mean(cmp, "perceptron", "general_bound"))
    mistakes = _line(ax, "perceptron").get_ydata()
    np.testing.assert_array_equal(mistakes,
                                  np.maximum(_mean(cmp, "perceptron", "mistakes"), 0.5))
    assert mistakes.max() <= cmp.novikoff


def _on_line(line, w, c):
    """Every vertex of ``line`` satisfies w.x + c = 0."""
    xs, ys = line.get_data()
    assert len(xs) == 2
    np.testing.assert_allclose(w[0] * xs + w[1] * ys + c, 0.0, atol=1e-9)


def test_boundaries_are_the_solutions_lines(cmp):
    ax = comparison.plot_boundaries(cmp)
    ref, hard = cmp.reference, cmp.hard_solution
    gamma = ref.margin
    _on_line(_line(ax, f"decision boundary (margin 1/||w|| = {gamma:.4g})"), ref.w, ref.b)
    _on_line(_line(ax, "margins f = +-1"), ref.w, ref.b - 1.0)
    _on_line(_line(ax, "exact hard-margin boundary"), hard.w, hard.b)
    for lab in ("perceptron", "pegasos", "subgradient"):
        tr = cmp.select(label=lab, seed=0)[0].trace
        _on_line(_line(ax, f"{lab} (final)"), tr.w[-1], tr.b[-1])
    points = sum(len(c.get_offsets()) for c in ax.collections[:2])
    assert points == cmp.problem.n  # both classes scattered
    assert ax.figure.get_size_inches().tolist() == [9.6, 4.8]


def test_plot_boundary_rings_the_support_vectors(separable):
    p = mm.SVMProblem(separable, hard=True)
    sol = mm.solve(p)
    ax = boundary.plot_boundary(p, sol, title="hard margin")
    assert ax.get_title() == "hard margin"
    ringed = [c for c in ax.collections if c.get_label().startswith("margin SVs")]
    np.testing.assert_array_equal(ringed[0].get_offsets(), separable.X[sol.margin_support])
    margin_lines = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert len(margin_lines) == 2
    for ln in margin_lines:  # at f = +1 and f = -1
        xs, ys = ln.get_data()
        f = sol.w[0] * xs + sol.w[1] * ys + sol.b
        assert np.allclose(f, f[0]) and abs(abs(f[0]) - 1.0) < 1e-9
    with pytest.raises(mm.ParameterError, match="2-D"):
        boundary.plot_boundary(mm.SVMProblem(mm.make_gaussians(10, 3, seed=0)), sol)


def test_every_plot_draws_into_a_given_axes(cmp):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4)
    for ax, fn in zip(axes, (comparison.plot_suboptimality, comparison.plot_gaps,
                             comparison.plot_regret, comparison.plot_mistakes), strict=True):
        assert fn(cmp, ax=ax) is ax and ax.lines
    plt.close(fig)


def test_save_figures_writes_decodable_images(cmp, tmp_path):
    files = comparison.save_figures(cmp, tmp_path, formats=("png", "svg"), dpi=50)
    assert sorted(f.name for f in files) == sorted(
        f"{stem}.{fmt}" for stem in comparison.FIGURES for fmt in ("png", "svg"))
    img = matplotlib.image.imread(tmp_path / "boundary.png")
    assert img.shape[:2] == (round(4.8 * 50), round(9.6 * 50))
    assert (tmp_path / "gaps.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(mm.ParameterError, match="no figure format"):
        comparison.save_figures(cmp, tmp_path, formats=())


# --------------------------------------------------------------------------- paths


@pytest.fixture(scope="module")
def grid_path(separable):
    return mm.regularization_path(separable, C="1e-3:1e3:7")


def test_path_figures_draw_the_path_arrays(grid_path):
    p = grid_path
    ax = path_plots.plot_width(p)
    x, y = _line(ax, "width $2/\\|w(C)\\|$").get_data()
    np.testing.assert_array_equal(x, p.C)
    np.testing.assert_array_equal(y, p.width)
    hard = p.hard_margin_limit
    assert set(_line(ax, "hard-margin width").get_ydata()) == {
        2.0 / np.linalg.norm(hard.w)}
    cstar = _line(ax, f"$C^*$ = {hard.C_star:.3g} (= hard margin above)")
    assert set(cstar.get_xdata()) == {hard.C_star}
    ax = path_plots.plot_support_vectors(p)
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), p.n_margin_sv)
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), p.n_bound_sv)
    assert ax.get_xscale() == "log"
    ax = path_plots.plot_errors(p)
    np.testing.assert_array_equal(_line(ax, "training error").get_ydata(), p.train_error)
    ax = path_plots.plot_coefficients(p)
    for j in range(p.d):
        np.testing.assert_array_equal(_line(ax, f"$w_{{{j + 1}}}$").get_ydata(), p.w[:, j])


def test_learners_figure_draws_epochs_to_eps(separable):
    st = mm.learners_along_path(separable, lam=[0.01, 0.1, 1.0], learners=["pegasos"],
                                epochs=3, eps=(0.5,))
    ax = path_plots.plot_learners_vs_lambda(st)
    ok = np.isfinite(st.epochs_to_eps[0, 0])
    line = _line(ax, "pegasos")
    np.testing.assert_array_equal(line.get_xdata(), st.lam[ok])
    np.testing.assert_array_equal(line.get_ydata(), st.epochs_to_eps[0, 0][ok])
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")


def test_exact_path_figures_draw_the_exact_curves(separable):
    ep = mm.exact_regularization_path(separable)
    ax = path_plots.plot_exact_coefficients(ep, C_range=(1e-3, 1e2))
    x, y = _line(ax, "$w_{1}$").get_data()
    np.testing.assert_allclose(y, ep.coefficients(x)[0][:, 0], rtol=1e-12)
    assert set(ep.breakpoints[(ep.breakpoints >= 1e-3) & (ep.breakpoints <= 1e2)]) <= set(x)
    ticks = [c for c in ax.collections if c.get_label().startswith("breakpoints")]
    inside = ((ep.breakpoints >= 1e-3) & (ep.breakpoints <= min(1e2, ep.C_end))).sum()
    assert len(ticks) == 1 and len(ticks[0].get_segments()) == inside
    ax = path_plots.plot_exact_width(ep)
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(y, 2.0 / np.linalg.norm(ep.coefficients(x)[0], axis=1))
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    ax = path_plots.plot_exact_support_vectors(ep)
    assert ax.lines[0].get_drawstyle() == "steps-post"
