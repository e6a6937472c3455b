//! Compact packets, moved by value through preallocated ring buffers: no
//! per-packet heap allocation anywhere in the hot path.
//!
//! Sequence numbers are 64-bit byte offsets relative to the initial sequence
//! number, so they never wrap. SACK blocks are stored relative to the ACK number
//! (a TCP window is below 2^30 bytes, RFC 7323 §2.3), which keeps a packet small.

use crate::engine::time::SimTime;

/// Index of a node in the world.
pub type NodeId = u16;
/// Index of a flow (scenario `[[flow]]` order).
pub type FlowId = u32;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    /// A TCP segment (data, pure ACK, SYN, …).
    Tcp,
    /// A UDP datagram of a traffic source.
    Udp,
    /// An 802.3x PAUSE frame (spec 04 §2.5): MAC control, never routed, never
    /// counted as traffic; its pause_time travels in `tcp.seq` (see `pause`).
    Pause,
}

/// TCP flag bits.
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
}

/// Maximum SACK blocks a segment can carry (4 without timestamps, spec 06 §1.2).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A TCP header as the simulator needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// First payload byte (relative sequence number).
    pub seq: u64,
    /// Cumulative ACK: next byte expected (valid with `flags::ACK`).
    pub ack: u64,
    /// Receive window in bytes, already scaled (what the peer may use): below
    /// 2^30 (RFC 7323 §2.3), so 32 bits hold it.
    pub wnd_bytes: u32,
    /// TSval: the sender's clock at transmission (0 = no timestamp option).
    pub ts_val: SimTime,
    /// TSecr: echoed TSval.
    pub ts_ecr: SimTime,
    /// Payload bytes: at most one MSS, below 2^16 (scenario MTUs stop at 9600).
    pub payload: u16,
    /// SYN only: MSS option (payload of a full segment without timestamps).
    pub mss_opt: u16,
    pub flags: u8,
    /// Bits 0–2, SYN only: SACK-permitted, timestamps and window scale
    /// offered. Bits 4–7, every segment: the sender's window-scale shift
    /// (RFC 7323 §2.2, at most 14), by which the header's 16-bit window field
    /// is `wnd_bytes` shifted right ([`TcpHeader::wscale`]); the socket sets it
    /// when it builds the segment, as a real stack fills the window field then.
    pub syn_opts: u8,
    /// Number of SACK blocks in the option (including a D-SACK block).
    pub sack_n: u8,
    /// The first SACK block is a D-SACK (RFC 2883); its range is not carried.
    pub dsack: bool,
    /// SACK blocks as (start − ack, end − ack).
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    /// Connection of a multi-connection workload (spec 02 §3.2 Web), 0 otherwise.
    pub conn: u32,
    /// TCP Quick-Start Response option (kind 27, spec 02 §2.2.5), raw bytes;
    /// all zero when absent. It adds 8 bytes of TCP options.
    pub qs_response: [u8; 8],
}

impl TcpHeader {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// The sender's window-scale shift (bits 4–7 of `syn_opts`).
    #[inline]
    pub fn wscale(&self) -> u8 {
        self.syn_opts >> WSCALE_BIT
    }

    /// Carry the sender's window-scale shift `shift` (at most 14).
    #[inline]
    pub fn set_wscale(&mut self, shift: u8) {
        self.syn_opts = TcpHeader::opts_with_wscale(self.syn_opts, shift);
    }

    /// The `syn_opts` byte `opts` with the window-scale shift `shift`.
    #[inline(always)]
    pub fn opts_with_wscale(opts: u8, shift: u8) -> u8 {
        debug_assert!(shift <= 14, "RFC 7323 §2.3: a shift of at most 14");
        (opts & ((1 << WSCALE_BIT) - 1)) | shift << WSCALE_BIT
    }

    /// The window field in bytes.
    #[inline]
    pub fn window(&self) -> u64 {
        self.wnd_bytes as u64
    }
    /// Set the window field: below 2^30 bytes (65535 << 14, RFC 7323 §2.3).
    #[inline]
    pub fn set_window(&mut self, bytes: u64) {
        debug_assert!(bytes < 1 << 30, "a TCP window is below 2^30 bytes");
        self.wnd_bytes = bytes.min(u32::MAX as u64) as u32;
    }
    /// SACK block i as absolute byte range.
    pub fn sack_block(&self, i: usize) -> (u64, u64) {
        let (s, e) = self.sack[i];
        (self.ack + s as u64, self.ack + e as u64)
    }
}

/// The fixed IP header: 20 bytes for IPv4 (RFC 791, no options), 40 for IPv6 (RFC 8200);
/// spec 04 §2.2 `H_IP`. Options (Quick-Start, RFC 4782) come on top.
pub const fn ip_header_bytes(ip_version: u8) -> u32 {
    if ip_version == 6 {
        40
    } else {
        20
    }
}

/// Linux's default IP TTL (`net.ipv4.ip_default_ttl`; spec 02 §2.3.1 `initial_ip_ttl`).
pub const DEFAULT_IP_TTL: u8 = 64;

/// First bit of the window-scale shift in `TcpHeader::syn_opts`.
const WSCALE_BIT: u8 = 4;

/// The IP header fields the simulator reads beyond addresses and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpFields {
    /// Time to live, decremented by every routing hop (spec 02 §2.5.6).
    pub ttl: u8,
    /// IPv4 Quick-Start option (type 25, spec 02 §2.2.2–2.2.3), raw bytes;
    /// all zero when absent. It adds 8 bytes to the IP header.
    pub qs: [u8; 8],
}

impl Default for IpFields {
    fn default() -> IpFields {
        IpFields { ttl: DEFAULT_IP_TTL, qs: [0; 8] }
    }
}

impl IpFields {
    /// Does the packet carry a Quick-Start IP option?
    #[inline]
    pub fn has_qs(&self) -> bool {
        self.qs[0] != 0
    }
}

/// A frame in flight or in a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: PacketKind,
    /// 0: from the flow's initiator (the `from` host), 1: from the acceptor.
    pub dir: u8,
    /// IP packet length in bytes (L3), options included.
    pub l3_bytes: u32,
    pub ip: IpFields,
    pub tcp: TcpHeader,
    /// Earliest departure time stamped by an EDT sender (spec 06 §5.3 `edt`);
    /// zero when unstamped.
    pub tstamp: SimTime,
    /// The ingress port it entered the current forwarding node by, as that
    /// node's local index: set on arrival, read only at nodes that generate
    /// PAUSE per ingress port (spec 04 §2.5). Fits the struct's padding.
    pub ingress: u8,
}

impl Packet {
    /// L2 frame bytes: max(L3 + 18, 64) (spec 06 §1.2, spec 04 §2.2).
    #[inline]
    pub fn l2_bytes(&self) -> u64 {
        super::phy::l2_bytes(self.l3_bytes as u64, false)
    }

    /// Wire footprint W = L2 + 8 (preamble/SFD) + ipg (spec 06 §1.2).
    #[inline]
    pub fn wire_bytes(&self, ipg_bytes: u32) -> u64 {
        self.l2_bytes() + 8 + ipg_bytes as u64
    }

    /// Application payload bytes: the TCP payload, or the datagram less its
    /// IP and UDP headers (20 + 8).
    #[inline]
    pub fn payload_bytes(&self) -> u64 {
        match self.kind {
            PacketKind::Tcp => self.tcp.payload as u64,
            PacketKind::Udp => self.l3_bytes as u64 - 28,
            PacketKind::Pause => 0,
        }
    }

    /// Does this frame carry application data (TCP payload or UDP)?
    #[inline]
    pub fn is_data(&self) -> bool {
        match self.kind {
            PacketKind::Udp => true,
            PacketKind::Tcp => self.tcp.payload > 0,
            PacketKind::Pause => false,
        }
    }

    /// A PAUSE frame from node `src` to its neighbour `dst` with `quanta`
    /// (a 64-byte frame: 46 bytes of MAC-control payload).
    pub fn pause(src: NodeId, dst: NodeId, quanta: u16) -> Packet {
        Packet {
            flow: 0,
            src,
            dst,
            kind: PacketKind::Pause,
            dir: 0,
            l3_bytes: 46,
            ip: IpFields::default(),
            tcp: TcpHeader { seq: quanta as u64, ..TcpHeader::default() },
            tstamp: SimTime::ZERO,
            ingress: 0,
        }
    }

    /// The pause_time of a PAUSE frame.
    pub fn pause_quanta(&self) -> u16 {
        debug_assert_eq!(self.kind, PacketKind::Pause);
        self.tcp.seq as u16
    }
}

impl Packet {
    /// A UDP packet of `l3` bytes from node 0 to node 1, for unit tests and
    /// the micro-benchmarks (`benches/`).
    pub fn test_udp(l3: u32) -> Packet {
        Packet { flow: 0, src: 0, dst: 1, kind: PacketKind::Udp, dir: 0, l3_bytes: l3, ip: IpFields::default(), tcp: TcpHeader::default(), tstamp: SimTime::ZERO, ingress: 0 }
    }

    /// What fresh slots of preallocated packet storage hold (never read as a frame).
    pub fn filler() -> Packet {
        Packet::test_udp(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_is_compact() {
        // A link slot is a packet and its due time (issue 9 footprint): 120 + 8 bytes.
        assert!(std::mem::size_of::<Packet>() <= 120, "{}", std::mem::size_of::<Packet>());
    }

    #[test]
    fn framing() {
        let mut p = Packet { kind: PacketKind::Tcp, ..Packet::test_udp(1500) };
        // 1500-byte IP packet: L2 1518, wire 1538 (spec 06 §1.2).
        assert_eq!(p.l2_bytes(), 1518);
        assert_eq!(p.wire_bytes(12), 1538);
        // Pure ACK with timestamps: L3 52 B, W 90 B.
        p.l3_bytes = 52;
        assert_eq!(p.wire_bytes(12), 90);
        // Minimum frame.
        p.l3_bytes = 20;
        assert_eq!(p.l2_bytes(), 64);
    }
}
