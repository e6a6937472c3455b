//! Tier (b): scripted packet tests of the TCP state machine. A socket is
//! driven by hand with packets and timer expiries at chosen times.

mod common;
use common::Path06;
use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::host::cc;
use lfnlab_core::host::cc::reno::Basis;
use lfnlab_core::host::tcp::socket::{Addr, TcpSocket};
use lfnlab_core::net::packet::{Packet, flags};
use lfnlab_core::scenario;

fn socket(tcp: &'static str) -> TcpSocket {
    let p = Path06 { tcp, ..Default::default() };
    let sc = scenario::load_str(&p.toml(), "t.toml", &[]).unwrap();
    let cfg = scenario::tcp_config(&sc, 0);
    let addr = Addr { flow: 0, dir: 0, local: 0, remote: 2, ip_header_bytes: 20, mtu: 1500, ip_ttl: 64, conn: 0 };
    TcpSocket::new(addr, &cfg, cc::create("newreno", &cc::CcParams::new(), &cc::CreateCtx { basis: Basis::Cwnd, seed: 1 }).unwrap())
}

fn ms(x: u64) -> SimTime {
    SimTime(Span::from_ms(x).0)
}

/// Open the connection; the SYN-ACK arrives after exactly 100 ms (first R).
/// Returns the SYN-ACK and the socket's answer (the handshake ACK).
fn handshake(s: &mut TcpSocket) -> (Packet, Vec<Packet>) {
    let mut out = Vec::new();
    s.open(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let mut sa = syn;
    sa.tcp.flags = flags::SYN | flags::ACK;
    sa.tcp.ts_ecr = syn.tcp.ts_val;
    sa.tcp.wnd_bytes = 65535;
    s.on_packet(ms(100), &sa, &mut out);
    (sa, out)
}

/// Successive RTO intervals when no ACK ever comes back.
fn rto_intervals(s: &mut TcpSocket, n: usize) -> Vec<Span> {
    let mut out = Vec::new();
    s.poll_transmit(ms(100), 100, &mut out);
    assert!(!out.is_empty());
    let mut t = s.rto_deadline.unwrap();
    let mut last = ms(100);
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(t.since(last));
        last = t;
        out.clear();
        s.on_timer(t, &mut out);
        s.poll_transmit(t, 100, &mut out);
        assert_eq!(out.len(), 1, "one retransmission per timeout");
        t = s.rto_deadline.unwrap();
    }
    v
}

/// spec 06 §7 V7: first R = 100 ms → `linux` RTO 300 ms, doubling to rto_max (120 s).
#[test]
fn v7_linux_rto_and_backoff() {
    let mut s = socket("");
    handshake(&mut s);
    let v = rto_intervals(&mut s, 12);
    assert_eq!(v[0], Span::from_ms(300));
    for k in 1..v.len() {
        let want = Span::from_ms(300 << k).min(Span::from_secs(120));
        assert_eq!(v[k], want, "timeout {k}");
    }
    assert_eq!(s.snd.stats.rtos, 12);
}

/// V7: `rfc6298` with a 1 s minimum gives 1 s after R = 100 ms, doubling to 60 s.
#[test]
fn v7_rfc6298_rto() {
    let mut s = socket("rto_formula = \"rfc6298\"\nrto_min = \"1s\"\nrto_max = \"60s\"");
    handshake(&mut s);
    let v = rto_intervals(&mut s, 8);
    assert_eq!(v[0], Span::from_secs(1));
    assert_eq!(v[7], Span::from_secs(60));
}

/// V7: Karn's rule without timestamps: an ACK of a retransmitted segment gives
/// no RTT sample, so the backoff stays until a fresh segment is acknowledged.
#[test]
fn v7_karn_without_timestamps() {
    let mut s = socket("timestamps = false");
    handshake(&mut s);
    let mut out = Vec::new();
    s.poll_transmit(ms(100), 100, &mut out);
    let first = out[0];
    let t = s.rto_deadline.unwrap();
    out.clear();
    s.on_timer(t, &mut out);
    s.poll_transmit(t, 100, &mut out);
    let rto_backed_off = s.rtt.rto();
    assert_eq!(s.rtt.backoff, 1);
    let samples_before = s.rtt.latest;
    // ACK of the (retransmitted) first segment, 50 ms later.
    let mut ack = first;
    ack.tcp.flags = flags::ACK;
    ack.tcp.payload = 0;
    ack.tcp.ack = first.tcp.seq + first.tcp.payload as u64;
    ack.tcp.wnd_bytes = 65535;
    ack.tcp.ts_ecr = SimTime::ZERO;
    out.clear();
    s.on_packet(t + Span::from_ms(50), &ack, &mut out);
    assert_eq!(s.rtt.latest, samples_before, "no sample from a retransmitted segment");
    assert_eq!(s.rtt.backoff, 1);
    assert_eq!(s.rtt.rto(), rto_backed_off);
}

/// spec 06 §4.4 Reno unit test: three losses in one window give one
/// reduction, three retransmissions and no RTO (SACK recovery).
#[test]
fn newreno_three_losses_one_reduction() {
    let mut s = socket("recovery_cwnd = \"prr\"");
    handshake(&mut s);
    s.snd.w.cwnd = 20.0;
    let mut out = Vec::new();
    s.poll_transmit(ms(100), 100, &mut out);
    assert_eq!(out.len(), 20);
    let segs = out.clone();
    let mss = segs[0].tcp.payload as u64;
    let lost = [3usize, 7, 11];
    let mut now = ms(200);
    // The receiver's ACKs: cumulative up to segment 3, SACKing what arrived above.
    let mut blocks: Vec<(u64, u64)> = Vec::new();
    let mut reductions = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        if lost.contains(&i) {
            continue;
        }
        now = now + Span::from_us(10);
        let mut ack = *seg;
        ack.tcp.flags = flags::ACK;
        ack.tcp.payload = 0;
        ack.tcp.wnd_bytes = 1 << 24;
        ack.tcp.ts_ecr = seg.tcp.ts_val;
        let cum = if i < 3 { (i as u64 + 1) * mss } else { 3 * mss };
        ack.tcp.ack = cum;
        if i > 3 {
            let (s0, e0) = (seg.tcp.seq, seg.tcp.seq + mss);
            // Merge into the block it extends, else open a new one.
            match blocks.iter_mut().find(|b| b.1 == s0) {
                Some(b) => b.1 = e0,
                None => blocks.push((s0, e0)),
            }
            let latest = blocks.iter().copied().find(|b| b.0 <= s0 && e0 <= b.1).unwrap();
            let mut order = vec![latest];
            order.extend(blocks.iter().copied().filter(|b| *b != latest));
            ack.tcp.sack_n = order.len().min(3) as u8;
            for (k, b) in order.iter().take(3).enumerate() {
                ack.tcp.sack[k] = ((b.0 - cum) as u32, (b.1 - cum) as u32);
            }
        }
        out.clear();
        let (cwnd_before, ss_before) = (s.snd.w.cwnd, s.snd.w.ssthresh);
        s.on_packet(now, &ack, &mut out);
        if s.snd.w.ssthresh != ss_before {
            reductions.push((cwnd_before, s.snd.w.ssthresh));
        }
        s.poll_transmit(now, 100, &mut out);
    }
    assert_eq!(reductions.len(), 1, "one reduction per window: {reductions:?}");
    let (cwnd_at_loss, ss) = reductions[0];
    assert_eq!(ss, cwnd_at_loss / 2.0, "NewReno halves");
    assert_eq!(s.snd.stats.retrans, 3, "exactly the three holes retransmitted");
    assert_eq!(s.snd.stats.rtos, 0);
}

/// spec 02 §2.4 rule 4 `linux_like`: the receive window opens from 4·MSS and
/// grows by 2·MSS per in-order data segment; a Quick-Start floor lifts it at
/// once; the free buffer bounds it either way.
#[test]
fn gradual_window_opening_grows_two_segments_per_segment() {
    let mut s = socket("");
    s.rcv.enable_gradual_opening(1448);
    let (sa, mut out) = handshake(&mut s);
    // The default profile (linux-modern) rounds a scaled window up to the unit
    // (6.8 net/ipv4/tcp_output.c `__tcp_select_window`, `window_rounding = "up"`).
    let unit = 1u64 << s.rcv.wscale;
    let up = |x: u64| x.div_ceil(unit) * unit;
    let mss = 1448u64;
    assert_eq!(s.rcv.mss as u64, mss);
    let hs_ack = out.pop().expect("the handshake ACK");
    assert_eq!(hs_ack.tcp.window(), up(4 * mss), "the window starts at 4·MSS");
    // Ten in-order segments: the cap is 4·MSS + 2·MSS each.
    let mut seg = sa;
    seg.tcp.flags = flags::ACK;
    seg.tcp.payload = mss as u16;
    for k in 0..10u64 {
        seg.tcp.seq = k * mss;
        seg.tcp.ts_val = ms(150 + k);
        s.on_packet(ms(150 + k), &seg, &mut out);
        assert_eq!(s.rcv.window_cap(), Some((4 + 2 * (k + 1)) * mss));
    }
    assert_eq!(s.rcv.advertised_window(), up(24 * mss));
    // An approval's floor lifts the cap above the grown window at once, and
    // growth goes on from there; a lower floor changes nothing.
    s.rcv.raise_window_floor(200_000);
    assert_eq!(s.rcv.window_cap(), Some(200_000));
    assert_eq!(s.rcv.advertised_window(), up(200_000));
    seg.tcp.seq = 10 * mss;
    s.on_packet(ms(170), &seg, &mut out);
    assert_eq!(s.rcv.window_cap(), Some(200_000 + 2 * mss));
    s.rcv.raise_window_floor(100_000);
    assert_eq!(s.rcv.window_cap(), Some(200_000 + 2 * mss));
    // The buffer bounds it.
    s.rcv.raise_window_floor(u64::MAX / 2);
    assert!(s.rcv.advertised_window() <= s.rcv.b_rcv);
}

/// The script of the two tests below: 40 segments in flight, no ACK, the RTO
/// fires (cwnd 1, ssthresh 20: NewReno halves 40). The originals of segments
/// 1–29 and 31–39 arrive late: SACKs (segments 0 and 30 were lost); then the
/// retransmission of 0 fills the first hole, a cumulative ACK of 30 segments
/// of which 29 were SACKed before. Returns the socket after that ACK and the
/// cwnd after the SACK-only ACK.
fn rto_then_fill_the_first_hole(tcp: &'static str) -> (TcpSocket, f64) {
    let mut s = socket(tcp);
    handshake(&mut s);
    s.snd.w.cwnd = 40.0;
    let mut out = Vec::new();
    s.poll_transmit(ms(100), 100, &mut out);
    assert_eq!(out.len(), 40);
    let segs = out.clone();
    let mss = segs[0].tcp.payload as u64;
    let t = s.rto_deadline.unwrap();
    out.clear();
    s.on_timer(t, &mut out);
    s.poll_transmit(t, 100, &mut out);
    assert_eq!(out.len(), 1, "go-back-N starts with one segment");
    let rexmit = out[0];
    assert_eq!(s.snd.w.cwnd, 1.0);
    assert_eq!(s.snd.w.ssthresh, 20.0);
    let ack_with = |cum: u64, blocks: &[(u64, u64)], ts: SimTime| {
        let mut a = segs[0];
        a.tcp.flags = flags::ACK;
        a.tcp.payload = 0;
        a.tcp.wnd_bytes = 1 << 24;
        a.tcp.ts_ecr = ts;
        a.tcp.ack = cum * mss;
        a.tcp.sack_n = blocks.len() as u8;
        for (k, b) in blocks.iter().enumerate() {
            a.tcp.sack[k] = (((b.0 - cum) * mss) as u32, ((b.1 - cum) * mss) as u32);
        }
        a
    };
    s.on_packet(t + Span::from_ms(1), &ack_with(0, &[(1, 30), (31, 40)], segs[39].tcp.ts_val), &mut out);
    let after_sacks = s.snd.w.cwnd;
    out.clear();
    s.on_packet(t + Span::from_ms(100), &ack_with(30, &[(31, 40)], rexmit.tcp.ts_val), &mut out);
    // recover (segment 40) is not reached: still Loss.
    assert!(s.snd.state == cc::CaState::Loss, "state {}", s.snd.state.name());
    (s, after_sacks)
}

/// spec 06 §2.4, §2.5 RTO step 4 and §4.1 `on_ack` (Linux tcp_cong_avoid in
/// CA_Loss): in Loss, ACKs grow cwnd by slow start only up to ssthresh; the
/// rest of the credit is congestion avoidance. With the cumulative advance as
/// credit (`cwnd_credit = "acked"`, the 2.x eras) and L = ∞, the ACK that fills
/// the retransmitted hole under 29 SACKed segments must still stop at ssthresh.
#[test]
fn loss_growth_stops_slow_start_at_ssthresh() {
    let (s, after_sacks) = rto_then_fill_the_first_hole("abc_l = 0\ncwnd_credit = \"acked\"\nburst_moderation = false");
    assert_eq!(after_sacks, 1.0, "SACKs alone do not grow cwnd");
    assert!(
        s.snd.w.cwnd <= s.snd.w.ssthresh + 1.0,
        "cwnd {} went past ssthresh {} by slow start in Loss",
        s.snd.w.cwnd,
        s.snd.w.ssthresh
    );
    assert!(s.snd.w.cwnd >= s.snd.w.ssthresh, "slow start reaches ssthresh: cwnd {}", s.snd.w.cwnd);
}

/// Burst moderation in Loss (Linux 2.4.20 / 2.6.x `tcp_fastretrans_alert`,
/// TCP_CA_Loss: `tcp_moderate_cwnd` on every ACK): the same ACK, with
/// moderation on, leaves cwnd at in_flight + 3. In flight after it: segments
/// 30–39, of which 31–39 are SACKed and 30 is Lost, so pipe = 0 and cwnd = 3.
#[test]
fn loss_acks_are_moderated() {
    let (s, _) = rto_then_fill_the_first_hole("abc_l = 0\ncwnd_credit = \"acked\"\nburst_moderation = true");
    assert_eq!(s.snd.sb.pipe(), 0);
    assert_eq!(s.snd.w.cwnd, 3.0, "cwnd ≤ in_flight + max_burst (3)");
}

/// Linux 6.x (net/ipv4/tcp_input.c: tcp_ack passes tcp_newly_delivered() to
/// tcp_cong_control, which calls tcp_cong_avoid(sk, ack, acked_sacked) when
/// tcp_may_raise_cwnd sees FLAG_DATA_ACKED): the credit is what the ACK newly
/// delivered. The SACK-only ACK delivers 38 segments but acknowledges no new
/// data, so cwnd stays 1; the cumulative ACK delivers one segment (the
/// retransmission; the 29 under it were counted when SACKed), so slow start
/// gives cwnd 1 + 1 = 2, not ssthresh (issue 38: 1 → 2443 in the dumbbell).
#[test]
fn post_rto_credit_is_the_newly_delivered_segments() {
    let (s, after_sacks) = rto_then_fill_the_first_hole("abc_l = 0\ncwnd_credit = \"delivered\"");
    assert_eq!(after_sacks, 1.0, "SACKs acknowledge no new data: no growth");
    assert_eq!(s.snd.w.cwnd, 2.0, "one newly delivered segment, one segment of slow start");
}

/// RFC 7323 §2.2: a segment's 16-bit window field is the window shifted
/// right by its sender's scale; the socket writes that shift into each
/// segment it builds (`TcpHeader::wscale`, read by pcap taps), and a peer that
/// does not offer window scaling turns it to 0 for what follows.
#[test]
fn every_segment_carries_its_senders_window_scale() {
    let mut s = socket("");
    let mut out = Vec::new();
    s.open(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();
    assert!(s.rcv.wscale > 0, "the default buffers need a scaled window");
    assert_eq!(syn.tcp.wscale(), s.rcv.wscale, "the SYN offers the shift it carries");
    let (_, out) = handshake(&mut socket(""));
    let ack = out.last().expect("the handshake ACK");
    assert_eq!(ack.tcp.wscale(), s.rcv.wscale);
    assert_eq!(ack.tcp.syn_opts & 0b111, 0, "no SYN options outside a SYN");

    // The peer offers no window scaling: both directions go unscaled.
    let mut s = socket("");
    let mut out = Vec::new();
    s.open(SimTime::ZERO, &mut out);
    let mut sa = out.pop().unwrap();
    sa.tcp.flags = flags::SYN | flags::ACK;
    sa.tcp.syn_opts &= !0b100;
    sa.tcp.wnd_bytes = 65535;
    s.on_packet(ms(100), &sa, &mut out);
    assert_eq!(s.rcv.wscale, 0);
    assert_eq!(out.last().expect("the handshake ACK").tcp.wscale(), 0);
}

/// A scripted path for the loss-detection tests below: every data segment the
/// socket sends reaches an ideal receiver after `one_way` unless `drop(seq,
/// nth)` says its `nth` transmission (0 = original) is lost; the receiver ACKs
/// each arrival at once (cumulative ACK, up to three SACK blocks, the block
/// holding the arrival first, TSecr = the segment's TSval), and the ACK takes
/// `one_way` back. Socket timers fire at their deadlines. Returns the sends:
/// (time, seq, transmission number).
struct ScriptedPath {
    sent: Vec<(SimTime, u64, u32)>,
    acked_to: u64,
}

fn run_path(s: &mut TcpSocket, start: SimTime, until: SimTime, one_way: Span, drop: impl Fn(u64, u32) -> bool) -> ScriptedPath {
    use std::collections::{BTreeMap, BTreeSet};
    let mss = s.snd.mss as u64;
    let mut received: BTreeSet<u64> = BTreeSet::new();
    let mut tx_count: BTreeMap<u64, u32> = BTreeMap::new();
    // ACKs in flight: (arrival time, order) → packet.
    let mut acks: BTreeMap<(SimTime, u64), Packet> = BTreeMap::new();
    let mut order = 0u64;
    let mut sent = Vec::new();
    let mut out = Vec::new();
    let mut now = start;
    s.poll_transmit(now, 1000, &mut out);
    loop {
        for p in out.drain(..) {
            if p.tcp.payload == 0 {
                continue;
            }
            let seq = p.tcp.seq;
            let nth = *tx_count.entry(seq).and_modify(|n| *n += 1).or_insert(0);
            sent.push((now, seq, nth));
            if drop(seq, nth) {
                continue;
            }
            received.insert(seq / mss);
            // The receiver's ACK for this arrival.
            let mut cum = 0;
            while received.contains(&cum) {
                cum += 1;
            }
            let mut blocks: Vec<(u64, u64)> = Vec::new();
            for &i in received.range(cum..) {
                match blocks.last_mut() {
                    Some(b) if b.1 == i => b.1 = i + 1,
                    _ => blocks.push((i, i + 1)),
                }
            }
            let this = seq / mss;
            blocks.sort_by_key(|b| !(b.0 <= this && this < b.1));
            let mut a = p;
            a.tcp.flags = flags::ACK;
            a.tcp.payload = 0;
            a.tcp.wnd_bytes = 1 << 24;
            a.tcp.ts_ecr = p.tcp.ts_val;
            a.tcp.ack = cum * mss;
            a.tcp.sack_n = blocks.len().min(3) as u8;
            for (k, b) in blocks.iter().take(3).enumerate() {
                a.tcp.sack[k] = (((b.0 - cum) * mss) as u32, ((b.1 - cum) * mss) as u32);
            }
            acks.insert((now + one_way + one_way, order), a);
            order += 1;
        }
        let next_ack = acks.keys().next().map(|k| k.0);
        let next_timer = s.next_deadline();
        let Some(t) = [next_ack, next_timer].into_iter().flatten().min() else { break };
        if t > until {
            break;
        }
        now = t;
        if next_ack == Some(t) {
            let key = *acks.keys().next().unwrap();
            let a = acks.remove(&key).unwrap();
            s.on_packet(now, &a, &mut out);
        } else {
            s.on_timer(now, &mut out);
        }
        s.poll_transmit(now, 1000, &mut out);
    }
    ScriptedPath { sent, acked_to: s.snd.snd_una }
}

/// A RACK sender (RFC 8985; Linux 6.x `tcp_rack_detect_loss`) finds a lost
/// retransmission once a segment sent after it is SACKed and RACK.rtt +
/// reo_wnd has passed since it left (reo_wnd = 0 in recovery without
/// reordering): here one RTT after it left, without an RTO. With duplicate-ACK
/// counting and `lost_retrans = "rto"` (spec 06 §2.5's rule) the same loss waits
/// for the RTO.
#[test]
fn rack_finds_a_lost_retransmission_within_one_rtt() {
    let one_way = Span::from_ms(50);
    let lost = |seq: u64, nth: u32, mss: u64| seq == 3 * mss && nth <= 1;
    for (tcp, rack) in [("loss_detection = \"rack\"\nrecovery_cwnd = \"prr\"", true), ("loss_detection = \"dupthresh\"\nlost_retrans = \"rto\"\nrecovery_cwnd = \"prr\"", false)] {
        let mut s = socket(tcp);
        handshake(&mut s);
        s.snd.w.cwnd = 20.0;
        let mss = s.snd.mss as u64;
        let r = run_path(&mut s, ms(100), ms(3000), one_way, |seq, nth| lost(seq, nth, mss));
        let tx: Vec<_> = r.sent.iter().filter(|x| x.1 == 3 * mss).collect();
        assert!(tx.len() >= 3, "original, lost retransmission, second retransmission: {tx:?}");
        let (t1, t2) = (tx[1].0, tx[2].0);
        if rack {
            assert_eq!(s.snd.stats.rtos, 0, "RACK repairs it without a timeout");
            assert_eq!(s.snd.stats.lost_retransmits, 1);
            let rtt = Span::from_ms(100);
            assert!(t2.since(t1) >= rtt, "not before a later-sent segment is SACKed: {:?}", t2.since(t1));
            assert!(t2.since(t1) <= rtt + Span::from_ms(5), "within one RTT + reo_wnd (0) of the retransmission: {:?}", t2.since(t1));
        } else {
            assert_eq!(s.snd.stats.rtos, 1, "counting finds a lost retransmission only by the RTO");
            assert!(t2.since(t1) > Span::from_ms(200));
        }
        assert!(r.acked_to >= 20 * mss, "the window is delivered, snd_una {}", r.acked_to);
    }
}

/// The old kernels' lost-retransmission check (Linux 2.4.20 / 2.6.20
/// `tcp_sacktag_write_queue`, `lost_retrans = "sacktag"`): the same lost
/// retransmission as above, found without RACK once, in Recovery, SACKs reach
/// beyond what had been sent when it was retransmitted: with FACK as soon as a
/// segment sent after it is SACKed (one RTT after it left), without FACK
/// `reordering` (3) segments later. No RTO either way.
#[test]
fn sacktag_finds_a_lost_retransmission_without_rack() {
    let one_way = Span::from_ms(50);
    let lost = |seq: u64, nth: u32, mss: u64| seq == 3 * mss && nth <= 1;
    let tcp = |fack| {
        if fack {
            "loss_detection = \"dupthresh\"\nlost_retrans = \"sacktag\"\nis_lost = \"fack\"\nrecovery_cwnd = \"prr\""
        } else {
            "loss_detection = \"dupthresh\"\nlost_retrans = \"sacktag\"\nis_lost = \"rfc6675\"\nrecovery_cwnd = \"prr\""
        }
    };
    for (is_lost, fack) in [("fack", true), ("rfc6675", false)] {
        let mut s = socket(tcp(fack));
        handshake(&mut s);
        s.snd.w.cwnd = 20.0;
        let mss = s.snd.mss as u64;
        let r = run_path(&mut s, ms(100), ms(3000), one_way, |seq, nth| lost(seq, nth, mss));
        let tx: Vec<_> = r.sent.iter().filter(|x| x.1 == 3 * mss).collect();
        assert!(tx.len() >= 3, "{is_lost}: original, lost retransmission, second retransmission: {tx:?}");
        let (t1, t2) = (tx[1].0, tx[2].0);
        assert_eq!(s.snd.stats.rtos, 0, "{is_lost}: found without a timeout");
        assert_eq!(s.snd.stats.lost_retransmits, 1, "{is_lost}");
        let rtt = Span::from_ms(100);
        assert!(t2.since(t1) >= rtt, "{is_lost}: not before a later-sent segment is SACKed: {:?}", t2.since(t1));
        assert!(t2.since(t1) <= rtt + Span::from_ms(10), "{is_lost}: within one RTT and a few segments: {:?}", t2.since(t1));
        assert!(r.acked_to >= 20 * mss, "{is_lost}: the window is delivered, snd_una {}", r.acked_to);
    }
}

/// TLP (RFC 8985 §7; Linux `tcp_schedule_loss_probe`, `tcp_send_loss_probe`):
/// the last two segments of a transfer are lost; 2·srtt + 2 ms after the last
/// ACK the probe resends the last segment, its SACK lets RACK find the other
/// after min_rtt/4, and fast recovery repairs it, with no RTO. Without TLP the
/// same tail waits for the RTO.
#[test]
fn tlp_repairs_a_tail_loss_without_an_rto() {
    for tlp in [true, false] {
        let mut s = socket(if tlp { "loss_detection = \"rack\"\ntlp = true" } else { "loss_detection = \"rack\"\ntlp = false" });
        // Ten segments of 1448 B (MTU 1500 with timestamps), set before the
        // handshake lets the application write.
        s.snd.app_set_total(SimTime::ZERO, Some(10 * 1448));
        handshake(&mut s);
        let mss = s.snd.mss as u64;
        assert_eq!(mss, 1448);
        s.snd.w.cwnd = 10.0;
        let r = run_path(&mut s, ms(100), ms(5000), Span::from_ms(50), |seq, nth| seq >= 8 * mss && nth == 0);
        assert_eq!(r.acked_to, 10 * mss, "the transfer completes");
        let probe = r.sent.iter().find(|x| x.2 == 1).copied().expect("a retransmission");
        if tlp {
            assert_eq!(s.snd.stats.rtos, 0);
            assert_eq!(s.snd.stats.tlp_probes, 1);
            assert_eq!(probe.1, 9 * mss, "the probe resends the last segment");
            // Last ACK at 200 ms; srtt 100 ms → PTO 202 ms.
            assert_eq!(probe.0, ms(402), "the probe leaves 2·srtt + 2 ms after the last ACK");
        } else {
            assert_eq!(s.snd.stats.rtos, 1);
            assert_eq!(s.snd.stats.tlp_probes, 0);
            assert!(probe.0 > ms(402));
        }
    }
}

/// A socket of `profile` (spec 06 §2.1) with extra `[flow.tcp]` lines; `dir`
/// 0 opens the connection, 1 accepts it.
fn socket_of(profile: &'static str, tcp: &'static str, dir: u8) -> TcpSocket {
    let p = Path06 { profile, tcp, ..Default::default() };
    let sc = scenario::load_str(&p.toml(), "t.toml", &[]).unwrap();
    let cfg = scenario::tcp_config(&sc, 0);
    let (local, remote) = if dir == 0 { (0, 2) } else { (2, 0) };
    let addr = Addr { flow: 0, dir, local, remote, ip_header_bytes: 20, mtu: 1500, ip_ttl: 64, conn: 0 };
    TcpSocket::new(addr, &cfg, cc::create("newreno", &cc::CcParams::new(), &cc::CreateCtx { basis: Basis::Cwnd, seed: 1 }).unwrap())
}

/// The opener's handshake when the first `lost` SYNs are lost: each RTO sends
/// the SYN again; the SYN-ACK answers SYN number `answered` (0 the first) and
/// arrives 100 ms after it. Returns the socket, established.
fn open_losing_syns(profile: &'static str, lost: usize, answered: usize) -> TcpSocket {
    let mut s = socket_of(profile, "", 0);
    let mut out = Vec::new();
    s.open(SimTime::ZERO, &mut out);
    let mut syns = vec![(SimTime::ZERO, out.pop().unwrap())];
    for _ in 0..lost {
        let t = s.rto_deadline.expect("the SYN timer runs");
        s.on_timer(t, &mut out);
        let syn = out.pop().expect("the SYN sent again");
        assert!(syn.tcp.has(flags::SYN) && !syn.tcp.has(flags::ACK));
        syns.push((t, syn));
    }
    assert_eq!(s.snd.stats.syn_retrans, lost as u64, "every SYN sent again is counted");
    let (t, syn) = syns[answered];
    let mut sa = syn;
    sa.tcp.flags = flags::SYN | flags::ACK;
    sa.tcp.ts_ecr = syn.tcp.ts_val;
    sa.tcp.wnd_bytes = 65535;
    s.on_packet(t.max(syns.last().unwrap().0) + Span::from_ms(100), &sa, &mut out);
    assert!(s.snd.established);
    s
}

/// spec 06 §2.2 step 4 with `syn_loss_iw = "rfc5681"` (`linux-2.6`, RFC 5681 §3.1):
/// one lost SYN, counted, and the transfer starts at cwnd 1 (not the RFC 3390
/// window of 3) with the RTO raised to 3 s (RFC 6298 §5.7).
#[test]
fn a_lost_syn_starts_at_one_segment_by_rfc5681() {
    let s = open_losing_syns("linux-2.6", 1, 1);
    assert_eq!(s.snd.stats.syn_retrans, 1);
    assert_eq!((s.snd.iw_segments, s.snd.w.cwnd), (1, 1.0));
    assert!(s.rtt.rto() >= Span::from_secs(3));
    let clean = open_losing_syns("linux-2.6", 0, 0);
    assert_eq!((clean.snd.stats.syn_retrans, clean.snd.iw_segments), (0, 3), "rfc3390 at MSS 1448");
}

/// `syn_loss_iw = "linux"` (`linux-modern`), as Linux 6.x tcp_init_transfer():
/// cwnd 1 only when `total_retrans > 1 && undo_marker`. One lost SYN keeps the
/// initial window of 10; two lost SYNs give 1; two SYNs sent again while the
/// SYN-ACK answers the first one (echoing its TSval: tcp_try_undo_spurious_syn
/// clears undo_marker) keep 10.
#[test]
fn a_lost_syn_starts_as_linux_tcp_init_transfer() {
    let one = open_losing_syns("linux-modern", 1, 1);
    assert_eq!((one.snd.stats.syn_retrans, one.snd.w.cwnd), (1, 10.0), "total_retrans 1 is not > 1");
    let two = open_losing_syns("linux-modern", 2, 2);
    assert_eq!((two.snd.stats.syn_retrans, two.snd.w.cwnd), (2, 1.0));
    let spurious = open_losing_syns("linux-modern", 2, 0);
    assert_eq!((spurious.snd.stats.syn_retrans, spurious.snd.w.cwnd), (2, 10.0), "the first SYN was only slow");
}

/// The acceptor counts its SYN-ACKs sent again, by its timer and in answer to
/// a retransmitted SYN (Linux req->num_retrans, copied into total_retrans by
/// tcp_create_openreq_child); undo_marker needs a timeout (req->num_timeout).
#[test]
fn the_acceptor_counts_syn_ack_retransmissions() {
    let mut client = socket_of("linux-modern", "", 0);
    let mut out = Vec::new();
    client.open(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();

    // Two copies of the SYN arrive (the client's timer fired): two SYN-ACKs, one
    // retransmission, no timeout at the acceptor: the initial window stays 10.
    let mut s = socket_of("linux-modern", "", 1);
    s.on_packet(ms(50), &syn, &mut out);
    let first_sa = out.pop().expect("SYN-ACK");
    let mut again = syn;
    again.tcp.ts_val = ms(1000);
    s.on_packet(ms(1050), &again, &mut out);
    let sa = out.pop().expect("SYN-ACK sent again");
    assert!(sa.tcp.has(flags::SYN) && sa.tcp.has(flags::ACK));
    assert_eq!(s.snd.stats.syn_retrans, 1);
    let mut ack = syn;
    ack.tcp.flags = flags::ACK;
    ack.tcp.ts_ecr = first_sa.tcp.ts_val;
    s.on_packet(ms(1100), &ack, &mut out);
    assert_eq!(s.snd.w.cwnd, 10.0);

    // The SYN-ACK is lost once (timer) and a retransmitted SYN is answered too:
    // total_retrans 2 with a timeout, the ACK echoes the last SYN-ACK: cwnd 1.
    let mut s = socket_of("linux-modern", "", 1);
    s.on_packet(ms(50), &syn, &mut out);
    let t = s.rto_deadline.expect("the SYN-ACK timer runs");
    s.on_timer(t, &mut out);
    s.on_packet(t + Span::from_ms(10), &again, &mut out);
    let last_sa = out.pop().expect("SYN-ACK");
    assert_eq!(s.snd.stats.syn_retrans, 2);
    ack.tcp.ts_ecr = last_sa.tcp.ts_val;
    s.on_packet(t + Span::from_ms(60), &ack, &mut out);
    assert_eq!(s.snd.w.cwnd, 1.0);
}

/// RFC 7323 §4.3 (issue 38 item 5: the pcap's data frames echoed TSecr 0): a data
/// sender's segments echo the TSval of the peer's latest segment, its SYN-ACK first,
/// then each ACK (Linux tcp_replace_ts_recent), never an older one (PAWS), nor an
/// ACK sent beyond the data we have acknowledged. Once the peer's data arrives,
/// TS.Recent is that data's TSval until we ACK it (spec 06 §3 rule 3): the echo the
/// peer samples its RTT from is what it was before.
#[test]
fn data_segments_echo_the_peers_latest_tsval() {
    // Delayed ACKs, so that the peer's ACK can arrive before we ACK its data.
    let mut s = socket("ack_policy = \"delayed\"");
    let mut out = Vec::new();
    s.open(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let mut sa = syn;
    sa.tcp.flags = flags::SYN | flags::ACK;
    sa.tcp.ts_val = ms(60);
    sa.tcp.ts_ecr = syn.tcp.ts_val;
    sa.tcp.wnd_bytes = 65535;
    s.on_packet(ms(100), &sa, &mut out);
    assert_eq!(out.pop().expect("the handshake ACK").tcp.ts_ecr, ms(60));
    let echoes = |s: &mut TcpSocket, now: SimTime| {
        let mut out = Vec::new();
        s.poll_transmit(now, 100, &mut out);
        assert!(!out.is_empty(), "data to send at {now:?}");
        out.iter().map(|p| (p.tcp.payload > 0).then_some(p.tcp.ts_ecr).expect("data")).collect::<Vec<_>>()
    };
    let first = echoes(&mut s, ms(100));
    assert!(first.iter().all(|&e| e == ms(60)), "the first flight echoes the SYN-ACK: {first:?}");
    let mss = s.snd.mss as u64;
    let ack = |una: u64, seq: u64, ts_val: SimTime| {
        let mut a = syn;
        a.tcp.flags = flags::ACK;
        a.tcp.seq = seq;
        a.tcp.ack = una;
        a.tcp.ts_val = ts_val;
        a.tcp.ts_ecr = ms(100);
        a.tcp.wnd_bytes = 1 << 24;
        a
    };
    // The peer's ACK with TSval T = 150 ms: the next data echoes T.
    s.on_packet(ms(200), &ack(mss, 0, ms(150)), &mut out);
    assert!(echoes(&mut s, ms(200)).iter().all(|&e| e == ms(150)));
    // An older TSval (a reordered ACK) and an ACK sent beyond our rcv_nxt change nothing.
    s.on_packet(ms(201), &ack(mss, 0, ms(140)), &mut out);
    s.on_packet(ms(202), &ack(mss, 1000, ms(160)), &mut out);
    assert_eq!(s.rcv.ts_recent(), ms(150));
    // Two-way: the peer's data (TSval 170 ms), then its ACK (TSval 180 ms) before we
    // ACK that data: our next segment, which acknowledges the data, echoes the data's.
    let mut data = ack(2 * mss, 0, ms(170));
    data.tcp.payload = 100;
    s.on_packet(ms(205), &data, &mut out);
    s.on_packet(ms(206), &ack(3 * mss, 100, ms(180)), &mut out);
    assert!(out.iter().all(|p| p.tcp.ack == 0), "the data's ACK is delayed");
    let e = echoes(&mut s, ms(206));
    assert_eq!(e[0], ms(170), "the segment acknowledging the peer's data echoes that data");
}

/// A rate-halving socket without SACK, established, with cwnd `cwnd`; and its MSS.
fn nosack_socket(cwnd: f64) -> (TcpSocket, u64) {
    let mut s = socket("sack = false\nrecovery_cwnd = \"rate_halving\"");
    handshake(&mut s);
    s.snd.w.cwnd = cwnd;
    let mss = s.snd.mss as u64;
    (s, mss)
}

/// Without SACK (spec 06 §2.5 pipe: modes other than `rfc` count each
/// duplicate ACK as a SACKed segment; Linux `tcp_add_reno_sack`,
/// `tcp_remove_reno_sacks`): in rate-halving recovery of one lost segment in a
/// window of 20, the duplicate ACKs of the 19 that arrived free the pipe, so
/// new data leaves before the hole is repaired (Linux's `tcp_cwnd_down` clamps
/// cwnd to in_flight + 1 with in_flight net of them) and the one hole costs
/// one retransmission and no timeout. Counting nothing, the pipe stays at 20
/// and rate halving sends nothing new until the hole's ACK returns.
#[test]
fn nosack_duplicate_acks_free_the_pipe_in_recovery() {
    let (mut s, mss) = nosack_socket(20.0);
    let r = run_path(&mut s, ms(100), ms(3000), Span::from_ms(50), |seq, nth| seq == 5 * mss && nth == 0);
    // The path has no serialization: the window's ACKs all arrive at 200 ms and
    // the repaired hole's at 300 ms. What leaves after the retransmission and
    // before 300 ms left on duplicate ACKs.
    let at = r.sent.iter().position(|x| x.2 == 1).expect("the fast retransmission");
    assert_eq!(r.sent[at].1, 5 * mss);
    let new_before_repair = r.sent[at + 1..].iter().take_while(|x| x.0 < r.sent[at].0 + Span::from_ms(100)).filter(|x| x.2 == 0).count();
    assert!(new_before_repair >= 3, "new data while the hole waits: {new_before_repair} segments");
    assert_eq!(s.snd.stats.retrans, 1);
    assert_eq!(s.snd.stats.rtos, 0);
    assert_eq!(s.snd.sb.reno_sacked, 0, "the count ends with the recovery");
}

/// No-SACK RTO recovery over a window with one hole (issue 38; Linux
/// `tcp_enter_loss` marks everything outstanding lost, `tcp_xmit_retransmit_queue`
/// resends in order, and the cumulative ACK frees what the receiver holds):
/// the hole's original and its fast retransmission are lost, the RTO resends
/// it, and the ACK of that jumps over all the rest, new data sent during the
/// recovery included. Nothing at or above that ACK is sent twice.
#[test]
fn nosack_rto_recovery_resends_only_the_hole() {
    let (mut s, mss) = nosack_socket(20.0);
    let r = run_path(&mut s, ms(100), ms(5000), Span::from_ms(50), |seq, nth| seq == 5 * mss && nth <= 1);
    assert_eq!(s.snd.stats.rtos, 1, "the lost fast retransmission waits for the RTO");
    let resent: Vec<_> = r.sent.iter().filter(|x| x.2 > 0).collect();
    assert!(resent.iter().all(|x| x.1 == 5 * mss), "only the hole is resent: {resent:?}");
    assert_eq!(resent.len(), 2, "the fast retransmission and the RTO's");
    assert!(r.acked_to > 20 * mss, "the transfer goes on past the window, snd_una {}", r.acked_to);
}

/// Several holes without SACK (RFC 6582 partial ACKs; Linux marks one head per
/// partial ACK, `tcp_update_scoreboard` → `tcp_mark_head_lost(sk, 1)`): five
/// segments of a 40-segment window lost, one repaired per round trip, no RTO,
/// each hole resent once. The duplicate ACKs that follow each partial ACK keep
/// the ACK clock going (`tcp_remove_reno_sacks` leaves acked − 1 counted).
#[test]
fn nosack_newreno_repairs_five_holes_without_a_timeout() {
    let (mut s, mss) = nosack_socket(40.0);
    let holes = [3u64, 9, 15, 21, 27];
    let r = run_path(&mut s, ms(100), ms(5000), Span::from_ms(50), |seq, nth| holes.contains(&(seq / mss)) && nth == 0);
    assert_eq!(s.snd.stats.rtos, 0);
    let resent: Vec<u64> = r.sent.iter().filter(|x| x.2 > 0).map(|x| x.1 / mss).collect();
    assert_eq!(resent, holes.to_vec(), "each hole once, in order");
    assert!(r.acked_to > 40 * mss);
}

/// Receive-buffer autotuning (issue 38 item 4; Linux 2.6.20
/// `tcp_rcv_space_adjust`, `tcp_grow_window`): an unlocked 4 MiB `rcvbuf`
/// under `linux-2.6` starts at tcp_rmem[1] = 87380 B with a 4·MSS window. A
/// sender that fills whatever window is offered delivers one window per
/// 100-ms round trip (TSecr 100 ms old); each round the receiver's buffer
/// grows (to 2·what was read / advmss · rcvmem) and its window opens, until
/// the buffer reaches the 4 MiB limit and stays there. Locked (`rcvbuf` as
/// given), the same buffer never moves.
#[test]
fn autotuning_grows_rcvbuf_per_rtt_up_to_its_limit() {
    for lock in [false, true] {
        let p = Path06 { profile: "linux-2.6", tcp: if lock { "rcvbuf_lock = true" } else { "rcvbuf_lock = false" }, bufs: "4MiB", ..Default::default() };
        let sc = scenario::load_str(&p.toml(), "t.toml", &[]).unwrap();
        let cfg = scenario::tcp_config(&sc, 0);
        let addr = Addr { flow: 0, dir: 0, local: 0, remote: 2, ip_header_bytes: 20, mtu: 1500, ip_ttl: 64, conn: 0 };
        let mut s = TcpSocket::new(addr, &cfg, cc::create("newreno", &cc::CcParams::new(), &cc::CreateCtx { basis: Basis::Cwnd, seed: 1 }).unwrap());
        let (sa, _) = handshake(&mut s);
        let mss = s.rcv.mss as u64;
        let mut seg = sa;
        seg.tcp.flags = flags::ACK;
        seg.tcp.payload = mss as u16;
        let mut seq = 0u64;
        let mut bufs = vec![s.rcv.b_rcv];
        let mut windows = vec![s.rcv.advertised_window()];
        let mut out = Vec::new();
        for round in 1..=40u64 {
            let now = ms(100 + 100 * round);
            let w = s.rcv.advertised_window();
            let end = seq + w / mss * mss;
            while seq < end {
                seg.tcp.seq = seq;
                seg.tcp.ts_val = now;
                seg.tcp.ts_ecr = ms(100 * round);
                s.on_packet(now, &seg, &mut out);
                seq += mss;
            }
            bufs.push(s.rcv.b_rcv);
            windows.push(s.rcv.advertised_window());
        }
        if lock {
            assert!(bufs.iter().all(|b| *b == 4 << 20), "a locked buffer stays: {bufs:?}");
            continue;
        }
        assert_eq!(bufs[0], 87380, "tcp_rmem[1]");
        let unit = 1u64 << s.rcv.wscale;
        assert_eq!(windows[0], (4 * mss).div_ceil(unit) * unit, "the SYN's 4·MSS window (init_cwnd 4), rounded up to the window-scale unit");
        assert!(bufs.windows(2).all(|p| p[1] >= p[0]), "never shrinks: {bufs:?}");
        let grew = bufs.windows(2).filter(|p| p[1] > p[0]).count();
        assert!(grew >= 5, "grows round after round: {bufs:?}");
        assert_eq!(*bufs.last().unwrap(), 4 << 20, "up to rcvbuf, no further: {bufs:?}");
        assert!(*windows.last().unwrap() > 64 * mss, "the window opened: {windows:?}");
    }
}
