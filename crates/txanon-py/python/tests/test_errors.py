"""Bad input raises BadInput (a ValueError) with the CLI's one line: the argument, the value,
what is allowed; nothing is written, nothing aborts the interpreter."""

from __future__ import annotations

import pyarrow as pa
import pytest

import txanon


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda d: txanon.anonymize.cahd(d, p=1, sensitive_random=3), "p = 1: out of range, allowed 2 to"),
        (lambda d: txanon.anonymize.cahd(d, p=-5, sensitive_random=3), "p = -5: out of range"),
        (lambda d: txanon.anonymize.cahd(d, p=10**40, sensitive_random=3), "p = 1000000000000000000000000000000000000000"),
        (lambda d: txanon.anonymize.cahd(d, p=4, band="diagonal", sensitive_random=3), 'band = "diagonal": not allowed; one of aat, sym-pad, none'),
        (lambda d: txanon.anonymize.cahd(d, p=4), "sensitive: name the sensitive items"),
        (lambda d: txanon.anonymize.cahd(d, p=4, sensitive=["x"], sensitive_random=2), "not both"),
        (lambda d: txanon.anonymize.cahd(d, p=4, sensitive=["no-such-item"]), "1 label(s) not in the data: no-such-item"),
        (lambda d: txanon.anonymize.km(d, k=5, m=2, seed=-1), "seed = -1: out of range, allowed 0 to 18446744073709551615"),
        (lambda d: txanon.anonymize.km(d, k=5, m=2, seed=2**64), "seed = 18446744073709551616"),
        (lambda d: txanon.anonymize.km(d, k=0, m=2), "k = 0: out of range, allowed 2 to 4294967295"),
        (lambda d: txanon.anonymize.coherence(d, h=1.5, k=3, p=2, nugget_support=5, sensitive_random=2), "h = 1.5: out of range"),
        (lambda d: txanon.anonymize.coherence(d, h=0.4, k=3, p=2, nugget_support="lots", sensitive_random=2), "nugget_support"),
        (lambda d: txanon.anonymize.anatomy(d, columns=3, l=2, headroom=float("nan")), "headroom = NaN"),
        (lambda d: txanon.anonymize.anatomy(d, columns=2, l=2, item_columns=[["1"], ["2"]], partitioning="diverse"), "item_columns and partitioning: give the columns, or say how to build them, not both"),
        (lambda d: txanon.anonymize.anatomy(d, columns=2, l=2, item_columns=[["1"], ["2"]], headroom=0.5), "item_columns and headroom"),
        (lambda d: txanon.anonymize.anatomy(d, columns=2, l=2, item_columns=["1", "2"]), "item_columns: give one list of item labels per column"),
        (lambda d: txanon.anonymize.anatomy(d, columns=3, l=2, item_columns=[["1"], ["2"]]), "item-columns = 2 columns, with columns = 3"),
        (lambda d: txanon.anonymize.anatomy(d, columns=2, l=2, item_columns=[["1"], ["2"]]), "item(s) of the data are in no given column (the first: 0)"),
        (lambda d: txanon.anonymize.swap(d, random_categories=3, window=4, method="randswap"), "window bounds partial swapping"),
        (lambda d: txanon.anonymize.swap(d), "categories: give the items' categories"),
        (lambda d: txanon.anonymize.km(d, k=5, m=2, format="xml"), 'format "xml": not a format'),
        (lambda d: txanon.anonymize.km(d, k="5", m=2), "k = '5': not a whole number, allowed 2 to"),
        (lambda d: txanon.anonymize.km(d, k=5, m=2, max_cuts=0), "max_cuts = 0: out of range"),
    ],
)
def test_absurd_parameters(quest, call, message):
    with pytest.raises(txanon.BadInput) as raised:
        call(str(quest))
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)
    assert "\n" not in str(raised.value)


def test_a_float_column_is_refused():
    table = pa.table({"items": pa.array([[1.5, 2.0], [3.0]], pa.list_(pa.float64()))})
    with pytest.raises(txanon.BadInput, match="Float64"):
        txanon.anonymize.km(table, k=2, m=1)


def test_nulls_inside_item_lists_are_refused():
    table = pa.table({"items": pa.array([[1, None], [3]], pa.list_(pa.int32()))})
    with pytest.raises(txanon.BadInput, match="null"):
        txanon.read(table)


def test_an_unknown_shape_names_the_columns():
    table = pa.table({"when": [1, 2], "who": ["x", "y"], "what": [0.5, 1.5]})
    with pytest.raises(txanon.BadInput) as raised:
        txanon.read(table)
    message = str(raised.value)
    assert all(f'"{c}"' in message for c in ("when", "who", "what")), message


def test_empty_data_is_refused_or_infeasible(tmp_path):
    table = pa.table({"items": pa.array([], pa.list_(pa.uint32()))})
    with pytest.raises((txanon.BadInput, txanon.Infeasible)):
        txanon.anonymize.cahd(table, p=2, sensitive_random=1)
    assert not any(tmp_path.iterdir())


def test_something_that_is_not_data():
    with pytest.raises(txanon.BadInput, match="neither a path nor Arrow data"):
        txanon.anonymize.km(42, k=5, m=2)


def test_a_missing_file_names_it(tmp_path):
    with pytest.raises(txanon.BadInput, match="no-such.dat"):
        txanon.read(tmp_path / "no-such.dat")


def test_infeasible_settings_are_infeasible_not_bad_input(quest):
    with pytest.raises(txanon.Infeasible):
        txanon.anonymize.anatomy(str(quest), columns=3, l=3000)


def test_the_exceptions_mirror_the_exit_codes():
    assert issubclass(txanon.BadInput, ValueError)
    for cls in (txanon.BadInput, txanon.Infeasible, txanon.AuditFailed, txanon.InternalError):
        assert issubclass(cls, txanon.TxanonError)
    assert not issubclass(txanon.InternalError, ValueError)


def test_km_count_pieces_are_summed_or_refused_never_misread():
    """The shards' itemset counts travel as key runs (``txanon_data::key_runs``): summed part
    by part, a key below k is rare and one at k is not; a damaged piece is refused with the
    argument named."""
    from txanon import _txanon

    # One run: the key of rank 0 alone (its word 1, the rest zero), count 3 in the header.
    piece = bytes([3 << 3, 1, 0, 0, 0, 0xFF])
    assert _txanon.km_rare_count(_txanon.km_rare_in_union([piece, piece], k=7)) == 1
    assert _txanon.km_rare_count(_txanon.km_rare_in_union([piece, piece], k=6)) == 0
    with pytest.raises(txanon.BadInput, match=r"^pieces: key runs: the bytes end inside a run"):
        _txanon.km_rare_in_union([piece[:-1]], k=7)
    with pytest.raises(txanon.BadInput, match=r"^pieces: key runs: a key at byte 5 does not ascend"):
        _txanon.km_rare_in_union([piece[:-1] + bytes([3, 0, 0xFF])], k=7)


def test_coherence_itemset_pieces_are_summed_or_refused():
    """Coherence's itemset rows travel as key runs of five words (the itemset's four, then its
    private item's rank, 2³² − 1 for its support): a part's pieces summed row by row into one
    run; a damaged piece refused with the argument named."""
    from txanon import _txanon

    # Rank 0 with private rank 0 counted 3, then its support 1 (four words shared).
    support = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
    piece = bytes([3 << 3, 0, 0, 0, 1, 0, 4 | 1 << 3, *support, 0xFF])
    summed = _txanon.coherence_itemsets_in_union([piece, piece])
    assert summed == bytes([6 << 3, 0, 0, 0, 1, 0, 4 | 2 << 3, *support, 0xFF])
    with pytest.raises(txanon.BadInput, match=r"^pieces: key runs: the bytes end inside a run"):
        _txanon.coherence_itemsets_in_union([piece[:-1]])
