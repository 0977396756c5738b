//! The documentation's commands run as written: every `sh` block of README.md and docs/*.md,
//! command by command, from a directory laid out as the repository's root (its `datasets/`,
//! the binary at `target/release/txanon`, the real datasets at `../shared/datasets`), each
//! checked to exit as its comment says (`# exit 2: …`), else with success.
//!
//! `cargo` lines are not run: they are the main job and the test command themselves, and
//! `cargo build --release` is what built the binary under test. Untagged blocks in docs/ are
//! measurement procedures (hours of runs, old binaries), not commands to paste.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands of the `sh` blocks of `text`, continuation lines joined, with the exit code
/// each expects.
fn commands(text: &str) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_block = !in_block && trimmed == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        pending.push_str(line.trim_end().trim_end_matches('\\'));
        pending.push(' ');
        if line.trim_end().ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending);
        let command = command.trim();
        if command.is_empty() || command.starts_with("cargo ") {
            continue;
        }
        let expected = command
            .split_once(" # ")
            .and_then(|(_, comment)| comment.trim().strip_prefix("exit "))
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        out.push((command.to_string(), expected));
    }
    out
}

#[test]
fn every_documented_command_runs_as_written() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(bms1) = txanon_data::datasets::for_test("bms1") else { return };
    let shared = bms1.parent().unwrap().canonicalize().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("target/release")).unwrap();
    std::fs::create_dir_all(dir.path().join("shared")).unwrap();
    let link = |from: &Path, to: &Path| std::os::unix::fs::symlink(from, to).unwrap();
    link(&root.join("datasets").canonicalize().unwrap(), &work.join("datasets"));
    link(Path::new(env!("CARGO_BIN_EXE_txanon")), &work.join("target/release/txanon"));
    link(&shared, &dir.path().join("shared/datasets"));
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    let mut ran = 0;
    for doc in &docs {
        for (command, expected) in commands(&std::fs::read_to_string(doc).unwrap()) {
            assert!(
                command.starts_with("target/release/txanon "),
                "{}: a command block holds something other than txanon: {command}",
                doc.display()
            );
            let o = Command::new("sh").arg("-c").arg(&command).current_dir(&work).output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(expected),
                "{}: {command}\n{}",
                doc.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    // The README's quick start and command line: a block lost to a formatting slip would
    // silently run nothing.
    assert!(ran >= 40, "{ran} commands ran");
}

#[test]
fn blocks_are_split_into_commands_with_their_exit_codes() {
    let text =
        "x\n```sh\ncargo build\na b \\\n   c   # note\nd # exit 3: why\n```\n```\nnot run\n```\n";
    assert_eq!(
        commands(text),
        [("a b     c   # note".to_string(), 0), ("d # exit 3: why".into(), 3)]
    );
}
