//! The trust holes a hostile user found (issue 38), one regression test each: the seed is a
//! secret keyed with the data, outputs never replace what they must not, the auditor's own
//! lists are read as the data is, the manifest cannot be routed around, the audits read every
//! published file, inputs are read once, reading is bounded, one run writes a target at a time,
//! and a broken publication file fails its audit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

use crate::cli::{examples, files_in, fixture, stderr, txanon};

/// `n` FIMI transactions over 60 items, drawn from a fixed generator.
fn baskets(n: usize, shift: u32) -> String {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut out = String::new();
    for _ in 0..n {
        let mut row = Vec::new();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            row.push((state % 60) as u32 + shift);
        }
        row.sort_unstable();
        row.dedup();
        let row: Vec<String> = row.iter().map(u32::to_string).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    out
}

/// `anonymize km INPUT --k 2 --m 1 -o OUT`, with `extra` options.
fn km(input: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["anonymize", "km", input, "--k", "2", "--m", "1"];
    args.extend(["-o", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    txanon(&args)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Rewrites `dir/manifest.json` so that its entry for `name` is the file's sha256 as it is now
/// (or, with `drop`, removes the entry): a tamperer who recomputes the hashes.
fn rehash(dir: &Path, name: &str, drop: bool) {
    let path = dir.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let files = m["files"].as_object_mut().unwrap();
    if drop {
        files.remove(name);
    } else {
        files.insert(name.into(), sha256_hex(&std::fs::read(dir.join(name)).unwrap()).into());
    }
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

/// The seed never reaches the publication, and keys the shuffles with the data: the same seed
/// on data of the same shape with other items publishes in another order (km's rows, swap's
/// key, slicing's permutations), while the same seed on the same data gives the same bytes,
/// manifest and summary included.
#[test]
fn the_seed_is_a_secret_keyed_with_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let a = fixture(dir.path(), "a.dat", baskets(400, 0));
    let b = fixture(dir.path(), "b.dat", baskets(400, 1000));
    let run = |input: &str, out: &str| {
        let out = dir.path().join(out);
        let o = km(input, &out, &["--seed", "7"]);
        assert!(o.status.success(), "{}", stderr(&o));
        out
    };
    let (ka, kb, ka2) = (run(&a, "ka"), run(&b, "kb"), run(&a, "ka2"));
    let lengths = |dir: &Path| -> Vec<usize> {
        std::fs::read_to_string(dir.join("published.dat"))
            .or_else(|_| std::fs::read_to_string(dir.join("published.csv")))
            .unwrap()
            .lines()
            .map(|l| l.split([' ', ',']).filter(|t| !t.is_empty()).count())
            .collect()
    };
    assert_eq!(lengths(&ka).len(), 400);
    assert_ne!(lengths(&ka), lengths(&kb), "the same seed gave other data the same order");
    for name in files_in(&ka) {
        assert_eq!(
            std::fs::read(ka.join(&name)).unwrap(),
            std::fs::read(ka2.join(&name)).unwrap(),
            "{name} differs between two runs with one seed"
        );
    }
    let manifest = std::fs::read_to_string(ka.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert!(m.get("seed").is_none(), "{manifest}");
    assert!(!m["parameters"].to_string().contains("seed"), "{manifest}");
    let summary = std::fs::read_to_string(ka.join("summary.json")).unwrap();
    assert!(!summary.contains("seconds"), "a publication describes the data, not the run");

    // Swap's key (which record went where) under one seed differs between the two inputs.
    let key = |input: &str, name: &str| {
        let key = dir.path().join(format!("{name}.key"));
        let out = dir.path().join(name);
        let o = txanon(&[
            "anonymize",
            "swap",
            input,
            "--random-categories",
            "4",
            "--seed",
            "7",
            "--max-exposed",
            "400",
            "--key-out",
            key.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(key).unwrap()
    };
    assert_ne!(key(&a, "sa"), key(&b, "sb"));

    // Published draws do not give the seed away: sensitive items drawn under one seed from data
    // of the same shape are other items (a draw from the seed alone picks the same ranks, here
    // the same labels shifted by 1000, which anyone could match against candidate seeds).
    let drawn = |input: &str, name: &str| -> Vec<u32> {
        let out = dir.path().join(name);
        let o = txanon(&[
            "anonymize",
            "cahd",
            input,
            "--sensitive-random",
            "3",
            "-p",
            "2",
            "--seed",
            "7",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(out.join("sensitive.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.parse().unwrap())
            .collect()
    };
    let (from_a, from_b) = (drawn(&a, "da"), drawn(&b, "db"));
    assert_eq!(from_a, drawn(&a, "da2"), "the same seed on the same data draws the same");
    assert_ne!(from_a, from_b.iter().map(|i| i - 1000).collect::<Vec<_>>());

    // Slicing: Table 1 and a copy whose disease names are relabelled in the same order code
    // alike; under one seed their buckets' permutations differ.
    let table = std::fs::read_to_string(examples("slicing-table1.csv")).unwrap();
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    let relabelled: String = std::iter::once(header.to_string())
        .chain(lines.map(|l| {
            let (rest, disease) = l.rsplit_once(',').unwrap();
            format!("{rest},x-{disease}")
        }))
        .map(|l| l + "\n")
        .collect();
    let copy = fixture(dir.path(), "relabelled.csv", relabelled);
    let slice = |input: &str, name: &str| {
        let out = dir.path().join(name);
        let schema = examples("slicing-table1.schema.json");
        let o = txanon(&[
            "anonymize",
            "slicing",
            input,
            "--schema",
            &schema,
            "--column-spec",
            "Age,Sex;Zipcode,Disease",
            "-l",
            "2",
            "--seed",
            "5",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(out.join("sliced.csv")).unwrap().replace("x-", "")
    };
    assert_ne!(slice(&examples("slicing-table1.csv"), "s1"), slice(&copy, "s2"));
}

/// Outputs onto a character device or a FIFO are written in place, never renamed over; a
/// dangling link or a socket is refused (exit 2); a publication directory cannot be a file.
#[test]
fn outputs_onto_devices_and_fifos_are_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let data = fixture(dir.path(), "a.dat", baskets(50, 0));
    for args in [
        vec!["mine", "fpgrowth", &data, "-s", "10%", "-o", "/dev/null"],
        vec!["convert", &data, "/dev/null", "--to", "fimi"],
        vec!["generate", "quest", "--transactions", "10", "--out", "/dev/null", "--to", "fimi"],
        vec!["band", &data, "--plot", "/dev/null"],
    ] {
        let o = txanon(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let kind = std::fs::metadata("/dev/null").unwrap().file_type();
        assert!(kind.is_char_device(), "{args:?} replaced /dev/null");
    }
    // A FIFO with a reader: the converted data arrives through it, and the FIFO stays.
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = txanon(&["convert", &data, fifo.to_str().unwrap(), "--to", "fimi"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), std::fs::read_to_string(&data).unwrap());
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A dangling link: refused, named, nothing created at its target.
    let link = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    let o = txanon(&["convert", &data, link.to_str().unwrap(), "--to", "fimi"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("dangling link"), "{}", stderr(&o));
    assert!(!dir.path().join("nowhere").exists());
    // A link to a regular file: the file is replaced, the link kept.
    let target = fixture(dir.path(), "target.dat", "");
    let link = dir.path().join("link.dat");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = txanon(&["convert", &data, link.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), std::fs::read_to_string(&data).unwrap());
    // A publication onto a device: refused, the device untouched.
    let o = km(&data, Path::new("/dev/null"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

/// `--force` never deletes an input that lies inside the directory it would replace.
#[test]
fn force_refuses_a_target_that_holds_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let data = fixture(&out, "a.dat", baskets(50, 0));
    let o = km(&data, &out, &["--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("holds the input"), "{}", stderr(&o));
    assert_eq!(files_in(&out), ["a.dat"]);
}

/// A CAHD publication of the presentation's example, into `dir/name`.
fn cahd(dir: &Path, name: &str) -> std::path::PathBuf {
    let out = dir.join(name);
    let o = txanon(&[
        "anonymize",
        "cahd",
        &examples("cahd-example.csv"),
        "--sensitive",
        &examples("cahd-example.sensitive"),
        "-p",
        "2",
        "--seed",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

fn audit_cahd(groups: &Path, list: &str, extra: &[&str]) -> Output {
    let mut args = vec!["audit", "cahd", groups.to_str().unwrap(), "-p", "2", "--sensitive", list];
    args.extend_from_slice(extra);
    txanon(&args)
}

/// A byte-order mark on the auditor's list is dropped as on any input (it silently dropped the
/// first entry); an entry that names no item of the publication or the original is warned of,
/// and with `--strict` refused.
#[test]
fn the_auditors_lists_are_read_as_the_data_is() {
    let dir = tempfile::tempdir().unwrap();
    let out = cahd(dir.path(), "c");
    let groups = out.join("groups.json");
    // Wine is a QID item: an auditor who calls it sensitive must see the audit fail, BOM or not.
    let plain = fixture(dir.path(), "plain.txt", "Wine\nViagra\nPregnancyTest\n");
    let marked = fixture(dir.path(), "marked.txt", "\u{feff}Wine\nViagra\nPregnancyTest\n");
    for list in [&plain, &marked] {
        let o = audit_cahd(&groups, list, &[]);
        assert_eq!(o.status.code(), Some(3), "{list}: {}", stderr(&o));
        assert!(stderr(&o).contains("\"Wine\" among the QID items"), "{}", stderr(&o));
    }
    // The same for coherence's private list.
    let published = dir.path().join("coh");
    let o = txanon(&[
        "anonymize",
        "coherence",
        &examples("coherence-figure1.csv"),
        "--private",
        &examples("coherence-figure1.private"),
        "--h",
        "0.5",
        "--k",
        "2",
        "--p",
        "2",
        "--nugget-support",
        "4",
        "-o",
        published.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let private = std::fs::read_to_string(examples("coherence-figure1.private")).unwrap();
    let marked_private = fixture(dir.path(), "private.txt", format!("\u{feff}{private}"));
    let file = files_in(&published).into_iter().find(|f| f.starts_with("published")).unwrap();
    let coherence = |list: &str, k: &str| {
        txanon(&[
            "audit",
            "coherence",
            published.join(&file).to_str().unwrap(),
            "--private",
            list,
            "--h",
            "0.5",
            "--k",
            k,
            "--p",
            "2",
        ])
    };
    // The marked list's first entry is an item: no warning that it names none.
    let o = coherence(&marked_private, "2");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    // A typo: warned of, named; refused under --strict.
    let typo = fixture(dir.path(), "typo.txt", "Viagra\nPregnancyTset\n");
    let o = audit_cahd(&groups, &typo, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning") && stderr(&o).contains("\"PregnancyTset\""),
        "{}",
        stderr(&o)
    );
    let o = audit_cahd(&groups, &typo, &["--strict"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// An audit of a publication directory needs its manifest, every file listed, every listed
/// file present and unchanged: deleting the manifest, unlisting a file or adding one is a
/// failed audit (exit 3); `--no-manifest` audits the guarantee alone and the report says so.
#[test]
fn the_manifest_cannot_be_routed_around() {
    let dir = tempfile::tempdir().unwrap();
    let list = examples("cahd-example.sensitive");
    let good = cahd(dir.path(), "good");
    let o = audit_cahd(&good.join("groups.json"), &list, &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["manifest"]["status"], "verified");
    assert_eq!(report["verdict"], "PASS");
    // For people: the verdict and the claim first.
    let o = audit_cahd(&good.join("groups.json"), &list, &[]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.starts_with("PASS: privacy degree p = 2 for the sensitive items of"), "{text}");

    let gone = cahd(dir.path(), "gone");
    std::fs::remove_file(gone.join("manifest.json")).unwrap();
    let o = audit_cahd(&gone.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("no manifest.json"), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.starts_with("FAIL: privacy degree p = 2") && text.contains("no manifest.json"),
        "{text}"
    );
    let o = audit_cahd(&gone.join("groups.json"), &list, &["--no-manifest", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["manifest"]["status"], "not checked (--no-manifest)");

    let unlisted = cahd(dir.path(), "unlisted");
    rehash(&unlisted, "qid.csv", true);
    let o = audit_cahd(&unlisted.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("not listed in the manifest: qid.csv"), "{}", stderr(&o));

    let extra = cahd(dir.path(), "extra");
    std::fs::write(extra.join("notes.txt"), "hello").unwrap();
    let o = audit_cahd(&extra.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("notes.txt"), "{}", stderr(&o));

    // Garbage after the manifest's JSON: a broken publication, exit 3.
    let garbage = cahd(dir.path(), "garbage");
    let mut f =
        std::fs::OpenOptions::new().append(true).open(garbage.join("manifest.json")).unwrap();
    f.write_all(b"garbage").unwrap();
    let o = audit_cahd(&garbage.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

/// CAHD's audit reads the QID file (a line dropped, hashes recomputed: exit 3), and a
/// truncated groups file with consistent hashes fails its audit, naming the file.
#[test]
fn every_published_file_is_audited_and_a_broken_one_fails() {
    let dir = tempfile::tempdir().unwrap();
    let list = examples("cahd-example.sensitive");
    let dropped = cahd(dir.path(), "dropped");
    let qid = std::fs::read_to_string(dropped.join("qid.csv")).unwrap();
    std::fs::write(
        dropped.join("qid.csv"),
        qid.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    rehash(&dropped, "qid.csv", false);
    let o = audit_cahd(&dropped.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("qid file row"), "{}", stderr(&o));

    let truncated = cahd(dir.path(), "truncated");
    let groups = std::fs::read(truncated.join("groups.json")).unwrap();
    std::fs::write(truncated.join("groups.json"), &groups[..groups.len() / 2]).unwrap();
    rehash(&truncated, "groups.json", false);
    let o = audit_cahd(&truncated.join("groups.json"), &list, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("groups.json: not a readable publication file"), "{}", stderr(&o));

    // An empty published table of slicing's Anatomy baseline, hashes consistent: exit 3.
    let (data, schema) = (examples("slicing-table1.csv"), examples("slicing-table1.schema.json"));
    let out = dir.path().join("anatomy");
    let o = txanon(&[
        "anonymize",
        "slicing",
        &data,
        "--schema",
        &schema,
        "--method",
        "anatomy",
        "-l",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(out.join("st.csv"), "").unwrap();
    rehash(&out, "st.csv", false);
    let o =
        txanon(&["audit", "slicing", &data, out.to_str().unwrap(), "--schema", &schema, "-l", "2"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

/// An input that can be read once (a FIFO, `<(…)`) is read once, and the manifest records the
/// bytes that were read and their sha256.
#[test]
fn an_input_is_hashed_as_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = baskets(200, 0);
    let fifo = dir.path().join("in.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
    };
    let out = dir.path().join("out");
    let o = km(fifo.to_str().unwrap(), &out, &["--from", "fimi"]);
    writer.join().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["inputs"][0]["bytes"], text.len() as u64);
    assert_eq!(m["inputs"][0]["sha256"], sha256_hex(text.as_bytes()));
    // A run that loads its input from the cache still hashed it (checking the cache reads it).
    let data = fixture(dir.path(), "a.dat", &text);
    let cache = dir.path().join("cache");
    for name in ["parsed", "cached"] {
        let out = dir.path().join(name);
        let o = km(&data, &out, &["--cache", cache.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(m["inputs"][0]["sha256"], sha256_hex(text.as_bytes()), "{name}");
    }
}

/// Reading is bounded: a file with no line break, or a line over `--max-line-bytes`, is refused
/// with exit 2 naming the limit, before memory runs out; nothing is written.
#[test]
fn reading_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let o = txanon(&["stats", "--from", "fimi", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-line-bytes"), "{}", stderr(&o));
    let out = dir.path().join("out");
    let o = km("/dev/zero", &out, &["--from", "fimi"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists());
    let data = fixture(dir.path(), "a.dat", "1 2 3\n1 2 3 4 5 6 7 8 9 10\n");
    for (format, file) in [
        ("fimi", data.clone()),
        ("basket-wide", fixture(dir.path(), "a.csv", "a,b\na,b,c,d,e,f,g\n")),
    ] {
        let o = txanon(&["stats", "--from", format, &file, "--max-line-bytes", "8"]);
        assert_eq!(o.status.code(), Some(2), "{format}: {}", stderr(&o));
        assert!(stderr(&o).contains(":2:") && stderr(&o).contains("8 bytes"), "{}", stderr(&o));
        let o = txanon(&["stats", "--from", format, &file, "--max-line-bytes", "100"]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
    }
    // The option's own range: named with the value, 0 and 2⁶⁴ refused, 2⁶⁴ − 1 taken.
    for value in ["0", "18446744073709551616"] {
        let o = txanon(&["stats", &data, "--max-line-bytes", value]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let said = format!("--max-line-bytes: {value} is out of range 1..=18446744073709551615");
        assert!(
            stderr(&o).contains("--max-line-bytes") && stderr(&o).contains(&said),
            "{}",
            stderr(&o)
        );
    }
    assert!(txanon(&["stats", &data, "--max-line-bytes", "18446744073709551615"]).status.success());
}

/// Two runs into one target: the second is refused while the first holds the target (its input
/// a FIFO not yet written), and the first completes.
#[test]
fn one_run_at_a_time_writes_a_target() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("slow.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = dir.path().join("out");
    let first = Command::new(env!("CARGO_BIN_EXE_txanon"))
        .args(["anonymize", "km", fifo.to_str().unwrap(), "--from", "fimi", "--k", "2", "--m", "1"])
        .args(["-o", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first run holds the lock once its staging directory exists.
    let staged = || files_in(dir.path()).iter().any(|f| f.starts_with(".txanon-staging-out-"));
    for _ in 0..500 {
        if staged() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(staged(), "the first run never started");
    let data = fixture(dir.path(), "a.dat", baskets(50, 0));
    let o = km(&data, &out, &["--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("another run is writing"), "{}", stderr(&o));
    std::fs::write(&fifo, baskets(100, 0)).unwrap();
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(out.join("manifest.json").is_file());
    // Nothing left behind: no staging directory, no lock.
    assert!(
        files_in(dir.path()).iter().all(|f| !f.starts_with(".txanon")),
        "{:?}",
        files_in(dir.path())
    );
}
