//! Ascending runs of keys, each with a count, as compact bytes: the form in which an engine's
//! tasks hand each other itemset counts (`txanon.spark`'s kᵐ-anonymity search sends every
//! shard's itemsets of a pass, tens of millions at 10⁷ transactions, through Spark's shuffle
//! and back; coherence's one suppression set sends every shard's itemsets with their private
//! counts).
//!
//! A key is a fixed number of 32-bit words (one to [`MAX_WIDTH`]), compared word by word, the
//! first most significant; a `u128` is four words, its most significant first (an itemset's
//! ranks plus one, packed from the top down, leave trailing words zero). Each entry is a header
//! byte, then the first word that differs from the previous key's as its increase (LEB128),
//! then every later word as is (LEB128), then the count when the header does not hold it. The
//! header's three low bits say how many leading words the key shares with the previous one (0
//! for a run's first key, measured against zero), its five high bits hold a count up to
//! [`SMALL_COUNT`], or say that the count follows as LEB128; the header [`END`] closes the run.
//! A run's key words therefore take a byte or two each where the raw form takes 4, and runs
//! can be joined as bytes: a reader takes them one after the other.
//!
//! Keys must ascend strictly within a run; [`KeyRunWriter::push_words`] refuses one that does
//! not, and [`read_runs`] refuses any byte string that is not a sequence of whole, ascending
//! runs of keys of the width it is told, so that bytes from elsewhere give an error rather
//! than wrong keys.

/// The most words a key has.
pub const MAX_WIDTH: usize = 7;
/// The largest count a header holds itself.
pub const SMALL_COUNT: u64 = 29;
/// The header's count field when the count follows as LEB128.
const LONG_COUNT: u8 = 30;
/// The header that closes a run (count field 31, seven shared words).
pub const END: u8 = 0xff;

/// Why bytes are not key runs, or a key does not extend its run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyRunError {
    /// A key not above the run's previous key.
    #[error("key runs: a key at byte {at} does not ascend from the one before")]
    NotAscending {
        /// The byte offset of the entry (0 when writing).
        at: usize,
    },
    /// The bytes end inside an entry or before a run's [`END`].
    #[error("key runs: the bytes end inside a run begun at byte {at}")]
    Truncated {
        /// Where the unfinished entry or run starts.
        at: usize,
    },
    /// A malformed entry: a LEB128 number too long for its field, a word past 32 bits, or a
    /// header that does not fit its place.
    #[error("key runs: the entry at byte {at}: {reason}")]
    Malformed {
        /// The byte offset of the entry.
        at: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

/// A `u128`'s four words, the most significant first.
pub fn words_of(key: u128) -> [u32; 4] {
    [(key >> 96) as u32, (key >> 64) as u32, (key >> 32) as u32, key as u32]
}

fn key_of(words: &[u32]) -> u128 {
    words.iter().fold(0u128, |key, &w| (key << 32) | u128::from(w))
}

fn push_leb(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// One run being written into a byte vector: [`push`](Self::push) (or
/// [`push_words`](Self::push_words)) each key with its count in ascending order, then
/// [`finish`](Self::finish).
#[derive(Debug, Clone)]
pub struct KeyRunWriter {
    width: usize,
    previous: [u32; MAX_WIDTH],
    started: bool,
}

impl Default for KeyRunWriter {
    /// A run of `u128` keys (four words).
    fn default() -> Self {
        Self::with_width(4)
    }
}

impl KeyRunWriter {
    /// A run of `u128` keys with no key yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A run of keys of `width` words with no key yet.
    ///
    /// # Panics
    /// For a width of none or more than [`MAX_WIDTH`] (a caller's constant).
    pub fn with_width(width: usize) -> Self {
        assert!((1..=MAX_WIDTH).contains(&width), "keys of 1 to {MAX_WIDTH} words");
        Self { width, previous: [0; MAX_WIDTH], started: false }
    }

    /// Appends the `u128` key with `count` (0 for runs of keys alone) to `out`.
    ///
    /// # Errors
    /// As [`push_words`](Self::push_words).
    ///
    /// # Panics
    /// On a writer of another width than four.
    pub fn push(&mut self, out: &mut Vec<u8>, key: u128, count: u64) -> Result<(), KeyRunError> {
        self.push_words(out, &words_of(key), count)
    }

    /// Appends the key of `words` with `count` to `out`.
    ///
    /// # Errors
    /// [`KeyRunError::NotAscending`] when the key is not above the run's previous key; nothing
    /// is appended then.
    ///
    /// # Panics
    /// When `words` is not the writer's width.
    pub fn push_words(
        &mut self,
        out: &mut Vec<u8>,
        words: &[u32],
        count: u64,
    ) -> Result<(), KeyRunError> {
        assert_eq!(words.len(), self.width, "a key of the run's width");
        let before = &self.previous[..self.width];
        let shared = if self.started {
            let shared = words.iter().zip(before).take_while(|(a, b)| a == b).count();
            if shared == self.width || words[shared] < before[shared] {
                return Err(KeyRunError::NotAscending { at: 0 });
            }
            shared
        } else {
            0
        };
        let count_field = if count <= SMALL_COUNT { count as u8 } else { LONG_COUNT };
        out.push(shared as u8 | (count_field << 3));
        push_leb(out, u64::from(words[shared] - before[shared]));
        for &word in &words[shared + 1..] {
            push_leb(out, u64::from(word));
        }
        if count > SMALL_COUNT {
            push_leb(out, count);
        }
        self.previous[..self.width].copy_from_slice(words);
        self.started = true;
        Ok(())
    }

    /// Closes the run; the writer starts a new one.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        out.push(END);
        self.previous = [0; MAX_WIDTH];
        self.started = false;
    }
}

/// Writes `entries` (ascending `u128` keys) as one run.
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

/// Every entry of the runs in `bytes` (runs joined one after the other) of keys of `width`
/// words, each run's keys ascending, the runs in their order; `f` is called with each key's
/// words and its count.
///
/// # Errors
/// [`KeyRunError`] for bytes that are not whole runs of strictly ascending keys of `width`
/// words.
///
/// # Panics
/// For a width of none or more than [`MAX_WIDTH`].
pub fn read_words(
    bytes: &[u8],
    width: usize,
    mut f: impl FnMut(&[u32], u64),
) -> Result<(), KeyRunError> {
    assert!((1..=MAX_WIDTH).contains(&width), "keys of 1 to {MAX_WIDTH} words");
    let mut at = 0;
    while at < bytes.len() {
        let run_start = at;
        let mut now = [0u32; MAX_WIDTH];
        let mut started = false;
        loop {
            let entry = at;
            let Some(&header) = bytes.get(at) else {
                return Err(KeyRunError::Truncated { at: run_start });
            };
            at += 1;
            if header == END {
                break;
            }
            let shared = usize::from(header & 7);
            let count_field = header >> 3;
            if count_field > LONG_COUNT || shared >= width {
                return Err(KeyRunError::Malformed { at: entry, reason: "an unknown header" });
            }
            if !started && shared > 0 {
                return Err(KeyRunError::Malformed {
                    at: entry,
                    reason: "a run's first key shares words with none",
                });
            }
            let step = read_leb(bytes, &mut at, 32, entry)?;
            if started && step == 0 {
                return Err(KeyRunError::NotAscending { at: entry });
            }
            let word = u64::from(now[shared]) + step;
            if word > u64::from(u32::MAX) {
                return Err(KeyRunError::Malformed { at: entry, reason: "a word past 32 bits" });
            }
            now[shared] = word as u32;
            for slot in &mut now[shared + 1..width] {
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
            f(&now[..width], count);
            started = true;
        }
    }
    Ok(())
}

/// [`read_words`] of `u128` keys (four words).
///
/// # Errors
/// As [`read_words`].
pub fn read_runs(bytes: &[u8], mut f: impl FnMut(u128, u64)) -> Result<(), KeyRunError> {
    read_words(bytes, 4, |words, count| f(key_of(words), count))
}

/// [`read_runs`] collected.
///
/// # Errors
/// As [`read_words`].
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
        assert!(matches!(
            read_entries(&[0x01, 0, 0, 0, 0, END]),
            Err(KeyRunError::Malformed { .. })
        ));
        assert!(matches!(
            read_entries(&[0xf8, 0, 0, 0, 0, END]),
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
            read_entries(&[LONG_COUNT << 3, 1, 0, 0, 0, 5, END]),
            Err(KeyRunError::Malformed { .. })
        ));
    }

    #[test]
    fn wider_keys_read_back_and_a_header_past_the_width_is_refused() {
        let keys: [[u32; 5]; 3] = [[0, 0, 0, 0, 9], [0, 0, 0, 1, 0], [7, u32::MAX, 0, 0, 0]];
        let mut out = Vec::new();
        let mut run = KeyRunWriter::with_width(5);
        for (j, key) in keys.iter().enumerate() {
            run.push_words(&mut out, key, j as u64 * 40).unwrap();
        }
        // Below the previous key in a word after the shared ones: refused.
        assert_eq!(
            run.push_words(&mut out, &[7, 5, 0, 0, 0], 1),
            Err(KeyRunError::NotAscending { at: 0 })
        );
        run.finish(&mut out);
        let mut read = Vec::new();
        read_words(&out, 5, |words, count| read.push((words.to_vec(), count))).unwrap();
        let expected: Vec<(Vec<u32>, u64)> =
            keys.iter().enumerate().map(|(j, k)| (k.to_vec(), j as u64 * 40)).collect();
        assert_eq!(read, expected);
        // Read as four words the same bytes do not pass for keys.
        assert!(read_entries(&out).is_err());
        // Four shared words in a run of four-word keys.
        assert!(matches!(
            read_entries(&[0, 1, 0, 0, 0, 0x04, 1, END]),
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
