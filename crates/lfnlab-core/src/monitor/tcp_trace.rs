//! The Web100-like connection trace of spec 06 §6 (`tcp.parquet`).
//! `bin` mode samples end-of-bin values lazily (at the connection's next event
//! or at the end of the run), so tracing never adds events or changes results.

use crate::engine::time::{SimTime, Span};
use crate::host::cc::CongestionControl;
use crate::host::tcp::config::Pacing;
use crate::host::tcp::socket::TcpSocket;
use crate::results::table::{Column, Table};

/// Per-bin extremes of cwnd and in_flight (bin mode).
#[derive(Clone, Copy, Debug)]
struct Extremes {
    cwnd_min: f64,
    cwnd_max: f64,
    inflight_min: u64,
    inflight_max: u64,
}

impl Extremes {
    fn at(cwnd: f64, inflight: u64) -> Extremes {
        Extremes { cwnd_min: cwnd, cwnd_max: cwnd, inflight_min: inflight, inflight_max: inflight }
    }
    fn add(&mut self, cwnd: f64, inflight: u64) {
        self.cwnd_min = self.cwnd_min.min(cwnd);
        self.cwnd_max = self.cwnd_max.max(cwnd);
        self.inflight_min = self.inflight_min.min(inflight);
        self.inflight_max = self.inflight_max.max(inflight);
    }
}

/// One traced connection: its sender endpoint and its peer (the receiver).
pub struct ConnTrace {
    pub flow: u32,
    pub sender: u32,
    pub receiver: u32,
    bin: Option<Span>,
    bin_end: SimTime,
    ext: Option<Extremes>,
}

impl ConnTrace {
    pub fn new(flow: u32, sender: u32, receiver: u32, bin: Option<Span>, start: SimTime) -> ConnTrace {
        let bin_end = match bin {
            Some(b) => SimTime(start.0 / b.0 * b.0) + b,
            None => SimTime::NEVER,
        };
        ConnTrace { flow, sender, receiver, bin, bin_end, ext: None }
    }

    /// Bin mode: emit rows for every bin that ended at or before `now`.
    pub fn catch_up(&mut self, now: SimTime, snd: &TcpSocket, rcv: &TcpSocket, cols: &mut TcpColumns) {
        let Some(bin) = self.bin else { return };
        while now >= self.bin_end {
            let t = self.bin_end;
            cols.push(t, self.flow, snd, rcv, self.ext.take());
            self.bin_end += bin;
        }
    }

    /// After the connection changed: track extremes (bin) or emit a row (event mode).
    pub fn observe(&mut self, now: SimTime, snd: &TcpSocket, rcv: &TcpSocket, cols: &mut TcpColumns) {
        let cwnd = snd.snd.w.cwnd;
        let inflight = snd.snd.sb.pipe();
        match self.bin {
            Some(_) => match &mut self.ext {
                Some(e) => e.add(cwnd, inflight),
                None => self.ext = Some(Extremes::at(cwnd, inflight)),
            },
            None => cols.push(now, self.flow, snd, rcv, None),
        }
    }

    /// End of run: bins up to `end`, and a last partial bin.
    pub fn finish(&mut self, end: SimTime, snd: &TcpSocket, rcv: &TcpSocket, cols: &mut TcpColumns) {
        self.catch_up(end, snd, rcv, cols);
        if let Some(bin) = self.bin {
            if self.bin_end - bin < end {
                cols.push(end, self.flow, snd, rcv, self.ext.take());
            }
        }
    }
}

macro_rules! columns {
    ($($name:ident : $ty:tt),+ $(,)?) => {
        /// Column buffers of `tcp.parquet`.
        #[derive(Default)]
        pub struct TcpColumns {
            pub flow_names: Vec<String>,
            /// `cc_*` columns: the union of every traced algorithm's variables,
            /// NaN in rows of connections whose algorithm lacks one (spec 06 §6).
            cc: Vec<(String, Vec<f64>)>,
            rows: usize,
            $(pub $name: Vec<$ty>),+
        }
        impl TcpColumns {
            fn columns(self) -> Vec<(String, Column)> {
                let mut v = Vec::new();
                $(v.push((stringify!($name).to_string(), columns!(@col $ty, self.$name)));)+
                for (name, values) in self.cc {
                    v.push((name, Column::F64(values)));
                }
                v
            }
        }
    };
    (@col f64, $e:expr) => { Column::F64($e) };
    (@col u64, $e:expr) => { Column::U64($e) };
    (@col String, $e:expr) => { Column::Str($e) };
}

columns!(
    t: f64, flow: String, srtt: f64, rttvar: f64, rto: f64, min_rtt: f64, latest_rtt: f64,
    cwnd: f64, ssthresh: f64, in_flight: u64, sacked_out: u64, lost_out: u64, retrans_out: u64,
    bytes_in_flight: u64, snd_una: u64, snd_nxt: u64, snd_max: u64, rwnd: u64, rcv_wnd: u64, m_used: u64,
    pacing_rate: f64, delivery_rate: f64, ca_state: String, dupacks: u64, sack_blocks: u64,
    retrans: u64, fast_retrans: u64, rtos: u64, send_stalls: u64, cwr_entries: u64, dsacks: u64,
    bytes_acked: u64, bytes_read: u64, bytes_written: u64, rounds: u64, snd_lim: String,
    lim_cwnd_s: f64, lim_rwnd_s: f64, lim_application_s: f64, lim_stall_s: f64, lim_pacing_s: f64,
    cwnd_min: f64, cwnd_max: f64, in_flight_min: u64, in_flight_max: u64,
);

fn secs(s: Option<Span>) -> f64 {
    s.map_or(f64::NAN, |s| s.as_secs_f64())
}

impl TcpColumns {
    fn push(&mut self, now: SimTime, flow: u32, s: &TcpSocket, r: &TcpSocket, ext: Option<Extremes>) {
        let snd = &s.snd;
        let sb = &snd.sb;
        let inflight = sb.pipe();
        self.t.push(now.as_secs_f64());
        self.flow.push(self.flow_names[flow as usize].clone());
        self.srtt.push(secs(s.rtt.srtt));
        self.rttvar.push(s.rtt.rttvar.as_secs_f64());
        self.rto.push(s.rtt.rto().as_secs_f64());
        self.min_rtt.push(secs(s.rtt.min_rtt));
        self.latest_rtt.push(secs(s.rtt.latest));
        self.cwnd.push(snd.w.cwnd);
        self.ssthresh.push(snd.w.ssthresh);
        self.in_flight.push(inflight);
        self.sacked_out.push(sb.sacked_out);
        self.lost_out.push(sb.lost_out);
        self.retrans_out.push(sb.retrans_out);
        self.bytes_in_flight.push(inflight * snd.mss as u64);
        self.snd_una.push(snd.snd_una);
        self.snd_nxt.push(snd.snd_max);
        self.snd_max.push(snd.snd_max);
        self.rwnd.push(snd.snd_wnd);
        self.rcv_wnd.push(r.rcv.rcv_wnd());
        self.m_used.push(r.rcv.m_used);
        self.pacing_rate.push(if s.pacing() == Pacing::Off { 0.0 } else { snd.pacing.bytes_per_s });
        self.delivery_rate.push(snd.rate.last.map_or(0.0, |r| r.delivery_rate_bytes_per_s));
        self.ca_state.push(snd.state.name().to_string());
        self.dupacks.push(snd.rec.dupacks as u64);
        self.sack_blocks.push(snd.stats.last_sack_blocks);
        self.retrans.push(snd.stats.retrans);
        self.fast_retrans.push(snd.stats.fast_retrans);
        self.rtos.push(snd.stats.rtos);
        self.send_stalls.push(snd.stats.send_stalls);
        self.cwr_entries.push(snd.stats.cwr_entries);
        self.dsacks.push(snd.stats.dsacks);
        self.bytes_acked.push(snd.stats.bytes_acked);
        self.bytes_read.push(r.rcv.bytes_read);
        // spec 04 §2.13 `app_tx_rate`: bytes the sender's application handed over.
        self.bytes_written.push(snd.app.written);
        self.rounds.push(snd.stats.rounds);
        self.snd_lim.push(snd.limits.current.name().to_string());
        let lt = snd.lim_time_at(now);
        self.lim_cwnd_s.push(lt[0].as_secs_f64());
        self.lim_rwnd_s.push(lt[1].as_secs_f64());
        self.lim_application_s.push(lt[2].as_secs_f64());
        self.lim_stall_s.push(lt[3].as_secs_f64());
        self.lim_pacing_s.push(lt[4].as_secs_f64());
        let e = ext.unwrap_or(Extremes::at(snd.w.cwnd, inflight));
        self.cwnd_min.push(e.cwnd_min);
        self.cwnd_max.push(e.cwnd_max);
        self.in_flight_min.push(e.inflight_min);
        self.in_flight_max.push(e.inflight_max);
        self.push_cc(snd.cc.as_ref());
    }

    fn push_cc(&mut self, cc: &dyn CongestionControl) {
        let names = cc.trace_names();
        let mut values = [f64::NAN; 4];
        cc.trace_values(&mut values[..names.len().min(4)]);
        let row = self.rows;
        self.rows += 1;
        for (name, v) in names.iter().zip(values) {
            let i = match self.cc.iter().position(|(n, _)| n.strip_prefix("cc_") == Some(name)) {
                Some(i) => i,
                None => {
                    self.cc.push((format!("cc_{name}"), vec![f64::NAN; row]));
                    self.cc.len() - 1
                }
            };
            self.cc[i].1.push(v);
        }
        for (_, c) in self.cc.iter_mut() {
            if c.len() == row {
                c.push(f64::NAN);
            }
        }
    }

    pub fn into_table(self) -> Table {
        let t = Table { name: "tcp".into(), columns: self.columns() };
        t.check();
        t
    }
}

pub mod columns_doc {
    //! Units (spec 06 §6): times in s; cwnd, ssthresh, in_flight, sacked_out,
    //! lost_out, retrans_out in segments; bytes_* , snd_*, rwnd, rcv_wnd, m_used in
    //! bytes (sequence numbers relative); pacing_rate in B/s (0 when unpaced);
    //! delivery_rate in B/s (the latest spec 06 §4.2 sample, 0 before one);
    //! `cc_*` the algorithm's own variables (NaN where undefined);
    //! counters cumulative; `lim_*_s` cumulative seconds under each `snd_lim`.
}
