"""
ExactSVC in a scikit-learn pipeline: choosing C, with a certificate for every fit
=================================================================================

:class:`maxmargin.estimators.ExactSVC` is a scikit-learn classifier, so it drops into a
``Pipeline`` and a ``GridSearchCV``. Here it chooses C on the breast-cancer data
(standardised inside the pipeline, so every fold is scaled on its own training part).

Every fit also carries a certificate of optimality recomputed in numpy: the left panel
shows the cross-validated accuracy per C, the right one the certified relative duality
gap of the final fit at each C, next to the gap of libsvm's answer (``SVC(kernel=
"linear")`` at its default ``tol=1e-3``) certified the same way.

Seeded (the folds are stratified and unshuffled); runs in a few seconds; writes
``exact_svc_pipeline.png``.
"""

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from maxmargin import certify
from maxmargin.estimators import ExactSVC

X, y = load_breast_cancer(return_X_y=True)
Cs = np.logspace(-3, 1, 9)

pipe = make_pipeline(StandardScaler(), ExactSVC())
search = GridSearchCV(pipe, {"exactsvc__C": Cs}, cv=StratifiedKFold(5))
search.fit(X, y)
mean = search.cv_results_["mean_test_score"]
std = search.cv_results_["std_test_score"]
best_C = search.best_params_["exactsvc__C"]
print(f"best C = {best_C:.3g}, cross-validated accuracy {search.best_score_:.4f}")

# The certificate of the fit at every C (on all the data), and libsvm's point certified
# against the same problem: alpha from |dual_coef_|, w and b from coef_ and intercept_.
Xs = StandardScaler().fit_transform(X)
gap_mm, gap_sk, n_sv = [], [], []
for C in Cs:
    svc = ExactSVC(C=C).fit(Xs, y)
    gap_mm.append(abs(svc.certificate_.relative_gap))
    n_sv.append(len(svc.support_))
    sk = SVC(kernel="linear", C=C).fit(Xs, y)
    alpha = np.zeros(len(y))
    alpha[sk.support_] = np.abs(sk.dual_coef_[0])
    cert = certify(svc.solution_.problem, sk.coef_[0], float(sk.intercept_[0]), alpha)
    gap_sk.append(abs(cert.relative_gap))
    print(
        f"C = {C:8.3g}: {n_sv[-1]:3d} SVs, certified relative gap {gap_mm[-1]:.1e} "
        f"(SVC at tol=1e-3: {gap_sk[-1]:.1e}), certified: {svc.certificate_.ok}"
    )

fig = Figure(figsize=(11, 4.2))
left, right = fig.subplots(1, 2)
left.errorbar(Cs, mean, yerr=std, marker="o", capsize=3, label="ExactSVC, 5-fold CV")
left.axvline(best_C, color="0.5", ls="--", lw=1, label=f"best C = {best_C:.3g}")
left.set(xscale="log", xlabel="C", ylabel="accuracy", title="Cross-validated accuracy")
left.legend(loc="lower right")
floor = 1e-17  # a gap of exactly 0 would vanish from a log axis
right.plot(Cs, np.maximum(gap_mm, floor), "o-", label="ExactSVC (certified optimum)")
right.plot(Cs, np.maximum(gap_sk, floor), "s--", label="SVC(kernel='linear'), tol=1e-3")
right.set(
    xscale="log",
    yscale="log",
    xlabel="C",
    ylabel="|P - D| / max(1, |P|)",
    title="Relative duality gap, recomputed by maxmargin.certify",
)
right.legend(loc="center right")
fig.subplots_adjust(left=0.07, right=0.98, bottom=0.13, top=0.91, wspace=0.25)
out = Path("exact_svc_pipeline.png")
fig.savefig(out, dpi=110)
print(f"wrote {out}")
