//! Gap frames (spec 01 §2.3): a gap of G wire bytes leaves as
//! n = ceil(G / gap_pkt_max) PAUSE(0) frames whose sizes differ by at most one
//! byte and sum to G.

/// Number of gap frames for a gap of `wire_bytes`.
pub fn frame_count(wire_bytes: u64, gap_pkt_max_bytes: u64) -> u32 {
    wire_bytes.div_ceil(gap_pkt_max_bytes) as u32
}

/// Sizes of the frames of a gap, wire bytes each: the first `G mod n` frames
/// are one byte longer.
pub fn frame_sizes(wire_bytes: u64, gap_pkt_max_bytes: u64) -> impl Iterator<Item = u64> {
    sizes_of(wire_bytes, frame_count(wire_bytes, gap_pkt_max_bytes))
}

/// Sizes of the `n` frames of a gap of `wire_bytes` (as [`frame_sizes`]).
pub fn sizes_of(wire_bytes: u64, n: u32) -> impl Iterator<Item = u64> {
    let n = n as u64;
    let (q, r) = if n == 0 { (0, 0) } else { (wire_bytes / n, wire_bytes % n) };
    (0..n).map(move |i| q + u64::from(i < r))
}

/// L2 bytes the NIC fetches by DMA for a gap of `wire_bytes` in `frames`
/// frames: each frame's wire footprint less preamble/SFD (8) and IPG (spec 01 §2.6).
pub fn frame_bytes(wire_bytes: u64, frames: u32, ipg_bytes: u32) -> u64 {
    wire_bytes - frames as u64 * (8 + ipg_bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_respects_limits_and_sums() {
        for g in [84u64, 4095, 4096, 4097, 8192, 12_289, 65_535, 65_536] {
            let sizes: Vec<u64> = frame_sizes(g, 4096).collect();
            assert_eq!(sizes.iter().sum::<u64>(), g);
            assert_eq!(sizes.len() as u32, frame_count(g, 4096));
            assert!(sizes.iter().all(|&s| s <= 4096), "{g}: {sizes:?}");
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{g}: {sizes:?}");
        }
        // The 64 KiB cap needs at most 16 frames (§2.3).
        assert_eq!(frame_count(65_536, 4096), 16);
        assert_eq!(frame_count(4097, 4096), 2);
    }

    #[test]
    fn dma_bytes_exclude_preamble_and_ipg() {
        // One minimum gap frame: 84 wire bytes = a 64-byte frame.
        assert_eq!(frame_bytes(84, 1, 12), 64);
        assert_eq!(frame_bytes(8192, 2, 12), 8192 - 40);
    }
}
