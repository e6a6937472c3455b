//! Frame bytes against the RFC layouts, checked by re-parsing them here;
//! tshark reads whole captures in `tests/python/test_pcap.py`.

use super::file::{MAGIC_NS, RECORD_HEADER_BYTES};
use super::frame::{frame, isn, node_ipv4, node_ipv6, pause_frame, Hop};
use super::tap::{PcapTap, TapConfig};
use crate::engine::time::{SimTime, Span};
use crate::net::packet::{flags, IpFields, Packet, PacketKind, TcpHeader};

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// RFC 1071: the one's-complement sum of data that includes its own checksum is 0xFFFF.
fn folds_to_ones(parts: &[&[u8]]) -> bool {
    let mut s: u32 = 0;
    for p in parts {
        for c in p.chunks(2) {
            s += ((c[0] as u32) << 8) | c.get(1).copied().unwrap_or(0) as u32;
        }
    }
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s == 0xFFFF
}

fn tcp_packet(l3_bytes: u32, h: TcpHeader) -> Packet {
    Packet { flow: 3, src: 0, dst: 2, kind: PacketKind::Tcp, dir: 0, l3_bytes, ip: IpFields::default(), tcp: h, tstamp: SimTime::ZERO, ingress: 0 }
}

const HOP4: Hop = Hop { tx: 0, rx: 1, ip_version: 4 };

/// A data segment as the simulator sizes it: IPv4 20 + TCP 20 + timestamps 12 + 1448.
fn data_segment() -> Packet {
    let mut h = TcpHeader { seq: 1448 * 5, ack: 0, payload: 1448, flags: flags::ACK, ts_val: SimTime::ZERO + Span::from_ms(1234), wnd_bytes: 3 << 20, ..TcpHeader::default() };
    h.set_wscale(7);
    tcp_packet(20 + 20 + 12 + 1448, h)
}

#[test]
fn ipv4_data_segment_has_the_simulated_length_and_valid_checksums() {
    let p = data_segment();
    let f = frame(&p, &HOP4);
    // The frame is the IP packet behind a 14-byte Ethernet header, exactly the simulated L3 bytes.
    assert_eq!(f.frame_len, 14 + p.l3_bytes as usize);
    let b = &f.header[..f.header_len];
    assert_eq!(be16(b, 12), 0x0800);
    let ip = &b[14..34];
    assert_eq!(ip[0], 0x45);
    assert_eq!(be16(ip, 2) as u32, p.l3_bytes);
    assert!(folds_to_ones(&[ip]), "IPv4 header checksum");
    assert_eq!(&ip[12..16], &node_ipv4(0));
    assert_eq!(&ip[16..20], &node_ipv4(2));
    let tcp = &b[34..];
    assert_eq!(tcp.len(), 32, "20 bytes + NOP NOP TS(10)");
    assert_eq!(tcp[12] >> 4, 8);
    // Data starts at ISN + 1 (the SYN takes the ISN).
    assert_eq!(be32(tcp, 4), isn(3, 0, 0).wrapping_add(1 + 1448 * 5));
    // Window in units of 2^wscale.
    assert_eq!(be16(tcp, 14) as u64, (3u64 << 20) >> 7);
    assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
    assert_eq!(be32(tcp, 24), 1234, "TSval in milliseconds");
    // TCP checksum over pseudo-header, header and the 1448 zero payload bytes.
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&node_ipv4(0));
    pseudo.extend_from_slice(&node_ipv4(2));
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&((32 + 1448) as u16).to_be_bytes());
    assert!(folds_to_ones(&[&pseudo, tcp, &[0u8; 1448]]), "TCP checksum");
}

#[test]
fn sack_blocks_are_in_the_peers_sequence_space() {
    // A pure ACK from the acceptor with 3 SACK blocks and timestamps: 20 + 20 + 12 + 4 + 24.
    let mut h = TcpHeader { ack: 10_000, flags: flags::ACK, sack_n: 3, ts_val: SimTime::ZERO + Span::from_ms(7), ..TcpHeader::default() };
    h.sack[0] = (2000, 3000);
    h.sack[1] = (5000, 6000);
    h.sack[2] = (8000, 9000);
    let mut p = tcp_packet(20 + 20 + 12 + 4 + 24, h);
    p.dir = 1;
    let f = frame(&p, &HOP4);
    assert_eq!(f.frame_len, 14 + p.l3_bytes as usize);
    let tcp = &f.header[34..f.header_len];
    assert_eq!(tcp.len(), 60);
    let peer = isn(3, 0, 0).wrapping_add(1);
    assert_eq!(be32(tcp, 8), peer.wrapping_add(10_000));
    assert_eq!(&tcp[32..36], &[1, 1, 5, 26]);
    for (i, (s, e)) in [(12_000u32, 13_000u32), (15_000, 16_000), (18_000, 19_000)].into_iter().enumerate() {
        assert_eq!(be32(tcp, 36 + 8 * i), peer.wrapping_add(s));
        assert_eq!(be32(tcp, 40 + 8 * i), peer.wrapping_add(e));
    }
}

#[test]
fn without_timestamps_no_timestamp_option_is_written() {
    let h = TcpHeader { seq: 0, payload: 1460, flags: flags::ACK, ..TcpHeader::default() };
    let p = tcp_packet(20 + 20 + 1460, h);
    let f = frame(&p, &HOP4);
    assert_eq!(f.header_len, 14 + 20 + 20);
    assert_eq!(f.frame_len, 14 + 1500);
}

#[test]
fn syn_carries_mss_sack_permitted_timestamps_and_window_scale_in_20_bytes() {
    let mut h = TcpHeader { flags: flags::SYN, mss_opt: 1460, syn_opts: 0b111, wnd_bytes: 65535, ..TcpHeader::default() };
    h.set_wscale(7);
    let p = tcp_packet(20 + 20 + 20, h);
    let f = frame(&p, &HOP4);
    assert_eq!(f.frame_len, 14 + 60);
    let tcp = &f.header[34..f.header_len];
    assert_eq!(tcp[13], 0x02);
    assert_eq!(be32(tcp, 4), isn(3, 0, 0));
    assert_eq!(be32(tcp, 8), 0, "no ACK number without the ACK flag");
    assert_eq!(be16(tcp, 14), 65535, "a SYN's window is not scaled");
    let opts = &tcp[20..];
    assert_eq!(&opts[..4], &[2, 4, 0x05, 0xB4]);
    assert_eq!(&opts[4..6], &[4, 2]);
    assert_eq!(&opts[6..8], &[8, 10]);
    assert_eq!(&opts[16..20], &[1, 3, 3, 7]);
    // Without SACK and timestamps the 20 bytes are padded with NOPs.
    let mut h = TcpHeader { syn_opts: 0b100, ..h };
    h.set_wscale(7);
    let p = tcp_packet(60, h);
    let f = frame(&p, &HOP4);
    assert_eq!(&f.header[34 + 20..34 + 40], &[2, 4, 0x05, 0xB4, 1, 3, 3, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn quick_start_options_ride_in_the_ip_and_tcp_headers() {
    let mut p = data_segment();
    p.ip.qs = [25, 8, 0x07, 143, 0, 0, 0x12, 0x34];
    p.tcp.qs_response = [27, 8, 0x07, 20, 0, 0, 0x56, 0x78];
    p.l3_bytes += 16;
    let f = frame(&p, &HOP4);
    assert_eq!(f.frame_len, 14 + p.l3_bytes as usize);
    let ip = &f.header[14..42];
    assert_eq!(ip[0], 0x47, "IHL 7: 8 option bytes");
    assert!(folds_to_ones(&[ip]));
    assert_eq!(&ip[20..28], &p.ip.qs);
    let tcp = &f.header[42..f.header_len];
    assert_eq!(tcp[12] >> 4, 10);
    assert_eq!(&tcp[32..40], &p.tcp.qs_response);
}

#[test]
fn ipv6_frames_carry_quick_start_in_a_hop_by_hop_header() {
    let mut p = data_segment();
    p.l3_bytes += 20; // IPv6 header 40
    let hop6 = Hop { ip_version: 6, ..HOP4 };
    let f = frame(&p, &hop6);
    assert_eq!(f.frame_len, 14 + p.l3_bytes as usize);
    let b = &f.header[..f.header_len];
    assert_eq!(be16(b, 12), 0x86DD);
    assert_eq!(b[14] >> 4, 6);
    assert_eq!(be16(b, 18) as u32, p.l3_bytes - 40);
    assert_eq!(b[20], 6, "next header TCP");
    assert_eq!(&b[22..38], &node_ipv6(0));
    let tcp = &b[54..];
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&node_ipv6(0));
    pseudo.extend_from_slice(&node_ipv6(2));
    pseudo.extend_from_slice(&((32 + 1448) as u32).to_be_bytes());
    pseudo.extend_from_slice(&[0, 0, 0, 6]);
    assert!(folds_to_ones(&[&pseudo, tcp, &[0u8; 1448]]), "TCP checksum over the IPv6 pseudo-header");
    p.ip.qs = [25, 8, 0x07, 143, 0, 0, 0x12, 0x34];
    p.l3_bytes += 8; // the simulator counts the option's 8 bytes; the wire needs 16
    let f = frame(&p, &hop6);
    let b = &f.header[..f.header_len];
    assert_eq!(b[20], 0, "next header hop-by-hop");
    assert_eq!(&b[54..70], &[6, 1, 0x26, 6, 0x07, 143, 0, 0, 0x12, 0x34, 1, 4, 0, 0, 0, 0]);
    assert_eq!(be16(b, 18) as usize, 16 + 32 + 1448);
}

#[test]
fn pause_frames_are_mac_control_with_their_quanta() {
    let p = Packet::pause(4, 5, 0xFFFF);
    let f = frame(&p, &Hop { tx: 4, rx: 5, ip_version: 4 });
    assert_eq!(f.frame_len, 60);
    let b = &f.header[..f.header_len];
    assert_eq!(&b[..6], &[0x01, 0x80, 0xC2, 0, 0, 1]);
    assert_eq!(be16(b, 12), 0x8808);
    assert_eq!(be16(b, 14), 1);
    assert_eq!(be16(b, 16), 0xFFFF);
    assert_eq!(pause_frame(4, 0, 4072).frame_len, 4072);
}

fn tap(snaplen_bytes: u32, max_frames: u64) -> PcapTap {
    PcapTap::new(TapConfig { name: "t".into(), from: SimTime::ZERO, until: SimTime::ZERO + Span::from_secs(1), flows: None, snaplen_bytes, max_frames })
}

fn records(file: &[u8]) -> Vec<(u64, u32, u32)> {
    let mut at = 24;
    let mut out = Vec::new();
    while at < file.len() {
        let r = &file[at..at + RECORD_HEADER_BYTES];
        let le = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
        out.push((le(0) as u64 * 1_000_000_000 + le(4) as u64, le(8), le(12)));
        at += RECORD_HEADER_BYTES + le(8) as usize;
    }
    assert_eq!(at, file.len());
    out
}

#[test]
fn a_tap_keeps_snaplen_bytes_and_sorts_records_by_time() {
    let mut t = tap(64, 10);
    let p = data_segment();
    for ms in [3u64, 1, 2] {
        let now = SimTime::ZERO + Span::from_ms(ms);
        assert!(t.wants(now, &p));
        t.on_frame(now, &p, &HOP4);
    }
    let file = t.finish();
    assert_eq!(u32::from_le_bytes(file[..4].try_into().unwrap()), MAGIC_NS);
    let r = records(&file);
    assert_eq!(r, vec![(1_000_000, 64, 1514), (2_000_000, 64, 1514), (3_000_000, 64, 1514)]);
}

#[test]
fn a_tap_counts_what_its_limit_and_window_turn_away() {
    let mut t = tap(256, 2);
    let p = data_segment();
    for ms in 0..5 {
        let now = SimTime::ZERO + Span::from_ms(ms);
        if t.wants(now, &p) {
            t.on_frame(now, &p, &HOP4);
        }
    }
    assert_eq!((t.frames(), t.missed), (2, 3));
    assert!(!t.wants(SimTime::ZERO + Span::from_secs(1), &p), "the window end is exclusive");
    assert_eq!(t.missed, 3, "a frame outside the window is not missed");
}

#[test]
fn a_gap_becomes_pause_frames_back_to_back() {
    let mut t = tap(256, 100);
    // 8192 wire bytes in 2 frames at 1 Gbit/s, 20 framing bytes each: 4096 wire bytes = 32.768 µs apiece.
    t.on_gap(SimTime::ZERO, 8192, 2, 20, 1_000_000_000, 0);
    let r = records(&t.finish());
    assert_eq!(r, vec![(0, 256, 4072), (32_768, 256, 4072)]);
}
