//! The preallocated frame buffers: every buffer is allocated at start-up and
//! frames move between the receive slots and the pool by swapping buffers,
//! so the relay loop never allocates.

/// A fixed set of equal-size frame buffers with a free list.
pub struct Pool {
    bufs: Vec<Box<[u8]>>,
    /// Indices of the free buffers (a stack: the most recently freed, still
    /// warm in the cache, is reused first).
    free: Vec<u32>,
}

impl Pool {
    /// `frames` buffers of `frame_bytes` each.
    pub fn new(frames: usize, frame_bytes: usize) -> Pool {
        let frames = frames.min(u32::MAX as usize);
        Pool { bufs: (0..frames).map(|_| vec![0u8; frame_bytes].into_boxed_slice()).collect(), free: (0..frames as u32).rev().collect() }
    }

    /// Number of buffers.
    pub fn capacity(&self) -> usize {
        self.bufs.len()
    }

    /// Number of free buffers.
    pub fn available(&self) -> usize {
        self.free.len()
    }

    /// A free buffer, if any.
    #[inline]
    pub fn alloc(&mut self) -> Option<u32> {
        self.free.pop()
    }

    /// Returns buffer `idx` to the pool.
    #[inline]
    pub fn release(&mut self, idx: u32) {
        debug_assert!(self.free.len() < self.bufs.len(), "a buffer is released twice");
        self.free.push(idx);
    }

    /// The storage of buffer `idx` (for a swap with a receive slot).
    #[inline]
    pub fn slot_mut(&mut self, idx: u32) -> &mut Box<[u8]> {
        &mut self.bufs[idx as usize]
    }

    /// The first `len` bytes of buffer `idx`.
    #[inline]
    pub fn frame(&self, idx: u32, len: usize) -> &[u8] {
        &self.bufs[idx as usize][..len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back() {
        let mut p = Pool::new(2, 64);
        let (a, b) = (p.alloc().unwrap(), p.alloc().unwrap());
        assert_ne!(a, b);
        assert_eq!(p.alloc(), None);
        p.slot_mut(a)[0] = 7;
        assert_eq!(p.frame(a, 1), &[7]);
        p.release(a);
        assert_eq!((p.available(), p.capacity()), (1, 2));
        assert_eq!(p.alloc(), Some(a));
    }
}
