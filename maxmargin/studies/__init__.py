"""Studies: many data sets x C (or lambda) x learners x seeds x orders, resumable.

:func:`study` (``maxmargin study STUDY.toml --out DIR`` on the command line) validates a
TOML spec (:mod:`.spec`), lists its tasks with content-addressed keys (:mod:`.cells`),
runs the missing ones on local processes or a Dask cluster (:mod:`.executors`), writes
one file per finished cell (:mod:`.store`), assembles the tidy table (:mod:`.table`) and
the report (:mod:`.report`). How a learner entry becomes an object is in
:mod:`.learners`. See ``docs/study.md``.
"""

from .runner import StudyResult, study
from .spec import SpecError, StudySpec, load_spec

__all__ = ["study", "StudyResult", "StudySpec", "SpecError", "load_spec"]
