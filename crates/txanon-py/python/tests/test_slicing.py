"""Slicing and its baselines through Python publish the CLI's bytes, and their audit catches a
tampered table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import txanon
from conftest import EXAMPLES, files, real_dataset

TABLE1 = EXAMPLES / "slicing-table1.csv"
SCHEMA1 = EXAMPLES / "slicing-table1.schema.json"


@pytest.mark.parametrize(
    "cli_args,kwargs",
    [
        (["--column-spec", "Age,Sex;Zipcode,Disease", "-l", "2"], dict(column_spec="Age,Sex;Zipcode,Disease", l=2)),
        (["--method", "mondrian", "-l", "2", "-k", "2"], dict(method="mondrian", l=2, k=2)),
        (["--method", "anatomy", "-l", "2"], dict(method="anatomy", l=2)),
    ],
)
def test_the_worked_example_publishes_the_clis_bytes(cli, tmp_path, cli_args, kwargs):
    out = tmp_path / "cli"
    cli("anonymize", "slicing", TABLE1, "--schema", SCHEMA1, *cli_args, "--seed", "3", "-o", out)
    publication = txanon.anonymize.slicing(TABLE1, schema=SCHEMA1, seed=3, **kwargs)
    written = Path(publication.write(tmp_path / "py"))
    assert files(written) == files(out)
    report = txanon.audit.slicing(written, original=TABLE1, schema=SCHEMA1, l=2, k=kwargs.get("k"))
    assert report["manifest"]["status"] == "verified"


def test_adult_sliced_and_audited(tmp_path):
    adult = real_dataset("adult.csv")
    schema = Path(__file__).resolve().parents[4] / "datasets" / "adult.schema.json"
    publication = txanon.anonymize.slicing(adult, schema=schema, columns=3, sensitive_alone=True, l=5, seed=1)
    assert publication.summary["tuples"] > 30_000
    out = publication.write(tmp_path / "adult")
    assert txanon.audit.slicing(out, original=adult, schema=schema, l=5)["manifest"]["files"] == 3


def test_a_tampered_bucket_fails_behind_a_rehashed_manifest(tmp_path):
    from test_audits import rehash

    out = Path(txanon.anonymize.slicing(
        TABLE1, schema=SCHEMA1, column_spec="Age,Sex;Zipcode,Disease", l=2, seed=3
    ).write(tmp_path / "s"))
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.slicing(out, original=TABLE1, schema=SCHEMA1, l=3)
    assert failed.value.violations and all(v.family == "slicing" for v in failed.value.violations)
    # A published value changed and the manifest made to list it: only the family's audit can
    # tell.
    sliced = out / "sliced.csv"
    lines = sliced.read_text().splitlines()
    lines[-1] = lines[-1].rsplit(",", 1)[0] + ",Flu"
    sliced.write_text("\n".join(lines) + "\n")
    rehash(out)
    with pytest.raises(txanon.AuditFailed):
        txanon.audit.slicing(out, original=TABLE1, schema=SCHEMA1, l=2)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(method="anatomy", k=3), "k does not apply to method anatomy"),
        (dict(method="mondrian", columns=2), "columns does not apply to method mondrian"),
        (dict(l=1), "l = 1: out of range, allowed 2 to"),
        (dict(cut="all"), 'cut = "all": not allowed; one of first, any'),
        (dict(), "slicing needs a number of columns"),
    ],
)
def test_bad_options(kwargs, message):
    args = {"l": 2, **kwargs}
    with pytest.raises(txanon.BadInput) as raised:
        txanon.anonymize.slicing(TABLE1, schema=SCHEMA1, **args)
    assert message in str(raised.value)


def test_arrow_data_is_refused_for_microdata():
    import pyarrow as pa

    with pytest.raises(txanon.BadInput, match="pass the file's path"):
        txanon.anonymize.slicing(pa.table({"Age": [1]}), schema=SCHEMA1, l=2, column_spec="Age")
