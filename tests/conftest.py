import os

import matplotlib
from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")
matplotlib.use("Agg")

# CI replays the same examples every run (a red CI must be reproducible); a developer's
# run explores new ones. A case found locally is pinned with @example in its test.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
