"""Every Python example of docs/PYTHON.md and the README runs as written (in a scratch directory that sees the
repository's datasets/)."""

from __future__ import annotations

import os
import re

import pytest

from conftest import REPO

DOCS = [REPO / "docs" / "PYTHON.md", REPO / "README.md"]
BLOCKS = [
    (doc.name, block)
    for doc in DOCS
    for block in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
]


def test_the_page_has_examples():
    assert sum(name == "PYTHON.md" for name, _ in BLOCKS) >= 5
    assert sum(name == "README.md" for name, _ in BLOCKS) == 1


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_example_runs(number, tmp_path, monkeypatch):
    name, code = BLOCKS[number]
    for library in ("duckdb", "polars", "pandas"):
        if re.search(rf"^import {library}\b", code, flags=re.M):
            pytest.importorskip(library)
    (tmp_path / "datasets").symlink_to(REPO / "datasets")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{name} example {number + 1}", "exec"), {"__name__": "__doc__"})
