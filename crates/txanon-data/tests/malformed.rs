//! Bad input gets a precise error naming file, line, column and reason; no byte sequence panics.

use std::io::Write;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use txanon_data::{DataError, Format, ReadOptions, Schema, Table, read_bytes, read_path};

fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Reads `bytes` as a file called `name` and returns the error message, which must start with
/// the file's path.
fn error_of(name: &str, bytes: &[u8]) -> (String, DataError) {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), name, bytes);
    let err = read_path(&p, &ReadOptions::new()).expect_err("must be rejected");
    let msg = err.to_string();
    assert!(msg.starts_with(&p.display().to_string()), "message names the file: {msg}");
    (msg.replace(&p.display().to_string(), "FILE"), err)
}

#[test]
fn fimi_errors() {
    assert_eq!(error_of("a.dat", b"1 2\n3 4\n5 six 7\n").0, "FILE:3:3: non-numeric token \"six\"");
    assert_eq!(error_of("a.dat", b"1 2.5\n").0, "FILE:1:3: non-numeric token \"2.5\"");
    assert_eq!(
        error_of("a.dat", b"1\n99999999999\n").0,
        "FILE:2:1: item id 99999999999 is beyond u32 (max 4294967295)"
    );
    assert_eq!(error_of("a.dat", b"1 -1\n").0, "FILE:1:3: negative item id \"-1\"");
    assert_eq!(error_of("a.dat", b"").0, "FILE: file is empty");
    assert_eq!(
        error_of("a.dat", b"1\n\xff\xfe\n").0,
        "FILE:2:1: non-numeric token \"\u{fffd}\u{fffd}\""
    );
}

#[test]
fn spmf_errors() {
    assert_eq!(
        error_of("a.spmf", b"# c\n1 -1 2 -1 -2\n1 -3 -2\n").0,
        "FILE:3:3: invalid token \"-3\" (SPMF allows only the markers -1 and -2 below zero)"
    );
}

#[test]
fn csv_errors() {
    assert_eq!(
        error_of("a.csv", b"transaction_id,item\n1,milk\n2,bread,extra\n").0,
        "FILE:3: expected 2 columns as the header has, found 3"
    );
    assert_eq!(error_of("a.csv", b"milk,\"bread\n").0, "FILE:1:6: unterminated quoted field");
    assert_eq!(error_of("a.csv", b"milk\nbr\xc3(ad\n").0, "FILE:2:3: invalid UTF-8");
    assert_eq!(error_of("a.csv", b"").0, "FILE: file is empty");
}

#[test]
fn gzip_errors() {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"1 2 3\n4 5 6\n".repeat(1000).as_slice()).unwrap();
    let mut gz = enc.finish().unwrap();
    // A valid stream reads like the plain file.
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "ok.dat.gz", &gz);
    let (db, report) = read_path(&p, &ReadOptions::new()).unwrap();
    assert_eq!((db.len(), report.gzip), (2000, true));
    // A corrupted one is a gzip error naming the file, never a panic or a silent short read.
    let mid = gz.len() / 2;
    gz[mid] ^= 0xff;
    gz.truncate(gz.len() - 4);
    let (msg, err) = error_of("bad.dat.gz", &gz);
    assert!(matches!(err, DataError::Gzip { .. }), "{err:?}");
    assert!(msg.contains("unreadable gzip stream"), "{msg}");
}

#[test]
fn unknown_extension_is_named() {
    let (msg, _) = error_of("a.bin", b"1 2\n");
    assert!(msg.contains("cannot tell the format"), "{msg}");
}

#[test]
fn schema_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let schema_path = file(
        dir.path(),
        "s.json",
        br#"{"name":"s","attributes":[{"name":"age","type":"numeric","role":"quasi_identifier"},{"name":"d","type":"categorical","role":"sensitive"}]}"#,
    );
    let schema = Schema::from_path(&schema_path).unwrap();
    let data = file(dir.path(), "t.csv", b"30,flu\n31,cold,extra\n");
    let msg = Table::read(&data, &schema).unwrap_err().to_string();
    assert_eq!(msg, format!("{}:2: expected 2 fields (schema \"s\"), found 3", data.display()));
    let bad_schema =
        file(dir.path(), "bad.json", b"{\"name\": \"s\", \"attributes\": [ {\"name\": 1} ]}");
    let msg = Schema::from_path(&bad_schema).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}:1:", bad_schema.display())) && msg.contains("invalid schema"),
        "{msg}"
    );
}

/// A gzip stream cut short (here its magic bytes alone) is the input's fault in every format,
/// the columnar ones too (they read the whole stream first, where it was an I/O error of the
/// machine: exit 1 instead of 2).
#[test]
fn a_truncated_gzip_stream_is_the_inputs_fault_in_every_format() {
    for format in Format::ALL {
        match read_bytes(&[0x1f, 0x8b], format, true) {
            Err(e @ (DataError::Gzip { .. } | DataError::Invalid { .. })) => {
                assert_eq!(txanon_data::Classify::kind(&e), txanon_data::ErrorKind::BadInput);
                assert!(e.to_string().starts_with("<memory>: "), "{e}");
            }
            other => panic!("{format:?}: {other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No byte sequence makes a reader panic; every failure is an error with a location or a
    /// whole-file reason.
    #[test]
    fn readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        for format in Format::ALL {
            match read_bytes(&bytes, format, true) {
                Ok((db, _)) => {
                    for t in db.iter() {
                        prop_assert!(t.windows(2).all(|w| w[0] < w[1]));
                    }
                }
                Err(DataError::Parse { location, .. }) => prop_assert!(location.line >= 1),
                Err(DataError::Invalid { .. } | DataError::Gzip { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected error kind {e:?}"),
            }
        }
    }

    /// Text that looks like FIMI: digits, blanks, newlines and the odd stray byte.
    #[test]
    fn fimi_like_text_never_panics(text in "[0-9 \\t\\r\\n\\-a#]{0,300}") {
        for format in [Format::Fimi, Format::Spmf] {
            let _ = read_bytes(text.as_bytes(), format, true);
        }
    }
}
