//! A TCP endpoint: the handshake (spec 06 §2.2), packet assembly (§1.2) and
//! timers around a `Sender` and a `Receiver`. Sans-IO: the host hands it
//! packets and timer expiries with `now`; it returns packets to queue and
//! reports its next deadline. It never reads a clock of its own.

use super::config::{Pacing, SynLossIw, TcpConfig};
use super::cps::Cps;
use super::receiver::{AckNeed, Receiver};
use super::rtt::RttEstimator;
use super::sender::{SndLim, Sender};
use crate::engine::time::{SimTime, Span};
use crate::host::cc::CongestionControl;
use crate::host::qdisc::fq::{pacing_gap, pacing_len_bytes};
use crate::net::packet::{FlowId, IpFields, NodeId, Packet, PacketKind, TcpHeader, flags};
use crate::quickstart::option::{QsResponse, OPT_BYTES};
use crate::quickstart::receiver::{QsEcho, RecvRwndPolicy};
use crate::quickstart::rate::rate_bps;
use super::receiver::GRADUAL_INITIAL_SEGMENTS;
use crate::engine::rng::Stream;
use crate::quickstart::sender::{Outcome, QsSender, QsSenderConfig, WindowChange};

const OPT_SACK: u8 = 1;
const OPT_TS: u8 = 2;
const OPT_WS: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Closed,
    SynSent,
    SynRcvd,
    Established,
}

/// Addressing and IP framing of an endpoint.
#[derive(Clone, Copy, Debug)]
pub struct Addr {
    pub flow: FlowId,
    /// 0 for the initiator's packets, 1 for the acceptor's.
    pub dir: u8,
    pub local: NodeId,
    pub remote: NodeId,
    pub ip_header_bytes: u32,
    pub mtu: u32,
    /// IP TTL of outgoing packets (spec 02 §2.3.1 `initial_ip_ttl`).
    pub ip_ttl: u8,
    /// Connection index within a Web workload flow (spec 02 §3.2), else 0.
    pub conn: u32,
}

/// TCP option space (RFC 9293 §3.1: 40 bytes).
const TCP_OPTION_SPACE: u32 = 40;

/// Quick-Start on a connection end (spec 02 §2.3–2.4).
pub struct QsConn {
    /// The data sender's half; `None` at the end that only echoes.
    pub sender: Option<QsSender>,
    pub echo: QsEcho,
    /// ACK a segment carrying a request at once (spec 02 §2.4 `immediate_ack`).
    pub immediate_ack: bool,
    /// `linux_like` flow control: the echoed rate (bit/s) whose window floor
    /// waits for an RTT estimate (spec 02 §2.4 rule 4).
    window_bump_bps: Option<u64>,
}

impl QsConn {
    /// Quick-Start on a connection: `data` (the data sender) asks with its own
    /// `rng` and host tick `phase`, both ends echo (spec 02 §2.3–2.4).
    pub fn attach(data: &mut TcpSocket, other: &mut TcpSocket, cfg: &QsSenderConfig, phase: Span, rng: Stream) {
        let conn = |sender| QsConn {
            sender,
            echo: QsEcho::new(cfg.recv_max_rate_code),
            immediate_ack: cfg.immediate_ack,
            window_bump_bps: None,
        };
        data.qs = Some(Box::new(conn(Some(QsSender::new(cfg.clone(), phase, rng)))));
        other.qs = Some(Box::new(conn(None)));
        if cfg.recv_rwnd_policy == RecvRwndPolicy::LinuxLike {
            // spec 02 §2.4 rule 4: both ends open their windows gradually.
            for s in [data, other] {
                let mss = s.own_mss();
                s.rcv.enable_gradual_opening(mss);
            }
        }
    }
}

pub struct TcpSocket {
    pub addr: Addr,
    pub phase: Phase,
    pub snd: Sender,
    pub rcv: Receiver,
    pub rtt: RttEstimator,
    cfg_sack: bool,
    cfg_ts: bool,
    cfg_ws: bool,
    iw: super::config::InitialWindow,
    syn_loss_iw: SynLossIw,
    /// RTO / SYN retransmission deadline.
    pub rto_deadline: Option<SimTime>,
    /// When this end sent its first SYN or SYN-ACK: its TSval, and the start of
    /// the handshake RTT sample.
    syn_sent_at: SimTime,
    /// Times the handshake timer fired (SYN or SYN-ACK sent again).
    syn_timeouts: u32,
    /// The segment that completed the handshake echoed the first SYN's or
    /// SYN-ACK's TSval: the timeout was spurious (Linux tcp_try_undo_spurious_syn).
    syn_timeout_spurious: bool,
    /// Negotiated options.
    ts_ok: bool,
    sack_ok: bool,
    /// Bytes of this connection's packets in the host qdisc (TSQ, spec 06 §2.8).
    tsq_bytes: u64,
    tsq: bool,
    pub completed_at: Option<SimTime>,
    pacing: Pacing,
    /// Earliest departure time of the next data segment (EDT `t_w`, spec 06 §5.3).
    t_w: SimTime,
    /// Internal pacing or CPS: when the held segment may go.
    pace_deadline: Option<SimTime>,
    /// Clustered Packet Spacing of the first slow-start rounds (spec 03 §2.5).
    pub cps: Option<Cps>,
    /// A rate-limited application's next segment, while the socket waits for it.
    app_deadline: Option<SimTime>,
    /// Quick-Start (spec 02), boxed: most connections have none.
    pub qs: Option<Box<QsConn>>,
}

impl TcpSocket {
    pub fn new(addr: Addr, cfg: &TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSocket {
        let mut s = TcpSocket {
            addr,
            phase: Phase::Closed,
            snd: Sender::new(cfg, cc),
            rcv: Receiver::new(cfg, cfg.window_scale),
            rtt: RttEstimator::new(cfg.rto_formula, cfg.rto_init, cfg.rto_min, cfg.rto_max),
            cfg_sack: cfg.sack,
            cfg_ts: cfg.timestamps,
            cfg_ws: cfg.window_scale,
            iw: cfg.iw,
            syn_loss_iw: cfg.syn_loss_iw,
            rto_deadline: None,
            syn_sent_at: SimTime::ZERO,
            syn_timeouts: 0,
            syn_timeout_spurious: false,
            ts_ok: false,
            sack_ok: false,
            tsq_bytes: 0,
            tsq: cfg.tsq,
            completed_at: None,
            pacing: cfg.pacing,
            t_w: SimTime::ZERO,
            pace_deadline: None,
            cps: cfg.cps_tick.map(Cps::new),
            app_deadline: None,
            qs: None,
        };
        // An unlocked receive buffer's first window (host::tcp::autotune).
        let mss = s.own_mss();
        s.rcv.enable_autotuning(cfg.rcv_autotune, mss);
        s
    }

    /// One of this socket's frames of `l2_bytes` left the host qdisc (to the
    /// NIC, or dropped there): its TSQ budget returns (spec 06 §2.8).
    pub fn tsq_release(&mut self, l2_bytes: u64) {
        self.tsq_bytes = self.tsq_bytes.saturating_sub(l2_bytes);
    }

    /// Who enforces this socket's pacing rate.
    pub fn pacing(&self) -> Pacing {
        self.pacing
    }

    /// MSS option: MTU − IP header − 20 (spec 06 §1.2).
    fn mss_option(&self) -> u32 {
        self.addr.mtu - self.addr.ip_header_bytes - 20
    }

    /// The segment size this end expects: its MSS option less the timestamp
    /// option when it offers timestamps (spec 06 §2.2 step 2).
    fn own_mss(&self) -> u32 {
        self.mss_option() - if self.cfg_ts { 12 } else { 0 }
    }

    /// IP length of a full-size data segment: headers, options (no SACK) and MSS.
    pub fn segment_l3_bytes(&self) -> u32 {
        self.addr.ip_header_bytes + 20 + self.options_bytes(0) + self.snd.mss
    }

    fn options_bytes(&self, sack_blocks: u8) -> u32 {
        let ts = if self.ts_ok { 12 } else { 0 };
        let sack = if sack_blocks > 0 { 4 + 8 * sack_blocks as u32 } else { 0 };
        ts + sack
    }

    /// L3 bytes of a full-size data segment without SACK blocks (the wire
    /// bound's frame, `sim::finish` path summary).
    pub fn data_l3_bytes(&self) -> u32 {
        self.addr.ip_header_bytes + 20 + self.options_bytes(0) + self.snd.mss
    }

    fn packet(&self, h: TcpHeader) -> Packet {
        let opts = if h.has(flags::SYN) { 20 } else { self.options_bytes(h.sack_n) };
        Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            kind: PacketKind::Tcp,
            dir: self.addr.dir,
            l3_bytes: self.addr.ip_header_bytes + 20 + opts + h.payload as u32 + if h.qs_response[0] != 0 { OPT_BYTES } else { 0 },
            ip: IpFields { ttl: self.addr.ip_ttl, ..IpFields::default() },
            // The window field of the header is scaled by our shift (RFC 7323 §2.2).
            tcp: TcpHeader { conn: self.addr.conn, syn_opts: TcpHeader::opts_with_wscale(h.syn_opts, self.rcv.wscale), ..h },
            tstamp: SimTime::ZERO,
            ingress: 0,
        }
    }

    fn syn_opts(&self) -> u8 {
        (if self.cfg_sack { OPT_SACK } else { 0 }) | (if self.cfg_ts { OPT_TS } else { 0 }) | (if self.cfg_ws { OPT_WS } else { 0 })
    }

    fn syn_header(&mut self, now: SimTime, ack: bool) -> TcpHeader {
        TcpHeader {
            flags: flags::SYN | if ack { flags::ACK } else { 0 },
            mss_opt: self.mss_option() as u16,
            syn_opts: self.syn_opts(),
            // SYN windows are unscaled (spec 06 §2.2 step 1).
            wnd_bytes: self.rcv.advertised_window().min(65535) as u32,
            ts_val: if self.cfg_ts { now } else { SimTime::ZERO },
            ..TcpHeader::default()
        }
    }

    /// Initiator: send the SYN.
    pub fn open(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        debug_assert_eq!(self.phase, Phase::Closed);
        self.phase = Phase::SynSent;
        self.syn_sent_at = now;
        let h = self.syn_header(now, false);
        let mut p = self.packet(h);
        let rto = self.attach_handshake_request(now, &mut p);
        out.push(p);
        self.rto_deadline = Some(now + rto);
    }

    /// spec 02 §2.3.2 `on_connect`: the data sender's SYN or SYN-ACK carries a
    /// request. Returns the RTO to arm (`syn_rto` with a request).
    fn attach_handshake_request(&mut self, now: SimTime, p: &mut Packet) -> Span {
        let ttl = self.addr.ip_ttl;
        let rto = self.rtt.rto();
        let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) else { return rto };
        match snd.handshake_request(now, ttl) {
            Some(opt) => {
                p.ip.qs = opt;
                p.l3_bytes += OPT_BYTES;
                snd.config().syn_rto
            }
            None => rto,
        }
    }

    /// spec 02 §2.4 rule 1: remember a request that arrived on `p`.
    fn note_request(&mut self, p: &Packet, seq_end: Option<u64>) -> bool {
        let Some(q) = self.qs.as_mut().filter(|_| p.ip.has_qs()) else { return false };
        if !q.echo.on_packet(p.ip.ttl, &p.ip.qs, seq_end) {
            return false;
        }
        // `linux_like`: the receive window opens gradually (attach).
        if self.rcv.window_cap().is_some() {
            q.window_bump_bps = q.echo.pending_rate().map(rate_bps);
            self.qs_window_bump();
        }
        self.qs.as_ref().is_some_and(|q| q.immediate_ack)
    }

    /// spec 02 §2.4 rule 4 (`linux_like`): echoing an approval of Rate(N) raises
    /// the advertised window to at least min(free buffer, ⌈Rate(N)/8 · RTT_r⌉ +
    /// 4·MSS), RTT_r the handshake sample if nothing else. A request in a SYN
    /// arrives before any sample: the SYN/ACK that echoes it advertises the
    /// largest unscaled window (65 535 B, CHOICE), and the formula applies once
    /// the handshake ACK gives a sample.
    fn qs_window_bump(&mut self) {
        let Some(bps) = self.qs.as_ref().and_then(|q| q.window_bump_bps) else { return };
        let Some(rtt) = self.rtt.srtt else {
            self.rcv.raise_window_floor(u64::from(u16::MAX));
            return;
        };
        if let Some(q) = self.qs.as_mut() {
            q.window_bump_bps = None;
        }
        let bytes = (bps as f64 / 8.0 * rtt.as_secs_f64()).ceil() as u64 + GRADUAL_INITIAL_SEGMENTS * self.rcv.mss as u64;
        self.rcv.raise_window_floor(bytes);
    }

    /// The echo for a handshake segment we are about to send.
    fn handshake_echo(&mut self, h: &mut TcpHeader) {
        if let Some(r) = self.qs.as_mut().and_then(|q| q.echo.take_for_handshake()) {
            h.qs_response = r.encode();
        }
    }

    /// The first ACK of the SYN / SYN-ACK that carried our request arrived
    /// (spec 02 §2.3.4 REQ_SENT rows).
    fn handshake_response(&mut self, now: SimTime, h: &TcpHeader) {
        let (srtt, mss, cwnd) = (self.rtt.srtt.unwrap_or(Span::ZERO), self.snd.mss, self.snd.w.cwnd);
        if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
            if snd.awaits_response(0, true) {
                snd.on_response(now, QsResponse::decode(&h.qs_response), srtt, mss, cwnd);
            }
        }
    }

    /// Options on an outgoing ACK (pure or on data): the echo of a request it
    /// acknowledges and a pending Report(0) (pure ACKs only).
    fn qs_ack_options(&mut self, p: &mut Packet, pure_ack: bool) {
        if self.qs.is_none() {
            return;
        }
        let free = TCP_OPTION_SPACE.saturating_sub(self.options_bytes(p.tcp.sack_n));
        let Some(q) = self.qs.as_mut() else { return };
        if let Some(r) = q.echo.take_for_ack(p.tcp.ack, free) {
            p.tcp.qs_response = r.encode();
            p.l3_bytes += OPT_BYTES;
        }
        if pure_ack && !p.ip.has_qs() {
            if let Some(opt) = q.sender.as_mut().and_then(|s| s.take_report_for_ack()) {
                p.ip.qs = opt;
                p.l3_bytes += OPT_BYTES;
            }
        }
    }

    /// Apply a Quick-Start window change (spec 02 §2.3.7, §2.3.8, §2.3.10).
    fn apply_qs(&mut self, change: Option<WindowChange>) {
        let w = &mut self.snd.w;
        match change {
            Some(WindowChange::Raise(x)) => w.cwnd = w.cwnd.max(x),
            Some(WindowChange::Set(x)) => w.cwnd = x.max(1.0),
            Some(WindowChange::Revert { cwnd, ssthresh_cap }) => {
                w.cwnd = cwnd.max(1.0);
                w.ssthresh = w.ssthresh.min(ssthresh_cap).max(2.0);
                // Loss recovery follows the CC module (spec 02 §2.3.10): the
                // first retransmission leaves whatever the smaller cwnd (RFC 6675 §5).
                self.snd.retransmit_now = true;
            }
            None => {}
        }
    }

    fn negotiate(&mut self, h: &TcpHeader) -> u32 {
        self.sack_ok = self.cfg_sack && h.syn_opts & OPT_SACK != 0;
        self.ts_ok = self.cfg_ts && h.syn_opts & OPT_TS != 0;
        let ws_ok = self.cfg_ws && h.syn_opts & OPT_WS != 0;
        if !ws_ok {
            self.rcv.wscale = 0;
        }
        // Effective MSS = min(own, announced) − 12 with timestamps (spec 06 §2.2 step 2).
        let mss = self.mss_option().min(h.mss_opt as u32) - if self.ts_ok { 12 } else { 0 };
        self.rcv.mss = mss;
        mss
    }

    /// Did the handshake timer fire at this end?
    fn syn_timed_out(&self) -> bool {
        self.syn_timeouts > 0
    }

    /// The initial window once the handshake completes (spec 06 §2.2 step 4,
    /// `syn_loss_iw`).
    fn initial_window(&self, mss: u32) -> u32 {
        let cut = match self.syn_loss_iw {
            // RFC 5681 §3.1: 1 segment after any retransmitted SYN or SYN-ACK.
            SynLossIw::Rfc5681 => self.syn_timed_out(),
            // Linux 6.x net/ipv4/tcp_input.c tcp_init_transfer(): `if (tp->total_retrans
            // > 1 && tp->undo_marker) cwnd = 1`. total_retrans counts every SYN or
            // SYN-ACK sent again (`syn_retrans`); undo_marker is set when the handshake
            // timer fired (tcp_enter_loss; at the acceptor req->num_timeout, in
            // tcp_create_openreq_child) and cleared by tcp_try_undo_spurious_syn().
            SynLossIw::Linux => self.snd.stats.syn_retrans > 1 && self.syn_timed_out() && !self.syn_timeout_spurious,
        };
        if cut { 1 } else { self.iw.segments(mss) }
    }

    /// Linux tcp_try_undo_spurious_syn(): the handshake timeout was spurious if the
    /// segment completing the handshake echoes the TSval of this end's first SYN or
    /// SYN-ACK (Linux compares rcv_tsecr with retrans_stamp, that segment's stamp).
    fn note_handshake_echo(&mut self, h: &TcpHeader) {
        self.syn_timeout_spurious = self.syn_timed_out() && self.ts_ok && h.ts_ecr == self.syn_sent_at;
    }

    fn establish(&mut self, now: SimTime, mss: u32) {
        self.phase = Phase::Established;
        self.rcv.establish_autotuning(now);
        // spec 06 §2.2 step 4: the window after a retransmitted SYN, RTO ≥ 3 s.
        let iw = self.initial_window(mss);
        if self.syn_timed_out() {
            self.rtt.raise_to(Span::from_secs(3));
        }
        // A full segment's pacer charge: IP + TCP headers, options, payload, 14 B (spec 06 §4.3).
        let charge = self.addr.ip_header_bytes + 20 + self.options_bytes(0) + mss + 14;
        self.snd.establish(now, mss, charge, iw, self.sack_ok, self.ts_ok, &self.rtt);
        self.rto_deadline = None;
        let timed_out = self.syn_timed_out();
        if let Some(c) = &mut self.cps {
            // Round 1 is spaced over the handshake RTT (none after a retransmitted SYN: no spacing).
            c.start(now, self.rtt.srtt.filter(|_| !timed_out).unwrap_or(Span::ZERO), iw, self.snd.snd_max);
        }
    }

    /// A packet for this endpoint arrived.
    pub fn on_packet(&mut self, now: SimTime, p: &Packet, out: &mut Vec<Packet>) {
        let h = &p.tcp;
        match self.phase {
            Phase::Closed if h.has(flags::SYN) && !h.has(flags::ACK) => {
                // Acceptor: answer with SYN-ACK.
                self.negotiate(h);
                self.phase = Phase::SynRcvd;
                self.syn_sent_at = now;
                self.rcv.store_syn_ts(h);
                self.note_request(p, None);
                let mut sa = self.syn_header(now, true);
                sa.ts_ecr = h.ts_val;
                self.handshake_echo(&mut sa);
                let mut pk = self.packet(sa);
                let rto = self.attach_handshake_request(now, &mut pk);
                out.push(pk);
                self.rto_deadline = Some(now + rto);
                return;
            }
            Phase::SynSent if h.has(flags::SYN) && h.has(flags::ACK) => {
                let mss = self.negotiate(h);
                self.rcv.store_syn_ts(h);
                // RFC 9293 §3.10.7.3: SND.WND from the SYN-ACK (never scaled).
                self.snd.snd_wnd = h.window();
                if !self.syn_timed_out() {
                    self.rtt.sample(now.since(self.syn_sent_at));
                }
                self.note_handshake_echo(h);
                self.establish(now, mss);
                self.handshake_response(now, h);
                self.note_request(p, None);
                let mut a = TcpHeader { flags: flags::ACK, ..TcpHeader::default() };
                if self.ts_ok {
                    a.ts_val = now;
                    a.ts_ecr = h.ts_val;
                }
                a.set_window(self.rcv.advertised_window() >> self.rcv.wscale << self.rcv.wscale);
                self.handshake_echo(&mut a);
                let mut pk = self.packet(a);
                self.qs_ack_options(&mut pk, true);
                out.push(pk);
                return;
            }
            Phase::SynRcvd if h.has(flags::SYN) => {
                // Retransmitted SYN: answer again, a SYN-ACK retransmission. It echoes
                // the first SYN's TSval, as Linux's does (tcp_check_req answers a
                // retransmitted SYN before updating req->ts_recent).
                self.snd.stats.syn_retrans += 1;
                let mut sa = self.syn_header(now, true);
                sa.ts_ecr = self.rcv.ts_recent();
                out.push(self.packet(sa));
                return;
            }
            Phase::SynRcvd if h.has(flags::ACK) => {
                if !self.syn_timed_out() {
                    self.rtt.sample(now.since(self.syn_sent_at));
                }
                self.note_handshake_echo(h);
                let mss = self.rcv.mss;
                self.establish(now, mss);
                self.handshake_response(now, h);
                self.qs_window_bump();
            }
            Phase::Established if h.has(flags::SYN) && h.has(flags::ACK) => {
                // Our handshake ACK was lost: ACK again.
                self.send_ack(now, out);
                return;
            }
            Phase::Established => {}
            _ => return,
        }
        // Established: ACK processing, then data.
        // An endpoint that never sent data has nothing to learn from the ACK field.
        let (cwnd_before, events_before) = (self.snd.w.cwnd, self.snd.stats.congestion_events());
        if h.has(flags::ACK) && self.snd.snd_max == 0 {
            // RFC 9293 §3.10.7.4: SND.WND follows the peer's window even before
            // this end has sent data (a server answering a request, spec 02 §2.4 rule 4).
            self.snd.snd_wnd = h.window();
        }
        if h.has(flags::ACK) && self.snd.snd_max > 0 && self.snd.on_ack(now, h, &mut self.rtt) {
            self.rto_deadline = if self.snd.sb.packets_out > 0 { Some(now + self.rtt.rto()) } else { None };
            // tcp_set_xmit_timer: a loss probe instead, unless RACK's reorder
            // timer waits (tcp_identify_packet_loss clears FLAG_SET_XMIT_TIMER).
            if self.snd.rack.reo_deadline.is_none() {
                let rto = self.rtt.rto();
                self.snd.schedule_loss_probe(now, &self.rtt, rto, false);
            }
            if self.completed_at.is_none() && self.snd.all_acked() {
                self.completed_at = Some(now);
            }
        }
        if h.has(flags::ACK) && self.qs.as_ref().is_some_and(|q| q.sender.is_some()) {
            self.qs_on_ack(now, h, cwnd_before, events_before);
        }
        if self.cps.is_some() {
            let (snd_max, srtt, cap) = (self.snd.snd_max, self.rtt.srtt.unwrap_or(Span::ZERO), self.snd.window_cap_segments());
            if let Some(c) = self.active_cps(now) {
                c.on_ack(now, h.ack, snd_max, srtt, cap);
            }
        }
        if h.payload == 0 {
            // The peer's ACK: TS.Recent for this end's segments (RFC 7323 §4.3).
            self.rcv.note_ack_ts(h);
        }
        if h.payload > 0 {
            let qs_request = self.note_request(p, Some(h.seq + h.payload as u64));
            match self.rcv.on_data(now, h, p.l2_bytes(), self.rtt.rto()) {
                _ if qs_request => self.send_ack(now, out),
                AckNeed::Now => self.send_ack(now, out),
                AckNeed::Later | AckNeed::None => {
                    if self.rcv.wants_window_update() {
                        self.send_ack(now, out);
                    }
                }
            }
        }
    }

    /// The application reader took `bytes` (spec 04 §2.7 rule 4); a window
    /// update follows if spec 06 §2.3 rule 5 asks for one.
    pub fn app_read(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Packet>) {
        self.rcv.read(bytes);
        self.rcv.after_read(now);
        if self.phase == Phase::Established && self.rcv.wants_window_update() {
            self.send_ack(now, out);
        }
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let mut a = TcpHeader { flags: flags::ACK, seq: self.snd.snd_max, ..TcpHeader::default() };
        if self.ts_ok {
            a.ts_val = now;
        }
        self.rcv.fill_ack(&mut a);
        let mut p = self.packet(a);
        self.qs_ack_options(&mut p, true);
        out.push(p);
    }

    /// Quick-Start after an ACK (spec 02 §2.3.4): the response to a data
    /// request, the end of QS mode, a loss in QS mode.
    fn qs_on_ack(&mut self, now: SimTime, h: &TcpHeader, cwnd_before: f64, events_before: u64) {
        let (srtt, mss, iw) = (self.rtt.srtt.unwrap_or(Span::ZERO), self.snd.mss, self.snd.iw_segments as f64);
        let (cwnd, una, events) = (self.snd.w.cwnd, self.snd.snd_una, self.snd.stats.congestion_events());
        let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) else { return };
        if snd.awaits_response(h.ack, false) {
            snd.on_response(now, QsResponse::decode(&h.qs_response), srtt, mss, cwnd);
        }
        let change = if events > events_before {
            snd.on_congestion(una, iw, cwnd, mss)
        } else {
            snd.on_ack(una, cwnd - cwnd_before, cwnd)
        };
        if let Some(m) = snd.config().limited_slow_start.filter(|_| snd.stats.last_outcome == Some(Outcome::Used)) {
            self.snd.max_ssthresh = Some(m);
        }
        self.apply_qs(change);
    }

    /// Clustered Packet Spacing while it still acts: only in an open initial
    /// slow start (spec 03 §2.5 scope); anything else ends it for good.
    fn active_cps(&mut self, now: SimTime) -> Option<&mut Cps> {
        let open_slow_start = self.snd.in_open_slow_start();
        let c = self.cps.as_mut().filter(|c| c.is_active())?;
        if !open_slow_start {
            c.end(now);
            return None;
        }
        Some(c)
    }

    /// TSQ limit: max(2 segments, pacing_rate × 1 ms), capped at 1 MiB (spec 06 §2.8).
    fn tsq_limit_bytes(&self) -> u64 {
        let seg = (self.snd.mss + 66) as u64;
        ((self.snd.pacing.bytes_per_s * 1e-3) as u64).max(2 * seg).min(1 << 20)
    }

    /// EDT stamp of a data packet of `len` pacing bytes sent at `now`:
    /// tstamp = max(now, t_w), then t_w = tstamp + L/r (spec 06 §5.3 `edt`).
    fn stamp(&mut self, now: SimTime, len: u64) -> SimTime {
        let ts = self.t_w.max(now);
        let r = self.snd.pacing.bytes_per_s;
        self.t_w = if r > 0.0 { ts + pacing_gap(len, r) } else { ts };
        ts
    }

    /// Send what the window allows, at most `ifq_room` packets. Returns the
    /// reason sending stopped.
    pub fn poll_transmit(&mut self, now: SimTime, mut ifq_room: u64, out: &mut Vec<Packet>) -> SndLim {
        if self.phase != Phase::Established {
            return SndLim::Application;
        }
        self.pace_deadline = None;
        if self.snd.app.rate_limited() {
            self.snd.app_write(now);
        }
        let mut sent_new = false;
        let lim = loop {
            if self.tsq && self.tsq_bytes >= self.tsq_limit_bytes() {
                break SndLim::Stall;
            }
            let (cwnd_before, restarts_before) = (self.snd.w.cwnd, self.snd.stats.idle_restarts);
            let mut seg = match self.snd.next_segment(now, &self.rtt) {
                Ok(s) => s,
                Err(lim) => break lim,
            };
            if let Some(c) = self.active_cps(now) {
                let t = c.release_at(now);
                if t > now {
                    // CPS rule (1): the segment waits for its timer tick.
                    self.pace_deadline = Some(t);
                    break SndLim::Pacing;
                }
            }
            if self.pacing == Pacing::Internal && self.t_w > now {
                // Internal pacing: the segment waits for its departure time.
                self.pace_deadline = Some(self.t_w);
                break SndLim::Pacing;
            }
            if ifq_room == 0 {
                self.snd.on_stall(now, &self.rtt);
                break SndLim::Stall;
            }
            ifq_room -= 1;
            // spec 02 §2.3: a Quick-Start option on new data (MSS − 8 payload, §2.2.7).
            let mut ip_qs = None;
            if seg.retransmit.is_none() {
                // spec 02 §2.3.2: only an idle restart that lowered cwnd triggers a request.
                let restarted = self.snd.stats.idle_restarts > restarts_before && self.snd.w.cwnd < cwnd_before;
                let (srtt, cwnd, mss, ttl) = (self.rtt.srtt, self.snd.w.cwnd, self.snd.mss, self.addr.ip_ttl);
                if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
                    let was_qs = snd.in_qs_mode();
                    if let Some(d) = snd.on_new_data(now, seg.start, seg.len, srtt, cwnd, restarted, mss, ttl) {
                        seg.len = seg.len.min(d.max_payload);
                        ip_qs = Some(d.ip_qs);
                    }
                    if !was_qs && snd.in_qs_mode() {
                        // QS mode starts: ssthresh policy, then timer 1 at t0 (spec 02 §2.3.7, §2.3.9).
                        let ss = snd.ssthresh_at_start();
                        let change = snd.on_timer(now);
                        if let Some(ss) = ss {
                            self.snd.w.ssthresh = ss;
                        }
                        self.apply_qs(change);
                    }
                }
            }
            debug_assert!(seg.len <= u16::MAX as u32, "segments are at most one MSS");
            let mut h = TcpHeader { flags: flags::ACK, seq: seg.start, payload: seg.len as u16, ..TcpHeader::default() };
            if self.ts_ok {
                h.ts_val = now;
            }
            self.rcv.fill_ack(&mut h);
            let mut p = self.packet(h);
            if let Some(opt) = ip_qs {
                p.ip.qs = opt;
                p.l3_bytes += OPT_BYTES;
            }
            self.qs_ack_options(&mut p, false);
            // The segment's departure time: with EDT its stamp, which (as in
            // Linux) is also its TSval and its send time for RTT and rate samples.
            let sent_at = match self.pacing {
                Pacing::Edt => {
                    p.tstamp = self.stamp(now, pacing_len_bytes(&p));
                    p.tstamp
                }
                Pacing::Internal => self.stamp(now, pacing_len_bytes(&p)),
                Pacing::Off | Pacing::QdiscRate => now,
            };
            if self.ts_ok {
                p.tcp.ts_val = sent_at;
            }
            self.tsq_bytes += p.l2_bytes();
            out.push(p);
            self.snd.on_sent(sent_at, seg);
            if self.snd.take_probe_sent() {
                // tcp_send_loss_probe → tcp_rearm_rto: the RTO from now.
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            sent_new |= seg.retransmit.is_none();
            if seg.retransmit.is_none() {
                if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
                    snd.on_data_sent();
                }
            }
            if let Some(c) = &mut self.cps {
                c.on_sent(now);
            }
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        };
        if sent_new {
            // tcp_write_xmit: one loss probe per tail, no later than the RTO.
            let rto_left = self.rto_deadline.map_or(self.rtt.rto(), |t| t.since(now.min(t)));
            self.snd.schedule_loss_probe(now, &self.rtt, rto_left, true);
        }
        self.snd.set_lim(now, lim);
        self.snd.cwnd_validate();
        self.app_deadline = if lim == SndLim::Application { self.snd.app_wake_at() } else { None };
        lim
    }

    /// Earliest timer deadline.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let qs = self.qs.as_ref().and_then(|q| q.sender.as_ref()).and_then(|s| s.next_deadline());
        let (reo, tlp) = (self.snd.rack.reo_deadline, self.snd.rack.tlp_deadline);
        [self.rto_deadline, self.rcv.delack_deadline, self.pace_deadline, self.app_deadline, qs, reo, tlp].into_iter().flatten().min()
    }

    /// Fire every timer due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.rcv.delack_deadline.is_some_and(|t| t <= now) {
            self.send_ack(now, out);
        }
        if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
            if snd.next_deadline().is_some_and(|t| t <= now) {
                let change = snd.on_timer(now);
                self.apply_qs(change);
            }
        }
        if self.phase == Phase::Established {
            // RACK's reorder timer and the loss probe (Linux's retransmit timer
            // pending ICSK_TIME_REO_TIMEOUT / ICSK_TIME_LOSS_PROBE).
            if self.snd.rack.reo_deadline.is_some_and(|t| t <= now) {
                self.snd.on_reo_timeout(now, &self.rtt);
            }
            if self.snd.rack.tlp_deadline.is_some_and(|t| t <= now) {
                self.snd.on_probe_timer();
            }
        }
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.rto_deadline = None;
            match self.phase {
                Phase::SynSent | Phase::SynRcvd => {
                    // SYN / SYN-ACK retransmission after rto_init, doubling (spec 06 §2.2 step 4).
                    self.syn_timeouts += 1;
                    self.snd.stats.syn_retrans += 1;
                    self.rtt.back_off();
                    // spec 02 §2.3.3: resent without the option; the request counts as refused.
                    if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
                        snd.on_carrier_retransmit();
                    }
                    let ack = self.phase == Phase::SynRcvd;
                    let mut h = self.syn_header(now, ack);
                    if ack {
                        // The SYN-ACK echoes the SYN's TSval (Linux tcp_synack_options: req->ts_recent).
                        h.ts_ecr = self.rcv.ts_recent();
                    }
                    out.push(self.packet(h));
                    self.rto_deadline = Some(now + self.rtt.rto());
                }
                Phase::Established if self.snd.sb.packets_out > 0 => {
                    if let Some(c) = &mut self.cps {
                        c.end(now);
                    }
                    let una = self.snd.snd_una;
                    self.snd.on_rto(now, &mut self.rtt);
                    self.rto_deadline = Some(now + self.rtt.rto());
                    let (iw, cwnd, mss) = (self.snd.iw_segments as f64, self.snd.w.cwnd, self.snd.mss);
                    if let Some(snd) = self.qs.as_mut().and_then(|q| q.sender.as_mut()) {
                        // spec 02 §2.3.3: a timeout of the carrying segment refuses the request.
                        snd.on_carrier_retransmit();
                        let change = snd.on_congestion(una, iw, cwnd, mss);
                        self.apply_qs(change);
                    }
                }
                _ => {}
            }
        }
    }
}
