//! The one source of the randomness that reaches published data.
//!
//! A seeded run is keyed by the seed *and* a digest of the data it publishes: the seed alone
//! would let whoever learns it (a manifest once stored it; a data holder may reuse one) recompute
//! every shuffle that hides a linkage from the shape of the publication, whereas the digest is
//! of the original data, which the publication does not contain. The same seed on other data
//! then gives unrelated permutations, and the same seed on the same data the same bytes.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// What a seeded publication's randomness is keyed by besides the seed: a digest of the data,
/// domain-separated from any hash a publication records (a manifest's sha256 of the input file
/// cannot stand in for it).
pub trait DataDigest {
    /// 32 bytes that differ, short of a SHA-256 collision, for data that differ.
    fn data_digest(&self) -> [u8; 32];
}

/// Builds a [`DataDigest`] from a type's contents, each field length-prefixed so that no two
/// different contents give the same byte stream.
#[derive(Debug, Clone)]
pub struct DigestBuilder(Sha256);

impl DigestBuilder {
    /// A digest of a kind named `tag` (a type and version: `"transactions/1"`).
    pub fn new(tag: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(b"txanon data digest\0");
        hasher.update((tag.len() as u64).to_le_bytes());
        hasher.update(tag.as_bytes());
        Self(hasher)
    }

    /// Adds a length-prefixed run of `u32`s.
    pub fn words(&mut self, words: &[u32]) -> &mut Self {
        self.0.update((words.len() as u64).to_le_bytes());
        let mut buf = [0u8; 4096];
        for chunk in words.chunks(buf.len() / 4) {
            for (b, w) in buf.chunks_exact_mut(4).zip(chunk) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            self.0.update(&buf[..chunk.len() * 4]);
        }
        self
    }

    /// Adds a length-prefixed run of `u64`s.
    pub fn longs(&mut self, longs: impl ExactSizeIterator<Item = u64>) -> &mut Self {
        self.0.update((longs.len() as u64).to_le_bytes());
        for v in longs {
            self.0.update(v.to_le_bytes());
        }
        self
    }

    /// Adds the multiset of rows `0..len` (row `r` the codes `fill(r, row)` appends, in order):
    /// the same whatever order the rows come in, so that a seeded publication does not depend
    /// on the input's order either. Each row is hashed in two independent 64-bit lanes with its
    /// length, and the lanes summed over the rows (wrapping), on rayon.
    pub fn row_multiset(
        &mut self,
        len: usize,
        fill: impl Fn(usize, &mut Vec<u32>) + Sync,
    ) -> &mut Self {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 14;
        let lanes = (0..len.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut row = Vec::new();
                let mut sum = [0u64; 2];
                for r in c * CHUNK..len.min((c + 1) * CHUNK) {
                    row.clear();
                    fill(r, &mut row);
                    let mut h = [0x243f_6a88_85a3_08d3 ^ row.len() as u64, 0x1319_8a2e_0370_7344];
                    for &v in &row {
                        h[0] = crate::mix64(h[0] ^ u64::from(v));
                        h[1] = crate::mix64(
                            h[1].rotate_left(17) ^ u64::from(v) ^ 0xa409_3822_299f_31d0,
                        );
                    }
                    sum[0] = sum[0].wrapping_add(crate::mix64(h[0]));
                    sum[1] = sum[1].wrapping_add(crate::mix64(h[1] ^ row.len() as u64));
                }
                sum
            })
            .reduce(|| [0, 0], |a, b| [a[0].wrapping_add(b[0]), a[1].wrapping_add(b[1])]);
        self.longs([len as u64, lanes[0], lanes[1]].into_iter())
    }

    /// Adds a length-prefixed string.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.0.update((text.len() as u64).to_le_bytes());
        self.0.update(text.as_bytes());
        self
    }

    /// The digest.
    pub fn finish(&self) -> [u8; 32] {
        self.0.clone().finalize().into()
    }
}

/// ChaCha20 keyed by SHA-256 of `seed` and `data`'s digest when a seed is given (to reproduce a
/// run: the data holder's secret, like a key), otherwise seeded with the full 256 bits of the
/// operating system, so that an unseeded publication's shuffles cannot be searched for. The
/// digest is computed only for a seeded run.
///
/// # Panics
/// When the operating system has no random source (`getrandom` fails).
pub fn publication_rng(seed: Option<u64>, data: &(impl DataDigest + ?Sized)) -> ChaCha20Rng {
    match seed {
        Some(seed) => {
            let mut key = Sha256::new();
            key.update(b"txanon publication rng/1\0");
            key.update(seed.to_le_bytes());
            key.update(data.data_digest());
            ChaCha20Rng::from_seed(key.finalize().into())
        }
        None => ChaCha20Rng::from_os_rng(),
    }
}

/// The seed of a draw whose result is published (sensitive items drawn at random, the swap
/// paper's artificial categories): for a seeded run, the first word of [`publication_rng`], so
/// that the published draw cannot be matched against draws from candidate seeds to recover the
/// seed; without one, 64 bits from the operating system.
pub fn draw_seed(seed: Option<u64>, data: &(impl DataDigest + ?Sized)) -> u64 {
    use rand::RngCore;
    publication_rng(seed, data).next_u64()
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;

    struct Bytes(&'static str);

    impl DataDigest for Bytes {
        fn data_digest(&self) -> [u8; 32] {
            DigestBuilder::new("test").text(self.0).finish()
        }
    }

    #[test]
    fn seeded_runs_repeat_and_unseeded_ones_differ() {
        let data = Bytes("a");
        let (mut a, mut b) = (publication_rng(Some(7), &data), publication_rng(Some(7), &data));
        assert_eq!(a.random::<u64>(), b.random::<u64>());
        let (mut c, mut d) = (publication_rng(None, &data), publication_rng(None, &data));
        assert_ne!(
            (c.random::<u128>(), c.random::<u128>()),
            (d.random::<u128>(), d.random::<u128>())
        );
    }

    #[test]
    fn a_draw_seed_is_keyed_like_the_publication() {
        let (a, b) = (Bytes("a"), Bytes("b"));
        assert_eq!(draw_seed(Some(7), &a), draw_seed(Some(7), &a));
        assert_ne!(draw_seed(Some(7), &a), draw_seed(Some(7), &b));
        assert_ne!(draw_seed(Some(7), &a), 7);
        assert_ne!(draw_seed(None, &a), draw_seed(None, &a));
    }

    #[test]
    fn the_same_seed_on_other_data_draws_otherwise() {
        let (mut a, mut b) =
            (publication_rng(Some(7), &Bytes("a")), publication_rng(Some(7), &Bytes("b")));
        assert_ne!(
            (a.random::<u128>(), a.random::<u128>()),
            (b.random::<u128>(), b.random::<u128>())
        );
        // Fields are length-prefixed: "ab" + "" is not "a" + "b".
        let one = DigestBuilder::new("t").text("ab").text("").finish();
        let two = DigestBuilder::new("t").text("a").text("b").finish();
        assert_ne!(one, two);
        assert_ne!(
            DigestBuilder::new("t").words(&[1, 2]).finish(),
            DigestBuilder::new("t").words(&[1]).words(&[2]).finish()
        );
    }
}
