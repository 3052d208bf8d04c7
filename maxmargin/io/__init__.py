"""Persistence: strict JSON documents, tidy tables, and files written atomically.

- :mod:`~maxmargin.io.json`: the JSON sanitiser and the ``format`` header of every document;
- :mod:`~maxmargin.io.tables`: CSV text and pandas DataFrames of a result's table;
- :mod:`~maxmargin.io.files`: atomic writes and the checks of a command's outputs.
"""
