"""Studies: many data sets x C (or lambda) x learners x seeds x orders, resumable.

:func:`study` (``maxmargin study STUDY.toml --out DIR``): the spec (:mod:`.spec`), its
keyed tasks (:mod:`.cells`), their executors, store, table and report; ``docs/study.md``.
"""

from .runner import StudyResult, study
from .spec import SpecError, StudySpec, load_spec

__all__ = ["study", "StudyResult", "StudySpec", "SpecError", "load_spec"]
