//! What a publication tells an adversary: groups of records whose values are published per
//! factor, and the probability of every record the groups are consistent with.

use txanon_data::ItemId;

use crate::error::ViewError;

/// A value of a factor and how many of the group's records take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    /// The items of the value, strictly ascending (the empty set is a value).
    pub items: Vec<ItemId>,
    /// How many of the group's records take it (at least 1).
    pub count: u32,
}

impl Value {
    /// `count` records take `items` (sorted and deduplicated here).
    pub fn new(mut items: Vec<ItemId>, count: u32) -> Self {
        items.sort_unstable();
        items.dedup();
        Self { items, count }
    }
}

/// One factor of a group: the multiset of its records' values over the factor's items.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Factor {
    values: Vec<Value>,
    /// Every item of any value, ascending.
    items: Vec<ItemId>,
    /// For `items[k]`, the indices of the values holding it, ascending.
    postings: Vec<Vec<u32>>,
    /// `Σ count`: the group's size.
    size: u32,
}

impl Factor {
    fn new(values: Vec<Value>, size: u32) -> Self {
        let mut items: Vec<ItemId> = values.iter().flat_map(|v| v.items.iter().copied()).collect();
        items.sort_unstable();
        items.dedup();
        let mut postings = vec![Vec::new(); items.len()];
        for (k, v) in values.iter().enumerate() {
            for i in &v.items {
                let at = items.binary_search(i).expect("an item of the factor");
                postings[at].push(k as u32);
            }
        }
        Self { values, items, postings, size }
    }

    /// `A(part)`: how many records' values hold every item of `part` (sorted, all items of
    /// this factor), through the postings of its rarest item.
    fn amount(&self, part: &[ItemId]) -> u32 {
        let Some(rarest) = part
            .iter()
            .map(|i| &self.postings[self.items.binary_search(i).expect("an item of the factor")])
            .min_by_key(|p| p.len())
        else {
            return self.size;
        };
        self.amount_through(rarest, part)
    }

    /// `A(part)` for `part` the items at `ats` of this factor: the values in every one of their
    /// postings, found by looking each value of the rarest posting up in the others (short
    /// lists: a group's values holding one item), never comparing a value's items.
    fn amount_at(&self, ats: &[u32]) -> u32 {
        let postings = |at: &u32| &self.postings[*at as usize];
        let rarest =
            ats.iter().map(postings).min_by_key(|p| p.len()).expect("a part of at least one item");
        rarest
            .iter()
            .filter(|v| ats.iter().map(postings).all(|p| p.binary_search(v).is_ok()))
            .map(|&v| self.values[v as usize].count)
            .sum()
    }

    /// `A(part)`, counting only the values in `candidates` (a posting list of an item of it).
    fn amount_through(&self, candidates: &[u32], part: &[ItemId]) -> u32 {
        candidates
            .iter()
            .map(|&v| &self.values[v as usize])
            .filter(|v| is_subset(part, &v.items))
            .map(|v| v.count)
            .sum()
    }
}

/// Where an item sits in a group that holds it: its factor, its place among the factor's items,
/// and `A({item})`, the records whose value holds it (the whole weight of a factor in which the
/// item is the only known one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    factor: u32,
    at: u32,
    amount: u32,
}

/// A group of records published as independent factors.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    size: u32,
    factors: Vec<Factor>,
    /// Every item of the group beside the index of its factor, by item.
    factor_of: Vec<(ItemId, u32)>,
    /// Categories a reader of the record names as its owner's tendency (records only).
    labels: Vec<u32>,
}

/// Where a target's own record is in a [`View`]: its group and, per factor, the index of the
/// value it takes (in the order the factor's values were given), or `None` for a factor that
/// is no part of the published record (such as CAHD's counts of sensitive items: linking a
/// person to their QID transaction is re-identification whatever the counts say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Own {
    /// The group.
    pub group: u32,
    /// Per factor, the index of the target's value, or `None` when the factor is not linked.
    pub values: Vec<Option<u32>>,
}

/// The adversary's model of a publication.
///
/// A publication is a list of groups. A group of `s` records publishes `F` factors; factor `f`
/// is the multiset of the records' values over its items (`count(v)` records take value `v`),
/// and which value of one factor goes with which value of another is hidden: every way of
/// joining them is equally likely. A record of the group is a choice of one value per factor,
/// and the expected number of the group's records that are exactly the choice `(v_1, …, v_F)` is
/// `s · Π_f count(v_f) / s`. The families map to it as their papers read them:
///
/// - records published as they are (coherence, swap, the original): a group of one record with
///   one factor;
/// - anatomy: a bucket, one factor per column;
/// - CAHD: a group whose first factor is its QID transactions (one value per transaction) and
///   one factor per sensitive item, `{s}` held by as many records as the group's count of `s`
///   and `{}` by the rest: the counts spread uniformly ([`ViewBuilder::group_with_counts`]).
///
/// An adversary knowing that the target holds the items `K` is, with a uniformly random target
/// and a uniformly random way of joining every group's factors, exactly as likely to find the
/// target behind a record as the record's expected count among records holding `K`: the
/// posterior probability of group `g`'s choice `v` is `w_g(v) / Σ_{g'} Σ_{v' ⊇ K} w_{g'}(v')`
/// (a ratio of expectations, since both the world and the target are drawn). Summed over the
/// choices holding `K`, a group's weight factorizes: `w_g(K) = s · Π_f A_f(K_f) / s`, with
/// `K_f` the known items of factor `f` and `A_f(K_f)` the records whose value in `f` holds
/// them. The same sum is the support a data user estimates for the itemset `K`
/// ([`View::support`]).
#[derive(Debug, Clone)]
pub struct View {
    /// Items of the numbering queries use: the view's own, or its reading's
    /// ([`View::read_through`]).
    num_items: usize,
    /// Per item of the queries' numbering, the view's item it is read as; `None` when queries
    /// use the view's own numbering.
    reading: Option<Vec<ItemId>>,
    /// [`View::item_supports`] in the reading's numbering (empty without a reading).
    read_supports: Vec<f64>,
    groups: Vec<Group>,
    /// For each item, the groups holding it in some value, ascending.
    index: Vec<Vec<u32>>,
    /// Beside `index[i][k]`, where item `i` sits in that group.
    slots: Vec<Vec<Slot>>,
    /// The same as bitsets over the groups for the items held by at least 1/32 of them (a bitset
    /// then costs no more than the list): `dense[i]` is the first word of item `i`'s in `bits`,
    /// `u32::MAX` for the other items. Two frequent items' lists intersect by a word-wise AND.
    dense: Vec<u32>,
    bits: Vec<u64>,
    /// Beside each word of `bits`, the set bits of the item's earlier words: the position of a
    /// group in the item's list (its slot) is a count, not a search.
    ranks: Vec<u32>,
    /// For each item, its estimated support (exact: a factor's values count it).
    supports: Vec<f64>,
    records: u64,
    records_only: bool,
    /// Per category, `Σ_g [c ∈ labels(g)] / |labels(g)|`: how often a reader names it.
    label_mass: Vec<f64>,
    /// The same per item, restricted to the groups holding it (`items × categories`, row by
    /// item; empty when no group has labels).
    item_label_mass: Vec<f64>,
}

/// Builds a [`View`] group by group, checking each.
#[derive(Debug)]
pub struct ViewBuilder {
    num_items: usize,
    groups: Vec<Group>,
}

impl ViewBuilder {
    /// A view over the item ids `0..num_items` (the original's numbering).
    pub fn new(num_items: usize) -> Self {
        Self { num_items, groups: Vec::new() }
    }

    /// A record published as it is; `labels` are the categories a reader names as its owner's
    /// tendency (empty when there is none, or when no tendency is attacked). Returns its group.
    ///
    /// # Errors
    /// [`ViewError::ItemOutOfRange`] for an item id beyond the view's items.
    pub fn record(&mut self, items: &[ItemId], labels: Vec<u32>) -> Result<u32, ViewError> {
        let mut group = self.checked(1, vec![vec![Value::new(items.to_vec(), 1)]])?;
        group.labels = labels;
        Ok(self.push(group))
    }

    /// A group of `size` records publishing `factors` (each a list of values whose counts sum
    /// to `size`; no item in two factors). Returns its group.
    ///
    /// # Errors
    /// [`ViewError`] naming what is wrong: an empty group, an item out of range, a count of 0,
    /// counts that do not add up to `size`, an item in two factors.
    pub fn group(&mut self, size: u32, factors: Vec<Vec<Value>>) -> Result<u32, ViewError> {
        let group = self.checked(size, factors)?;
        Ok(self.push(group))
    }

    /// A group whose records publish `factors`, and beside them only how many of its records
    /// hold each of `counts`' items: each count becomes a factor of its own (`{s}` for that many
    /// records, `{}` for the rest), the reading of a uniform spread.
    ///
    /// # Errors
    /// As [`ViewBuilder::group`], and [`ViewError::CountMismatch`] for a count above `size`.
    pub fn group_with_counts(
        &mut self,
        size: u32,
        mut factors: Vec<Vec<Value>>,
        counts: &[(ItemId, u32)],
    ) -> Result<u32, ViewError> {
        for &(item, count) in counts {
            if count > size {
                return Err(ViewError::CountMismatch {
                    group: self.groups.len(),
                    counts: u64::from(count),
                    size,
                });
            }
            let mut factor = vec![Value::new(vec![item], count)];
            if count < size {
                factor.push(Value::new(Vec::new(), size - count));
            }
            factor.retain(|v| v.count > 0);
            factors.push(factor);
        }
        self.group(size, factors)
    }

    fn push(&mut self, group: Group) -> u32 {
        self.groups.push(group);
        (self.groups.len() - 1) as u32
    }

    fn checked(&self, size: u32, factors: Vec<Vec<Value>>) -> Result<Group, ViewError> {
        let at = self.groups.len();
        if size == 0 {
            return Err(ViewError::EmptyGroup { group: at });
        }
        let mut factor_of: Vec<(ItemId, u32)> = Vec::new();
        let mut built = Vec::with_capacity(factors.len());
        for values in factors {
            let mut total = 0u64;
            for v in &values {
                if v.count == 0 {
                    return Err(ViewError::ZeroCount { group: at });
                }
                if !v.items.windows(2).all(|w| w[0] < w[1]) {
                    return Err(ViewError::Unsorted { group: at });
                }
                if let Some(&item) = v.items.iter().find(|&&i| i as usize >= self.num_items) {
                    return Err(ViewError::ItemOutOfRange { item, items: self.num_items });
                }
                total += u64::from(v.count);
            }
            if total != u64::from(size) {
                return Err(ViewError::CountMismatch { group: at, counts: total, size });
            }
            let factor = Factor::new(values, size);
            let f = built.len() as u32;
            factor_of.extend(factor.items.iter().map(|&i| (i, f)));
            built.push(factor);
        }
        factor_of.sort_unstable();
        if let Some(w) = factor_of.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(ViewError::SharedItem { item: w[0].0, group: at });
        }
        Ok(Group { size, factors: built, factor_of, labels: Vec::new() })
    }

    /// The view, indexed.
    pub fn finish(self) -> View {
        let mut index: Vec<Vec<u32>> = vec![Vec::new(); self.num_items];
        let mut slots: Vec<Vec<Slot>> = vec![Vec::new(); self.num_items];
        let mut supports = vec![0.0; self.num_items];
        let mut records = 0u64;
        for (g, group) in self.groups.iter().enumerate() {
            records += u64::from(group.size);
            for (f, factor) in group.factors.iter().enumerate() {
                for (at, (&i, postings)) in factor.items.iter().zip(&factor.postings).enumerate() {
                    index[i as usize].push(g as u32);
                    let amount = postings.iter().map(|&v| factor.values[v as usize].count).sum();
                    slots[i as usize].push(Slot { factor: f as u32, at: at as u32, amount });
                }
                for v in &factor.values {
                    for &i in &v.items {
                        supports[i as usize] += f64::from(v.count);
                    }
                }
            }
        }
        let records_only = self.groups.iter().all(|g| g.size == 1 && g.factors.len() == 1);
        let mut label_mass: Vec<f64> = Vec::new();
        for g in &self.groups {
            for &c in &g.labels {
                if label_mass.len() <= c as usize {
                    label_mass.resize(c as usize + 1, 0.0);
                }
                label_mass[c as usize] += 1.0 / g.labels.len() as f64;
            }
        }
        let categories = label_mass.len();
        let mut item_label_mass =
            vec![0.0; if categories == 0 { 0 } else { self.num_items * categories }];
        if categories > 0 {
            for (i, holders) in index.iter().enumerate() {
                for &g in holders {
                    let labels = &self.groups[g as usize].labels;
                    for &c in labels {
                        item_label_mass[i * categories + c as usize] += 1.0 / labels.len() as f64;
                    }
                }
            }
        }
        let words = self.groups.len().div_ceil(64);
        let mut dense = vec![u32::MAX; self.num_items];
        let mut bits = Vec::new();
        for (i, holders) in index.iter().enumerate() {
            if !holders.is_empty() && holders.len() * 32 >= self.groups.len() {
                dense[i] = u32::try_from(bits.len()).unwrap_or(u32::MAX);
                if dense[i] == u32::MAX {
                    // Past 2³² words the lists serve alone: correct, only slower.
                    continue;
                }
                bits.resize(bits.len() + words, 0u64);
                let set = &mut bits[dense[i] as usize..];
                for &g in holders {
                    set[g as usize / 64] |= 1 << (g % 64);
                }
            }
        }
        let mut ranks = vec![0u32; bits.len()];
        for &at in dense.iter().filter(|&&at| at != u32::MAX) {
            let at = at as usize;
            let mut before = 0;
            for (rank, word) in ranks[at..at + words].iter_mut().zip(&bits[at..at + words]) {
                *rank = before;
                before += word.count_ones();
            }
        }
        View {
            num_items: self.num_items,
            reading: None,
            read_supports: Vec::new(),
            groups: self.groups,
            index,
            slots,
            dense,
            bits,
            ranks,
            supports,
            records,
            records_only,
            label_mass,
            item_label_mass,
        }
    }
}

/// Per-query working memory of the weight computations.
#[derive(Debug, Default)]
pub(crate) struct Weigher {
    part: Vec<ItemId>,
    /// Records consistent with what is known (records-only views), and a spare.
    pub(crate) records: Vec<u32>,
    pub(crate) spare: Vec<u32>,
    /// The AND of frequent items' bitsets.
    pub(crate) words: Vec<u64>,
    /// Known items beside the factor holding them (factor, item).
    by_factor: Vec<(u32, ItemId)>,
    /// The known items' slots in the group being weighed, and a cursor into each one's groups.
    found: Vec<Slot>,
    cursors: Vec<usize>,
    ats: Vec<u32>,
    /// The known items with one more (a sensitive item's weight).
    pub(crate) extended: Vec<ItemId>,
    /// Queried items read as the view's ([`View::read_through`]).
    read: Vec<ItemId>,
}

impl View {
    /// Item ids are `0..num_items()`.
    pub fn num_items(&self) -> usize {
        self.num_items
    }

    /// Number of groups.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Number of factors of `group`.
    ///
    /// # Panics
    /// When `group` is not a group of the view.
    pub fn factors(&self, group: u32) -> usize {
        self.groups[group as usize].factors.len()
    }

    /// Number of published records, `Σ_g s_g`.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// True when every group is one record published as it is.
    pub fn records_only(&self) -> bool {
        self.records_only
    }

    /// Each item's support in the publication (exact: every factor counts its values).
    pub fn item_supports(&self) -> &[f64] {
        if self.reading.is_some() { &self.read_supports } else { &self.supports }
    }

    /// The view queried in another numbering: an item `i` given to [`View::posterior`],
    /// [`crate::attack`] or [`View::support`] is read as the view's item `reading[i]`, `None`
    /// for an item no published item stands for; [`View::num_items`] and
    /// [`View::item_supports`] then speak of that numbering. This is kᵐ-anonymity's
    /// publication as its adversary reads it: an item known of a person matches every record
    /// holding the generalized item that covers it, exactly as a view of records expanded to
    /// every item below their generalized items, without those records' size.
    /// ([`View::locate`] keeps the view's own numbering, in which the view was built.)
    ///
    /// # Errors
    /// [`ViewError::ItemOutOfRange`] for an item beyond the view's own items.
    pub fn read_through(mut self, reading: Vec<Option<ItemId>>) -> Result<View, ViewError> {
        let own = self.index.len();
        if let Some(item) = reading.iter().flatten().find(|&&i| i as usize >= own) {
            return Err(ViewError::ItemOutOfRange { item: *item, items: own });
        }
        // Items read as nothing are read as one more item, held by no group.
        let nothing = own as ItemId;
        self.index.push(Vec::new());
        self.slots.push(Vec::new());
        self.supports.push(0.0);
        self.dense.push(u32::MAX);
        let categories = self.label_mass.len();
        if !self.item_label_mass.is_empty() {
            self.item_label_mass.extend(std::iter::repeat_n(0.0, categories));
        }
        let reading: Vec<ItemId> = reading.into_iter().map(|i| i.unwrap_or(nothing)).collect();
        self.read_supports = reading.iter().map(|&i| self.supports[i as usize]).collect();
        self.num_items = reading.len();
        self.reading = Some(reading);
        Ok(self)
    }

    /// The view's item that query item `i` is read as.
    pub(crate) fn read(&self, i: ItemId) -> ItemId {
        self.reading.as_ref().map_or(i, |r| r[i as usize])
    }

    /// `items` (sorted) read as the view's items into `out`, sorted and without repeats.
    pub(crate) fn read_all(&self, items: &[ItemId], out: &mut Vec<ItemId>) {
        out.clear();
        out.extend(items.iter().map(|&i| self.read(i)));
        if self.reading.is_some() {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// Where a record holding exactly `items` sits in `group`: per factor, the first value
    /// equal to `items` restricted to the factor's items; `None` when some factor has no such
    /// value or `items` holds an item of no factor.
    ///
    /// # Panics
    /// When `group` is not a group of the view.
    pub fn locate(&self, group: u32, items: &[ItemId]) -> Option<Own> {
        let g = &self.groups[group as usize];
        let mut values = Vec::with_capacity(g.factors.len());
        let mut covered = 0;
        let mut part = Vec::new();
        for factor in &g.factors {
            restrict(items, &factor.items, &mut part);
            covered += part.len();
            values.push(Some(factor.values.iter().position(|v| v.items == part)? as u32));
        }
        (covered == items.len()).then_some(Own { group, values })
    }

    /// True when `own` names a group of the view and a value of each of its factors.
    pub fn is_valid(&self, own: &Own) -> bool {
        self.groups.get(own.group as usize).is_some_and(|g| {
            g.factors.len() == own.values.len()
                && g.factors
                    .iter()
                    .zip(&own.values)
                    .all(|(f, v)| v.is_none_or(|v| (v as usize) < f.values.len()))
        })
    }

    /// The estimated support of `itemset` (sorted ascending): `Σ_g w_g(itemset)`, the expected
    /// number of records holding it over every way of joining the groups' factors. Exact for
    /// records published as they are. 0 for an item beyond the view's items.
    pub fn support(&self, itemset: &[ItemId]) -> f64 {
        self.support_with(itemset, &mut Weigher::default())
    }

    pub(crate) fn support_with(&self, itemset: &[ItemId], w: &mut Weigher) -> f64 {
        if itemset.iter().any(|&i| i as usize >= self.num_items) {
            return 0.0;
        }
        let mut read = std::mem::take(&mut w.read);
        self.read_all(itemset, &mut read);
        let support = match self.rarest(&read) {
            None => self.records as f64,
            // Records weigh 1 each when they hold the itemset: the support is how many hold
            // it, which the frequent items' bitsets count far faster than a walk of the
            // groups (the yardstick asks this of every candidate itemset).
            Some(rarest) if self.records_only => {
                if read.len() == 1 {
                    self.index[rarest as usize].len() as f64
                } else {
                    self.holding_all(&mut read, w);
                    w.records.len() as f64
                }
            }
            Some(rarest) => self.weigh(&self.index[rarest as usize], &read, w),
        };
        w.read = read;
        support
    }

    /// The item of `known` held by the fewest groups; `None` for an empty set.
    pub(crate) fn rarest(&self, known: &[ItemId]) -> Option<ItemId> {
        known.iter().copied().min_by_key(|&i| self.index[i as usize].len())
    }

    /// The support of the view's own item `item` (whatever the queries' numbering).
    pub(crate) fn view_support(&self, item: ItemId) -> f64 {
        self.supports[item as usize]
    }

    /// The groups holding `item`.
    pub(crate) fn holders(&self, item: ItemId) -> &[u32] {
        &self.index[item as usize]
    }

    /// The groups holding `item` as a bitset, for the items held by at least 1/32 of the groups.
    pub(crate) fn holder_bits(&self, item: ItemId) -> Option<&[u64]> {
        let at = self.dense[item as usize];
        (at != u32::MAX).then(|| {
            let words = self.groups.len().div_ceil(64);
            &self.bits[at as usize..at as usize + words]
        })
    }

    /// Puts each item of `known` beside the factor of `group` holding it, in `w.by_factor`
    /// sorted by factor (then item); false when some item is in no factor of `group`.
    fn split(group: &Group, known: &[ItemId], w: &mut Weigher) -> bool {
        w.by_factor.clear();
        for &i in known {
            match group.factor_of.binary_search_by_key(&i, |p| p.0) {
                Ok(k) => w.by_factor.push((group.factor_of[k].1, i)),
                Err(_) => return false,
            }
        }
        w.by_factor.sort_unstable();
        true
    }

    /// `Σ_{g ∈ groups} w_g(K)`, `w_g(K)` the expected number of group `g`'s records holding
    /// every item of `known` (non-empty); `groups` ascending. A frequent known item's place in
    /// its list of groups is counted in its bitset; a rare one's list is walked once beside
    /// `groups` (a cursor that gallops forward). Either finds where the item sits in each group
    /// without a search of the group's items. Only the factors holding
    /// a known item are counted: every other factor's `A_f(∅)` is the group's size and
    /// contributes a factor of 1.
    pub(crate) fn weigh(&self, groups: &[u32], known: &[ItemId], w: &mut Weigher) -> f64 {
        w.cursors.clear();
        w.cursors.resize(known.len(), 0);
        let mut total = 0.0;
        'groups: for &g in groups {
            w.found.clear();
            for (&i, cursor) in known.iter().zip(w.cursors.iter_mut()) {
                let at = self.dense[i as usize];
                if at != u32::MAX {
                    // A frequent item: whether it holds g, and g's place in its list, from
                    // its bitset.
                    let word = at as usize + g as usize / 64;
                    let below = self.bits[word] & ((1u64 << (g % 64)) - 1);
                    if self.bits[word] >> (g % 64) & 1 == 0 {
                        continue 'groups;
                    }
                    let k = self.ranks[word] + below.count_ones();
                    w.found.push(self.slots[i as usize][k as usize]);
                    continue;
                }
                let holders = &self.index[i as usize];
                *cursor = seek(holders, *cursor, g);
                if holders.get(*cursor) != Some(&g) {
                    continue 'groups;
                }
                w.found.push(self.slots[i as usize][*cursor]);
            }
            let group = &self.groups[g as usize];
            let s = f64::from(group.size);
            let mut weight = s;
            if w.found.len() > 1 {
                w.found.sort_unstable_by_key(|slot| (slot.factor, slot.at));
            }
            for run in w.found.chunk_by(|a, b| a.factor == b.factor) {
                let amount = if let [one] = run {
                    one.amount
                } else {
                    let factor = &group.factors[run[0].factor as usize];
                    w.ats.clear();
                    w.ats.extend(run.iter().map(|slot| slot.at));
                    factor.amount_at(&w.ats)
                };
                weight *= f64::from(amount) / s;
            }
            total += weight;
        }
        total
    }

    /// The expected number of the group's records that are `own`'s choice of values (and any
    /// value of its unlinked factors) holding every item of `known` (sorted).
    pub(crate) fn own_weight(&self, own: &Own, known: &[ItemId], w: &mut Weigher) -> f64 {
        let group = &self.groups[own.group as usize];
        if !Self::split(group, known, w) {
            return 0.0;
        }
        let s = f64::from(group.size);
        let mut weight = s;
        let mut runs = w.by_factor.chunk_by(|a, b| a.0 == b.0).peekable();
        for (f, (factor, v)) in group.factors.iter().zip(&own.values).enumerate() {
            w.part.clear();
            if let Some(run) = runs.next_if(|r| r[0].0 as usize == f) {
                w.part.extend(run.iter().map(|p| p.1));
            }
            let count = match v {
                Some(v) => {
                    let value = &factor.values[*v as usize];
                    if !is_subset(&w.part, &value.items) {
                        return 0.0;
                    }
                    value.count
                }
                None => factor.amount(&w.part),
            };
            weight *= f64::from(count) / s;
        }
        weight
    }

    /// How often a reader of the whole publication names category `c` as a tendency.
    pub(crate) fn label_mass(&self, c: u32) -> f64 {
        self.label_mass.get(c as usize).copied().unwrap_or(0.0)
    }

    /// How often a reader of the records holding `item` names category `c`.
    pub(crate) fn item_label_mass(&self, item: ItemId, c: u32) -> f64 {
        let categories = self.label_mass.len();
        if (c as usize) < categories {
            self.item_label_mass[item as usize * categories + c as usize]
        } else {
            0.0
        }
    }

    /// The tendency labels of record group `g`.
    pub(crate) fn labels(&self, g: u32) -> &[u32] {
        &self.groups[g as usize].labels
    }
}

/// The first position at or after `from` of `list` (ascending) whose group is at least `g`:
/// steps of 1, 2, 4, … then a binary search of the last step, so that walking a long list
/// beside a short one costs the short one's length times a logarithm.
fn seek(list: &[u32], from: usize, g: u32) -> usize {
    let mut lo = from;
    let mut step = 1;
    while lo + step <= list.len() && list[lo + step - 1] < g {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(list.len());
    lo + list[lo..hi].partition_point(|&x| x < g)
}

/// `out = known ∩ items` (both sorted).
fn restrict(known: &[ItemId], items: &[ItemId], out: &mut Vec<ItemId>) {
    out.clear();
    out.extend(known.iter().copied().filter(|i| items.binary_search(i).is_ok()));
}

/// `a ⊆ b`, both sorted.
fn is_subset(a: &[ItemId], b: &[ItemId]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    let mut rest = b;
    a.iter().all(|x| match rest.binary_search(x) {
        Ok(k) => {
            rest = &rest[k + 1..];
            true
        }
        Err(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_weighs_its_factors() {
        // Two factors over a group of 4: {0}×3, {}×1 and {1}×2, {2}×2.
        let mut b = ViewBuilder::new(3);
        b.group(
            4,
            vec![
                vec![Value::new(vec![0], 3), Value::new(vec![], 1)],
                vec![Value::new(vec![1], 2), Value::new(vec![2], 2)],
            ],
        )
        .unwrap();
        let view = b.finish();
        assert_eq!(view.support(&[0]), 3.0);
        assert_eq!(view.support(&[0, 1]), 4.0 * 0.75 * 0.5);
        assert_eq!(view.support(&[1, 2]), 0.0);
        assert_eq!(view.support(&[]), 4.0);
    }

    #[test]
    fn malformed_groups_are_refused() {
        let mut b = ViewBuilder::new(3);
        assert!(matches!(b.group(0, vec![]), Err(ViewError::EmptyGroup { .. })));
        assert!(matches!(
            b.group(2, vec![vec![Value::new(vec![0], 1)]]),
            Err(ViewError::CountMismatch { counts: 1, size: 2, .. })
        ));
        assert!(matches!(
            b.group(1, vec![vec![Value::new(vec![7], 1)]]),
            Err(ViewError::ItemOutOfRange { item: 7, .. })
        ));
        assert!(matches!(
            b.group(1, vec![vec![Value::new(vec![0], 1)], vec![Value::new(vec![0, 1], 1)]]),
            Err(ViewError::SharedItem { item: 0, .. })
        ));
        assert!(matches!(
            b.group(1, vec![vec![Value { items: vec![1, 0], count: 1 }]]),
            Err(ViewError::Unsorted { .. })
        ));
        assert!(matches!(
            b.group_with_counts(1, vec![], &[(0, 2)]),
            Err(ViewError::CountMismatch { counts: 2, size: 1, .. })
        ));
    }

    #[test]
    fn locate_finds_each_factor_value() {
        let mut b = ViewBuilder::new(4);
        b.group(
            2,
            vec![
                vec![Value::new(vec![0], 1), Value::new(vec![0, 1], 1)],
                vec![Value::new(vec![2], 1), Value::new(vec![], 1)],
            ],
        )
        .unwrap();
        let view = b.finish();
        assert_eq!(view.locate(0, &[0, 1]), Some(Own { group: 0, values: vec![Some(1), Some(1)] }));
        assert_eq!(view.locate(0, &[0, 2]), Some(Own { group: 0, values: vec![Some(0), Some(0)] }));
        assert_eq!(view.locate(0, &[1, 2]), None);
        assert_eq!(view.locate(0, &[0, 3]), None);
    }
}
