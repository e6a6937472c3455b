//! Real frame bytes for a simulated packet (docs/pcap.md): Ethernet II,
//! IPv4 (RFC 791) or IPv6 (RFC 8200), TCP (RFC 9293) with its options, UDP
//! (RFC 768), and 802.3x MAC-control PAUSE frames (IEEE 802.3 Annex 31B).
//!
//! The simulator carries no payload bytes: payloads are zeros, so checksums
//! are computed over the headers and the pseudo-header only (zeros add
//! nothing to a one's-complement sum) and are still those of the whole packet.
//!
//! CHOICE (docs/pcap.md "Addresses"): node n (scenario order, from 0) has
//! MAC 02:00:00:00:hi:lo, IPv4 10.0.0.0 + n + 1 and IPv6 fd00::n+1, with
//! hi:lo = n + 1. Flow f's acceptor listens on port 5001 + (f mod 4999); its
//! initiator's port is 10000 + (connection mod 55536). Each direction of a
//! connection has a fixed initial sequence number derived from (flow,
//! connection, direction), so sequence numbers wrap as on a real long transfer.

use crate::net::packet::{flags, ip_header_bytes, Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::quickstart::option::OPT_BYTES;

/// Ethernet II header bytes (destination, source, EtherType).
pub const ETH_HEADER_BYTES: usize = 14;
/// Shortest Ethernet frame without its FCS (64 − 4).
pub const MIN_FRAME_BYTES: usize = 60;
/// Frame check sequence: on the wire, never in a pcap record.
pub const FCS_BYTES: u64 = 4;
/// Longest header this module writes: Ethernet 14 + IPv6 40 + hop-by-hop 16 + TCP 60.
pub const MAX_HEADER_BYTES: usize = 130;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86DD;
/// MAC control (IEEE 802.3 Annex 31A).
const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;
/// PAUSE opcode (Annex 31B).
const OPCODE_PAUSE: u16 = 0x0001;
/// The reserved multicast address of PAUSE frames (Annex 31B.1).
const PAUSE_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_HOP_BY_HOP: u8 = 0;
/// IPv4 flags: don't fragment (Linux sets DF on TCP, path MTU discovery).
const IPV4_DF: u16 = 0x4000;
/// IPv6 Quick-Start option type (RFC 4782 §4.2 "0x26").
const IPV6_QS_OPTION: u8 = 0x26;
/// TCP option kinds (RFC 9293 §3.2, RFC 2018, RFC 7323).
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;
/// The simulator's SYN option bits (`TcpHeader::syn_opts`).
const SYN_SACK: u8 = 1;
const SYN_TS: u8 = 2;
const SYN_WS: u8 = 4;
/// Every SYN takes 20 option bytes in the simulator (MSS, SACK-permitted,
/// timestamps, NOP, window scale; spec 06 §1.2).
const SYN_OPTION_BYTES: usize = 20;
const TS_OPTION_BYTES: u32 = 12;

/// Ethernet address of node `n`.
pub fn node_mac(n: u16) -> [u8; 6] {
    let h = n as u32 + 1;
    [0x02, 0, 0, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// IPv4 address of node `n`: 10.0.0.0 + n + 1.
pub fn node_ipv4(n: u16) -> [u8; 4] {
    (0x0A00_0000u32 + n as u32 + 1).to_be_bytes()
}

/// IPv6 address of node `n`: fd00::(n + 1).
pub fn node_ipv6(n: u16) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0xFD;
    a[12..].copy_from_slice(&(n as u32 + 1).to_be_bytes());
    a
}

/// TCP/UDP port of the flow's acceptor.
pub fn acceptor_port(flow: u32) -> u16 {
    5001 + (flow % 4999) as u16
}

/// TCP/UDP port of the flow's initiator for connection `conn`.
pub fn initiator_port(conn: u32) -> u16 {
    10_000 + (conn % 55_536) as u16
}

/// Initial sequence number of one direction of one connection (splitmix64 of
/// its identity): fixed, so a capture is the same on every run.
pub fn isn(flow: u32, conn: u32, dir: u8) -> u32 {
    let mut z = ((flow as u64) << 33 | (conn as u64) << 1 | dir as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// What a frame's bytes depend on beyond the packet itself.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    /// The transmitting node (Ethernet source).
    pub tx: u16,
    /// The receiving node (Ethernet destination).
    pub rx: u16,
    /// The packet's IP version, 4 or 6.
    pub ip_version: u8,
}

/// One's-complement sum of 16-bit big-endian words (RFC 1071).
struct Sum(u32);

impl Sum {
    fn add(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(2);
        for c in &mut chunks {
            self.0 += u16::from_be_bytes([c[0], c[1]]) as u32;
        }
        if let [last] = chunks.remainder() {
            self.0 += (*last as u32) << 8;
        }
    }
    fn add_u32(&mut self, v: u32) {
        self.add(&v.to_be_bytes());
    }
    fn finish(self) -> u16 {
        let mut s = self.0;
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        !(s as u16)
    }
}

/// A frame's header bytes (the rest of the frame is zeros) and its length
/// without the FCS.
pub struct Frame {
    pub header: [u8; MAX_HEADER_BYTES],
    pub header_len: usize,
    pub frame_len: usize,
}

impl Frame {
    fn new() -> Frame {
        Frame { header: [0; MAX_HEADER_BYTES], header_len: 0, frame_len: 0 }
    }
    fn put(&mut self, bytes: &[u8]) {
        self.header[self.header_len..self.header_len + bytes.len()].copy_from_slice(bytes);
        self.header_len += bytes.len();
    }
    fn put_u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes());
    }
    fn ethernet(&mut self, dst: [u8; 6], src: [u8; 6], ethertype: u16) {
        self.put(&dst);
        self.put(&src);
        self.put_u16(ethertype);
    }
    /// The frame is at least the Ethernet minimum (the zeros are padding).
    fn finish(mut self, l2_bytes: usize) -> Frame {
        self.frame_len = l2_bytes.max(MIN_FRAME_BYTES);
        self
    }
}

/// An 802.3x PAUSE frame of `frame_len` bytes (FCS excluded) from node `tx`
/// carrying `quanta` (Annex 31B.2); zeros pad it to its length.
pub fn pause_frame(tx: u16, quanta: u16, frame_len: usize) -> Frame {
    let mut f = Frame::new();
    f.ethernet(PAUSE_DST, node_mac(tx), ETHERTYPE_MAC_CONTROL);
    f.put_u16(OPCODE_PAUSE);
    f.put_u16(quanta);
    f.finish(frame_len)
}

/// The frame of packet `p` on hop `hop`. PAUSE packets become [`pause_frame`]s.
pub fn frame(p: &Packet, hop: &Hop) -> Frame {
    match p.kind {
        PacketKind::Pause => {
            let l2 = (p.l2_bytes() - FCS_BYTES) as usize;
            pause_frame(hop.tx, p.pause_quanta(), l2)
        }
        PacketKind::Tcp | PacketKind::Udp => ip_frame(p, hop),
    }
}

/// The bytes of the transport header and the payload length it covers.
struct Transport {
    bytes: [u8; 60],
    len: usize,
    payload: u32,
    proto: u8,
    /// Byte offset of the checksum within `bytes`.
    csum_at: usize,
}

fn ip_frame(p: &Packet, hop: &Hop) -> Frame {
    let v6 = hop.ip_version == 6;
    let ip_header = ip_header_bytes(hop.ip_version);
    let ip_qs = if p.ip.has_qs() { OPT_BYTES } else { 0 };
    let mut t = match p.kind {
        PacketKind::Tcp => tcp_header(p, ip_header + ip_qs),
        _ => udp_header(p),
    };
    let (src, dst) = (p.src, p.dst);
    let l4_len = t.len as u32 + t.payload;
    // Transport checksum over the pseudo-header (RFC 9293 §3.1, RFC 8200 §8.1)
    // and the header; the zero payload adds nothing.
    let mut sum = Sum(0);
    if v6 {
        sum.add(&node_ipv6(src));
        sum.add(&node_ipv6(dst));
        sum.add_u32(l4_len);
        sum.add_u32(t.proto as u32);
    } else {
        sum.add(&node_ipv4(src));
        sum.add(&node_ipv4(dst));
        sum.add(&[0, t.proto]);
        sum.add(&(l4_len as u16).to_be_bytes());
    }
    sum.add(&t.bytes[..t.len]);
    let mut csum = sum.finish();
    if csum == 0 && t.proto == PROTO_UDP {
        csum = 0xFFFF; // RFC 768: a computed zero is sent as all ones
    }
    t.bytes[t.csum_at..t.csum_at + 2].copy_from_slice(&csum.to_be_bytes());

    let mut f = Frame::new();
    f.ethernet(node_mac(hop.rx), node_mac(hop.tx), if v6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 });
    let ip_len;
    if v6 {
        // A Quick-Start option rides in a hop-by-hop header padded to 16 bytes
        // (RFC 4782 §4.2; RFC 8200 §4.3 PadN).
        let hbh = if ip_qs > 0 { 16 } else { 0 };
        ip_len = 40 + hbh + l4_len as usize;
        f.put_u32(6 << 28);
        f.put_u16((hbh + l4_len as usize) as u16);
        f.put(&[if hbh > 0 { PROTO_HOP_BY_HOP } else { t.proto }, p.ip.ttl]);
        f.put(&node_ipv6(src));
        f.put(&node_ipv6(dst));
        if hbh > 0 {
            let q = p.ip.qs;
            f.put(&[t.proto, 1, IPV6_QS_OPTION, 6, q[2], q[3], q[4], q[5], q[6], q[7], 1, 4, 0, 0, 0, 0]);
        }
    } else {
        let hl = 20 + ip_qs as usize;
        ip_len = hl + l4_len as usize;
        let start = f.header_len;
        f.put(&[0x40 | (hl / 4) as u8, 0]);
        f.put_u16(ip_len as u16);
        f.put_u16(0); // identification: DF set, never fragmented
        f.put_u16(IPV4_DF);
        f.put(&[p.ip.ttl, t.proto, 0, 0]);
        f.put(&node_ipv4(src));
        f.put(&node_ipv4(dst));
        if ip_qs > 0 {
            f.put(&p.ip.qs);
        }
        let mut s = Sum(0);
        s.add(&f.header[start..f.header_len]);
        f.header[start + 10..start + 12].copy_from_slice(&s.finish().to_be_bytes());
    }
    f.put(&t.bytes[..t.len]);
    f.finish(ETH_HEADER_BYTES + ip_len)
}

fn udp_header(p: &Packet) -> Transport {
    let payload = p.payload_bytes() as u32;
    let mut b = [0u8; 60];
    b[0..2].copy_from_slice(&initiator_port(0).to_be_bytes());
    b[2..4].copy_from_slice(&acceptor_port(p.flow).to_be_bytes());
    b[4..6].copy_from_slice(&((8 + payload) as u16).to_be_bytes());
    Transport { bytes: b, len: 8, payload, proto: PROTO_UDP, csum_at: 6 }
}

/// Writes TCP options into `b` from `at`; returns the new end.
struct Opts<'a> {
    b: &'a mut [u8; 60],
    at: usize,
}

impl Opts<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.b[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
    fn timestamps(&mut self, val: u32, ecr: u32) {
        self.put(&[OPT_TIMESTAMPS, 10]);
        self.put(&val.to_be_bytes());
        self.put(&ecr.to_be_bytes());
    }
}

/// TCP timestamp clock: milliseconds (Linux's default 1 kHz clock), mod 2^32.
fn ts_clock(t: crate::engine::time::SimTime) -> u32 {
    (t.ps() / 1_000_000_000) as u32
}

fn tcp_header(p: &Packet, ip_bytes: u32) -> Transport {
    let h = &p.tcp;
    let conn = h.conn;
    let (own, peer) = (isn(p.flow, conn, p.dir), isn(p.flow, conn, 1 - p.dir.min(1)));
    let syn = h.has(flags::SYN);
    // The simulator counts a segment's bytes from its first data byte (0);
    // on the wire the SYN takes the ISN and data starts at ISN + 1.
    let seq = if syn { own } else { own.wrapping_add(1).wrapping_add(h.seq as u32) };
    let wire_ack = |rel: u64| peer.wrapping_add(1).wrapping_add(rel as u32);
    let ack = if h.has(flags::ACK) { wire_ack(h.ack) } else { 0 };
    let (sport, dport) = if p.dir == 0 { (initiator_port(conn), acceptor_port(p.flow)) } else { (acceptor_port(p.flow), initiator_port(conn)) };
    let mut b = [0u8; 60];
    b[0..2].copy_from_slice(&sport.to_be_bytes());
    b[2..4].copy_from_slice(&dport.to_be_bytes());
    b[4..8].copy_from_slice(&seq.to_be_bytes());
    b[8..12].copy_from_slice(&ack.to_be_bytes());
    let mut wflags = 0u8;
    if h.has(flags::FIN) {
        wflags |= 0x01;
    }
    if syn {
        wflags |= 0x02;
    }
    if h.has(flags::ACK) {
        wflags |= 0x10;
    }
    b[13] = wflags;
    let window = if syn { h.window().min(65_535) } else { (h.window() >> h.wscale()).min(65_535) };
    b[14..16].copy_from_slice(&(window as u16).to_be_bytes());
    let qs_resp = h.qs_response[0] != 0;
    let mut o = Opts { b: &mut b, at: 20 };
    if syn {
        let so = h.syn_opts;
        o.put(&[OPT_MSS, 4]);
        o.put(&h.mss_opt.to_be_bytes());
        if so & SYN_SACK != 0 {
            o.put(&[OPT_SACK_PERMITTED, 2]);
        }
        if so & SYN_TS != 0 {
            o.timestamps(ts_clock(h.ts_val), ts_clock(h.ts_ecr));
        }
        if so & SYN_WS != 0 {
            o.put(&[OPT_NOP, OPT_WSCALE, 3, h.wscale()]);
        }
        while o.at < 20 + SYN_OPTION_BYTES {
            o.put(&[OPT_NOP]);
        }
    } else {
        // The option bytes the simulator counted tell whether timestamps are on.
        let sack_bytes = if h.sack_n > 0 { 4 + 8 * h.sack_n as u32 } else { 0 };
        let counted = p.l3_bytes.saturating_sub(ip_bytes + 20 + h.payload as u32 + if qs_resp { OPT_BYTES } else { 0 });
        if counted >= sack_bytes + TS_OPTION_BYTES {
            o.put(&[OPT_NOP, OPT_NOP]);
            o.timestamps(ts_clock(h.ts_val), ts_clock(h.ts_ecr));
        }
        let n = (h.sack_n as usize).min(MAX_SACK_BLOCKS);
        if n > 0 {
            o.put(&[OPT_NOP, OPT_NOP, OPT_SACK, 2 + 8 * n as u8]);
            for i in 0..n {
                let (s, e) = if i == 0 && h.dsack {
                    // A D-SACK block's range is not carried (`TcpHeader::dsack`):
                    // the last byte below the ACK stands for it (RFC 2883 §4).
                    (h.ack.saturating_sub(1), h.ack)
                } else {
                    h.sack_block(i)
                };
                o.put(&wire_ack(s).to_be_bytes());
                o.put(&wire_ack(e).to_be_bytes());
            }
        }
    }
    if qs_resp {
        o.put(&h.qs_response);
    }
    while o.at % 4 != 0 {
        o.put(&[OPT_EOL]);
    }
    let len = o.at;
    b[12] = ((len / 4) as u8) << 4;
    Transport { bytes: b, len, payload: h.payload as u32, proto: PROTO_TCP, csum_at: 16 }
}
