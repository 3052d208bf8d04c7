"""maxmargin.online.registry: the one front door (resolve, resolve_all, digest).

Every kind of item a user may name a learner by, what a problem fixes, and every message of
a learner refused.
"""

from __future__ import annotations

import hashlib
import re
import sys

import numpy as np
import pytest

from maxmargin import SVMProblem, make_separable
from maxmargin.exceptions import ParameterError
from maxmargin.online import (
    LEARNERS,
    PA1,
    LearnerError,
    OnlineLearner,
    Pegasos,
    Perceptron,
    PythonLearner,
    Winnow,
    resolve,
    run,
)
from maxmargin.online.registry import digest, distribute, resolve_all

DATA = make_separable(20, 2, seed=0)


class Plain:
    """A learner of the public protocol, with a parameter and a declared objective."""

    objective = "lambda"
    problem_parameter = "lam"
    supported_intercepts = ("none", "augmented", "free")

    def __init__(self, lam=1.0, eta=0.5):
        self.lam, self.eta = lam, eta

    def start(self, d):
        self.w, self.b = np.zeros(d), 0.0

    def step(self, x, y, t):
        if y * (self.w @ x + self.b) < 1.0:
            self.w += self.eta * y * x
            self.b += self.eta * y if self.intercept == "free" else 0.0

    def weights(self):
        return (self.w, self.b) if self.intercept == "free" else self.w


class NoBias:
    """A protocol learner of the default ``supported_intercepts`` (no bias of its own)."""

    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) <= 0.0:
            self.w += y * x

    def weights(self):
        return self.w


FILE_LEARNER = """\
import numpy as np


class Mine:
    def start(self, d):
        self.w = np.zeros(d)

    def step(self, x, y, t):
        if y * (self.w @ x) <= 0.0:
            self.w += y * x

    def weights(self):
        return self.w
"""


@pytest.fixture
def learner_file(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(FILE_LEARNER)
    return path


def _problem(intercept="augmented", **kw):
    if "lam" not in kw:
        kw.setdefault("C", 4.0)
    return SVMProblem(DATA, intercept=intercept, **kw)


# ------------------------------------------------------------------ every kind of item


def test_a_registry_name_is_built_with_its_parameters():
    peg = resolve("pegasos", lam=0.5, projection="greedy")
    assert type(peg) is Pegasos and (peg.lam, peg.projection) == (0.5, "greedy")
    assert all(type(resolve(name)) is cls for name, cls in LEARNERS.items())


def test_a_module_target_and_a_class_are_built():
    assert type(resolve("maxmargin.online:PA1", C=0.5)) is PA1
    assert resolve(PA1, C=0.5).C == 0.5
    wrapped = resolve(Plain, eta=0.25)
    assert isinstance(wrapped, PythonLearner) and type(wrapped.learner) is Plain
    assert wrapped.learner.eta == 0.25 and wrapped.intercept == "free"


def test_a_file_target_is_imported_and_built(learner_file):
    learner = resolve(f"{learner_file}:Mine")
    assert isinstance(learner, PythonLearner) and type(learner.learner).__name__ == "Mine"
    assert learner.intercept == "augmented"  # what it supports: the default supported_intercepts
    assert run(learner, DATA, epochs=2).final_train_error == 0.0


def test_a_built_in_instance_is_returned_as_it_is():
    p = Perceptron(intercept="none")
    assert resolve(p) is p
    assert resolve(p, _problem("augmented")) is p  # it keeps its own intercept
    wrapped = resolve(NoBias())
    assert resolve(wrapped) is wrapped


def test_an_object_of_the_protocol_is_wrapped_with_an_intercept():
    own = Plain()
    own.intercept = "none"
    assert resolve(own, _problem("free", lam=1.0)).intercept == "none"  # its own
    assert resolve(Plain(), _problem("none", lam=1.0)).intercept == "none"  # the problem's
    assert resolve(Plain()).intercept == "free"  # the default, which it supports
    assert resolve(NoBias()).intercept == "augmented"  # the default's kin
    assert resolve(NoBias(), _problem("free")).intercept == "augmented"
    assert resolve(Plain(), intercept="augmented", intercept_scaling=2.0).intercept_scaling == 2.0


def test_a_scikit_learn_estimator_is_adapted():
    sk = pytest.importorskip("sklearn.linear_model")
    learner = resolve(sk.SGDClassifier(alpha=0.01, fit_intercept=False))
    assert isinstance(learner, PythonLearner)
    assert type(learner.learner).__name__ == "SklearnLearner" and learner.intercept == "none"
    assert learner.objective == "lambda" and learner.lam == 0.01


class _RiverPerceptron:
    """The shape of a river classifier (``learn_one``, ``weights``, ``clone``)."""

    __module__ = "river.linear_model.fake"

    def __init__(self):
        self.weights, self.intercept = {}, 0.0

    def clone(self):
        return _RiverPerceptron()

    def learn_one(self, x, y):
        sign = 1.0 if y else -1.0
        if sign * (sum(self.weights.get(j, 0.0) * v for j, v in x.items()) + self.intercept) <= 0:
            for j, v in x.items():
                self.weights[j] = self.weights.get(j, 0.0) + sign * v
            self.intercept += sign


def test_a_river_classifier_is_adapted():
    learner = resolve(_RiverPerceptron())
    assert type(learner.learner).__name__ == "RiverLearner" and learner.intercept == "free"
    assert run(learner, DATA, epochs=3).t[-1] == 3 * DATA.n


def test_a_pair_is_a_target_with_its_parameters():
    peg = resolve(("pegasos", {"lam": 0.5, "batch_size": 2}))
    assert (peg.lam, peg.batch_size) == (0.5, 2)
    assert resolve(("pegasos", {"lam": 0.5}), lam=0.25).lam == 0.25  # keywords win
    assert resolve(("pegasos", {"intercept": "none"})).intercept == "none"
    assert resolve(("pegasos", {"intercept": "none"}), intercept="augmented").intercept == (
        "augmented"
    )
    assert resolve((Plain, {"eta": 0.1}), _problem("none", lam=2.0)).learner.lam == 2.0


def test_run_goes_through_the_front_door():
    by_pair = run(("pegasos", {"lam": 0.1}), DATA, epochs=2)
    by_object = run(Pegasos(lam=0.1), DATA, epochs=2)
    assert by_pair.params == by_object.params
    np.testing.assert_array_equal(by_pair.w, by_object.w)
    with pytest.raises(ParameterError, match="unknown learner 'svm'"):
        run("svm", DATA)


# ------------------------------------------------------------------ what a problem fixes


def test_a_problem_fixes_intercept_scaling_and_its_parameter():
    p = _problem("augmented", intercept_scaling=2.0)
    peg = resolve("pegasos", p, projection="greedy")
    assert (peg.lam, peg.intercept, peg.intercept_scaling, peg.projection) == (
        p.lam,
        "augmented",
        2.0,
        "greedy",
    )
    assert resolve("pa1", p).C == 4.0 and resolve("pa1", p, C=0.5).C == 0.5
    assert resolve(Perceptron, p).get_params() == {
        "intercept": "augmented",
        "intercept_scaling": 2.0,
    }
    plain = resolve(Plain, p)
    assert plain.learner.lam == p.lam and plain.intercept == "augmented"
    assert plain.intercept_scaling == 2.0


def test_a_learner_without_the_problems_intercept_gets_its_own():
    """Winnow has no bias: intercept_for gives it "none" (scored against its own problem)."""
    assert resolve("winnow", _problem("free")).intercept == "none"
    assert resolve("winnow", _problem("augmented")).intercept == "none"
    assert resolve("pegasos", _problem("free"), intercept="none").intercept == "none"


def test_an_instance_must_agree_on_its_objectives_parameter():
    p = _problem("augmented", lam=0.1)
    assert resolve(Pegasos(lam=0.1, intercept="augmented"), p).lam == 0.1
    with pytest.raises(ParameterError) as err:
        resolve(Pegasos(lam=0.5), p)
    assert re.search(
        r"has lam=0\.5, the problem lam=0\.1: it minimises another objective", str(err.value)
    )
    with pytest.raises(ParameterError, match=r"has lam=1, the problem lam=0\.1"):
        resolve(Plain(), p)
    resolve(Perceptron(), p)  # no objective: nothing to agree on


# ------------------------------------------------------------------ every refusal


@pytest.mark.parametrize(
    "item, said",
    [
        ("svm", "unknown learner 'svm'; choose from perceptron, "),
        (
            3,
            "a learner is a built-in name, module:Class or path/file.py:Class, a class, .* got int",
        ),
        ("no_such_module_xyz:A", "cannot import module 'no_such_module_xyz': .*PYTHONPATH"),
        ("maxmargin.online:Nope", "maxmargin.online has no 'Nope'"),
        ("maxmargin.data:Dataset", "'maxmargin.data:Dataset' is neither a maxmargin.online"),
        (dict, "is neither a maxmargin.online.OnlineLearner nor a class with start"),
        (("pegasos",), r"a learner given as a pair is \(target, params\) with params a dict"),
        (("pegasos", "lam"), r"a learner given as a pair is \(target, params\)"),
        (NoBias, "learner 'NoBias' has no parameter lam; it accepts none"),
    ],
)
def test_what_is_not_a_learner_is_refused_in_one_line(item, said):
    with pytest.raises(ParameterError) as err:
        resolve(item, lam=1.0) if item is NoBias else resolve(item)
    assert re.search(said, str(err.value)) and "\n" not in str(err.value)


def test_a_file_that_does_not_import_is_refused(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1 / 0\n")
    with pytest.raises(ParameterError, match=r"importing .*bad\.py failed: ZeroDivisionError"):
        resolve(f"{bad}:A")
    with pytest.raises(ParameterError, match=r"cannot read .*missing\.py"):
        resolve(f"{tmp_path / 'missing.py'}:A")
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(4)\n")
    with pytest.raises(LearnerError, match=r"called sys.exit\(4\); a learner's module must not"):
        resolve(f"{exits}:A")


def test_parameters_are_checked_before_the_constructor_runs():
    with pytest.raises(ParameterError) as err:
        resolve("pegasos", eta0=1.0)
    assert str(err.value).startswith("learner 'pegasos' has no parameter eta0; it accepts lam, ")
    with pytest.raises(ParameterError, match="The 'lam' parameter must be"):
        resolve("pegasos", lam=-1.0)  # the constructor's own message
    with pytest.raises(ParameterError, match="Winnow supports intercept 'none', not 'free'"):
        resolve("winnow", intercept="free")
    with pytest.raises(ParameterError, match=r"NoBias supports intercept 'none' or 'augmented'"):
        resolve(NoBias(), intercept="free")


def test_a_constructor_that_raises_or_exits_is_one_line():
    class Raises(Plain):
        def __init__(self):
            raise ValueError("nope\nsecond line")

    class Quits(Plain):
        def __init__(self):
            sys.exit(0)

    with pytest.raises(
        ParameterError, match=r"^building learner 'Raises' failed: ValueError: nope$"
    ):
        resolve(Raises)
    with pytest.raises(LearnerError, match=r"'Quits': its constructor called sys.exit\(0\)"):
        resolve(Quits)


def test_an_instance_takes_no_parameters():
    with pytest.raises(ParameterError, match="Pegasos is already built: set batch_size, lam in"):
        resolve(Pegasos(), lam=0.1, batch_size=2)
    with pytest.raises(ParameterError, match="Plain is already built: set eta in its constructor"):
        resolve(Plain(), eta=0.1)
    with pytest.raises(ParameterError, match="already built with its intercept: leave out inter"):
        resolve(Perceptron(), intercept="none")
    with pytest.raises(ParameterError, match="leave out intercept_scaling"):
        resolve(Perceptron(), intercept_scaling=2.0)


# ------------------------------------------------------------------ several learners


def test_shared_options_go_to_the_learners_that_take_them():
    peg, perc, sub = resolve_all(
        ["pegasos", "perceptron", ("subgradient", {"lam": 0.5})], shared={"lam": 0.25}
    )
    assert (peg.lam, sub.lam) == (0.25, 0.5) and isinstance(perc, Perceptron)
    assert [lr.intercept for lr in resolve_all(["pegasos", "winnow"], _problem("free"))] == [
        "free",
        "none",
    ]
    assert [lr.intercept for lr in resolve_all(["pa", Plain], intercept="none")] == ["none"] * 2
    both = resolve_all(["pa", ("pa1", {"intercept": "free"})], intercept="none")
    assert [lr.intercept for lr in both] == ["none", "free"]  # a pair's own wins
    (one,) = resolve_all("pegasos", shared={"lam": 0.5})
    assert one.lam == 0.5


def test_a_shared_option_no_learner_takes_is_an_error():
    with pytest.raises(ParameterError) as err:
        resolve_all(["pegasos", "perceptron"], shared={"eta0": 1.0})
    assert str(err.value) == (
        "option 'eta0' applies to none of the learners given (pegasos, perceptron); "
        "it is for subgradient"
    )
    with pytest.raises(ParameterError, match=r"\(Plain\); no built-in learner takes it"):
        resolve_all([Plain], shared={"gamma_prime": 1.0})
    assert resolve_all([Pegasos(lam=0.1)], shared={})[0].lam == 0.1


def test_a_learner_given_twice_is_an_error():
    with pytest.raises(ParameterError, match="learner 'pegasos' given twice; each needs a name"):
        resolve_all(["pegasos", ("pegasos", {"lam": 0.1})])


def test_distribute_pairs_each_learner_with_the_options_it_takes():
    pairs = distribute(
        ["pegasos", "pa1", ("subgradient", {"lam": 0.3})],
        shared={"lam": 0.5, "C": 2.0},
        params={"eta0": 0.1},
    )
    assert pairs == [
        ("pegasos", {"lam": 0.5}),
        ("pa1", {"C": 2.0}),
        ("subgradient", {"lam": 0.3, "eta0": 0.1}),  # a pair's own wins
    ]
    # a parameter of the caller's choosing wins over a shared option (--learner-param lam)
    assert distribute(["pegasos"], shared={"lam": 0.1}, params={"lam": 0.5}) == [
        ("pegasos", {"lam": 0.5})
    ]
    with pytest.raises(ParameterError, match="unknown learner|no learner named|nosuch"):
        distribute(["pegasos", "nosuch"])


def test_an_option_no_learner_takes_is_named_as_the_caller_spells_it():
    """The command line's messages (docs/bad-input.md) come from the registry, once."""
    with pytest.raises(ParameterError) as err:
        distribute(["subgradient"], shared={"C": 1e-6}, spelled={"C": "--C"})
    assert str(err.value).startswith(
        "--C applies to none of the learners given (subgradient); it is for pa1, pa2"
    )
    with pytest.raises(ParameterError) as err:
        resolve_all(
            ["pegasos", "perceptron"],
            params={"bogus": 1},
            spelled={"bogus": "--learner-param bogus"},
        )
    assert str(err.value) == (
        "--learner-param bogus: no learner given takes 'bogus' (pegasos: batch_size, "
        "intercept, intercept_scaling, lam, loss, projection, step; perceptron: intercept, "
        "intercept_scaling)"
    )
    with pytest.raises(ParameterError, match=r"^parameter 'step': no learner given takes"):
        distribute(["perceptron"], params={"step": "constant"})


# ------------------------------------------------------------------ digest


def test_the_digest_is_the_hash_of_the_learners_source(learner_file):
    assert digest("pegasos") == digest(Pegasos) == digest(("pa1", {"C": 1.0})) == ""
    expected = hashlib.sha256(learner_file.read_bytes()).hexdigest()
    assert digest(f"{learner_file}:Mine") == expected
    learner_file.write_text(FILE_LEARNER + "\n# edited\n")
    assert digest(f"{learner_file}:Mine") not in ("", expected)
    here = hashlib.sha256(open(__file__, "rb").read()).hexdigest()
    assert digest(Plain) == here and digest((Plain, {})) == here


def test_every_built_in_learner_is_an_online_learner():
    assert all(issubclass(cls, OnlineLearner) for cls in LEARNERS.values())
    assert Winnow().intercept == "none"
