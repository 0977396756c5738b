//! Itemsets kept flat (one buffer per length) and their per-item lists of ids as LEB128
//! gaps: how the non-mole search holds tens of millions of itemsets.

/// Itemsets of lengths `1..`, flat: those of one length in one buffer, in the order pushed,
/// ids counted shortest first. A non-mole costs its items' words, where a `Vec` each cost
/// three words and an allocation (at p = 3 on kosarak-shaped data, tens of millions of them).
#[derive(Debug, Clone, Default)]
pub(crate) struct FlatSets {
    /// `by_len[l - 1]`: the itemsets of length `l`, concatenated.
    pub(crate) by_len: Vec<Vec<u32>>,
}

impl FlatSets {
    /// Appends `set` (not empty).
    pub fn push(&mut self, set: &[u32]) {
        self.append(set.len(), set);
    }

    /// Appends the itemsets of length `len` concatenated in `flat`.
    pub(crate) fn append(&mut self, len: usize, flat: &[u32]) {
        debug_assert!(len > 0 && flat.len().is_multiple_of(len));
        if self.by_len.len() < len {
            self.by_len.resize_with(len, Vec::new);
        }
        self.by_len[len - 1].extend_from_slice(flat);
    }

    /// Appends the itemsets of length `len` concatenated in `flat`, without a copy when
    /// there are none of that length yet.
    pub(crate) fn append_owned(&mut self, len: usize, flat: Vec<u32>) {
        match self.by_len.get_mut(len - 1) {
            Some(held) if !held.is_empty() => held.extend_from_slice(&flat),
            Some(held) => *held = flat,
            None => {
                self.by_len.resize_with(len - 1, Vec::new);
                self.by_len.push(flat);
            }
        }
    }

    /// How many itemsets.
    pub fn len(&self) -> usize {
        self.by_len.iter().enumerate().map(|(l, flat)| flat.len() / (l + 1)).sum()
    }

    /// The itemset of id `id`: ids count the shorter itemsets first.
    pub fn get(&self, mut id: usize) -> &[u32] {
        for (l, flat) in self.by_len.iter().enumerate() {
            let count = flat.len() / (l + 1);
            if id < count {
                return &flat[id * (l + 1)..(id + 1) * (l + 1)];
            }
            id -= count;
        }
        panic!("itemset id out of range")
    }

    /// Every itemset in id order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + Clone {
        self.by_len.iter().enumerate().flat_map(|(l, flat)| flat.chunks_exact(l + 1))
    }
}

/// Per item, the ascending ids of the itemsets of a [`FlatSets`] holding it, each list stored
/// as the gaps between its ids in LEB128 (seven bits a byte): one to three bytes an id where a
/// `u32` took four. At 10⁷ kosarak-shaped transactions and p = 3, the plain lists were as large
/// as the 280 million non-moles themselves.
#[derive(Debug, Clone)]
pub(crate) struct IdLists {
    pub(crate) offsets: Vec<usize>,
    pub(crate) bytes: Vec<u8>,
}

impl IdLists {
    /// The lists of `sets`' items, all below `items`: a pass to size each list, one to fill.
    pub fn new(items: usize, sets: &FlatSets) -> Self {
        let gaps = |f: &mut dyn FnMut(usize, u64)| {
            let mut last: Vec<Option<usize>> = vec![None; items];
            for (id, s) in sets.iter().enumerate() {
                for &i in s {
                    let i = i as usize;
                    let gap = last[i].map_or(id, |l| id - l);
                    last[i] = Some(id);
                    f(i, gap as u64);
                }
            }
        };
        let mut offsets = vec![0usize; items + 1];
        gaps(&mut |i, gap| offsets[i + 1] += leb128_len(gap));
        for i in 0..items {
            offsets[i + 1] += offsets[i];
        }
        let mut bytes = vec![0u8; offsets[items]];
        let mut cursor = offsets[..items].to_vec();
        gaps(&mut |i, mut gap| {
            loop {
                let low = (gap & 0x7f) as u8;
                gap >>= 7;
                bytes[cursor[i]] = if gap == 0 { low } else { low | 0x80 };
                cursor[i] += 1;
                if gap == 0 {
                    break;
                }
            }
        });
        Self { offsets, bytes }
    }

    /// The ids of the itemsets holding `item`, ascending.
    pub fn ids(&self, item: u32) -> impl Iterator<Item = u32> + '_ {
        let i = item as usize;
        let mut bytes = self.bytes[self.offsets[i]..self.offsets[i + 1]].iter();
        let mut id: Option<u64> = None;
        std::iter::from_fn(move || {
            let (mut gap, mut shift) = (0u64, 0);
            loop {
                let b = *bytes.next()?;
                gap |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    break;
                }
            }
            let next = id.map_or(gap, |l| l + gap);
            id = Some(next);
            Some(u32::try_from(next).expect("ids were written from usize positions in 32 bits"))
        })
    }
}

/// Bytes of `v` in LEB128.
pub(crate) fn leb128_len(v: u64) -> usize {
    (64 - v.max(1).leading_zeros() as usize).div_ceil(7)
}
