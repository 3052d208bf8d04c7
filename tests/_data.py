"""Helpers of the data tests (tests/test_data_*.py)."""


def _compress(how: str, data: bytes) -> bytes:
    import bz2
    import gzip

    return gzip.compress(data) if how == "gz" else bz2.compress(data)


def _memory(monkeypatch, nbytes):
    from maxmargin import _validation

    monkeypatch.setattr(_validation, "available_memory", lambda: nbytes)
