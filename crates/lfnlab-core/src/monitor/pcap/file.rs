//! The pcap file format with nanosecond timestamps (the "nanosecond pcap"
//! of libpcap, magic 0xA1B23C4D; draft-ietf-opsawg-pcap §4–5), written
//! little-endian: a 24-byte file header, then per record a 16-byte header and
//! the captured bytes.

/// Magic of a pcap file whose record timestamps are in nanoseconds.
pub const MAGIC_NS: u32 = 0xA1B2_3C4D;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
pub const FILE_HEADER_BYTES: usize = 24;
pub const RECORD_HEADER_BYTES: usize = 16;
const NS_PER_S: u64 = 1_000_000_000;

/// The file header: version 2.4, no time-zone offset, `snaplen`, Ethernet.
pub fn file_header(snaplen: u32) -> [u8; FILE_HEADER_BYTES] {
    let mut h = [0u8; FILE_HEADER_BYTES];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone and sigfigs stay 0
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// A record header: time `t_ns`, bytes kept, bytes of the whole frame.
pub fn record_header(t_ns: u64, captured: u32, original: u32) -> [u8; RECORD_HEADER_BYTES] {
    let mut h = [0u8; RECORD_HEADER_BYTES];
    h[0..4].copy_from_slice(&((t_ns / NS_PER_S) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((t_ns % NS_PER_S) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&captured.to_le_bytes());
    h[12..16].copy_from_slice(&original.to_le_bytes());
    h
}
