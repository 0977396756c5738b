//! Runs the built binary the way a user would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn txanon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_txanon")).args(args).output().expect("the binary runs")
}

/// Runs the binary with the command line `line` as a user writes it (`{name}` replaced from
/// `vars`, see `txanon_testkit::words`).
pub(crate) fn txanon_line(line: &str, vars: &[(&str, &str)]) -> Output {
    txanon_testkit::command(env!("CARGO_BIN_EXE_txanon"), line, vars)
        .output()
        .expect("the binary runs")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn example() -> PathBuf {
    PathBuf::from(examples("anatomy-table1.csv"))
}

/// Writes `contents` to `dir/name` and returns the path as the CLI takes it.
pub(crate) fn fixture(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_owned()
}

/// A file of `datasets/examples`, as the CLI takes it.
pub(crate) fn examples(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../datasets/examples");
    dir.join(name).to_str().unwrap().to_owned()
}

/// `anonymize anatomy` of the anatomy paper's Table I in 3 columns at l = 2, into `out`.
pub(crate) fn anatomize_table1(out: &Path, seed: &str) -> Output {
    let (data, out) = (examples("anatomy-table1.csv"), out.to_str().unwrap());
    txanon_line(
        "anonymize anatomy {data} -c 3 -l 2 --seed {seed} -o {out}",
        &[("data", &data), ("seed", seed), ("out", out)],
    )
}

/// `anonymize slicing` of the slicing paper's Table 1 in its columns at ℓ = 2, into `out`,
/// with `extra` options.
pub(crate) fn slice_table1(out: &Path, seed: &str, extra: &[&str]) -> Output {
    let (data, schema) = (examples("slicing-table1.csv"), examples("slicing-table1.schema.json"));
    let line = "anonymize slicing {data} --schema {schema} --column-spec Age,Sex;Zipcode,Disease \
                -l 2 --seed {seed} -o {out}";
    let out = out.to_str().unwrap();
    let vars = [("data", data.as_str()), ("schema", schema.as_str()), ("seed", seed), ("out", out)];
    let mut command = txanon_testkit::command(env!("CARGO_BIN_EXE_txanon"), line, &vars);
    command.args(extra).output().expect("the binary runs")
}

pub(crate) fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn stats_json_on_the_example() {
    let o = txanon(&["stats", example().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["transactions"], 10);
    assert_eq!(v["items"], 8);
    assert_eq!(v["occurrences"], 41);
    assert_eq!(v["max_len"], 8);
    // Supports: a 7, b 7, f 6, h 6, … — the first top item is a (ties go to the smaller label).
    assert_eq!(v["top_items"][0]["label"], "a");
    assert_eq!(v["top_items"][0]["support"], 7);
}

#[test]
fn convert_roundtrip_keeps_labels() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.csv");
    let back = dir.path().join("back.csv");
    let o = txanon(&[
        "convert",
        example().to_str().unwrap(),
        long.to_str().unwrap(),
        "--to",
        "basket-long",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = txanon(&["convert", long.to_str().unwrap(), back.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&back).unwrap();
    assert_eq!(text.lines().next(), Some("a,b,c,d,e,f,g,h"));
    assert_eq!(text.lines().count(), 10);
}

#[test]
fn convert_fimi_gzip_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture(dir.path(), "in.dat", "3 1 2\n\n7\n");
    let gz = dir.path().join("out.dat.gz");
    let plain = dir.path().join("plain.dat");
    assert!(txanon(&["convert", &src, gz.to_str().unwrap()]).status.success());
    assert_eq!(&std::fs::read(&gz).unwrap()[..2], &[0x1f, 0x8b], "gzip magic");
    assert!(txanon(&["convert", gz.to_str().unwrap(), plain.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), "1 2 3\n\n7\n");
}

#[test]
fn bad_input_exits_2_names_the_place_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture(dir.path(), "bad.dat", "1 2\n3 oops\n");
    let out = dir.path().join("out.csv");
    let o = txanon(&["convert", &src, out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(&format!("{src}:2:3: non-numeric token \"oops\"")), "{err}");
    assert_eq!(files_in(dir.path()), vec!["bad.dat"], "no output and no temporary file");
}

#[test]
fn missing_file_empty_file_and_bad_parameters_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = txanon(&["stats", dir.path().join("nope.dat").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let empty = fixture(dir.path(), "empty.dat", "");
    let o = txanon(&["stats", &empty]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("file is empty"));
    let out = dir.path().join("q.dat");
    let o = txanon(&["generate", "quest", "--transactions", "0", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("transactions"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = txanon(&["stats", &empty, "--from", "xml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = txanon(&["convert", &empty, dir.path().join("x.unknown").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot tell the output format"), "{}", stderr(&o));
}

#[test]
fn generate_is_deterministic_per_seed() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, seed: &str| {
        let p = dir.path().join(name);
        let o = txanon(&[
            "generate",
            "quest",
            "--transactions",
            "2000",
            "--avg-len",
            "10",
            "--pattern-len",
            "4",
            "--items",
            "200",
            "--seed",
            seed,
            "--out",
            p.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(p).unwrap()
    };
    let a = run("a.dat", "5");
    assert_eq!(a, run("b.dat", "5"));
    assert_ne!(a, run("c.dat", "6"));
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), 2000);
}

#[test]
fn help_lists_the_subcommands() {
    let o = txanon(&["--help"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for sub in ["stats", "convert", "generate"] {
        assert!(text.contains(sub), "{text}");
    }
}

#[test]
fn table_stats_with_schema() {
    let dir = tempfile::tempdir().unwrap();
    let data = fixture(
        dir.path(),
        "t.csv",
        "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n50, ?, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K\n",
    );
    let schema = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../datasets/adult.schema.json");
    let o = txanon(&["stats", &data, "--schema", schema.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["rows"].as_u64(), v["dropped_rows"].as_u64()), (Some(1), Some(1)));
}

#[test]
fn cache_hit_then_corrupt_cache_is_reported_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture(dir.path(), "in.dat", "1 2 3\n2 3\n".repeat(50));
    let cache = dir.path().join("cache");
    let run = || txanon(&["stats", &src, "--json", "--cache", cache.to_str().unwrap()]);
    let first = run();
    assert!(
        stderr(&first).contains("parsed") && stderr(&first).contains("cached it"),
        "{}",
        stderr(&first)
    );
    let second = run();
    assert!(stderr(&second).contains("cache: loaded"), "{}", stderr(&second));
    assert_eq!(first.stdout, second.stdout, "the cache gives the same figures");
    let file = std::fs::read_dir(&cache).unwrap().next().unwrap().unwrap().path();
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let third = run();
    assert!(third.status.success());
    assert!(stderr(&third).contains("checksum mismatch"), "{}", stderr(&third));
    assert_eq!(first.stdout, third.stdout);
    assert!(stderr(&run()).contains("cache: loaded"), "the rejected cache was rewritten");
}

#[test]
fn stats_on_every_real_dataset_prints_its_manifest_figures() {
    use txanon_data::datasets::{DATASETS, data_required, locate_verified};
    for info in DATASETS.iter().filter(|d| d.file.ends_with(".dat")) {
        let Some(path) = locate_verified(info.name).unwrap() else {
            assert!(!data_required(), "dataset {} missing and CI=true", info.name);
            eprintln!("SKIPPED: dataset {} not found (set TXANON_DATA)", info.name);
            continue;
        };
        let o = txanon(&["stats", path.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["transactions"].as_u64(), Some(info.transactions as u64), "{}", info.name);
        assert_eq!(v["items_present"].as_u64(), Some(info.items as u64), "{}", info.name);
        assert_eq!(v["max_len"].as_u64(), Some(info.max_len as u64), "{}", info.name);
        let avg = v["avg_len"].as_f64().unwrap();
        assert!((avg - info.avg_len).abs() < 5e-4, "{}: {avg}", info.name);
    }
}

#[test]
fn mine_lists_counts_and_writes_rules() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path(), "t.dat", "1 2\n1 2 3\n1 3\n4\n");
    let o = txanon(&["mine", "fpgrowth", &input, "-s", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut lines: Vec<String> =
        String::from_utf8(o.stdout).unwrap().lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(lines, ["1 (3)", "1 2 (2)", "1 3 (2)", "2 (2)", "3 (2)"]);

    let o = txanon(&["mine", "apriori", &input, "-s", "50%", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["itemsets"].as_u64(), v["min_support_count"].as_u64()), (Some(5), Some(2)));
    assert!(v["seconds"]["mine"].as_f64().unwrap() >= 0.0);

    let o = txanon(&["mine", "fpgrowth", &input, "-s", "1", "--count-only", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 1 2 3 4 12 13 23 123.
    assert_eq!(v["itemsets"], 8);

    let out = dir.path().join("rules.txt");
    let o = txanon(&[
        "mine",
        "fpgrowth",
        &input,
        "-s",
        "2",
        "--rules",
        "--confidence",
        "0.9",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut rules: Vec<String> =
        std::fs::read_to_string(&out).unwrap().lines().map(str::to_owned).collect();
    rules.sort();
    assert_eq!(rules, ["2 -> 1 (2 1.000000)", "3 -> 1 (2 1.000000)"]);
}

#[test]
fn mine_refuses_impossible_settings_with_exit_2_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let input =
        fixture(dir.path(), "t.dat", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n");
    let out = dir.path().join("sets.txt");
    let o = txanon(&[
        "mine",
        "fpgrowth",
        &input,
        "-s",
        "1",
        "--limit",
        "100",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("more than 100 itemsets"), "{}", stderr(&o));
    assert!(!out.exists(), "no partial output");
    for bad in [&["-s", "0"][..], &["-s", "150%"], &["-s", "x"], &["-s", "1", "--max-len", "0"]] {
        let mut args = vec!["mine", "fpgrowth", &input];
        args.extend_from_slice(bad);
        let o = txanon(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
    }
    let o = txanon(&["mine", "apriori", &input, "-s", "1", "--count-only"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn compare_reports_every_metric() {
    let dir = tempfile::tempdir().unwrap();
    let original = fixture(dir.path(), "d.dat", "1 2\n1 2 3\n1 3\n2\n");
    let anonymized = fixture(dir.path(), "a.dat", "1 2\n1 2\n1 3\n2 4\n");
    let identity = fixture(dir.path(), "identity.txt", "1\n2\n3\n4\n");
    let compare = |anonymized: &str, key: Option<&str>| {
        let mut args = vec!["compare", &original, anonymized, "-s", "2", "--confidence", "0.5"];
        args.push("--json");
        if let Some(key) = key {
            args.extend(["--key", key]);
        }
        let o = txanon(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let v = compare(&anonymized, Some(&identity));
    assert_eq!(v["dissimilarity"], 0.25);
    assert_eq!(v["itemset_accuracy"]["matched"], 3);
    assert_eq!(v["itemset_accuracy"]["total"], 5);
    assert_eq!(v["jaccard_itemsets"], 0.6);
    assert_eq!(v["item_loss"]["occurrences_removed"], 1);
    assert!((v["record_distortion"].as_f64().unwrap() - 5.0 / 24.0).abs() < 1e-12);
    // Without the key, records do not correspond: no record distortion is claimed.
    assert!(compare(&anonymized, None)["record_distortion"].is_null());
    // A shuffled identical copy, through its key: no distortion at all.
    let shuffled = fixture(dir.path(), "s.dat", "1 3\n2\n1 2\n1 2 3\n");
    let key = fixture(dir.path(), "key.txt", "3\n4\n1\n2\n");
    assert_eq!(compare(&shuffled, Some(&key))["record_distortion"], 0.0);
    let bad_key = fixture(dir.path(), "bad.txt", "1\n1\n2\n3\n");
    let o = txanon(&["compare", &original, &shuffled, "-s", "2", "--key", &bad_key]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Rules at 0.5: original 1→2 (2/3), 2→1 (2/3), 1→3 (2/3), 3→1 (1); anonymized 1→2 (2/3), 2→1 (2/3).
    assert_eq!(v["rule_accuracy"]["matched"], 2);
    assert_eq!(v["rule_accuracy"]["total"], 4);
    let o = txanon(&["compare", &original, &anonymized, "-s", "2"]);
    assert!(String::from_utf8(o.stdout).unwrap().contains("rule accuracy AR = M/N"));
}

#[test]
fn anatomy_item_columns_are_a_file_that_covers_every_item_or_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("q.csv"), "1 2 3\n2 4\n1 4 5\n3 5\n1 2\n4 5\n").unwrap();
    std::fs::write(path("cols.txt"), "# two columns\n1 3 5\n\n2,4 99\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["anonymize", "anatomy", "--from", "fimi"];
        let (q, out) = (path("q.csv"), path("out"));
        args.extend([q.as_str(), "-c", "2", "-l", "2", "--seed", "1", "-o", out.as_str()]);
        args.extend(extra);
        txanon(&args)
    };
    let o = run(&["--item-columns", &path("cols.txt")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("out/table.json")).unwrap()).unwrap();
    assert_eq!(table["columns"], serde_json::json!([["1", "3", "5"], ["2", "4"]]));
    std::fs::remove_dir_all(path("out")).unwrap();
    std::fs::write(path("three.txt"), "1 3\n5\n2 4\n").unwrap();
    std::fs::write(path("short.txt"), "1 3\n2 4\n").unwrap();
    for (extra, says) in [
        (vec!["--item-columns", &path("none.txt")], "--item-columns: "),
        (vec!["--item-columns", &path("three.txt")], "item-columns = 3 columns, with columns = 2"),
        (
            vec!["--item-columns", &path("short.txt")],
            "1 item(s) of the data are in no given column (the first: 5)",
        ),
        (
            vec!["--item-columns", &path("cols.txt"), "--partitioning", "diverse"],
            "cannot be used with",
        ),
    ] {
        let o = run(&extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{says}: {}", stderr(&o));
        assert!(!dir.path().join("out").exists(), "{extra:?} wrote a publication");
    }
}

#[test]
fn anonymize_anatomy_writes_a_verified_table_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let quest = dir.path().join("q.dat");
    let o = txanon(&[
        "generate",
        "quest",
        "--transactions",
        "3000",
        "--avg-len",
        "10",
        "--pattern-len",
        "4",
        "--items",
        "150",
        "--out",
        quest.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("published");
    let o = txanon(&[
        "anonymize",
        "anatomy",
        quest.to_str().unwrap(),
        "-c",
        "5",
        "-l",
        "2",
        "--seed",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files_in(&out), ["anonymized.dat", "manifest.json", "summary.json", "table.json"]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let published = summary["published_records"].as_u64().unwrap();
    assert_eq!(published + summary["suppressed"].as_u64().unwrap(), 3000);
    let table = out.join("table.json");
    let flattened = out.join("anonymized.dat");
    let o = txanon(&[
        "audit",
        "anatomy",
        table.to_str().unwrap(),
        "-l",
        "2",
        "--flattened",
        flattened.to_str().unwrap(),
        "--original",
        quest.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["records"].as_u64(), Some(published));
    assert_eq!(report["flattened_checked"], true);
    // The auditor's l is required, and l = 1 protects nothing: bad input, exit 2.
    let o = txanon(&["audit", "anatomy", table.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = txanon(&["audit", "anatomy", table.to_str().unwrap(), "-l", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A claim near 2^63 is checked in wide arithmetic: it fails, it does not wrap.
    let o = txanon(&["audit", "anatomy", table.to_str().unwrap(), "-l", "9223372036854775808"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // The flattened file is a FIMI file of the published records.
    let o = txanon(&["stats", out.join("anonymized.dat").to_str().unwrap(), "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stats["transactions"].as_u64(), Some(published));

    // Tampering: make one bucket's first column a single value; the audit fails with exit 3.
    let mut t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&table).unwrap()).unwrap();
    let size = t["buckets"][0]["size"].clone();
    let value = t["buckets"][0]["columns"][0][0][1].clone();
    t["buckets"][0]["columns"][0] = serde_json::json!([[size, value]]);
    let tampered = fixture(dir.path(), "tampered.json", serde_json::to_string(&t).unwrap());
    // A loose copy has no manifest: the audit refuses it (exit 3) unless told to check the
    // guarantee alone.
    let o = txanon(&["audit", "anatomy", &tampered, "-l", "2"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("no manifest.json"), "{}", stderr(&o));
    let o = txanon(&["audit", "anatomy", &tampered, "-l", "2", "--no-manifest"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("audit failed"), "{}", stderr(&o));
    // Counts that wrap around 2^64 to the bucket's size: exit 3, not a pass.
    let mut t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&table).unwrap()).unwrap();
    let size = t["buckets"][0]["size"].as_u64().unwrap();
    let (a, b) =
        (t["buckets"][0]["columns"][0][0][1].clone(), t["buckets"][0]["columns"][0][1][1].clone());
    t["buckets"][0]["columns"][0] = serde_json::json!([[u64::MAX, a], [size + 1, b]]);
    let wrapped = fixture(dir.path(), "wrapped.json", serde_json::to_string(&t).unwrap());
    let o = txanon(&["audit", "anatomy", &wrapped, "-l", "2", "--no-manifest"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // A file that is not a table at all is no publication this audit can vouch for: exit 3,
    // naming the file.
    let o = txanon(&["audit", "anatomy", quest.to_str().unwrap(), "-l", "2", "--no-manifest"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("q.dat: not a readable publication file"), "{}", stderr(&o));
    // A file that does not exist is the auditor's mistake: exit 2.
    let o = txanon(&["audit", "anatomy", "no-such-table.json", "-l", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // An infeasible l: clear message, exit 2, no directory.
    let nothing = dir.path().join("nothing");
    let o = txanon(&[
        "anonymize",
        "anatomy",
        quest.to_str().unwrap(),
        "-c",
        "5",
        "-l",
        "50",
        "-o",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no bucketing reaches l = 50"), "{}", stderr(&o));
    assert!(!nothing.exists());

    // The distinct reading, audited when the auditor asks for it; at l = 8 on these columns
    // it is not Definition 5, the default reading of the audit.
    let distinct = dir.path().join("distinct");
    let o = txanon(&[
        "anonymize",
        "anatomy",
        quest.to_str().unwrap(),
        "-c",
        "5",
        "-l",
        "8",
        "--diversity",
        "distinct",
        "--partitioning",
        "clustered",
        "--seed",
        "3",
        "-o",
        distinct.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = distinct.join("table.json");
    let o = txanon(&[
        "audit",
        "anatomy",
        table.to_str().unwrap(),
        "-l",
        "8",
        "--diversity",
        "distinct",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["diversity"], "distinct");
    let o = txanon(&["audit", "anatomy", table.to_str().unwrap(), "-l", "8"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("more than 1/8"), "{}", stderr(&o));
}

fn cahd_example() -> (String, String) {
    (examples("cahd-example.csv"), examples("cahd-example.sensitive"))
}

#[test]
fn band_prints_envelopes_and_draws() {
    let dir = tempfile::tempdir().unwrap();
    let (data, sensitive) = cahd_example();
    let svg = dir.path().join("band.svg");
    let o = txanon(&[
        "band",
        &data,
        "--sensitive",
        &sensitive,
        "--plot",
        svg.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["vertices"], 5);
    assert_eq!(v["items_in_graph"], 4, "the two sensitive items are left out");
    assert!(v["bandwidth_after"].as_u64() <= v["bandwidth_before"].as_u64());
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let o = txanon(&["band", &data, "--graph", "sym-pad"]);
    assert!(String::from_utf8(o.stdout).unwrap().contains("sym-pad graph"));
    let unknown = fixture(dir.path(), "unknown.txt", "Aspirin\n");
    let o = txanon(&["band", &data, "--sensitive", &unknown]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Aspirin"), "{}", stderr(&o));
}

#[test]
fn anonymize_cahd_writes_verified_groups_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (data, sensitive) = cahd_example();
    let out = dir.path().join("published");
    let args = ["anonymize", "cahd", &data, "--sensitive", &sensitive, "-p", "2", "--seed", "1"];
    let o = txanon(&[&args[..], &["-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    // Text labels: the QID file is basket CSV, not FIMI.
    assert_eq!(files_in(&out), ["groups.json", "manifest.json", "qid.csv", "summary.json"]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["groups"], 3);
    assert_eq!(summary["achieved_privacy"], 2.0);
    let groups = out.join("groups.json");
    let g = groups.to_str().unwrap();
    let audit = |file: &str, p: &str, list: &str| {
        txanon(&["audit", "cahd", file, "-p", p, "--sensitive", list, "--original", &data])
    };
    // Loose copies (tampered ones) have no manifest: the guarantee alone is checked.
    let loose = |file: &str, p: &str, list: &str| {
        let args = ["audit", "cahd", file, "-p", p, "--sensitive", list, "--original", &data];
        txanon(&[&args[..], &["--no-manifest"]].concat())
    };
    let o = audit(g, "2", &sensitive);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = audit(g, "3", &sensitive);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("more than 1/3"), "{}", stderr(&o));
    // The auditor's p and sensitive list are required; p = 1 protects nothing.
    assert_eq!(txanon(&["audit", "cahd", g, "-p", "2"]).status.code(), Some(2));
    assert_eq!(txanon(&["audit", "cahd", g, "--sensitive", &sensitive]).status.code(), Some(2));
    assert_eq!(audit(g, "1", &sensitive).status.code(), Some(2));
    // A claimed degree near 2^63 fails in wide arithmetic instead of wrapping to a pass.
    assert_eq!(audit(g, "9223372036854775809", &sensitive).status.code(), Some(3));

    // Declassified: Viagra moved into the QID items and out of the header and the counts.
    // The file alone cannot tell; the auditor's list can.
    let mut t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&groups).unwrap()).unwrap();
    let index =
        |label: &str| t["items"].as_array().unwrap().iter().position(|l| l == label).unwrap();
    let (pregnancy, viagra) = (index("PregnancyTest"), index("Viagra"));
    t["sensitive"] = serde_json::json!([pregnancy]);
    for g in t["groups"].as_array_mut().unwrap() {
        let had = g["sensitive"].as_array().unwrap().iter().any(|s| s[0] == viagra);
        g["sensitive"].as_array_mut().unwrap().retain(|s| s[0] != viagra);
        if had {
            g["qid"][0].as_array_mut().unwrap().push(serde_json::json!(viagra));
        }
    }
    let declassified = fixture(dir.path(), "declassified.json", serde_json::to_string(&t).unwrap());
    let o = loose(&declassified, "2", &sensitive);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("sensitive item \"Viagra\" among the QID items"), "{}", stderr(&o));

    // A version-1 file (labels in every transaction) is named as such: not a publication this
    // audit can read, exit 3.
    let v1 = fixture(
        dir.path(),
        "v1.json",
        r#"{"format":"txanon-cahd-groups/1","p":2,"sensitive":["Viagra"],"groups":[{"qid":[["Wine"]],"sensitive":[["Viagra",1]]}]}"#,
    );
    let o = loose(&v1, "2", &sensitive);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("format \"txanon-cahd-groups/1\""), "{}", stderr(&o));

    // Tampering: a Viagra count of 2 in a group of 2.
    let mut t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&groups).unwrap()).unwrap();
    for g in t["groups"].as_array_mut().unwrap() {
        if let Some(s) = g["sensitive"].as_array_mut().and_then(|s| s.first_mut()) {
            s[1] = serde_json::json!(2);
        }
    }
    let tampered = fixture(dir.path(), "tampered.json", serde_json::to_string(&t).unwrap());
    let o = loose(&tampered, "2", &sensitive);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));

    // Impossible: Meat (4 of 5 transactions) as a sensitive item; exit 2, nothing written.
    let meat = fixture(dir.path(), "meat.txt", "Meat\n");
    let nothing = dir.path().join("nothing");
    let o = txanon(&[
        "anonymize",
        "cahd",
        &data,
        "--sensitive",
        &meat,
        "-p",
        "2",
        "-o",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("Meat is in 4 of 5 transactions"), "{}", stderr(&o));
    assert!(!nothing.exists());
    // Both ways of naming sensitive items at once, or neither: a usage error.
    let o = txanon(&[
        "anonymize",
        "cahd",
        &data,
        "--sensitive",
        &meat,
        "--sensitive-random",
        "2",
        "-p",
        "2",
        "-o",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = txanon(&["anonymize", "cahd", &data, "-p", "2", "-o", nothing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!nothing.exists());
}

#[test]
fn anonymize_coherence_writes_a_verified_publication_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("coherence-figure1.csv");
    let private = examples("coherence-figure1.private");
    let out = dir.path().join("published");
    let setting = ["--h", "0.5", "--k", "3", "--p", "3"];
    let o = txanon(
        &[
            &["anonymize", "coherence", &data, "--private", &private][..],
            &setting,
            &["--nugget-support", "4", "--seed", "1", "-o", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_in(&out),
        ["manifest.json", "published.csv", "summary.json", "suppressed.json"]
    );
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The paper's Example 3: c and d by the pre-step, then a and b; 9 nuggets become 5.
    assert_eq!(summary["suppressed_infrequent"], 2);
    assert_eq!(summary["suppressed_greedy"], 2);
    assert_eq!(summary["moles"], 12);
    assert_eq!(
        (summary["nuggets_before"].as_u64(), summary["nuggets_after"].as_u64()),
        (Some(9), Some(5))
    );
    let steps: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("suppressed.json")).unwrap())
            .unwrap();
    let order: Vec<&str> =
        steps.as_array().unwrap().iter().map(|s| s["item"].as_str().unwrap()).collect();
    assert_eq!(order, ["c", "d", "a", "b"]);

    let published = out.join("published.csv").to_str().unwrap().to_owned();
    let audit = |file: &str, k: &str| {
        txanon(&[
            "audit",
            "coherence",
            file,
            "--private",
            &private,
            "--h",
            "0.5",
            "--k",
            k,
            "--p",
            "3",
        ])
    };
    let o = audit(&published, "3");
    assert!(o.status.success(), "{}", stderr(&o));
    // Against the original too: only public items suppressed, each everywhere.
    let mut with_original = vec!["audit", "coherence", &published, "--private", &private];
    with_original.extend(["--h", "0.5", "--k", "3", "--p", "3", "--original", &data, "--json"]);
    let o = txanon(&with_original);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["suppressed_items"], 4);
    // The input itself is not coherent, nor is the publication for a larger k: exit 3.
    let mut loose = vec!["audit", "coherence", &data, "--private", &private, "--no-manifest"];
    loose.extend(["--h", "0.5", "--k", "3", "--p", "3"]);
    let o = txanon(&loose);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("fewer than k = 3"), "{}", stderr(&o));
    let o = audit(&published, "5");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // k = 1 protects nothing, and a huge p neither panics nor hangs.
    assert_eq!(audit(&published, "1").status.code(), Some(2));
    let mut huge = vec!["audit", "coherence", &published, "--private", &private];
    huge.extend(["--h", "0.5", "--k", "3", "--p", "18446744073709551615"]);
    assert!(txanon(&huge).status.success());

    // s1 is in 3 of 7 transactions: with h = 0.4 the empty itemset is a mole. Exit 2, nothing.
    let nothing = dir.path().join("nothing");
    let o = txanon(&[
        "anonymize",
        "coherence",
        &data,
        "--private",
        &private,
        "--h",
        "0.4",
        "--k",
        "3",
        "--p",
        "3",
        "--nugget-support",
        "4",
        "-o",
        nothing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no (h,k,p)-cohesion"), "{}", stderr(&o));
    assert!(!nothing.exists());
    // Unknown private labels, impossible parameters, and no private items at all: exit 2.
    let unknown = fixture(dir.path(), "unknown.txt", "s9\n");
    for args in [
        vec!["--private", unknown.as_str(), "--h", "0.5", "--k", "3", "--p", "3"],
        vec!["--private", private.as_str(), "--h", "1.5", "--k", "3", "--p", "3"],
        vec!["--private", private.as_str(), "--h", "0.5", "--k", "3", "--p", "0"],
        vec!["--h", "0.5", "--k", "3", "--p", "3"],
    ] {
        let o = txanon(
            &[
                &["anonymize", "coherence", &data][..],
                &args,
                &["--nugget-support", "4", "-o", nothing.to_str().unwrap()],
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!nothing.exists());
    }
}

#[test]
fn anonymize_swap_writes_a_verified_publication_and_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("swap-table1.csv");
    let categories = examples("swap-table1.categories");
    let out = dir.path().join("published");
    let key_path = dir.path().join("secret-key.txt");
    // The key must not go inside the publication: refused before any work, nothing written.
    let o = txanon(&[
        "anonymize",
        "swap",
        &data,
        "--categories",
        &categories,
        "--key-out",
        out.join("key.txt").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists());
    let o = txanon(&[
        "anonymize",
        "swap",
        &data,
        "--categories",
        &categories,
        "--seed",
        "1",
        "--key-out",
        key_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files_in(&out), ["manifest.json", "published.dat", "summary.json"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the key is private");
    }
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("a key linking every published record"), "{manifest}");
    assert!(!manifest.contains("secret-key"), "the manifest names no key path");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["method"], "partswap");
    assert_eq!(summary["with_tendency"], 10);
    assert_eq!(summary["audit"]["occurrences_lost"], 0);
    assert_eq!(summary["audit"]["false_swaps"], 0);
    assert_eq!(summary["audit"]["exposed"], 0);
    let published = out.join("published.dat").to_str().unwrap().to_owned();
    let key = key_path.to_str().unwrap().to_owned();
    let audit_with = |file: &str, key: &str, method: &str, extra: &[&str]| {
        let mut args = vec!["audit", "swap", &data, file, "--categories", &categories];
        args.extend(["--key", key, "--method", method]);
        args.extend_from_slice(extra);
        txanon(&args)
    };
    let audit = |file: &str, key: &str, method: &str| audit_with(file, key, method, &["--json"]);
    // Loose files (the original, forged ones) have no manifest: the guarantee alone.
    let loose =
        |file: &str, key: &str, method: &str| audit_with(file, key, method, &["--no-manifest"]);
    let o = audit(&published, &key, "partswap");
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["changed"], 2 * summary["pairs"].as_u64().unwrap());

    // The original itself, under the identity key, fails under every method that would change
    // it: exit 3. (Table 1 has no record of one category, so full swapping changes nothing and
    // the original is its own full swapping.)
    let identity =
        fixture(dir.path(), "identity.txt", (1..=10).map(|i| format!("{i}\n")).collect::<String>());
    for method in ["partswap", "both", "randswap", "partsupp", "splitperson"] {
        let o = loose(&data, &identity, method);
        assert_eq!(o.status.code(), Some(3), "{method}: {}", stderr(&o));
    }
    assert!(loose(&data, &identity, "fullswap").status.success());
    // An item that is not in the original: exit 3.
    let forged = fixture(
        dir.path(),
        "forged.dat",
        std::fs::read_to_string(&published).unwrap().replacen('\n', " 99\n", 1),
    );
    let o = loose(&forged, &key, "partswap");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // A key that is not a list of record numbers: exit 2 naming the line.
    let bad_key = fixture(dir.path(), "bad.txt", "1\nx\n");
    let o = audit(&published, &bad_key, "partswap");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:2"), "{}", stderr(&o));

    // Random swapping, allowed to leave records exposed; random categories are written
    // beside the publication.
    let rand_out = dir.path().join("rand");
    let o = txanon(&[
        "anonymize",
        "swap",
        &data,
        "--method",
        "randswap",
        "--random-categories",
        "3",
        "--max-exposed",
        "10",
        "--seed",
        "5",
        "-o",
        rand_out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_in(&rand_out),
        ["categories.txt", "manifest.json", "published.dat", "summary.json"]
    );

    // A bounded search (`--window`) is named in the summary and audited like the paper's; a
    // window of 0, or one given to a method that does not search, is refused.
    let window_out = dir.path().join("window");
    let window_key = dir.path().join("window-key.txt");
    let o = txanon(&[
        "anonymize",
        "swap",
        &data,
        "--categories",
        &categories,
        "--window",
        "1",
        "--seed",
        "1",
        "--key-out",
        window_key.to_str().unwrap(),
        "-o",
        window_out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let windowed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(windowed["window"], 1);
    assert!(summary.get("window").is_none(), "the paper's search names no window");
    assert_eq!(windowed["audit"]["exposed"], 0);
    let o = audit(
        window_out.join("published.dat").to_str().unwrap(),
        window_key.to_str().unwrap(),
        "partswap",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let refused = dir.path().join("refused");
    for args in
        [["--window", "0", "--method", "partswap"], ["--window", "5", "--method", "randswap"]]
    {
        let o = txanon(
            &[
                &["anonymize", "swap", &data, "--categories", &categories][..],
                &args,
                &["-o", refused.to_str().unwrap()],
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--window"), "{}", stderr(&o));
        assert!(!refused.exists());
    }

    // Categories that miss items, or none at all: exit 2, nothing written.
    let partial = fixture(dir.path(), "partial.txt", "1 a\n2 b\n");
    let nothing = dir.path().join("nothing");
    for args in [vec!["--categories", partial.as_str()], vec![]] {
        let o = txanon(
            &[&["anonymize", "swap", &data][..], &args, &["-o", nothing.to_str().unwrap()]]
                .concat(),
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!nothing.exists());
    }
}

/// `--ties all` moves every category tied for a record's heaviest (users 005 and 010 of Table 1
/// tie news with sports) and its audit passes; the paper's rule, audited under `--ties all`,
/// fails where a swapped tied record still shows sports (exit 3).
#[test]
fn swap_ties_all_hides_every_tied_category() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("swap-table1.csv");
    let categories = examples("swap-table1.categories");
    let mut stricter_fails = 0;
    for seed in 0..20 {
        let seed = seed.to_string();
        let mut audits = Vec::new();
        for ties in ["first", "all"] {
            let out = dir.path().join(format!("{ties}-{seed}"));
            let key = dir.path().join(format!("key-{ties}-{seed}.txt"));
            let o = txanon(&[
                "anonymize",
                "swap",
                &data,
                "--categories",
                &categories,
                "--ties",
                ties,
                "--seed",
                &seed,
                "--key-out",
                key.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{ties} {seed}: {}", stderr(&o));
            let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(summary["ties"], ties);
            let o = txanon(&[
                "audit",
                "swap",
                &data,
                out.join("published.dat").to_str().unwrap(),
                "--categories",
                &categories,
                "--key",
                key.to_str().unwrap(),
                "--method",
                "partswap",
                "--ties",
                "all",
            ]);
            audits.push(o.status.code());
        }
        assert_eq!(audits[1], Some(0), "seed {seed}: the all-ties publication passes");
        assert!(matches!(audits[0], Some(0) | Some(3)), "seed {seed}: {audits:?}");
        stricter_fails += usize::from(audits[0] == Some(3));
    }
    assert!(stricter_fails > 0, "the paper's rule leaves a tied category showing");
}

#[test]
fn anonymize_slicing_publishes_the_papers_two_buckets_and_audits_all_methods() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("slicing-table1.csv");
    let schema = examples("slicing-table1.schema.json");
    let out = dir.path().join("sliced");
    let out_s = out.to_str().unwrap();
    let o = slice_table1(&out, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files_in(&out), ["manifest.json", "sliced.csv", "sliced.json", "summary.json"]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["stats"]["buckets"], 2);
    assert_eq!(summary["audit"]["worst"], 0.5);
    let csv = std::fs::read_to_string(out.join("sliced.csv")).unwrap();
    assert!(csv.starts_with("bucket,Age,Sex,Zipcode,Disease\n"), "{csv}");
    let audit = txanon(&["audit", "slicing", &data, out_s, "--schema", &schema, "-l", "2"]);
    assert!(audit.status.success(), "{}", stderr(&audit));
    let stronger = txanon(&["audit", "slicing", &data, out_s, "--schema", &schema, "-l", "3"]);
    assert_eq!(stronger.status.code(), Some(3), "{}", stderr(&stronger));
    assert!(stderr(&stronger).contains("1/3"), "{}", stderr(&stronger));
    // The auditor's ℓ is required; ℓ = 1 protects nothing.
    let o = txanon(&["audit", "slicing", &data, out_s, "--schema", &schema]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = txanon(&["audit", "slicing", &data, out_s, "--schema", &schema, "-l", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Every Disease value replaced by an invented one: exit 3.
    let sliced = std::fs::read_to_string(out.join("sliced.csv")).unwrap();
    let mut lines = sliced.lines();
    let mut invented = format!("{}\n", lines.next().unwrap());
    for (k, line) in lines.enumerate() {
        let (kept, _) = line.rsplit_once(',').unwrap();
        invented.push_str(&format!("{kept},Invented{k}\n"));
    }
    let forged = dir.path().join("forged");
    std::fs::create_dir(&forged).unwrap();
    std::fs::write(forged.join("sliced.csv"), invented).unwrap();
    std::fs::copy(out.join("sliced.json"), forged.join("sliced.json")).unwrap();
    let o = txanon(&[
        "audit",
        "slicing",
        &data,
        forged.to_str().unwrap(),
        "--schema",
        &schema,
        "-l",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    for (method, files) in [
        ("mondrian", vec!["generalized.csv", "generalized.json", "manifest.json", "summary.json"]),
        ("anatomy", vec!["anatomy.json", "manifest.json", "qit.csv", "st.csv", "summary.json"]),
    ] {
        let out = dir.path().join(method);
        let out_s = out.to_str().unwrap();
        let o = txanon(&[
            "anonymize",
            "slicing",
            &data,
            "--schema",
            &schema,
            "--method",
            method,
            "-l",
            "2",
            "--seed",
            "1",
            "-o",
            out_s,
        ]);
        assert!(o.status.success(), "{method}: {}", stderr(&o));
        assert_eq!(files_in(&out), files);
        let audit =
            txanon(&["audit", "slicing", &data, out_s, "--schema", &schema, "-l", "2", "-k", "2"]);
        assert!(audit.status.success(), "{method}: {}", stderr(&audit));
    }
}

#[test]
fn anonymize_slicing_refuses_bad_input_with_exit_2_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let schema = examples("slicing-table1.schema.json");
    let bad = fixture(dir.path(), "bad.csv", "22,M,47906,Flu\nold,F,47906,Cancer\n");
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let o = txanon(&[
        "anonymize",
        "slicing",
        &bad,
        "--schema",
        &schema,
        "-c",
        "2",
        "-l",
        "2",
        "-o",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.csv:2:1") && stderr(&o).contains("numeric"), "{}", stderr(&o));
    assert!(!out.exists());
    // Infeasible: Heart Disease is 3 of 8 tuples, above 1/3.
    let data = examples("slicing-table1.csv");
    let o = txanon(&[
        "anonymize",
        "slicing",
        &data,
        "--schema",
        &schema,
        "-c",
        "2",
        "--sensitive-alone",
        "-l",
        "3",
        "-o",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("infeasible"), "{}", stderr(&o));
    assert!(!out.exists());
    let empty = fixture(dir.path(), "empty.csv", "");
    let o = txanon(&[
        "anonymize",
        "slicing",
        &empty,
        "--schema",
        &schema,
        "-c",
        "2",
        "-l",
        "2",
        "-o",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists());
}

/// The README's swap workflow passes its own audit: random categories written beside the
/// publication, read back by the auditor, for category counts that cross a digit (9, 10, 12)
/// and the paper's 50, several seeds. (Category ids once differed between the run, numeric,
/// and the file read back, textual, which broke ties differently.)
#[test]
fn the_readme_swap_workflow_passes_its_own_audit() {
    let dir = tempfile::tempdir().unwrap();
    let quest = dir.path().join("q.dat");
    let o = txanon(&[
        "generate",
        "quest",
        "--transactions",
        "3000",
        "--avg-len",
        "8",
        "--pattern-len",
        "3",
        "--items",
        "200",
        "--seed",
        "2",
        "--out",
        quest.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let q = quest.to_str().unwrap();
    for categories in ["9", "10", "12", "50"] {
        for seed in ["1", "7", "23"] {
            let out = dir.path().join(format!("swap-{categories}-{seed}"));
            let key = dir.path().join(format!("key-{categories}-{seed}.txt"));
            let o = txanon(&[
                "anonymize",
                "swap",
                q,
                "--random-categories",
                categories,
                "--seed",
                seed,
                "--key-out",
                key.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{categories}/{seed}: {}", stderr(&o));
            let at = |f: &str| out.join(f).to_str().unwrap().to_owned();
            let o = txanon(&[
                "audit",
                "swap",
                q,
                &at("published.dat"),
                "--categories",
                &at("categories.txt"),
                "--key",
                key.to_str().unwrap(),
                "--method",
                "partswap",
            ]);
            assert!(o.status.success(), "{categories}/{seed}: {}", stderr(&o));
        }
    }
}

/// Every family's README workflow, for several seeds: what `anonymize` wrote passes `audit`
/// given the same guarantee, the flattened or QID files and the original.
#[test]
fn the_readme_workflows_pass_their_own_audits() {
    let dir = tempfile::tempdir().unwrap();
    let quest = dir.path().join("q.dat");
    let q = quest.to_str().unwrap();
    let o = txanon(&[
        "generate",
        "quest",
        "--transactions",
        "3000",
        "--avg-len",
        "8",
        "--pattern-len",
        "3",
        "--items",
        "150",
        "--seed",
        "4",
        "--out",
        q,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list = |name: &str, summary: &serde_json::Value, key: &str| {
        let items: Vec<&str> =
            summary[key].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        fixture(dir.path(), name, items.join("\n"))
    };
    let (data, schema) = (examples("slicing-table1.csv"), examples("slicing-table1.schema.json"));
    for seed in ["1", "2", "3"] {
        let out = |family: &str| dir.path().join(format!("{family}-{seed}"));
        let at = |family: &str, file: &str| out(family).join(file).to_str().unwrap().to_owned();
        let ok = |o: Output, what: &str| {
            assert!(o.status.success(), "{what} (seed {seed}): {}", stderr(&o));
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
        };
        let a = out("anatomy");
        ok(
            txanon(&[
                "anonymize",
                "anatomy",
                q,
                "-c",
                "5",
                "-l",
                "3",
                "--seed",
                seed,
                "-o",
                a.to_str().unwrap(),
            ]),
            "anonymize anatomy",
        );
        ok(
            txanon(&[
                "audit",
                "anatomy",
                &at("anatomy", "table.json"),
                "-l",
                "3",
                "--flattened",
                &at("anatomy", "anonymized.dat"),
                "--original",
                q,
                "--json",
            ]),
            "audit anatomy",
        );
        let c = out("cahd");
        let summary = ok(
            txanon(&[
                "anonymize",
                "cahd",
                q,
                "--sensitive-random",
                "5",
                "-p",
                "4",
                "--seed",
                seed,
                "-o",
                c.to_str().unwrap(),
            ]),
            "anonymize cahd",
        );
        let sensitive = list(&format!("cahd-{seed}.txt"), &summary, "sensitive_items");
        ok(
            txanon(&[
                "audit",
                "cahd",
                &at("cahd", "groups.json"),
                "-p",
                "4",
                "--sensitive",
                &sensitive,
                "--original",
                q,
                "--json",
            ]),
            "audit cahd",
        );
        let h = out("coherence");
        let summary = ok(
            txanon(&[
                "anonymize",
                "coherence",
                q,
                "--private-random",
                "10",
                "--h",
                "0.5",
                "--k",
                "5",
                "--p",
                "2",
                "--nugget-support",
                "30",
                "--seed",
                seed,
                "-o",
                h.to_str().unwrap(),
            ]),
            "anonymize coherence",
        );
        let private = list(&format!("coherence-{seed}.txt"), &summary, "private_items");
        ok(
            txanon(&[
                "audit",
                "coherence",
                &at("coherence", "published.dat"),
                "--private",
                &private,
                "--h",
                "0.5",
                "--k",
                "5",
                "--p",
                "2",
                "--original",
                q,
                "--json",
            ]),
            "audit coherence",
        );
        let s = out("slicing");
        ok(slice_table1(&s, seed, &[]), "anonymize slicing");
        ok(
            txanon(&[
                "audit",
                "slicing",
                &data,
                s.to_str().unwrap(),
                "--schema",
                &schema,
                "-l",
                "2",
                "--json",
            ]),
            "audit slicing",
        );
    }
}

/// `evaluate` on the CAHD example: one directory with the report, the results and a
/// manifest, none of which holds the seed; bad parameters exit 2 and write nothing.
#[test]
fn evaluate_writes_one_report_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval");
    let (data, sensitive) = (examples("cahd-example.csv"), examples("cahd-example.sensitive"));
    let out_s = out.to_str().unwrap();
    let o = txanon(&[
        "evaluate",
        &data,
        "--sensitive",
        &sensitive,
        "--levels",
        "2",
        "--methods",
        "cahd,swap",
        "--seed",
        "7339141",
        "-o",
        out_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files_in(&out), ["manifest.json", "report.html", "results.csv", "results.json"]);
    // The seed is the data holder's secret: no file of the report holds it.
    for name in files_in(&out) {
        let text = std::fs::read_to_string(out.join(&name)).unwrap();
        assert!(!text.contains("7339141"), "{name} holds the seed");
    }
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let points = results["points"].as_array().unwrap();
    // The references, CAHD at p = 2, and swapping out of reach without categories.
    assert_eq!(points.len(), 4);
    assert_eq!(points[2]["outcome"]["outcome"], "published");
    assert_eq!(points[3]["outcome"]["outcome"], "infeasible");
    let bad = dir.path().join("bad");
    for args in [["--levels", "1"], ["--methods", "nope"], ["--draws", "0"]] {
        let o = txanon(&[
            "evaluate",
            &data,
            "--sensitive",
            &sensitive,
            args[0],
            args[1],
            "-o",
            bad.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!bad.exists(), "{args:?} wrote something");
    }
}

/// `evaluate --threat … --max-risk …` decides: the recommendation and the command that makes
/// it on standard output, first in the report, in results.json; the command publishes a
/// publication that passes its audit; an unknown threat exits 2.
#[test]
fn evaluate_recommends_a_publication_for_the_named_risk() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval");
    let data = examples("km-figure1.csv");
    let o = txanon(&[
        "evaluate",
        &data,
        "--sensitive-random",
        "1",
        "--methods",
        "km,cahd",
        "--levels",
        "2",
        "--known",
        "1",
        "--supports",
        "0.5",
        "--threat",
        "reidentification",
        "--max-risk",
        "0.6",
        "--seed",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.starts_with("For a risk of re-identification at or below 0.6"), "{said}");
    let command = said
        .lines()
        .find_map(|l| l.strip_prefix("publish it with: "))
        .unwrap_or_else(|| panic!("no command: {said}"));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["command"], command);
    assert!(results["decision"]["recommended"]["worst_risk"].as_f64().unwrap() <= 0.6);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // The first screen: the decision as the first heading's paragraph, its command, then the
    // data, before anything else.
    let decision = html.find("<p id=\"decision\">").unwrap();
    assert!(html[..decision].ends_with("to make</h1><section class=\"decision\">"));
    assert!(
        html[decision..]
            .starts_with("<p id=\"decision\">For a risk of re-identification at or below 0.6")
    );
    let compared = html.find("<h2>What was compared</h2>").unwrap();
    assert!(html[decision..compared].contains("sha256 <code>"), "the data's hash first");

    // The command, run as printed (into the directory it names), publishes what it said.
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_txanon"))
        .args(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{command}: {}", stderr(&o));
    assert!(dir.path().join("published/manifest.json").is_file());
    // --publish writes the recommendation in the same run, audited; nothing when none
    // qualifies.
    let publish = |risk: &str, name: &str| {
        let out = dir.path().join(format!("{name}-eval"));
        let to = dir.path().join(name);
        let o = txanon(&[
            "evaluate",
            &data,
            "--sensitive-random",
            "1",
            "--methods",
            "km,cahd",
            "--levels",
            "2",
            "--known",
            "1",
            "--supports",
            "0.5",
            "--threat",
            "reidentification",
            "--max-risk",
            risk,
            "--seed",
            "1",
            "-o",
            out.to_str().unwrap(),
            "--publish",
            to.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        to
    };
    let to = publish("0.6", "chosen");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(to.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["method"], results["decision"]["recommended"]["method"]);
    assert_eq!(manifest["audit"]["passed"], true);
    assert!(!publish("0.000001", "none").exists(), "nothing qualifies: nothing published");
    let bad = dir.path().join("bad");
    for extra in [["--threat", "gossip"], ["--max-risk", "0"]] {
        let mut args =
            vec!["evaluate", &data, "--sensitive-random", "1", "-o", bad.to_str().unwrap()];
        args.extend(extra);
        if extra[0] == "--threat" {
            args.extend(["--max-risk", "0.1"]);
        } else {
            args.extend(["--threat", "reidentification"]);
        }
        let o = txanon(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(!bad.exists());
    }
}

#[test]
fn anonymize_km_publishes_the_papers_cut_and_audits_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("km-figure1.csv");
    let hierarchy = examples("km-figure1.hierarchy");
    let out = dir.path().join("published");
    let km = |extra: &[&str], out: &Path| {
        let mut args = vec!["anonymize", "km", &data, "--k", "2", "--m", "2", "--seed", "1"];
        args.extend(extra);
        args.extend(["-o", out.to_str().unwrap()]);
        txanon(&args)
    };
    let o = km(&["--hierarchy", &hierarchy], &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_in(&out),
        ["cut.txt", "hierarchy.txt", "manifest.json", "published.csv", "summary.json"]
    );
    assert_eq!(std::fs::read_to_string(out.join("cut.txt")).unwrap(), "A\nb1\nb2\n");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["generalized_nodes"], 1);
    assert!((summary["ncp"].as_f64().unwrap() - 2.5 / 11.0).abs() < 1e-12);
    let published = out.join("published.csv").to_str().unwrap().to_owned();
    let carried = out.join("hierarchy.txt").to_str().unwrap().to_owned();
    let cut = out.join("cut.txt").to_str().unwrap().to_owned();
    let audit = |file: &str, k: &str, extra: &[&str]| {
        let mut args = vec!["audit", "km", file, "--hierarchy", &carried, "--k", k, "--m", "2"];
        args.extend(extra);
        txanon(&args)
    };
    let o = audit(&published, "2", &["--cut", &cut, "--original", &data, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["smallest_support"], 2);
    // The publication is not 3²-anonymous, nor is the original 2²-anonymous: exit 3, named.
    let o = audit(&published, "3", &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("{b1,b2} occurs in 2 transactions"), "{}", stderr(&o));
    let o = audit(&data, "2", &["--no-manifest"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("{a1,b1} occurs in 1 transactions"), "{}", stderr(&o));
    // A published file edited after the manifest: exit 3 before any check.
    std::fs::write(&published, "A,b1,b2\nA,b1\nA,b1,b2\nA,b1\n").unwrap();
    assert_eq!(audit(&published, "2", &[]).status.code(), Some(3));

    // Built hierarchies: the balanced one of fanout 2 has A's and B's shape here.
    let built = dir.path().join("built");
    let o = km(&["--fanout", "2"], &built);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(built.join("cut.txt")).unwrap(), "L1:a1-a2\nb1\nb2\n");
    let o = km(&["--build", "cooccurrence", "--algorithm", "oa"], &dir.path().join("cooc"));
    assert!(o.status.success(), "{}", stderr(&o));

    // Bad input: exit 2, the line named, nothing written.
    let bad = fixture(dir.path(), "bad.hierarchy", "a1 A\na2 A\nb1 B\nb2\n");
    let none = dir.path().join("none");
    let o = km(&["--hierarchy", &bad], &none);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.hierarchy:4"), "{}", stderr(&o));
    let partial = fixture(dir.path(), "partial.hierarchy", "a1 A\na2 A\nb1 B\nA ALL\nB ALL\n");
    let o = km(&["--hierarchy", &partial], &none);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("item b2 of the data is not a node"), "{}", stderr(&o));
    for (flag, value) in
        [("--k", "1"), ("--m", "0"), ("--m", "5"), ("--fanout", "1"), ("--k", "99999999999")]
    {
        let mut args = vec!["anonymize", "km", &data, "--k", "2", "--m", "2"];
        args.extend([flag, value, "-o", none.to_str().unwrap()]);
        let o = txanon(&args);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", stderr(&o));
    }
    let o = txanon(&[
        "anonymize",
        "km",
        &data,
        "--hierarchy",
        &hierarchy,
        "--k",
        "5",
        "--m",
        "1",
        "-o",
        none.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("fewer than k = 5"), "{}", stderr(&o));
    assert!(!none.exists());
}

/// Items drawn by `--sensitive-random` are written into the publication (`sensitive.txt`),
/// listed in its manifest, so that the audit after the run reads the publication's own list.
#[test]
fn drawn_sensitive_items_are_published_for_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("cahd-example.csv");
    let out = dir.path().join("out");
    let o = txanon(&[
        "anonymize",
        "cahd",
        &data,
        "--sensitive-random",
        "1",
        "--seed",
        "1",
        "-p",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files_in(&out),
        ["groups.json", "manifest.json", "qid.csv", "sensitive.txt", "summary.json"]
    );
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed = std::fs::read_to_string(out.join("sensitive.txt")).unwrap();
    let drawn: Vec<&str> = listed.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(serde_json::json!(drawn), summary["sensitive_items"]);
    let list = out.join("sensitive.txt");
    let o = txanon(&[
        "audit",
        "cahd",
        out.join("groups.json").to_str().unwrap(),
        "-p",
        "2",
        "--sensitive",
        list.to_str().unwrap(),
        "--original",
        &data,
        "--strict",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Every `anonymize` ends with a summary for people on standard error: records, items and
/// occurrences in and out, what the method did, the guarantee audited; and a warning, naming
/// the parameters, exactly when fewer than half the item occurrences were kept.
#[test]
fn anonymize_says_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let (data, private) =
        (examples("coherence-figure1.csv"), examples("coherence-figure1.private"));
    for (h, k) in [("0.5", "3"), ("0.9", "2")] {
        let out = dir.path().join(format!("c{k}"));
        let o = txanon(&[
            "anonymize",
            "coherence",
            &data,
            "--private",
            &private,
            "--h",
            h,
            "--k",
            k,
            "--p",
            "3",
            "--nugget-support",
            "2",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stderr(&o);
        assert!(text.contains("coherence: 7 records in, 7 published"), "{text}");
        assert!(
            text.contains(&format!("audited: (h, k, p)-coherence with h = {h}, k = {k}, p = 3")),
            "{text}"
        );
        let kept: f64 = text
            .split("item occurrences: ")
            .nth(1)
            .and_then(|t| t.split('(').nth(1))
            .and_then(|t| t.split('%').next())
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(text.contains("warning: the publication keeps"), kept < 50.0, "{text}");
        assert_eq!(text.contains("--h, --k and --p decide"), kept < 50.0, "{text}");
    }
    let out = dir.path().join("km");
    let o = txanon(&[
        "anonymize",
        "km",
        &examples("km-figure1.csv"),
        "--hierarchy",
        &examples("km-figure1.hierarchy"),
        "--k",
        "2",
        "--m",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 of 4 items generalized above the leaves"), "{}", stderr(&o));
    assert!(stderr(&o).contains("audited: k^m-anonymity with k = 2, m = 2"), "{}", stderr(&o));
    // `--json`: the same facts as one object on standard output, numbers as numbers, beside
    // the summary; no lines for people on standard error.
    for (h, k) in [("0.5", "3"), ("0.9", "2")] {
        let out = dir.path().join(format!("json{k}"));
        let o = txanon(&[
            "anonymize",
            "coherence",
            &data,
            "--private",
            &private,
            "--h",
            h,
            "--k",
            k,
            "--p",
            "3",
            "--nugget-support",
            "2",
            "--json",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stderr(&o).contains("audited:"), "{}", stderr(&o));
        let run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let published: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(run["summary"], published);
        let outcome = &run["outcome"];
        assert_eq!(
            (outcome["records_in"].as_u64(), outcome["records_published"].as_u64()),
            (Some(7), Some(7))
        );
        let (before, after) = (
            outcome["occurrences_in"].as_u64().unwrap(),
            outcome["occurrences_published"].as_u64().unwrap(),
        );
        assert!(after <= before && before > 0);
        assert_eq!(outcome["occurrences_kept"].as_f64(), Some(after as f64 / before as f64));
        assert_eq!(outcome["warnings"].as_array().unwrap().len(), usize::from(after * 2 < before));
        assert_eq!(
            outcome["audited"],
            format!("(h, k, p)-coherence with h = {h}, k = {k}, p = 3 for 4 private items")
                .as_str()
        );
    }
}

/// Every option that takes a support accepts and refuses exactly what `mine -s` does, each
/// refusal naming the option, the value and the range (they were silently clamped).
#[test]
fn every_support_option_is_checked_alike() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("coherence-figure1.csv");
    let private = examples("coherence-figure1.private");
    for value in ["-1", "NaN", "0", "inf", "150%", "0%", "4294967296", "1e999"] {
        let out = dir.path().join("out");
        let o = txanon(&[
            "anonymize",
            "coherence",
            &data,
            "--private",
            &private,
            "--h",
            "0.9",
            "--k",
            "2",
            "--p",
            "2",
            &format!("--nugget-support={value}"),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{value}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--nugget-support") && stderr(&o).contains("out of range"),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
        let o = txanon(&["mine", "fpgrowth", &data, &format!("-s={value}")]);
        assert_eq!(o.status.code(), Some(2), "{value}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--support") && stderr(&o).contains("out of range"),
            "{}",
            stderr(&o)
        );
    }
}

/// `evaluate` refuses a level, method, known-item count or support given twice, and anatomy
/// columns below 2, before any work: exit 2, the option named, nothing written.
#[test]
fn evaluate_refuses_repeated_settings() {
    let dir = tempfile::tempdir().unwrap();
    let data = examples("cahd-example.csv");
    let sensitive = examples("cahd-example.sensitive");
    let out = dir.path().join("report");
    for (option, value) in [
        ("--levels", "4,4"),
        ("--methods", "km, km"),
        ("--known", "1,2,1"),
        ("--supports", "0.01,0.01"),
        ("--anatomy-columns", "1"),
    ] {
        let o = txanon(&[
            "evaluate",
            &data,
            "--sensitive",
            &sensitive,
            option,
            value,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{option}: {}", stderr(&o));
        assert!(stderr(&o).starts_with(&format!("error: {option}: ")), "{}", stderr(&o));
        assert!(!out.exists());
    }
}

/// A data holder's export: a header of its own, extra columns, a delimiter other than the
/// comma, unsorted text ids; read by the header's names, or refused with the options to pass.
#[test]
fn a_data_holders_export_is_read_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let stats = |file: &str, extra: &[&str]| {
        let mut args = vec!["stats", file, "--json"];
        args.extend_from_slice(extra);
        txanon(&args)
    };
    let orders = fixture(
        dir.path(),
        "orders.csv",
        "Order ID;Product;Quantity\nB-17;milk;2\nA-03;bread;1\nB-17;eggs;12\nA-03;milk;1\nC-99;tea;3\n",
    );
    let o = stats(&orders, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["transactions"].as_u64(), v["items"].as_u64()), (Some(3), Some(4)), "{v}");
    // Names it does not know, over a table: could be a header or a basket, so refused.
    let export =
        fixture(dir.path(), "export.csv", "buyer,what,price\nx1,milk,2.5\nx2,tea,1\nx1,tea,1\n");
    let o = stats(&export, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--header") && stderr(&o).contains("--no-header"),
        "{}",
        stderr(&o)
    );
    let o = stats(&export, &["--header", "--tid-column", "buyer", "--item-column", "what"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["transactions"].as_u64(), Some(2), "{v}");
    let o = stats(&export, &["--tid-column", "customer", "--item-column", "what"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("\"customer\" is not a column of the header"), "{}", stderr(&o));
    let o = stats(&export, &["--no-header"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["transactions"].as_u64(), Some(4), "read as four baskets: {v}");
}

/// Parquet and Arrow IPC in and out: `convert` round-trips a database exactly, a gzip name is
/// refused for a format compressed inside, and every transaction family publishes its
/// transaction file as Parquet (`--to parquet`) that its own audit reads and passes.
#[test]
fn parquet_in_and_out_for_every_transaction_family() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let q = at("q.dat");
    let o = txanon(&[
        "generate",
        "quest",
        "--transactions",
        "2000",
        "--avg-len",
        "8",
        "--pattern-len",
        "3",
        "--items",
        "150",
        "--seed",
        "4",
        "--out",
        &q,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["q.parquet", "q.arrow"] {
        let o = txanon(&["convert", &q, &at(name)]);
        assert!(o.status.success(), "{}", stderr(&o));
        let back = at(&format!("{name}.dat"));
        let o = txanon(&["convert", &at(name), &back]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::read(&q).unwrap(), std::fs::read(&back).unwrap(), "{name}");
    }
    let o = txanon(&["convert", &q, &at("q.parquet.gz")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("drop .gz"), "{}", stderr(&o));
    assert!(!dir.path().join("q.parquet.gz").exists());
    // Published and audited from Parquet, the input Parquet too.
    let p = at("q.parquet");
    let key = at("key.txt");
    const KEY: &str = "KEY";
    let runs: [(&str, &[&str], &str, &[&str]); 5] = [
        ("anatomy", &["-c", "5", "-l", "3"], "table.json", &["-l", "3"]),
        ("cahd", &["--sensitive-random", "5", "-p", "4"], "groups.json", &["-p", "4"]),
        (
            "coherence",
            &[
                "--sensitive-random",
                "10",
                "--h",
                "0.5",
                "--k",
                "5",
                "--p",
                "2",
                "--nugget-support",
                "30",
            ],
            "published.parquet",
            &["--h", "0.5", "--k", "5", "--p", "2"],
        ),
        ("km", &["--k", "5", "--m", "2"], "published.parquet", &["--k", "5", "--m", "2"]),
        ("swap", &["--random-categories", "4", "--key-out", KEY], "published.parquet", &[]),
    ];
    for (family, params, file, audit) in runs {
        let out = dir.path().join(family);
        let mut args = vec!["anonymize", family, &p, "--to", "parquet", "--seed", "1"];
        args.extend(params.iter().map(|&a| if a == KEY { key.as_str() } else { a }));
        args.extend(["-o", out.to_str().unwrap()]);
        let o = txanon(&args);
        assert!(o.status.success(), "{family}: {}", stderr(&o));
        let files = files_in(&out);
        assert!(files.iter().any(|f| f.ends_with(".parquet")), "{family}: {files:?}");
        assert!(!files.iter().any(|f| f.ends_with(".dat")), "{family}: {files:?}");
        let published = out.join(file);
        let mut args = if family == "swap" {
            vec!["audit", family, &p, published.to_str().unwrap(), "--method", "partswap"]
        } else {
            vec!["audit", family, published.to_str().unwrap(), "--original", &p]
        };
        args.extend_from_slice(audit);
        let extra: Vec<String> = match family {
            "cahd" | "coherence" => {
                vec!["--sensitive".into(), out.join("sensitive.txt").to_str().unwrap().into()]
            }
            "km" => vec!["--hierarchy".into(), out.join("hierarchy.txt").to_str().unwrap().into()],
            "swap" => vec![
                "--categories".into(),
                out.join("categories.txt").to_str().unwrap().into(),
                "--key".into(),
                key.clone(),
            ],
            _ => vec![],
        };
        args.extend(extra.iter().map(String::as_str));
        let o = txanon(&args);
        assert!(o.status.success(), "audit {family}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("PASS"), "{family}");
    }
}
