//! A FIFO of `Copy` records in fixed-size blocks (issue 9: in-flight footprint).
//!
//! A `VecDeque` grows by doubling, so a ring just past a power of two holds
//! up to twice the memory it uses. The rings that scale with the window, a
//! link direction's frames and the sender's scoreboard, use this instead:
//! memory is the records held rounded up to one block, plus one spare block
//! kept so that a ring whose occupancy hovers at a block boundary does not
//! allocate per record. Indexing stays O(1) (block = index >> shift).

use std::collections::VecDeque;

/// Target bytes per block; the count per block is the power of two at or below it.
const BLOCK_BYTES: usize = 16 * 1024;

pub struct BlockRing<T: Copy> {
    blocks: VecDeque<Box<[T]>>,
    /// Offset of the first record in `blocks[0]`.
    head: usize,
    len: usize,
    /// One emptied block kept for reuse.
    spare: Option<Box<[T]>>,
    /// Records per block is 1 << shift.
    shift: u32,
    /// (1 << shift) − 1.
    mask: usize,
    /// The value new blocks are filled with (never read back).
    fill: T,
}

impl<T: Copy> BlockRing<T> {
    /// An empty ring; `fill` initialises fresh blocks (no unsafe code needed).
    pub fn new(fill: T) -> BlockRing<T> {
        let per_block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(2);
        let shift = usize::BITS - 1 - per_block.leading_zeros();
        BlockRing { blocks: VecDeque::new(), head: 0, len: 0, spare: None, shift, mask: (1 << shift) - 1, fill }
    }

    #[inline]
    fn slot(&self, i: usize) -> (usize, usize) {
        let j = self.head + i;
        (j >> self.shift, j & self.mask)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, v: T) {
        // The tail is always in the last block; a new block starts when the
        // last one is full (or there is none).
        let o = (self.head + self.len) & self.mask;
        if o == 0 && (self.head + self.len) >> self.shift == self.blocks.len() {
            let block = self.spare.take().unwrap_or_else(|| vec![self.fill; 1 << self.shift].into_boxed_slice());
            self.blocks.push_back(block);
        }
        let last = self.blocks.back_mut().expect("a block for the tail");
        last[o] = v;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        self.pop_front_if(|_| true)
    }

    /// Take the first record if `pred` holds for it.
    #[inline]
    pub fn pop_front_if(&mut self, pred: impl FnOnce(&T) -> bool) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let first = &self.blocks.front().expect("a block for the head")[self.head];
        if !pred(first) {
            return None;
        }
        let v = *first;
        self.head += 1;
        self.len -= 1;
        if self.head > self.mask {
            self.head = 0;
            self.spare = self.blocks.pop_front();
        } else if self.len == 0 {
            self.head = 0;
        }
        Some(v)
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let (b, o) = self.slot(i);
        Some(&self.blocks[b][o])
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let (b, o) = self.slot(i);
        Some(&mut self.blocks[b][o])
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        self.blocks.front().map(|b| &b[self.head])
    }

    #[inline]
    pub fn front_mut(&mut self) -> Option<&mut T> {
        self.get_mut(0)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// The first index whose record fails `pred`, for a ring partitioned by
    /// it (all records satisfying `pred` come first), like `slice::partition_point`:
    /// a binary search over the blocks' first records, then within one block.
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        if self.len == 0 {
            return 0;
        }
        let start_of = |k: usize| if k == 0 { self.head } else { 0 };
        let (mut lo, mut hi) = (0, self.blocks.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&self.blocks[mid][start_of(mid)]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(k) = lo.checked_sub(1) else { return 0 };
        let first = k << self.shift;
        let end = (self.head + self.len).min(first + (1 << self.shift));
        let block = &self.blocks[k][start_of(k)..end - first];
        first + start_of(k) - self.head + block.partition_point(pred)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self[i])
    }

    /// Heap bytes held: the blocks in use and the spare.
    pub fn heap_bytes(&self) -> usize {
        (self.blocks.len() + usize::from(self.spare.is_some())) * (std::mem::size_of::<T>() << self.shift)
    }
}

impl<T: Copy + Default> Default for BlockRing<T> {
    fn default() -> Self {
        BlockRing::new(T::default())
    }
}

impl<T: Copy> std::ops::Index<usize> for BlockRing<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("BlockRing index out of range")
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for BlockRing<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.get_mut(i).expect("BlockRing index out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of pushes and pops behaves as a VecDeque does.
        #[test]
        fn behaves_as_a_deque(ops in proptest::collection::vec(any::<Option<u16>>(), 0..5000)) {
            let mut ring = BlockRing::new(0u64);
            let mut model = VecDeque::new();
            for op in ops {
                match op {
                    Some(v) => { ring.push_back(v as u64); model.push_back(v as u64); }
                    None => prop_assert_eq!(ring.pop_front(), model.pop_front()),
                }
                prop_assert_eq!(ring.len(), model.len());
                prop_assert_eq!(ring.front(), model.front());
                prop_assert_eq!(ring.back(), model.back());
            }
            prop_assert!(ring.iter().eq(model.iter()));
        }
    }

    #[test]
    fn memory_is_the_records_rounded_to_a_block_plus_a_spare() {
        let mut ring = BlockRing::new([0u8; 128]);
        let per_block = 1 << ring.shift;
        for _ in 0..(10 * per_block + 1) {
            ring.push_back([1; 128]);
        }
        assert_eq!(ring.heap_bytes(), 11 * per_block * 128, "11 blocks, no doubling slack");
        for _ in 0..per_block {
            ring.pop_front();
        }
        assert_eq!(ring.heap_bytes(), 11 * per_block * 128, "the emptied block is kept as the spare");
        ring.push_back([2; 128]);
        assert_eq!(ring.heap_bytes(), 11 * per_block * 128);
    }

    proptest! {
        /// Over several blocks and any head offset, the search agrees with the slice one.
        #[test]
        fn partition_point_agrees_with_the_slice(n in 0usize..20_000, popped in 0usize..9_000, cut in 0u32..50_000) {
            let mut ring = BlockRing::new(0u32);
            let mut model = VecDeque::new();
            for v in 0..n as u32 {
                ring.push_back(v * 2);
                model.push_back(v * 2);
            }
            for _ in 0..popped.min(n) {
                ring.pop_front();
                model.pop_front();
            }
            let want = model.make_contiguous().partition_point(|v| *v < cut);
            prop_assert_eq!(ring.partition_point(|v| *v < cut), want);
        }
    }
}
