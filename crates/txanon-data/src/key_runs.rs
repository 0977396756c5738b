//! Ascending runs of 128-bit keys, each with an optional count, as compact bytes: the form in
//! which an engine's tasks hand each other itemset counts (`txanon.spark`'s kᵐ-anonymity
//! search sends every shard's itemsets of a pass, tens of millions at 10⁷ transactions, through
//! Spark's shuffle and back).
//!
//! A key is read as four 32-bit words, the most significant first (an itemset's ranks plus
//! one, packed from the top down, leave trailing words zero). Each entry is a header byte, then
//! the first word that differs from the previous key's as its increase (LEB128), then every
//! later word as is (LEB128), then the count when the header does not hold it. The header's
//! two low bits say how many leading words the key shares with the previous one (0 for a run's
//! first key, measured against zero), its six high bits hold a count up to [`SMALL_COUNT`],
//! [`LONG_COUNT`] for a count that follows as LEB128, and the header [`END`] closes the run. A
//! run's key fields therefore take a byte or two each where the raw form takes 16 bytes a key
//! and 4 or 8 a count, and runs can be joined as bytes: a reader takes them one after the other.
//!
//! Keys must ascend strictly within a run; [`KeyRunWriter::push`] refuses one that does not,
//! and [`read_runs`] refuses any byte string that is not a sequence of whole, ascending runs, so
//! that bytes from elsewhere give an error rather than wrong keys.

use std::fmt;

/// The largest count a header holds itself.
pub const SMALL_COUNT: u64 = 61;
/// The header's count field when the count follows as LEB128.
const LONG_COUNT: u8 = 62;
/// The header that closes a run (count field 63, three shared words).
pub const END: u8 = 0xff;

/// Why bytes are not key runs, or a key does not extend its run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRunError {
    /// A key not above the run's previous key.
    NotAscending {
        /// The byte offset of the entry (0 when writing).
        at: usize,
    },
    /// The bytes end inside an entry or before a run's [`END`].
    Truncated {
        /// Where the unfinished entry or run starts.
        at: usize,
    },
    /// A malformed entry: a LEB128 number too long for its field, a word past 32 bits, or a
    /// header that does not fit its place.
    Malformed {
        /// The byte offset of the entry.
        at: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

impl fmt::Display for KeyRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAscending { at } => {
                write!(f, "key runs: a key at byte {at} does not ascend from the one before")
            }
            Self::Truncated { at } => {
                write!(f, "key runs: the bytes end inside a run begun at byte {at}")
            }
            Self::Malformed { at, reason } => {
                write!(f, "key runs: the entry at byte {at}: {reason}")
            }
        }
    }
}

impl std::error::Error for KeyRunError {}

fn words(key: u128) -> [u32; 4] {
    [(key >> 96) as u32, (key >> 64) as u32, (key >> 32) as u32, key as u32]
}

fn push_leb(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// One run being written into a byte vector: [`push`](Self::push) each key (with its count) in
/// ascending order, then [`finish`](Self::finish).
#[derive(Debug, Clone, Default)]
pub struct KeyRunWriter {
    previous: Option<u128>,
}

impl KeyRunWriter {
    /// A run with no key yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `key` with `count` (0 for runs of keys alone) to `out`.
    ///
    /// # Errors
    /// [`KeyRunError::NotAscending`] when `key` is not above the run's previous key; nothing is
    /// appended then.
    pub fn push(&mut self, out: &mut Vec<u8>, key: u128, count: u64) -> Result<(), KeyRunError> {
        let now = words(key);
        let (shared, before) = match self.previous {
            None => (0, [0u32; 4]),
            Some(previous) if previous >= key => return Err(KeyRunError::NotAscending { at: 0 }),
            Some(previous) => {
                let before = words(previous);
                // Fewer than four: the keys differ.
                (now.iter().zip(&before).take_while(|(a, b)| a == b).count(), before)
            }
        };
        let count_field = if count <= SMALL_COUNT { count as u8 } else { LONG_COUNT };
        out.push(shared as u8 | (count_field << 2));
        push_leb(out, u64::from(now[shared] - before[shared]));
        for &word in &now[shared + 1..] {
            push_leb(out, u64::from(word));
        }
        if count > SMALL_COUNT {
            push_leb(out, count);
        }
        self.previous = Some(key);
        Ok(())
    }

    /// Closes the run; the writer starts a new one.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        out.push(END);
        self.previous = None;
    }
}

/// Writes `entries` (ascending keys) as one run.
///
/// # Errors
/// [`KeyRunError::NotAscending`] for a key not above the one before.
pub fn write_run(
    out: &mut Vec<u8>,
    entries: impl IntoIterator<Item = (u128, u64)>,
) -> Result<(), KeyRunError> {
    let mut run = KeyRunWriter::new();
    for (key, count) in entries {
        run.push(out, key, count)?;
    }
    run.finish(out);
    Ok(())
}

/// Reads one LEB128 number of at most `bits` bits at `bytes[*at..]`.
fn read_leb(bytes: &[u8], at: &mut usize, bits: u32, entry: usize) -> Result<u64, KeyRunError> {
    let mut value = 0u128;
    for place in 0..bits.div_ceil(7) {
        let Some(&byte) = bytes.get(*at) else {
            return Err(KeyRunError::Truncated { at: entry });
        };
        *at += 1;
        value |= u128::from(byte & 0x7f) << (7 * place);
        if byte & 0x80 == 0 {
            if value >> bits != 0 {
                break;
            }
            return Ok(value as u64);
        }
    }
    Err(KeyRunError::Malformed { at: entry, reason: "a number too long for its field" })
}

/// Every entry of the runs in `bytes` (runs joined one after the other), each run's keys
/// ascending, the runs in their order; `f` is called with each `(key, count)`.
///
/// # Errors
/// [`KeyRunError`] for bytes that are not whole runs of strictly ascending keys.
pub fn read_runs(bytes: &[u8], mut f: impl FnMut(u128, u64)) -> Result<(), KeyRunError> {
    let mut at = 0;
    while at < bytes.len() {
        let run_start = at;
        let mut previous: Option<[u32; 4]> = None;
        loop {
            let entry = at;
            let Some(&header) = bytes.get(at) else {
                return Err(KeyRunError::Truncated { at: run_start });
            };
            at += 1;
            if header == END {
                break;
            }
            let shared = usize::from(header & 3);
            let count_field = header >> 2;
            if count_field > LONG_COUNT {
                return Err(KeyRunError::Malformed { at: entry, reason: "an unknown header" });
            }
            let before = match previous {
                None if shared > 0 => {
                    return Err(KeyRunError::Malformed {
                        at: entry,
                        reason: "a run's first key shares words with none",
                    });
                }
                None => [0u32; 4],
                Some(before) => before,
            };
            let mut now = before;
            let step = read_leb(bytes, &mut at, 32, entry)?;
            let word = u64::from(before[shared]) + step;
            if word > u64::from(u32::MAX) {
                return Err(KeyRunError::Malformed { at: entry, reason: "a word past 32 bits" });
            }
            if previous.is_some() && step == 0 {
                return Err(KeyRunError::NotAscending { at: entry });
            }
            now[shared] = word as u32;
            for slot in &mut now[shared + 1..] {
                *slot = read_leb(bytes, &mut at, 32, entry)? as u32;
            }
            let count = if count_field == LONG_COUNT {
                let count = read_leb(bytes, &mut at, 64, entry)?;
                if count <= SMALL_COUNT {
                    return Err(KeyRunError::Malformed {
                        at: entry,
                        reason: "a small count written long",
                    });
                }
                count
            } else {
                u64::from(count_field)
            };
            let key = now.iter().fold(0u128, |key, &w| (key << 32) | u128::from(w));
            f(key, count);
            previous = Some(now);
        }
    }
    Ok(())
}

/// [`read_runs`] collected.
///
/// # Errors
/// As [`read_runs`].
pub fn read_entries(bytes: &[u8]) -> Result<Vec<(u128, u64)>, KeyRunError> {
    let mut entries = Vec::new();
    read_runs(bytes, |key, count| entries.push((key, count)))?;
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The raw form's width, for the size comparison: 16 bytes of key, 4 of count.
    const RAW: usize = 20;

    fn runs_of(runs: &[Vec<(u128, u64)>]) -> Vec<u8> {
        let mut out = Vec::new();
        for run in runs {
            write_run(&mut out, run.iter().copied()).unwrap();
        }
        out
    }

    #[test]
    fn a_run_reads_back_and_is_small() {
        // Triples of ranks under 6,000, packed from the top as km's count tree packs them.
        let mut keys: Vec<u128> = (0..20_000u64)
            .map(|i| {
                let x = crate::mix64(i);
                let mut r =
                    [(x % 6000) as u32, ((x >> 20) % 6000) as u32, ((x >> 40) % 6000) as u32];
                r.sort_unstable();
                (u128::from(r[0] + 1) << 96)
                    | (u128::from(r[1] + 1) << 64)
                    | (u128::from(r[2] + 1) << 32)
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let entries: Vec<(u128, u64)> =
            keys.iter().enumerate().map(|(j, &k)| (k, (j % 7) as u64 + 1)).collect();
        let bytes = runs_of(std::slice::from_ref(&entries));
        assert_eq!(read_entries(&bytes).unwrap(), entries);
        // Sparse triples (20,000 in 6,000³/6): still under half the raw form.
        assert!(bytes.len() * 2 < entries.len() * RAW, "{} bytes", bytes.len());
    }

    #[test]
    fn joined_runs_read_in_order_and_extremes_survive() {
        let a = vec![(0u128, 0u64), (1, SMALL_COUNT), (u128::MAX, SMALL_COUNT + 1)];
        let b = vec![(5u128, u64::MAX)];
        let empty: Vec<(u128, u64)> = Vec::new();
        let bytes = runs_of(&[a.clone(), empty, b.clone()]);
        let read = read_entries(&bytes).unwrap();
        assert_eq!(read, [a, b].concat());
        assert_eq!(read_entries(&[]).unwrap(), []);
    }

    #[test]
    fn a_key_out_of_order_is_refused_and_nothing_written() {
        let mut out = Vec::new();
        let mut run = KeyRunWriter::new();
        run.push(&mut out, 7, 1).unwrap();
        let before = out.len();
        assert_eq!(run.push(&mut out, 7, 1), Err(KeyRunError::NotAscending { at: 0 }));
        assert_eq!(run.push(&mut out, 3, 1), Err(KeyRunError::NotAscending { at: 0 }));
        assert_eq!(out.len(), before);
    }

    #[test]
    fn damaged_bytes_are_refused() {
        let bytes = runs_of(&[vec![(1u128 << 96, 3), (2u128 << 96, 70)]]);
        // Every cut short of the whole: truncated, never a panic, never a quiet success.
        for end in 1..bytes.len() {
            assert!(
                matches!(read_entries(&bytes[..end]), Err(KeyRunError::Truncated { .. })),
                "cut at {end}"
            );
        }
        // A first key that claims shared words; an unknown header; a repeated key.
        assert!(matches!(read_entries(&[0x01, 0, END]), Err(KeyRunError::Malformed { .. })));
        assert!(matches!(
            read_entries(&[0xfc, 0, 0, 0, 0, END]),
            Err(KeyRunError::Malformed { .. })
        ));
        assert!(matches!(
            read_entries(&[0, 1, 0, 0, 0, 3, 0, 0, 0, END]),
            Err(KeyRunError::NotAscending { at: 5 })
        ));
        // A word past 32 bits; a small count written long.
        assert!(matches!(
            read_entries(&[0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, END]),
            Err(KeyRunError::Malformed { .. })
        ));
        assert!(matches!(
            read_entries(&[LONG_COUNT << 2, 1, 0, 0, 0, 5, END]),
            Err(KeyRunError::Malformed { .. })
        ));
    }

    proptest! {
        /// Any ascending runs read back as written, joined in order.
        #[test]
        fn runs_round_trip(runs in prop::collection::vec(
            prop::collection::btree_map(any::<u128>(), any::<u64>(), 0..40), 0..5)
        ) {
            let runs: Vec<Vec<(u128, u64)>> =
                runs.into_iter().map(|m| m.into_iter().collect()).collect();
            let bytes = runs_of(&runs);
            prop_assert_eq!(read_entries(&bytes).unwrap(), runs.concat());
        }

        /// Any bytes at all read as runs or give an error, never a panic.
        #[test]
        fn any_bytes_read_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_entries(&bytes);
        }
    }
}
