//! The relay loop: read frames from both interfaces, let each direction's
//! [`Shaper`] decide drop or departure time, and send every accepted frame
//! out of the other interface when its departure time has come.
//!
//! * Arrival time: the kernel's SO_TIMESTAMPNS receive timestamp
//!   (CLOCK_REALTIME), so the time a frame waits in the socket before the
//!   relay reads it does not shift its schedule.
//! * Departure: the loop compares CLOCK_REALTIME (`sys::now_realtime_ns`)
//!   with the scheduled departure; it sleeps in `ppoll` until `spin_ns`
//!   before the next departure (or until a frame arrives) and busy-waits the
//!   rest, within a budget (`spin`: at most 20 ms of every 100 ms).
//! * Lateness = CLOCK_REALTIME right after `sendmmsg` returned − scheduled
//!   departure, for every delivered frame (and, as a lower bound, with the
//!   clock read right before the call).
//! * Per direction, departures are non-decreasing (the shaper is a FIFO), so
//!   the pending frames are a `VecDeque` in departure order. Frame buffers
//!   come from a preallocated [`Pool`]; the loop does not allocate.
//! * On SIGINT/SIGTERM or at the end of the duration the relay stops
//!   reading, sends what it has accepted at the scheduled times, and stops
//!   (a second signal stops it at once; what is left counts as pending).

use std::collections::VecDeque;
use std::io;

use crate::config::{RelayConfig, RunLength};
use crate::loss::FrameLoss;
use crate::pool::Pool;
use crate::shaper::{Shaper, ShaperConfig, Verdict, wire_bytes};
use crate::spin::{self, SpinBudget};
use crate::socket::{PacketSocket, RxBatch, SocketOptions, TxBatch};
use crate::stats::{DirReport, DirStats, DropReason, FramingReport, Report, SettingReport};
use crate::sys;
use crate::trace::Trace;

/// Longest sleep without looking at the clock, the stop flag and the duration.
const IDLE_WAIT_NS: u64 = 100_000_000;
/// After the stop, pending frames get this long past their departure to leave.
const DRAIN_GRACE_NS: u64 = 1_000_000_000;
/// Default cap on pool buffers when the size comes from the configuration.
const DEFAULT_POOL_CAP_FRAMES: u64 = 1 << 18;
/// Ethernet header (14 B) and one 802.1Q tag (4 B) on top of the MTU.
const FRAME_HEADROOM_BYTES: u32 = 18;

/// A frame accepted and waiting for its departure.
#[derive(Clone, Copy, Debug)]
struct Pending {
    arrival_ns: u64,
    start_ns: u64,
    depart_ns: u64,
    buf: u32,
    len: u32,
}

/// One direction: frames read from `socks[index]`, sent out of `socks[1 - index]`.
struct Direction {
    name: &'static str,
    shaper: Shaper,
    /// Random loss after the queue and the line.
    loss: FrameLoss,
    pending: VecDeque<Pending>,
    stats: DirStats,
    rx: RxBatch,
    tx: TxBatch,
    /// A send error was printed already (printed once per direction).
    send_error_shown: bool,
}

/// Buffers one direction may hold at once: the backlog (at most limit/64
/// frames), the frames on the line or in the delay (at most
/// (delay + longest serialization) / shortest serialization + 1), and two batches.
pub fn frames_needed(cfg: &ShaperConfig, frame_bytes: u64, batch: u64) -> u64 {
    let ser_ns = |captured: u64| (wire_bytes(captured) * 8 * 1_000_000_000).div_ceil(cfg.rate_bps);
    let on_line = (cfg.delay_ns + ser_ns(frame_bytes)) / ser_ns(0).max(1) + 1;
    cfg.max_backlog_frames() + 1 + on_line + 2 * batch
}

/// The relay, set up and ready to run.
pub struct Relay {
    cfg: RelayConfig,
    socks: [PacketSocket; 2],
    dirs: [Direction; 2],
    pool: Pool,
    frame_bytes: usize,
    trace: Option<Trace>,
    timer_slack_ns: Option<u64>,
    rt: SettingReport,
    mlock: SettingReport,
    spin: SpinBudget,
}

impl Relay {
    /// Opens the sockets, allocates every buffer, and applies the optional
    /// real-time settings (their failure is reported, not fatal).
    pub fn open(cfg: &RelayConfig) -> io::Result<Relay> {
        sys::install_stop_signals()?;
        let timer_slack_ns = sys::set_timer_slack_ns(1).ok().map(|()| 1);
        let opts = SocketOptions { buffer_bytes: cfg.socket_buffer_bytes, promiscuous: true };
        let socks = [PacketSocket::open(&cfg.if_a, opts)?, PacketSocket::open(&cfg.if_b, opts)?];
        let mtu = socks[0].mtu_bytes().max(socks[1].mtu_bytes());
        let frame_bytes = (mtu + FRAME_HEADROOM_BYTES).next_multiple_of(64) as usize;
        let pool_frames = cfg.pool_frames.unwrap_or_else(|| {
            let need = frames_needed(&cfg.a_to_b, frame_bytes as u64, cfg.batch as u64) + frames_needed(&cfg.b_to_a, frame_bytes as u64, cfg.batch as u64);
            need.min(DEFAULT_POOL_CAP_FRAMES)
        }) as usize;
        let pool = Pool::new(pool_frames, frame_bytes);
        let new_dir = |name, shaper_cfg: ShaperConfig, loss_cfg, stream: &str| -> io::Result<Direction> {
            let shaper = Shaper::new(shaper_cfg).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{name}: {e}")))?;
            Ok(Direction {
                name,
                shaper,
                loss: FrameLoss::new(loss_cfg, cfg.seed, stream),
                pending: VecDeque::with_capacity(pool_frames),
                stats: DirStats::default(),
                rx: RxBatch::new(cfg.batch, frame_bytes),
                tx: TxBatch::new(cfg.batch),
                send_error_shown: false,
            })
        };
        let dirs = [
            new_dir("a_to_b", cfg.a_to_b, cfg.loss_a_to_b, &cfg.loss_streams[0])?,
            new_dir("b_to_a", cfg.b_to_a, cfg.loss_b_to_a, &cfg.loss_streams[1])?,
        ];
        let trace = cfg.trace_path.as_deref().map(Trace::create).transpose()?;
        // After every allocation, so that MCL_CURRENT covers the pool.
        let rt = SettingReport::from_result(cfg.rt_priority.is_some(), cfg.rt_priority.map(sys::set_sched_fifo));
        let mlock = SettingReport::from_result(cfg.mlock, cfg.mlock.then(sys::lock_memory));
        let spin = SpinBudget::new(spin::WINDOW_NS, spin::BUDGET_NS);
        Ok(Relay { cfg: cfg.clone(), socks, dirs, pool, frame_bytes, trace, timer_slack_ns, rt, mlock, spin })
    }

    /// Frame buffers in the pool.
    pub fn pool_frames(&self) -> usize {
        self.pool.capacity()
    }

    /// Bytes per frame buffer (the largest frame the relay forwards).
    pub fn frame_bytes(&self) -> usize {
        self.frame_bytes
    }

    pub fn rt(&self) -> &SettingReport {
        &self.rt
    }

    pub fn mlock(&self) -> &SettingReport {
        &self.mlock
    }

    /// Reads one batch from direction `d`'s input and offers it to its shaper.
    fn receive(&mut self, d: usize) -> io::Result<usize> {
        let Relay { socks, dirs, pool, trace, .. } = self;
        let dir = &mut dirs[d];
        let n = dir.rx.recv(&socks[d])?;
        for i in 0..n {
            let m = dir.rx.meta(i);
            let arrival_ns = m.kernel_ts_ns.unwrap_or_else(|| {
                dir.stats.missing_timestamps += 1;
                sys::now_realtime_ns()
            });
            dir.stats.frames_in += 1;
            dir.stats.bytes_in += m.len as u64;
            dir.stats.csum_not_ready += u64::from(m.csum_not_ready);
            let reason = if m.truncated {
                DropReason::Oversize
            } else if let Some(buf) = pool.alloc() {
                match dir.shaper.offer(arrival_ns, m.len as u64) {
                    Verdict::Deliver { start_ns, depart_ns } if dir.loss.drops(dir.rx.frame(i)) => {
                        // It had its place in the queue and its time on the line (the
                        // shaper counted both); lost on the way, it is not sent.
                        pool.release(buf);
                        dir.stats.on_drop(DropReason::LinkLoss, m.len as u64);
                        if let Some(t) = trace.as_mut() {
                            t.lost(dir.name, arrival_ns, start_ns, depart_ns, m.len);
                        }
                        continue;
                    }
                    Verdict::Deliver { start_ns, depart_ns } => {
                        debug_assert!(dir.pending.back().is_none_or(|p| p.depart_ns <= depart_ns), "departures are non-decreasing");
                        dir.rx.swap_buf(i, pool.slot_mut(buf));
                        dir.pending.push_back(Pending { arrival_ns, start_ns, depart_ns, buf, len: m.len as u32 });
                        continue;
                    }
                    Verdict::Drop => {
                        pool.release(buf);
                        DropReason::Tail
                    }
                }
            } else {
                DropReason::Pool
            };
            dir.stats.on_drop(reason, m.len as u64);
            if let Some(t) = trace.as_mut() {
                t.dropped(dir.name, arrival_ns, reason, m.len);
            }
        }
        Ok(n)
    }

    /// Sends direction `d`'s frames whose departure time has come, in batches.
    fn send_due(&mut self, d: usize) {
        let batch = self.cfg.batch;
        let Relay { socks, dirs, pool, trace, .. } = self;
        let dir = &mut dirs[d];
        let out = &socks[1 - d];
        loop {
            let now_ns = sys::now_realtime_ns();
            let due = dir.pending.iter().take(batch).take_while(|p| p.depart_ns <= now_ns).count();
            if due == 0 {
                return;
            }
            let pool_ref = &*pool;
            let frames = dir.pending.iter().take(due).map(|p| pool_ref.frame(p.buf, p.len as usize));
            match dir.tx.send(out, frames) {
                // The socket is full: try again on the next turn of the loop.
                Ok(0) => return,
                Ok(n) => {
                    let sent_ns = sys::now_realtime_ns();
                    for p in dir.pending.drain(..n) {
                        dir.stats.frames_delivered += 1;
                        dir.stats.bytes_delivered += p.len as u64;
                        dir.stats.lateness.record(sent_ns.saturating_sub(p.depart_ns));
                        dir.stats.lateness_at_call.record(now_ns.saturating_sub(p.depart_ns));
                        if let Some(t) = trace.as_mut() {
                            t.delivered(dir.name, p.arrival_ns, p.start_ns, p.depart_ns, sent_ns, p.len as usize);
                        }
                        pool.release(p.buf);
                    }
                }
                Err(e) => {
                    // Refused for good (e.g. the interface went down): drop it, carry on.
                    if !dir.send_error_shown {
                        eprintln!("lfnlab-emu: warning: {e}; such frames are dropped and counted as send_error");
                        dir.send_error_shown = true;
                    }
                    if let Some(p) = dir.pending.pop_front() {
                        dir.stats.on_drop(DropReason::SendError, p.len as u64);
                        if let Some(t) = trace.as_mut() {
                            t.dropped(dir.name, p.arrival_ns, DropReason::SendError, p.len as usize);
                        }
                        pool.release(p.buf);
                    }
                }
            }
        }
    }

    fn next_departure_ns(&self) -> Option<u64> {
        self.dirs.iter().filter_map(|d| d.pending.front().map(|p| p.depart_ns)).min()
    }

    fn last_departure_ns(&self) -> Option<u64> {
        self.dirs.iter().filter_map(|d| d.pending.back().map(|p| p.depart_ns)).max()
    }

    /// Runs until a stop signal or the end of the duration, then returns the statistics.
    pub fn run(mut self) -> io::Result<Report> {
        let started_ns = sys::now_realtime_ns();
        let deadline_ns = match self.cfg.run_length {
            RunLength::Duration { duration_ns } => Some(started_ns.saturating_add(duration_ns)),
            RunLength::UntilSignal => None,
        };
        let fds = [self.socks[0].fd(), self.socks[1].fd()];
        let spin_ns = self.cfg.spin_ns;
        // Once stopping: (drain deadline, what stopped it).
        let mut stop: Option<(u64, &'static str)> = None;
        loop {
            let now_ns = sys::now_realtime_ns();
            if stop.is_none() {
                let by = if sys::stop_requested() { Some("signal") } else { deadline_ns.filter(|d| now_ns >= *d).map(|_| "duration") };
                if let Some(by) = by {
                    stop = Some((self.last_departure_ns().unwrap_or(now_ns).max(now_ns).saturating_add(DRAIN_GRACE_NS), by));
                }
            }
            let mut got = 0;
            if stop.is_none() {
                got += self.receive(0)?;
                got += self.receive(1)?;
            }
            self.send_due(0);
            self.send_due(1);
            if let Some((drain_until_ns, _)) = stop
                && (self.next_departure_ns().is_none() || sys::now_realtime_ns() >= drain_until_ns || sys::stop_now_requested())
            {
                break;
            }
            if got > 0 {
                self.spin.idle(sys::now_realtime_ns());
                continue; // more may be waiting
            }
            let now_ns = sys::now_realtime_ns();
            let mut wake_ns = self.next_departure_ns().unwrap_or(u64::MAX).min(now_ns.saturating_add(IDLE_WAIT_NS));
            if stop.is_none()
                && let Some(d) = deadline_ns
            {
                wake_ns = wake_ns.min(d);
            }
            let listen: &[i32] = if stop.is_none() { &fds } else { &[] };
            if wake_ns <= now_ns.saturating_add(spin_ns) {
                if self.spin.spin(now_ns) {
                    continue; // close enough: busy-wait
                }
                // Busy-wait budget spent: sleep the whole way.
                sys::wait_readable(listen, wake_ns.saturating_sub(now_ns))?;
            } else {
                self.spin.idle(now_ns);
                sys::wait_readable(listen, wake_ns - spin_ns - now_ns)?;
            }
        }
        Ok(self.finish(started_ns, stop.map_or("signal", |(_, by)| by)))
    }

    /// Counts what is left, frees it, and builds the report.
    fn finish(mut self, started_ns: u64, stopped_by: &'static str) -> Report {
        for dir in &mut self.dirs {
            dir.stats.pending_at_stop = dir.pending.len() as u64;
            let mut pending_bytes = 0;
            for p in dir.pending.drain(..) {
                pending_bytes += p.len as u64;
                self.pool.release(p.buf);
            }
            dir.stats.check(dir.stats.pending_at_stop, pending_bytes);
        }
        debug_assert_eq!(self.pool.available(), self.pool.capacity(), "every buffer is back");
        let trace_error = self.trace.take().and_then(Trace::finish);
        let [ab, ba] = &self.dirs;
        Report {
            if_a: self.cfg.if_a.clone(),
            if_b: self.cfg.if_b.clone(),
            clock: "CLOCK_REALTIME",
            started_unix_ns: started_ns,
            stopped_unix_ns: sys::now_realtime_ns(),
            stopped_by,
            framing: FramingReport { fcs_bytes: crate::shaper::FCS_BYTES, min_l2_bytes: lfnlab_core::net::phy::MIN_FRAME_BYTES, preamble_and_gap_bytes: lfnlab_core::net::phy::PREAMBLE_AND_GAP_BYTES },
            rt: self.rt.clone(),
            mlock: self.mlock.clone(),
            timer_slack_ns: self.timer_slack_ns,
            batch: self.cfg.batch,
            spin_ns: self.cfg.spin_ns,
            busy_wait_ns: self.spin.total_ns(),
            busy_wait_budget_exhausted_windows: self.spin.exhausted_windows(),
            pool_frames: self.pool.capacity(),
            frame_buffer_bytes: self.frame_bytes,
            trace_path: self.cfg.trace_path.as_ref().map(|p| p.display().to_string()),
            trace_error,
            a_to_b: DirReport::new(&self.cfg.a_to_b, &ab.stats, ab.shaper.max_backlog_bytes()),
            b_to_a: DirReport::new(&self.cfg.b_to_a, &ba.stats, ba.shaper.max_backlog_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_covers_backlog_and_delay() {
        // 100 Mbit/s, 50 ms, 128 KiB, 1536-B buffers, batch 32:
        //   backlog 131072/64 + 1 = 2049; shortest frame 84 B = 6720 ns;
        //   longest 1536 + 24 = 1560 B = 124 800 ns;
        //   on the line (50 000 000 + 124 800) / 6720 + 1 = 7460; batches 64.
        let cfg = ShaperConfig { rate_bps: 100_000_000, delay_ns: 50_000_000, limit_bytes: 131_072 };
        assert_eq!(frames_needed(&cfg, 1536, 32), 2049 + 7460 + 64);
    }
}
