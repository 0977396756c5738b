"""txanon.evaluate measures what `txanon evaluate` measures, and writes the directory it
writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import txanon

ARGS = dict(methods=["cahd", "km"], levels=[4, 8], known=[1, 2], sensitive_random=5, seed=1)
CLI = ["--methods", "cahd,km", "--levels", "4,8", "--known", "1,2", "--sensitive-random", "5", "--seed", "1"]


def without_seconds(value):
    """results.json with the timings (which differ between any two runs) taken out."""
    if isinstance(value, dict):
        return {k: without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [without_seconds(v) for v in value]
    return value


def test_an_evaluation_matches_the_clis(cli, quest, tmp_path):
    evaluation = txanon.evaluate(str(quest), **ARGS)
    out = tmp_path / "cli"
    cli("evaluate", quest, *CLI, "-o", out)
    expected = json.loads((out / "results.json").read_text())
    assert without_seconds(evaluation.results) == without_seconds(expected)
    written = Path(evaluation.write(tmp_path / "py"))
    assert sorted(p.name for p in written.iterdir()) == sorted(p.name for p in out.iterdir())
    manifest, cli_manifest = (json.loads((d / "manifest.json").read_text()) for d in (written, out))
    assert manifest["parameters"] == cli_manifest["parameters"]
    assert manifest["inputs"] == cli_manifest["inputs"]


def test_the_tables(quest):
    evaluation = txanon.evaluate(txanon.read(quest), **ARGS)
    points = evaluation.points
    assert {"method", "level", "outcome", "q", "reid_mean", "f1_support_1"} <= set(points.column_names)
    methods = set(points.column("method").to_pylist())
    assert {"original", "sensitive removed", "cahd", "km"} <= methods
    frontier = evaluation.frontier.to_pylist()
    assert frontier and any(row["frontier"] for row in frontier)
    for row in frontier:
        reference = row["method"] in ("original", "sensitive removed")
        assert row["frontier"] == (row["beaten_by"] == [] and not reference)
        assert row["adversary"] in {"reidentification", "sensitive-inference", "tendency-inference"}
    guarantees = evaluation.guarantees.to_pylist()
    assert {g["method"] for g in guarantees} == {"cahd", "km"}
    assert evaluation.html.lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(levels=[4, 4]), "levels: 4 is given twice"),
        (dict(methods=["cahd", "magic"]), 'methods: unknown method "magic"'),
        (dict(levels=[1]), "levels = 1: out of range, allowed 2 to"),
        (dict(supports=[0.0]), "supports: 0 is not a share"),
        (dict(known=[0]), "known = 0: out of range"),
        (dict(anatomy_columns=1), "anatomy_columns = 1: out of range"),
    ],
)
def test_bad_options(quest, kwargs, message):
    with pytest.raises(txanon.BadInput) as raised:
        txanon.evaluate(str(quest), **{**ARGS, **kwargs})
    assert message in str(raised.value)


def test_a_decision_for_the_named_risk_matches_the_clis(cli, quest, tmp_path):
    budget = dict(threat=["reidentification"], max_risk=0.5)
    evaluation = txanon.evaluate(str(quest), **ARGS, **budget)
    decision = evaluation.decision
    assert decision["recommended"]["worst_risk"] <= 0.5
    assert decision["recommended"]["method"] in {"cahd", "km"}
    assert decision["command"].startswith(f"txanon anonymize {decision['recommended']['method']} {quest}")
    out = tmp_path / "cli"
    cli("evaluate", quest, *CLI, "--threat", "reidentification", "--max-risk", "0.5", "-o", out)
    expected = json.loads((out / "results.json").read_text())["decision"]
    assert without_seconds({**decision, "command": None}) == without_seconds({**expected, "command": None})
    written = Path(evaluation.write(tmp_path / "py"))
    # The drawn sensitive items are written beside the report, as the command expects them.
    assert (written / "sensitive.txt").read_text() == (out / "sensitive.txt").read_text()
    assert txanon.evaluate(str(quest), **ARGS).decision is None


def test_a_budget_nothing_meets(quest):
    evaluation = txanon.evaluate(str(quest), **ARGS, threat=["reidentification"], max_risk=1e-9)
    decision = evaluation.decision
    assert decision["recommended"] is None and decision["command"] is None
    assert "would meet a budget of" in decision["text"]
    with pytest.raises(txanon.BadInput, match="a decision needs both"):
        txanon.evaluate(str(quest), **ARGS, threat=["reidentification"])
    with pytest.raises(txanon.BadInput, match='unknown threat "gossip"'):
        txanon.evaluate(str(quest), **ARGS, threat=["gossip"], max_risk=0.1)
