"""The audits: a publication passes under its own claim; a tampered one raises AuditFailed with
the violation's kind, whether the tampering breaks the manifest or keeps it consistent."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import txanon
from conftest import EXAMPLES, label_list


def rehash(directory: Path) -> None:
    """Lists the directory's files in its manifest again: tampering the manifest cannot see,
    which only the family's audit can catch."""
    manifest_path = directory / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"] = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.iterdir())
        if p.name != "manifest.json"
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


def test_a_publication_passes_its_own_claim(quest, tmp_path):
    publication = txanon.anonymize.km(quest, k=5, m=2, seed=1)
    out = publication.write(tmp_path / "km")
    report = txanon.audit.km(out, k=5, m=2, original=quest)
    assert report["manifest"] == {"status": "verified", "directory": out, "files": 4}
    # In memory, the publication is written to a scratch directory and audited there.
    in_memory = txanon.audit.km(publication, k=5, m=2, original=quest)
    assert {k: v for k, v in in_memory.items() if k != "manifest"} == {
        k: v for k, v in report.items() if k != "manifest"
    }


def test_a_stricter_claim_fails_with_typed_violations(quest, tmp_path):
    out = txanon.anonymize.km(quest, k=5, m=2, seed=1).write(tmp_path / "km")
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.km(out, k=500, m=2)
    violations = failed.value.violations
    assert violations, "the failure lists its violations"
    assert all(v.family == "km" for v in violations)
    assert "rare-itemset" in failed.value.kinds
    rare = next(v for v in violations if v.kind == "rare-itemset")
    assert rare["support"] < 500


def test_a_changed_file_fails_the_manifest(quest, tmp_path):
    out = Path(txanon.anonymize.coherence(
        quest, h=0.4, k=3, p=2, nugget_support="1%", sensitive_random=5, seed=1
    ).write(tmp_path / "coherence"))
    published = out / "published.dat"
    published.write_text(published.read_text() + "1 2 3\n")
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.coherence(out, h=0.4, k=3, p=2, sensitive=["1"])
    assert failed.value.kinds == ["manifest"]
    assert "sha256 differs" in failed.value.violations[0]["message"]


def test_a_missing_manifest_fails(quest, tmp_path):
    out = Path(txanon.anonymize.km(quest, k=5, m=2, seed=1).write(tmp_path / "km"))
    (out / "manifest.json").unlink()
    with pytest.raises(txanon.AuditFailed, match="no manifest.json") as failed:
        txanon.audit.km(out, k=5, m=2)
    assert failed.value.kinds == ["manifest"]


def test_cahd_counts_tampered_behind_the_manifest(tmp_path):
    data = EXAMPLES / "cahd-example.csv"
    sensitive = label_list(EXAMPLES / "cahd-example.sensitive")
    out = Path(txanon.anonymize.cahd(data, p=2, sensitive=sensitive, seed=1).write(tmp_path / "c"))
    assert txanon.audit.cahd(out, p=2, sensitive=sensitive, original=data)["manifest"]["files"] == 3
    groups = json.loads((out / "groups.json").read_text())
    # Every sensitive occurrence moved into the first group: its degree drops below p.
    first = groups["groups"][0]
    first["sensitive"] = [[item, len(first["qid"])] for item, _ in first["sensitive"]] or first["sensitive"]
    (out / "groups.json").write_text(json.dumps(groups))
    rehash(out)
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.cahd(out, p=2, sensitive=sensitive, original=data)
    assert {"degree-below", "group-sensitive", "sensitive-total"} & set(failed.value.kinds)


def test_anatomy_buckets_tampered_behind_the_manifest(quest, tmp_path):
    out = Path(txanon.anonymize.anatomy(quest, columns=3, l=2, seed=1).write(tmp_path / "a"))
    assert txanon.audit.anatomy(out, l=2, original=quest)["manifest"]["status"] == "verified"
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.anatomy(out, l=50)
    assert set(failed.value.kinds) <= {"share-above-bound", "too-few-distinct"}
    assert failed.value.violations[0].family == "anatomy"


def test_swap_needs_the_key_and_checks_it(quest, tmp_path):
    key = tmp_path / "secret.key"
    publication = txanon.anonymize.swap(quest, random_categories=5, seed=2, key_out=key)
    assert key.stat().st_mode & 0o777 == 0o600
    out = Path(publication.write(tmp_path / "swap"))
    report = txanon.audit.swap(
        out, original=quest, categories=out / "categories.txt", key=key
    )
    assert report["records"] == 3000
    # A key that links the wrong records.
    lines = key.read_text().splitlines()
    body = [l for l in lines if not l.startswith("#")]
    body[0], body[1] = body[1], body[0]
    key.write_text("\n".join(body) + "\n")
    with pytest.raises(txanon.AuditFailed) as failed:
        txanon.audit.swap(out, original=quest, categories=out / "categories.txt", key=key)
    assert all(v.family == "swap" for v in failed.value.violations)


def test_the_key_never_goes_into_a_publication(quest, tmp_path):
    key = tmp_path / "out" / "secret.key"
    key.parent.mkdir()
    publication = txanon.anonymize.swap(quest, random_categories=5, seed=2, key_out=key)
    with pytest.raises(txanon.BadInput, match="holds the key"):
        publication.write(tmp_path / "out", force=True)
    assert key.is_file()
