"""maxmargin.plotting: what the comparison's and the boundary figures draw, and the command's.

Each figure is checked against the numbers of the result it draws, recomputed here where
a line is a formula (a boundary, a guide), so a figure that draws the wrong thing fails.
"""

from __future__ import annotations

import matplotlib.image
import numpy as np
import pytest
from _figures import _line

import maxmargin as mm
from maxmargin import ParameterError
from maxmargin.plotting import boundary, comparison
from maxmargin.plotting import path as path_plots


@pytest.fixture(scope="module")
def cmp(separable):
    return mm.compare(
        separable,
        learners=["perceptron", "pegasos", "subgradient"],
        lam=0.05,
        intercept="augmented",  # Pegasos's theory slope and regret bound apply
        epochs=4,
        seeds=(0, 1),
    )


def _seeds(cmp, label, key):
    """(seeds, k): one row per seed, on the checkpoints every seed reached."""
    runs = cmp.select(label=label)
    k = min(len(r.t) for r in runs)
    return np.array([np.asarray(getattr(r, key), float)[:k] for r in runs])


def _median(cmp, label, key):
    return np.median(_seeds(cmp, label, key), axis=0)


def _positive(t, V):
    """The checkpoints where every seed is positive (a log axis), and the median there."""
    V = np.atleast_2d(V)
    keep = (np.isfinite(V) & (V > 0)).all(axis=0)
    return t[keep], np.median(V[:, keep], axis=0)


def _band(ax, label):
    found = [c for c in ax.collections if c.get_label() == f"_band {label}"]
    assert len(found) == 1, [c.get_label() for c in ax.collections]
    return found[0]


def _assert_band_holds(ax, label, t, V):
    """The min-max band of ``label`` spans every seed's value at every checkpoint drawn."""
    verts = _band(ax, label).get_paths()[0].vertices
    for x, column in zip(t, V.T, strict=True):
        ys = verts[np.isclose(verts[:, 0], x, rtol=0, atol=0), 1]
        if ys.size == 0:
            continue  # a checkpoint left out (not positive on a log axis)
        assert ys.min() <= column.min() * (1 + 1e-12) and ys.max() >= column.max() * (1 - 1e-12), (
            label,
            x,
            ys,
            column,
        )
        np.testing.assert_allclose([ys.min(), ys.max()], [column.min(), column.max()])


def test_suboptimality_draws_the_median_the_band_and_the_theory_slope(cmp):
    ax = comparison.plot_suboptimality(cmp)
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    for lab, slope in (("pegasos", -1.0), ("subgradient", -0.5)):
        t = cmp.select(label=lab)[0].t
        for key, name in (("subopt_avg", "average"), ("subopt", "last iterate")):
            V = _seeds(cmp, lab, key)
            x, y = _line(ax, f"{lab}: {name}").get_data()
            np.testing.assert_array_equal((x, y), _positive(t[: V.shape[1]], V))
            _assert_band_holds(ax, f"{lab}: {name}", t[: V.shape[1]], V)
        guides = [ln for ln in ax.lines if ln.get_label() == f"theory slope ${slope:g}$"]
        assert len(guides) == 1
        gx, gy = guides[0].get_data()
        fitted = np.polyfit(np.log(gx), np.log(gy), 1)[0]
        assert fitted == pytest.approx(slope, rel=1e-9)
    assert not any(ln.get_label().startswith("perceptron") for ln in ax.lines)
    assert len(ax.lines) == 6 and ax.get_legend() is not None


def test_one_seed_draws_that_seed_and_no_band(separable):
    one = mm.compare(separable, learners=["pegasos"], lam=0.05, epochs=2)
    ax = comparison.plot_regret(one)
    np.testing.assert_array_equal(_line(ax, "pegasos").get_ydata(), one.runs[0].regret)
    assert not [c for c in ax.collections if c.get_label().startswith("_band")]


def test_gaps_draw_the_true_and_the_implied_dual_gap(cmp):
    ax = comparison.plot_gaps(cmp)
    t = cmp.select(label="pegasos")[0].t
    true_label = "pegasos: true gap $F - F^\\star$"
    dual_label = "pegasos: implied-dual gap $F - \\lambda D(\\mathrm{clip}\\,a)$"
    x, y = _line(ax, true_label).get_data()
    np.testing.assert_array_equal((x, y), _positive(t, _seeds(cmp, "pegasos", "subopt")))
    _, dual = _line(ax, dual_label).get_data()
    # weak duality holds seed by seed, hence for the medians
    assert len(dual) == len(y) and (dual >= y * (1 - 1e-9)).all()
    _assert_band_holds(ax, dual_label, t, _seeds(cmp, "pegasos", "dual_gap"))
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")


def test_regret_draws_each_learner_and_pegasos_bound_on_the_data_range(cmp):
    ax = comparison.plot_regret(cmp)
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "symlog")
    drawn = []
    for lab in ("perceptron", "pegasos", "subgradient"):
        V = _seeds(cmp, lab, "regret")
        np.testing.assert_array_equal(_line(ax, lab).get_ydata(), np.median(V, axis=0))
        _assert_band_holds(ax, lab, cmp.select(label=lab)[0].t[: V.shape[1]], V)
        drawn.append(V)
    bound = _line(ax, "pegasos: $G^2(1 + \\ln t)/(2\\lambda)$").get_ydata()
    np.testing.assert_array_equal(bound, _median(cmp, "pegasos", "regret_bound"))
    assert (_seeds(cmp, "pegasos", "regret") <= _seeds(cmp, "pegasos", "regret_bound")).all()
    assert len(ax.lines) == 4  # the subgradient has no logarithmic bound
    lo, hi = ax.get_ylim()
    values = np.concatenate([v.ravel() for v in drawn] + [bound])
    assert lo <= values.min() and hi >= values.max()  # everything in view ...
    if values.min() >= 0:
        assert lo == 0.0  # ... and no empty negative half
    else:
        assert lo < 0


def test_regret_shows_its_negative_half_only_when_a_value_is_negative():
    import matplotlib.pyplot as plt

    from maxmargin.plotting import _mpl

    fig, ax = plt.subplots()
    ax.set_yscale("symlog", linthresh=1.0)
    _mpl.fit_limits(ax, [np.array([0.5, 10.0, 300.0])])
    assert ax.get_ylim()[0] == 0.0 and ax.get_ylim()[1] > 300.0
    _mpl.fit_limits(ax, [np.array([-20.0, 10.0, 300.0])])
    assert -1e3 < ax.get_ylim()[0] < -20.0
    plt.close(fig)


def test_mistakes_draw_novikoff_and_the_general_bound(cmp):
    ax = comparison.plot_mistakes(cmp)
    assert cmp.separable and (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    nov = _line(ax, f"Novikoff $(R/\\gamma^\\star)^2 = {cmp.novikoff:.4g}$")
    assert set(nov.get_ydata()) == {cmp.novikoff}
    general = _line(ax, r"general bound $L + R\|u\|\sqrt{L} + R^2\|u\|^2$").get_ydata()
    np.testing.assert_array_equal(general, _median(cmp, "perceptron", "general_bound"))
    V = np.maximum(_seeds(cmp, "perceptron", "mistakes"), 0.5)
    np.testing.assert_array_equal(_line(ax, "perceptron").get_ydata(), np.median(V, axis=0))
    _assert_band_holds(ax, "perceptron", cmp.select(label="perceptron")[0].t, V)
    assert V.max() <= cmp.novikoff
    labels = ax.get_legend().get_texts()  # the learners first, then the bounds
    assert [t.get_text() for t in labels][: len(cmp.labels)] == list(cmp.labels)


def test_each_learner_has_its_own_colour_marker_and_line_style(separable):
    """Two curves that coincide stay visible through distinct styles.

    The perceptron and the averaged perceptron make the same mistakes: their curves
    coincide, and only distinct styles keep both visible.
    """
    both = mm.compare(separable, learners=["perceptron", "averaged_perceptron"], lam=0.05, epochs=2)
    ax = comparison.plot_mistakes(both)
    a, b = _line(ax, "perceptron"), _line(ax, "averaged_perceptron")
    np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
    for get in ("get_color", "get_marker", "get_linestyle"):
        assert getattr(a, get)() != getattr(b, get)(), get
    assert a.get_markevery() != b.get_markevery()  # markers not on the same points
    ax2 = comparison.plot_regret(both)  # the same style in every figure
    assert _line(ax2, "averaged_perceptron").get_marker() == b.get_marker()


def _legend_outside(ax):
    leg = ax.get_legend()
    assert leg is not None
    # the legend's place needs its own layout only, not a drawing of the figure
    box = leg.get_window_extent(ax.figure.canvas.get_renderer())
    data = ax.get_window_extent()
    assert box.x0 >= data.x1 - 1e-6, (box, data)  # right of the data area, no overlap
    fig = ax.figure.bbox
    assert box.x1 <= fig.x1 + 1e-6 and box.y0 >= fig.y0 - 1e-6  # and inside the figure


def test_legends_are_outside_the_data_and_inside_the_figure(cmp, grid_path):
    for fn in (
        comparison.plot_suboptimality,
        comparison.plot_gaps,
        comparison.plot_regret,
        comparison.plot_mistakes,
        comparison.plot_boundaries,
    ):
        _legend_outside(fn(cmp))
    for fn in (
        path_plots.plot_width,
        path_plots.plot_errors,
        path_plots.plot_objective,
        path_plots.plot_tradeoff,
        path_plots.plot_support_vectors,
    ):
        _legend_outside(fn(grid_path))


def _ascii_math(text):
    """Formula written in ASCII outside ``$...$`` (``sum_s``, ``R^2``, ``||w||``, ...)."""
    import re

    plain = " ".join(text.split("$")[::2])
    return re.search(r"\^|\|\||\+-|\\|\b(sum|sqrt|gamma|lambda|lam|ln)\b", plain)


def _math(text):
    return text.count("$") >= 2 and text.count("$") % 2 == 0


def test_labels_are_mathtext(cmp, grid_path):
    for fn in (
        comparison.plot_suboptimality,
        comparison.plot_gaps,
        comparison.plot_regret,
        comparison.plot_mistakes,
        comparison.plot_boundaries,
    ):
        ax = fn(cmp)
        assert _math(ax.get_xlabel()) and _math(ax.get_ylabel()), fn.__name__
        labels = [ax.get_xlabel(), ax.get_ylabel(), *ax.get_legend_handles_labels()[1]]
        assert not [lab for lab in labels if _ascii_math(lab)], labels
    ax = comparison.plot_regret(cmp)
    assert "\\sum" in ax.get_ylabel()
    for fn in (
        path_plots.plot_width,
        path_plots.plot_errors,
        path_plots.plot_objective,
        path_plots.plot_tradeoff,
        path_plots.plot_coefficients,
    ):
        ax = fn(grid_path)
        assert _math(ax.get_xlabel()) and _math(ax.get_ylabel()), fn.__name__


def _on_line(line, w, c):
    """Every vertex of ``line`` satisfies w.x + c = 0."""
    xs, ys = line.get_data()
    assert len(xs) == 2
    np.testing.assert_allclose(w[0] * xs + w[1] * ys + c, 0.0, atol=1e-9)


def test_boundaries_are_the_solutions_lines(cmp):
    ax = comparison.plot_boundaries(cmp)
    ref, hard = cmp.reference, cmp.hard_solution
    gamma = 1.0 / np.linalg.norm(ref.w)  # the distance drawn (1/||w~|| in augmented)
    _on_line(_line(ax, f"decision boundary (margin $1/\\|w\\| = {gamma:.4g}$)"), ref.w, ref.b)
    _on_line(_line(ax, "margins $f = \\pm 1$"), ref.w, ref.b - 1.0)
    _on_line(_line(ax, "exact hard-margin boundary"), hard.w, hard.b)
    for lab in ("perceptron", "pegasos", "subgradient"):
        tr = cmp.select(label=lab, seed=0)[0].trace
        _on_line(_line(ax, f"{lab} (final)"), tr.w[-1], tr.b[-1])
    points = sum(len(c.get_offsets()) for c in ax.collections[:2])
    assert points == cmp.problem.n  # both classes scattered


def test_boundary_limits_are_the_data_with_a_margin_and_little_white(separable):
    p = mm.SVMProblem(separable, hard=True)
    ax = boundary.plot_boundary(p, mm.solve(p))
    X = separable.X
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    np.testing.assert_allclose(ax.get_xlim(), (lo[0] - pad[0], hi[0] + pad[0]))
    np.testing.assert_allclose(ax.get_ylim(), (lo[1] - pad[1], hi[1] + pad[1]))
    ax.figure.canvas.draw()  # the equal aspect applied: the box keeps the data's shape
    box = ax.get_window_extent()
    aspect = (hi[0] - lo[0]) / (hi[1] - lo[1])
    if 2.2 / 3.6 <= aspect <= 6.5 / 3.6:
        assert box.width / box.height == pytest.approx(aspect, rel=0.02)
    legend = ax.get_legend().get_window_extent()
    fig = ax.figure.bbox
    # the axes and the legend fill the figure's width, but for the margins
    assert (box.width + legend.width) / fig.width > 0.75


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
    for ax, fn in zip(
        axes,
        (
            comparison.plot_suboptimality,
            comparison.plot_gaps,
            comparison.plot_regret,
            comparison.plot_mistakes,
        ),
        strict=True,
    ):
        assert fn(cmp, ax=ax) is ax and ax.lines
    plt.close(fig)


def test_in_a_callers_grid_the_legend_stays_in_its_panel_unless_the_layout_makes_room(cmp):
    """A grid panel's legend goes inside, framed; with constrained layout, outside.

    Outside its axes, a legend of a grid's panel would fall on the next panel (or off
    the figure); with constrained layout the layout makes room.
    """
    import matplotlib.pyplot as plt

    for layout, inside in ((None, True), ("constrained", False)):
        fig, axes = plt.subplots(1, 2, figsize=(8, 3), layout=layout)
        for ax in axes:
            comparison.plot_regret(cmp, ax=ax)
        fig.canvas.draw()
        for ax in axes:
            leg, box = ax.get_legend().get_window_extent(), ax.get_window_extent()
            within = (
                box.x0 <= leg.x0
                and leg.x1 <= box.x1 + 1e-6
                and box.y0 <= leg.y0
                and leg.y1 <= box.y1 + 1e-6
            )
            assert within == inside, (layout, leg, box)
            assert leg.x1 <= fig.bbox.x1 + 1e-6  # never off the figure
        plt.close(fig)


def test_study_figures_tell_coinciding_learners_apart_and_draw_one_bound(tmp_path):
    """In a study's mistakes figure, series differ in style and the bound is drawn once.

    The perceptron and the averaged perceptron (the same mistakes) differ in colour, marker and
    line style, and the general bound (the same for every learner on a sequence) is drawn once
    per panel, after the learners.
    """
    pytest.importorskip("pyarrow")
    from maxmargin.studies.report import _columns, _plot

    spec = {
        "problem": {"C": [0.1, 1.0], "intercept": "augmented"},
        "run": {"epochs": 1, "seeds": 2, "orders": ["shuffle"], "checkpoints": 4},
        "data": [{"generator": "gaussians", "params": {"n": 60, "d": 3}}],
        "learners": [{"name": "perceptron"}, {"name": "averaged_perceptron"}],
    }
    res = mm.study(spec, tmp_path / "out", n_jobs=1, report=False)
    cols = _columns(res.table)
    fig = _plot(cols, cols["data"][0], [0.1, 1.0], "C", "mistakes")
    for ax in fig.axes:
        per, avg = _line(ax, "perceptron"), _line(ax, "averaged_perceptron")
        np.testing.assert_array_equal(per.get_ydata(), avg.get_ydata())  # they coincide
        assert per.get_color() != avg.get_color() and per.get_marker() != avg.get_marker()
        assert per.get_linestyle() != avg.get_linestyle()
        bounds = [ln for ln in ax.lines if ln.get_label().startswith("general bound")]
        assert len(bounds) == 1
        assert [ln.get_label() for ln in ax.lines][-1] == bounds[0].get_label()


def test_save_figures_writes_decodable_images(cmp, tmp_path):
    files = comparison.save_figures(cmp, tmp_path, formats=("png", "svg", "pdf"), dpi=50)
    assert sorted(f.name for f in files) == sorted(
        f"{stem}.{fmt}" for stem in comparison.FIGURES for fmt in ("png", "svg", "pdf")
    )
    img = matplotlib.image.imread(tmp_path / "boundary.png")
    width, height = comparison.plot_boundaries(cmp).figure.get_size_inches()
    assert abs(img.shape[0] - height * 50) <= 1 and abs(img.shape[1] - width * 50) <= 1
    assert (tmp_path / "gaps.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "gaps.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(mm.ParameterError, match="no figure format"):
        comparison.save_figures(cmp, tmp_path, formats=())
    with pytest.raises(mm.ParameterError, match="unknown figure format 'gif'"):
        comparison.save_figures(cmp, tmp_path, formats=("png", "gif"))


# --------------------------------------------------------------------------- the command


def test_cli_writes_the_figure_formats_and_dpi_asked_for(tmp_path, capsys):
    from maxmargin.cli import main

    out = tmp_path / "c"
    code = main(
        [
            "compare",
            "builtin:separable",
            "--learners",
            "pegasos",
            "--epochs",
            "1",
            "-q",
            "--format",
            "pdf,png",
            "--dpi",
            "40",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == sorted(f"{s}.png" for s in comparison.FIGURES)
    assert sorted(p.stem for p in out.glob("*.pdf")) == sorted(comparison.FIGURES)
    assert not list(out.glob("*.svg"))
    from maxmargin.plotting import _mpl

    img = matplotlib.image.imread(out / "regret.png")
    height = _mpl._MARGINS[1] + comparison._SIZE[1] + _mpl._MARGINS[3]  # inches
    assert abs(img.shape[0] - height * 40) <= 1  # 40 dpi, not the default 150
    md = (out / "report.md").read_text()
    assert "![regret](regret.png)" in md and "regret.pdf" not in md

    bare = tmp_path / "bare"
    code = main(
        [
            "path",
            "builtin:separable",
            "--C-grid",
            "1e-2:1e2:3",
            "-q",
            "--no-figures",
            "--out",
            str(bare),
        ]
    )
    assert code == 0 and sorted(p.name for p in bare.iterdir() if p.name[0] != ".") == [
        "grid.csv",
        "report.json",
        "report.md",
        "table.tex",
    ]  # no figure
    capsys.readouterr()
    code = main(
        ["compare", "builtin:separable", "--format", "png,gif", "--out", str(tmp_path / "never")]
    )
    err = capsys.readouterr().err
    assert code == 2 and "unknown figure format 'gif'" in err and "--format" in err
    assert not (tmp_path / "never").exists()  # refused before any work
    code = main(["demo", "--dpi", "0"])
    assert code == 2 and "--dpi" in capsys.readouterr().err


def test_a_pdf_only_report_links_its_figures(tmp_path):
    cmp = mm.compare(mm.make_separable(30, 2, seed=0), learners=["pegasos"], lam=0.1, epochs=1)
    files = mm.write_report(cmp, tmp_path, formats="pdf")
    assert [f.name for f in files[:4]] == [
        "report.md",
        "report.json",
        "checkpoints.csv",
        "table.tex",
    ]
    assert {f.suffix for f in files[4:]} == {".pdf"}
    md = (tmp_path / "report.md").read_text()
    assert "[regret](regret.pdf) (pdf)" in md and "![" not in md


def test_boundary_legend_margin_is_the_drawn_distance():
    """The legend's 1/||w|| is of the feature weights (the dashed lines' distance)."""
    import numpy as np

    from maxmargin import SVMProblem, make_separable
    from maxmargin.exact import solve
    from maxmargin.plotting.boundary import plot_boundary

    p = SVMProblem(make_separable(30, 2, seed=1), hard=True, intercept="augmented")
    sol = solve(p)
    ax = plot_boundary(p, sol)
    labels = " ".join(ax.get_legend_handles_labels()[1])
    assert f"{1 / np.linalg.norm(sol.w):.4g}" in labels


def test_suboptimality_against_time_is_the_median_time_of_the_seeds(tmp_path):
    from maxmargin import compare, make_gaussians
    from maxmargin.plotting.comparison import plot_suboptimality, save_figures

    cmp = compare(
        make_gaussians(60, 3, seed=1), learners=["pegasos"], lam=0.1, epochs=3, seeds=range(3)
    )
    runs = [r for r in cmp.runs if r.label == "pegasos"]
    assert all(r.seconds is not None and r.seconds.shape == r.t.shape for r in runs)
    assert all(np.all(np.diff(r.seconds) >= 0) for r in runs)  # cumulative learning time
    ax = plot_suboptimality(cmp, x="time")
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "pegasos: average")
    want = np.median(np.stack([r.seconds for r in runs]), axis=0)
    np.testing.assert_array_equal(line.get_xdata(), want)
    assert "time" in ax.get_xlabel()
    names = {p.name for p in save_figures(cmp, tmp_path, formats=("png",))}
    assert {"suboptimality.png", "suboptimality_time.png"} <= names
    with pytest.raises(ParameterError, match="'steps' or 'time'"):
        plot_suboptimality(cmp, x="seconds")


def test_runs_of_several_intercepts_name_their_problem(separable):
    """Each legend entry names its run's problem; each problem its own Novikoff line."""
    mixed = mm.compare(
        separable,
        learners=["pegasos", mm.online.Perceptron(intercept="augmented")],
        lam=0.05,
        epochs=2,
    )
    free, aug = mixed.references
    assert (free.intercept, aug.intercept) == ("free", "augmented")
    ax = comparison.plot_suboptimality(mixed)
    peg = _line(ax, "pegasos [intercept free]: last iterate")
    np.testing.assert_array_equal(peg.get_ydata(), _median(mixed, "pegasos", "subopt"))
    assert "each run against its own problem" in ax.get_title()
    ax = comparison.plot_mistakes(mixed)
    V = np.maximum(_seeds(mixed, "perceptron", "mistakes"), 0.5)
    line = _line(ax, "perceptron [intercept augmented]")
    np.testing.assert_array_equal(line.get_ydata(), np.median(V, axis=0))
    for ref in (free, aug):  # separable either way: one Novikoff bound per problem
        nov = _line(
            ax, f"Novikoff $(R/\\gamma^\\star)^2 = {ref.novikoff:.4g}$ [intercept {ref.intercept}]"
        )
        assert set(nov.get_ydata()) == {ref.novikoff}
