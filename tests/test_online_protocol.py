"""The public learner protocol (maxmargin.online.protocol).

Learners written in plain Python, from docs/own-learner.md alone, reproduce the built-in ones
and are scored alike; the free-intercept kernels against naive loops; what the adapter refuses.
"""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from maxmargin import (
    Dataset,
    SVMProblem,
    Trace,
    compare,
    make_gaussians,
    make_separable,
    score_trace,
)
from maxmargin.exceptions import ParameterError
from maxmargin.online import (
    Constant,
    OnlineSubgradient,
    Pegasos,
    Perceptron,
    PythonLearner,
    resolve,
    run,
)
from maxmargin.report.comparison import markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "own-learner.md"


@pytest.fixture(scope="module")
def doc():
    """Every python block of docs/own-learner.md, run in order in one namespace."""
    ns: dict = {}
    for block in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S):
        exec(compile(block, str(DOC), "exec"), ns)  # noqa: S102 - the page's own code
    return ns


def _same_trajectory(a, b, tol=1e-12):
    assert np.array_equal(a.t, b.t)
    scale = max(1.0, float(np.abs(a.w).max()))
    assert np.abs(a.w - b.w).max() <= tol * scale
    assert np.abs(a.b - b.b).max() <= tol * scale
    assert np.array_equal(a.mistakes, b.mistakes)
    np.testing.assert_allclose(b.loss, a.loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(b.sqnorm, a.sqnorm, rtol=1e-10, atol=tol)


def test_the_pages_perceptron_is_the_built_in_one(doc):
    data = doc["data"]
    for intercept in ("none", "augmented"):
        mine = run(
            resolve(doc["MyPerceptron"](), intercept=intercept),
            data,
            epochs=4,
            order="shuffle",
            seed=5,
        )
        ref = run(Perceptron(intercept=intercept), data, epochs=4, order="shuffle", seed=5)
        _same_trajectory(ref, mine)
    # the free-bias form (w, b) = the built-in perceptron with a free intercept
    mine = run(
        resolve(doc["MyFreePerceptron"](), intercept="free"),
        data,
        epochs=4,
        order="sample",
        seed=2,
    )
    ref = run(Perceptron(intercept="free"), data, epochs=4, order="sample", seed=2)
    _same_trajectory(ref, mine)
    fast = doc["fast"]  # the numba opt-in: the same trajectory
    ref = run(Perceptron(intercept="augmented"), data, epochs=5, order="shuffle", seed=1)
    _same_trajectory(ref, fast)  # the page's learner takes the adapter's default: augmented


def test_the_pages_pegasos_is_scored_as_the_built_in_one(doc):
    cmp = doc["cmp"]
    ref, mine = cmp.runs[0], cmp.runs[1]
    assert (ref.learner, mine.learner) == ("pegasos", "MyPegasos")
    _same_trajectory(ref.trace, mine.trace)
    for k in (
        "subopt",
        "rel_subopt",
        "distance",
        "cosine",
        "margin",
        "regret",
        "regret_bound",
        "train_error",
    ):
        np.testing.assert_allclose(getattr(mine, k), getattr(ref, k), rtol=1e-9, atol=1e-12)
    assert mine.kind == "objective" and mine.theory_slope == -1.0
    # what the built-in declares (an average, a dual point) and the page's learner does not
    # is N/A: it does not apply (not_available is for what a recorded trace lacks)
    assert ref.subopt_avg is not None and ref.dual_gap is not None
    assert mine.subopt_avg is None and mine.dual_gap is None and not mine.not_available
    perc = cmp.runs[2]
    assert perc.kind == "linear" and perc.subopt is None
    assert np.isfinite(perc.general_bound_best).all()
    assert cmp.rows[2]["bound_respected"] == "yes"
    assert "intercept augmented" in cmp.rows[1]["scored_against"]


def test_the_pages_sgdclassifier_trace(doc):
    r, data = doc["r"], doc["data"]
    sgd = doc["sgd"]
    X, y, lam = data.dense(), data.y, doc["lam"]
    ref = doc["scored"].reference
    F = lam / 2 * sgd.w @ sgd.w.T
    F = np.diag(F) + np.maximum(0.0, 1 - y * (X @ sgd.w.T + sgd.b).T).mean(axis=1)
    F_star = lam / 2 * ref.w @ ref.w + np.maximum(0.0, 1 - y * (X @ ref.w + ref.b)).mean()
    np.testing.assert_allclose(r.subopt, F - F_star, rtol=1e-9, atol=1e-12)
    assert r.regret is None and "Trace.from_weights" in r.not_available["regret"]


def test_a_trace_saved_and_read_back_is_scored_as_its_run(doc, tmp_path):
    cmp = doc["cmp"]
    tr = cmp.runs[1].trace
    tr.save(tmp_path / "mine")
    back = Trace.load(tmp_path / "mine")
    assert back.declares == tr.declares and back.declares["objective"] == "lambda"
    r = score_trace(back, cmp.reference)
    for k in ("subopt", "regret", "regret_bound", "distance"):
        np.testing.assert_array_equal(getattr(r, k), getattr(cmp.runs[1], k))


# --------------------------------------------------------- free intercept: naive loops


class NaiveFreeSGD:
    """``w <- (1 - eta lam) w + eta y x 1[m < 1]``, ``b <- b + eta y 1[m < 1]`` (s = 1).

    With Pegasos' ``eta = 1/(lam (t + 1))`` or a constant; lam None: the hinge alone.
    """

    supported_intercepts = ("free",)
    has_average = True

    def __init__(self, lam, eta=None):
        self.lam, self.eta = lam, eta

    def start(self, d):
        self.w, self.b = np.zeros(d), 0.0
        self.sw, self.sb, self.k = np.zeros(d), 0.0, 0

    def step(self, x, y, t):
        self.sw, self.sb, self.k = self.sw + self.w, self.sb + self.b, self.k + 1
        eta = self.eta if self.eta is not None else 1.0 / (self.lam * (t + 1))
        active = y * (self.w @ x + self.b) < 1
        shrink = 1.0 - eta * self.lam if self.lam is not None else 1.0
        self.w = shrink * self.w + (eta * y * x if active else 0.0)
        self.b = self.b + (eta * y if active else 0.0)

    def weights(self):
        return self.w, self.b

    def average(self):
        return self.sw / max(self.k, 1), self.sb / max(self.k, 1)


@pytest.mark.parametrize(
    "built, naive",
    [
        (lambda: Pegasos(lam=0.05, intercept="free"), lambda: NaiveFreeSGD(0.05)),
        (
            lambda: OnlineSubgradient(lam=None, step=Constant(0.1), intercept="free"),
            lambda: NaiveFreeSGD(None, eta=0.1),
        ),
        (
            lambda: OnlineSubgradient(lam=0.05, step=Constant(0.1), intercept="free"),
            lambda: NaiveFreeSGD(0.05, eta=0.1),
        ),
    ],
)
def test_free_intercept_kernels_equal_a_naive_loop(built, naive):
    data = make_gaussians(80, 3, separation=1.0, seed=4)
    a = run(built(), data, epochs=3, order="shuffle", seed=7)
    b = run(resolve(naive(), intercept="free"), data, epochs=3, order="shuffle", seed=7)
    _same_trajectory(a, b, tol=1e-11)
    np.testing.assert_allclose(a.w_avg, b.w_avg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.b_avg, b.b_avg, rtol=1e-10, atol=1e-12)


def test_free_intercept_is_scored_against_the_free_optimum():
    data = make_gaussians(120, 3, separation=1.5, seed=1)
    cmp = compare(
        data,
        lam=0.02,
        intercept="free",
        learners=["pegasos", "perceptron"],
        epochs=5,
        orders=("shuffle",),
    )
    p = SVMProblem(data, lam=0.02, intercept="free")
    F_star = p.lambda_objective(cmp.reference.w, cmp.reference.b)
    r = cmp.runs[0]
    F = [p.lambda_objective(w, b) for w, b in zip(r.trace.w, r.trace.b, strict=True)]
    np.testing.assert_allclose(r.subopt, np.array(F) - F_star, rtol=1e-9, atol=1e-12)
    # no 1/t rate or regret bound: the objective is not strongly convex in the free b
    assert r.regret_bound is None and np.isnan(r.theory_slope)
    assert "intercept free" in markdown(cmp)


# ------------------------------------------------------------------ what is refused


class _Base:
    def __init__(self, out=None):
        self.out = out

    def start(self, d):
        self.d = d

    def step(self, x, y, t):
        pass

    def weights(self):
        return np.zeros(self.d) if self.out is None else self.out


def test_protocol_violations_are_one_line_errors():
    data = make_separable(30, 2, seed=0)
    with pytest.raises(ParameterError, match=r"returned shape \(2,\).*\(3,\)"):
        run(_Base(np.zeros(2)), data)
    with pytest.raises(ParameterError, match="pair"):
        run(_Base((np.zeros(3), 0.0)), data)

    class Free(_Base):
        supported_intercepts = ("free",)

    with pytest.raises(ParameterError, match="must return the pair"):
        run(resolve(Free(np.zeros(2)), intercept="free"), data)

    class NoLam(_Base):
        objective = "lambda"

    with pytest.raises(ParameterError, match="self.lam"):
        resolve(NoLam())

    class NoDual(_Base):
        has_dual = True

    with pytest.raises(ParameterError, match="dual()"):
        resolve(NoDual())

    class Bad(_Base):
        objective = "hinge"

    with pytest.raises(ParameterError, match="objective must be"):
        resolve(Bad())
    with pytest.raises(ParameterError, match="_Base supports intercept 'none' or 'augmented'"):
        resolve(_Base(), intercept="free")
    assert run(_Base, data).learner == "_Base"  # a class is built, as a name is (resolve)
    with pytest.raises(ParameterError, match="start"):
        run(object(), data)

    class NotCompiled(_Base):
        compiled_step = staticmethod(lambda x, y, t, w: None)

        def state(self):
            return (np.zeros(self.d),)

    with pytest.raises(ParameterError, match="njit"):
        PythonLearner(NotCompiled())


def test_compare_traces_alone_and_their_checks():
    data = make_gaussians(60, 2, seed=3)
    tr = run(Pegasos(lam=0.1, intercept="free"), data, epochs=2)
    cmp = compare(data, lam=0.1, intercept="free", traces=[tr])
    assert [r.label for r in cmp.runs] == ["pegasos"] and cmp.runs[0].subopt is not None
    # a trace of another intercept is scored against the problem of its own (issue 22, D6)
    own = compare(data, lam=0.1, intercept="augmented", traces=[tr])
    assert [ref.intercept for ref in own.references] == ["free"]
    np.testing.assert_array_equal(own.runs[0].subopt, cmp.runs[0].subopt)
    scaled = Trace.from_weights(tr.t, tr.w, tr.b, name="s1", data=data, intercept="augmented")
    with pytest.raises(ParameterError, match="intercept"):  # another bias feature s
        compare(data, lam=0.1, intercept="augmented", intercept_scaling=2.0, traces=[scaled])
    with pytest.raises(ParameterError, match="lam=0.1"):
        compare(data, lam=0.2, intercept="free", traces=[tr])
    with pytest.raises(ParameterError, match="no learners and no traces"):
        compare(data, lam=0.1)
    with pytest.raises(ParameterError, match="Trace objects"):
        compare(data, lam=0.1, traces=["x.npz"])


def test_a_trace_from_elsewhere_is_drawn_beside_the_learners():
    from maxmargin.plotting.comparison import plot_suboptimality

    data = make_gaussians(60, 2, seed=3)
    tr = run(Pegasos(lam=0.1, intercept="augmented"), data, epochs=2)
    ext = Trace.from_weights(
        tr.t, tr.w, tr.b, name="external", data=data, intercept="augmented", params={"lam": 0.1}
    )
    cmp = compare(
        data,
        lam=0.1,
        intercept="augmented",
        learners=["pegasos"],
        traces=[ext],
        epochs=2,
        orders=("cyclic",),
    )
    labels = [ln.get_label() for ln in plot_suboptimality(cmp).get_lines()]
    assert "external: last iterate" in labels and "pegasos: last iterate" in labels
    np.testing.assert_array_equal(cmp.runs[1].subopt, cmp.runs[0].subopt)


@pytest.mark.parametrize(
    "make, lam, eta",
    [
        (lambda: Pegasos(lam=0.05, intercept="free"), 0.05, None),
        (lambda: OnlineSubgradient(lam=0.05, step=Constant(0.1), intercept="free"), 0.05, 0.1),
    ],
)
def test_weighted_free_intercept_steps_equal_a_naive_loop(make, lam, eta):
    from maxmargin.online import schedule

    data = make_gaussians(80, 3, separation=1.0, seed=4)
    X, y = data.dense(), data.y
    sw = np.random.default_rng(0).uniform(0, 2, data.n)
    tr = run(make(), data, epochs=3, order="shuffle", seed=7, sample_weight=sw)
    w, b = np.zeros(3), 0.0
    for t, i in enumerate(schedule(data.n, 3, "shuffle", 7), 1):
        e = eta if eta is not None else 1 / (lam * (t + 1))
        active = y[i] * (w @ X[i] + b) < 1
        w = (1 - e * lam) * w + (e * sw[i] * y[i] * X[i] if active else 0.0)
        b = b + (e * sw[i] * y[i] if active else 0.0)
    assert np.abs(tr.w[-1] - w).max() <= 1e-12 and abs(tr.b[-1] - b) <= 1e-12


class CountingPerceptron:
    """The perceptron with its implied dual point: c_i = the updates on example i."""

    mistake_driven = True
    has_dual = True
    dual_counts_updates = True

    def start(self, d, n):
        self.w, self.c = np.zeros(d), np.zeros(n)

    def step(self, x, y, t, i):
        if y * (self.w @ x) <= 0:
            self.w += y * x
            self.c[i] += 1

    def weights(self):
        return self.w

    def dual(self):
        return self.c


def test_a_learner_with_a_dual_point_is_scored_as_the_built_in_one():
    data = make_gaussians(100, 3, separation=1.0, seed=6)
    cmp = compare(
        data,
        C=1.0,
        intercept="augmented",
        learners=["perceptron", CountingPerceptron()],
        epochs=3,
        orders=("shuffle",),
    )
    ref, mine = cmp.runs
    _same_trajectory(ref.trace, mine.trace)
    np.testing.assert_array_equal(mine.trace.dual, ref.trace.dual)
    for k in ("general_bound", "general_bound_best", "mistake_rounds_bound", "regret"):
        np.testing.assert_allclose(getattr(mine, k), getattr(ref, k), rtol=1e-12, atol=0)
    assert cmp.rows[1]["bound_respected"] == "yes"
    with pytest.raises(ParameterError, match=r"dual\(\) returned shape"):

        class Short(CountingPerceptron):
            def dual(self):
                return self.c[:-1]

        compare(data, C=1.0, intercept="augmented", learners=[Short()], epochs=1)


class _Buggy:
    """A learner with a bug of its own at step 17."""

    def __init__(self, lam=1e-4):
        self.lam = lam

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if t == 17:
            raise ValueError("my bug")
        self.w = self.w * (1 - self.lam)

    def weights(self):
        return self.w


def test_a_learners_own_bug_is_blamed_on_the_learner():
    from maxmargin.online import LearnerError, run

    data = make_separable(40, 3, seed=0)
    with pytest.raises(
        LearnerError,
        match=r"'_Buggy' raised ValueError in step\(\) at step "
        r"17: my bug",
    ) as info:
        run(_Buggy(), data)
    assert isinstance(info.value.__cause__, ValueError)
    with pytest.raises(LearnerError, match="raised TypeError in step"):
        run(_Buggy(lam="abc"), data)


class _Exits(_Base):
    """Calls ``sys.exit`` in the method ``where``."""

    def __init__(self, where):
        super().__init__()
        self.where = where

    def start(self, d):
        super().start(d)
        if self.where == "start":
            sys.exit(3)

    def step(self, x, y, t):
        if self.where == "step" and t == 5:
            sys.exit()

    def weights(self):
        if self.where == "weights":
            sys.exit("bye")
        return super().weights()


@pytest.mark.parametrize(
    "where, said",
    [
        ("start", r"called sys.exit\(3\) in start\(\)$"),
        ("step", r"called sys.exit\(\) in step\(\) at step 5$"),
        ("weights", r"called sys.exit\('bye'\) in weights\(\)$"),
    ],
)
def test_a_learner_calling_sys_exit_is_a_learner_error(where, said):
    # uncaught, SystemExit would end the command's child silently (exit 1, no message)
    from maxmargin.online import LearnerError

    with pytest.raises(LearnerError, match="learner '_Exits' " + said) as info:
        run(_Exits(where), make_separable(20, 2, seed=0))
    assert isinstance(info.value.__cause__, SystemExit)


@pytest.mark.parametrize(
    "out, intercept, said",
    [
        (["a", "b", "c"], "augmented", r"weights\(\) returned list \['a', 'b', 'c'\]; it must "),
        ("abc", "augmented", r"weights\(\) returned str 'abc'"),
        ((np.zeros(3), "b", 3), "augmented", r"weights\(\) returned tuple \(array"),
        ([[1.0], [1.0, 2.0]], "none", r"weights\(\) returned list"),
        (None, "none", r"weights\(\) returned NoneType None"),
        ({"w": 1.0}, "none", r"weights\(\) returned dict"),
        ((np.zeros(2), "b"), "free", r"weights\(\) returned a bias that is not a number: str 'b'"),
        ((["x", "y"], 0.0), "free", r"weights\(\) returned tuple \(\['x', 'y'\], 0.0\)"),
        (
            (np.zeros(2), np.array([0.5])),
            "free",
            r"weights\(\) returned a bias that is not a number: ndarray array\(\[0.5\]\)",
        ),
        (
            (np.zeros(2), [1.0, 2.0]),
            "free",
            r"weights\(\) returned a bias that is not a number: list \[1.0, 2.0\]",
        ),
    ],
)
def test_weights_that_are_not_numbers_are_a_learner_error(out, intercept, said):
    from maxmargin.online import LearnerError

    class Odd(_Base):
        supported_intercepts = ("none", "augmented", "free")

        def weights(self):
            return out

    with pytest.raises(LearnerError, match=r"^learner 'Odd': " + said):
        run(resolve(Odd(), intercept=intercept), make_separable(20, 2, seed=0))


def test_numbers_in_other_forms_are_weights():
    # what np.asarray makes numbers of: a list, a tuple, ints, bools; a bias array of one
    data = make_separable(20, 2, seed=0)
    for out in ([0, 0, 0], (0.0, 1.0, 0.0), np.zeros(3, dtype=np.float32), [True, False, 0]):
        assert run(_Base(out), data, epochs=1).w.shape[-1] == 2

    class Free(_Base):
        supported_intercepts = ("free",)

    for bias in (1, np.float32(0.5), np.array(0.5), True):
        tr = run(resolve(Free((np.ones(2), bias)), intercept="free"), data, epochs=1)
        assert tr.b[-1] == float(bias)


def test_a_dual_that_is_not_numbers_is_a_learner_error():
    from maxmargin.online import LearnerError

    class Dual(_Base):
        has_dual = True

        def start(self, d, n):
            super().start(d)

        def step(self, x, y, t, i):
            pass

        def dual(self):
            return ["a"] * 20

    with pytest.raises(LearnerError, match=r"learner 'Dual': dual\(\) returned list"):
        run(Dual(), make_separable(20, 2, seed=0), record_dual=True)


EXITS_ON_IMPORT = "import sys\nsys.exit(4)\nclass A:\n    pass\n"


def test_a_learner_module_calling_sys_exit_on_import_is_a_learner_error(tmp_path, monkeypatch):
    from maxmargin.online import LearnerError

    (tmp_path / "exits_on_import.py").write_text(EXITS_ON_IMPORT)
    target = f"{tmp_path / 'exits_on_import.py'}:A"
    with pytest.raises(LearnerError, match=r"called sys.exit\(4\); a learner's module"):
        resolve(target)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(LearnerError, match="'exits_on_import:A': importing exits_on_import "):
        resolve("exits_on_import:A")


def test_a_learner_constructor_calling_sys_exit_is_a_learner_error():
    from maxmargin.online import LearnerError

    class Quits(_Base):
        def __init__(self):  # noqa: D107 - ruff would ask for a docstring
            sys.exit(0)

    p = SVMProblem(make_separable(20, 2, seed=0), C=1.0, intercept="none")
    with pytest.raises(LearnerError, match=r"'Quits': its constructor called sys.exit\(0\)"):
        resolve(Quits, p)


@pytest.mark.parametrize(
    "body, said",
    [
        ("    def step(self, x, y, t): sys.exit(0)\n", "learner 'L' called sys.exit(0) in step()"),
        ("    def __init__(self): sys.exit(1)\n", "its constructor called sys.exit(1)"),
        ("    def weights(self): return ['1', '2', '3']\n", "returned list ['1', '2', '3']"),
        ("    def weights(self): return (1, 'a')\n", "returned a pair (w, b)"),
    ],
)
def test_the_command_names_the_learner_that_exits_or_returns_no_numbers(
    body, said, tmp_path, capsys
):
    from maxmargin.cli import main

    base = "import sys\nimport numpy as np\nclass L:\n"
    base += "    def start(self, d): self.w = np.zeros(d)\n"
    base += "    def step(self, x, y, t): pass\n    def weights(self): return self.w\n"
    (tmp_path / "l.py").write_text(base + body)
    compare = ["compare", "--epochs", "1", "--intercept", "augmented", "--learners"]
    for argv in (["run", "--learner"], compare):
        code = main([argv[0], "builtin:separable", *argv[1:], f"{tmp_path / 'l.py'}:L"])
        out, err = capsys.readouterr()
        assert code == 2 and len(err.strip().splitlines()) == 1 and said in err, err
    (tmp_path / "exits.py").write_text(EXITS_ON_IMPORT)
    assert main(["run", "builtin:separable", "--learner", f"{tmp_path / 'exits.py'}:A"]) == 2
    assert "called sys.exit(4)" in capsys.readouterr().err


def test_a_compiled_step_that_does_not_compile_is_blamed_on_the_learner():
    numba = pytest.importorskip("numba")
    from maxmargin.online import LearnerError, run

    class WrongSignature(_Buggy):
        compiled_step = staticmethod(numba.njit(lambda x, y: None))

        def state(self):
            return (self.w,)

    with pytest.raises(LearnerError, match=r"'WrongSignature' raised \w+ in compiled_step"):
        run(WrongSignature(), make_separable(20, 3, seed=0))


def test_the_pages_commands_run(doc, tmp_path, monkeypatch):
    """The console block of docs/own-learner.md, run as written (exit 0)."""
    from maxmargin.cli import main

    text = DOC.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    head = "import numpy as np\n"
    (tmp_path / "my_learners.py").write_text(
        head + "\n".join(b for b in blocks if "class MyPegasos" in b or "class MyPerceptron" in b)
    )
    monkeypatch.chdir(tmp_path)
    data = doc["data"]
    (tmp_path / "data.txt").write_text(
        "".join(
            f"{int(t):+d} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(x)) + "\n"
            for x, t in zip(data.dense(), data.y, strict=True)
        )
    )
    console = re.search(r"```console\n(.*?)```", text, re.S).group(1).replace("\\\n", " ")
    commands = [line[2:].split()[1:] for line in console.splitlines() if line.startswith("$ ")]
    assert any(c[0] == "path" for c in commands)
    for argv in commands:
        assert main(argv) == 0, argv


class _CountingPerceptron:
    """The perceptron in plain Python, counting its updates per example (``has_dual``)."""

    mistake_driven = True
    supported_intercepts = ("none", "augmented", "free")

    def __init__(self, indexed):
        self.has_dual = self.dual_counts_updates = indexed

    def start(self, d, n=0):
        self.w, self.bias, self.c = np.zeros(d), np.zeros(1), np.zeros(n)
        self.free = np.array([float(self.intercept == "free")])  # the bias moves: s = 1

    def step(self, x, y, t, i=None):
        if y * (self.w @ x + self.bias[0]) <= 0.0:
            self.w += y * x
            self.bias[0] += y * self.free[0]
            if i is not None:
                self.c[i] += 1.0

    def weights(self):
        return (self.w, float(self.bias[0])) if self.intercept == "free" else self.w

    def dual(self):
        return self.c

    def state(self):
        return (self.w, self.bias, self.c, self.free)


def _compiled_steps():
    numba = pytest.importorskip("numba")

    @numba.njit
    def plain(x, y, t, w, bias, c, free):
        f = bias[0]
        for j in range(w.shape[0]):
            f += w[j] * x[j]
        if y * f <= 0.0:
            for j in range(w.shape[0]):
                w[j] += y * x[j]
            bias[0] += y * free[0]

    @numba.njit
    def indexed(x, y, t, i, w, bias, c, free):
        f = bias[0]
        for j in range(w.shape[0]):
            f += w[j] * x[j]
        if y * f <= 0.0:
            for j in range(w.shape[0]):
                w[j] += y * x[j]
            bias[0] += y * free[0]
            c[i] += 1.0

    return plain, indexed


@pytest.mark.parametrize("intercept", ["none", "free"])
@pytest.mark.parametrize("indexed", [False, True], ids=["step(x, y, t)", "step(x, y, t, i)"])
def test_one_compiled_loop_runs_either_step_as_its_python_twin(indexed, intercept):
    """A compiled_step with and without the index runs compiled and equals its Python steps.

    Small integer features: every dot product is exact, so the two are equal bit for bit.
    """
    plain, with_index = _compiled_steps()

    class Compiled(_CountingPerceptron):
        compiled_step = staticmethod(with_index if indexed else plain)

        def step(self, x, y, t, i=None):  # the compiled loop never calls it
            raise AssertionError("the Python step ran")

    X = np.random.default_rng(4).integers(-3, 4, size=(30, 3)).astype(float)
    data = Dataset(X, np.where(X[:, 0] + X[:, 1] - X[:, 2] > 0, 1.0, -1.0))
    runs = []
    for learner in (_CountingPerceptron(indexed), Compiled(indexed)):
        learner.intercept = intercept
        runs.append(run(learner, data, epochs=4, order="shuffle", seed=2, record_dual=indexed))
    py, jit = runs
    for key in ("w", "b", "mistakes", "loss", "sqnorm", "dual"):
        assert np.array_equal(getattr(py, key), getattr(jit, key)) or key == "dual" and not indexed
    assert py.mistakes[-1] > 0 and (py.dual is not None) == indexed
