"""txanon.generate.quest: the CLI's generator, and parts of a database too large for one
process (what txanon.spark.generate_quest makes, one per partition)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import txanon

OPTIONS = dict(avg_len=8, pattern_len=4, items=300, seed=1)


def test_the_whole_is_what_the_cli_generates(quest):
    # The `quest` fixture is `txanon generate quest` with these options and 3,000 transactions.
    generated = txanon.generate.quest(transactions=3000, **OPTIONS)
    assert generated.equals(txanon.read(quest))
    assert generated.column_names == ["items"]


def test_parts_repeat_differ_and_share_the_model():
    part = lambda j: txanon.generate.quest(transactions=4000, part=j, **OPTIONS)  # noqa: E731
    first, second = part(0), part(1)
    assert first.equals(part(0))
    assert not first.equals(second)
    assert not first.equals(txanon.generate.quest(transactions=4000, **OPTIONS))
    assert first.num_rows == second.num_rows == 4000

    def top(table: pa.Table) -> set[int]:
        flat = pa.compute.list_flatten(table.column("items"))
        counts = pa.compute.value_counts(flat).to_pylist()
        counts.sort(key=lambda c: -c["counts"])
        return {c["values"] for c in counts[:20]}

    other = txanon.generate.quest(transactions=4000, part=0, **(OPTIONS | dict(seed=2)))
    assert len(top(first) & top(second)) >= 14
    assert len(top(first) & top(other)) <= 8


@pytest.mark.parametrize(
    "options,message",
    [
        (dict(transactions=0), "transactions = 0: out of range, allowed 1 to"),
        (dict(transactions=10, part=-1), "part = -1: out of range, allowed 0 to"),
        (dict(transactions=10, items=0), "items = 0: out of range, allowed 1 to"),
        (dict(transactions=10, avg_len=0.5), "avg-len"),
        (dict(transactions=10, correlation=1.5), "correlation"),
        (dict(transactions=10, seed=-1), "seed = -1: out of range"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(txanon.BadInput) as raised:
        txanon.generate.quest(**options)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
