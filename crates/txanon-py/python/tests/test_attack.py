"""txanon.attack on one publication scores what txanon.evaluate scores on the same publication
(made again with the evaluation's settings and seed)."""

from __future__ import annotations

import pytest

import txanon
from conftest import EXAMPLES


def evaluated(quest, method, level=4):
    evaluation = txanon.evaluate(
        str(quest), sensitive=SENSITIVE, methods=[method], levels=[level], known=[1, 2],
        draws=3, random_categories=5 if method == "swap" else None, seed=5,
    )
    rows = evaluation.points.to_pylist()
    return {r["q"]: r for r in rows if r["method"] == method}


SENSITIVE = ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize(
    "method,level,make",
    [
        ("km", 4, lambda d: txanon.anonymize.km(d, k=4, m=2, seed=5)),
        ("cahd", 4, lambda d: txanon.anonymize.cahd(d, p=4, sensitive=SENSITIVE, seed=5)),
        ("anatomy", 2, lambda d: txanon.anonymize.anatomy(d, columns=10, l=2, seed=5)),
    ],
)
def test_one_publication_scores_as_in_the_evaluation(quest, method, level, make):
    expected = evaluated(quest, method, level)
    risks = txanon.attack(make(str(quest)), sensitive=SENSITIVE, known=[1, 2], draws=3, seed=5)
    rows = {(r["known"], r["adversary"]): r for r in risks.to_pylist()}
    for q in (1, 2):
        assert rows[(q, "reidentification")]["mean"] == pytest.approx(expected[q]["reid_mean"], abs=1e-12)
        assert rows[(q, "sensitive-inference")]["mean"] == pytest.approx(expected[q]["sensitive_mean"], abs=1e-12)


def test_swap_is_attacked_through_its_key_and_tendency(quest):
    publication = txanon.anonymize.swap(str(quest), random_categories=5, seed=2)
    risks = txanon.attack(publication, known=[2], draws=2)
    assert {r["adversary"] for r in risks.to_pylist()} == {
        "reidentification", "sensitive-inference", "tendency-inference"
    }


def test_microdata_and_bad_options_are_refused(quest):
    sliced = txanon.anonymize.slicing(
        EXAMPLES / "slicing-table1.csv", schema=EXAMPLES / "slicing-table1.schema.json",
        column_spec="Age,Sex;Zipcode,Disease", l=2, seed=1,
    )
    with pytest.raises(txanon.BadInput, match="relational microdata"):
        txanon.attack(sliced)
    km = txanon.anonymize.km(str(quest), k=4, m=2, seed=5)
    with pytest.raises(txanon.BadInput, match="known = 0"):
        txanon.attack(km, known=[0])
    with pytest.raises(txanon.BadInput, match="not in the data: nope"):
        txanon.attack(km, sensitive=["nope"])
