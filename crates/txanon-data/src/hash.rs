//! A 64-bit mixer for hashes that need no cryptographic strength (cache keys, row
//! fingerprints of a statistical test): one place, so that every caller gets the same
//! avalanche.

/// splitmix64's finalizer: every input bit flips about half the output bits.
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A row's 64-bit fingerprint: [`mix64`] folded over its words from splitmix64's first state.
/// Equal rows share it; the audits that group rows by it compare whole rows where it ties.
pub fn row_hash(row: &[u32]) -> u64 {
    row.iter().fold(0x9e37_79b9_7f4a_7c15, |h, &i| mix64(h ^ u64::from(i)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn mixes() {
        // splitmix64's published first output for seed 0 is mix64(0x9e3779b97f4a7c15).
        assert_eq!(super::mix64(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
        assert_ne!(super::mix64(1), super::mix64(2));
    }
}
