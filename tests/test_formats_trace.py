"""The trace's JSON document (docs/formats.md): a newer format is named, not misread."""

import json

import pytest

import maxmargin as mm
from maxmargin import DataError


def test_trace_load_names_a_newer_format(tmp_path, separable):
    npz, js = mm.run("perceptron", separable).save(tmp_path / "tr")
    meta = json.loads(js.read_text())
    js.write_text(json.dumps({**meta, "format": "maxmargin.trace/2"}))
    with pytest.raises(DataError, match="upgrade maxmargin"):
        mm.Trace.load(npz)
