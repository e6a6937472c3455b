//! End of a run, in short stages (`finish`): close monitors, traces and
//! host counters, check the books (spec 06 §7 V5) and the sequence spaces,
//! and assemble the summary and tables.

use std::time::Instant;

use super::RunOutput;
use super::host::{host_written, FlowEnds, TcpFlow};
use super::world::World;
use crate::monitor::busy_idle::BusyColumns;
use crate::monitor::host_io::HostsColumns;
use crate::error::Error;
use crate::monitor::link_monitor::{FlowsColumns, QueuesColumns};
use crate::monitor::tcp_trace::TcpColumns;
use crate::monitor::packet_capture::PacketsColumns;
use crate::net::drop::DropCause;
use crate::host::qdisc::tcp_nic::TcpNicQdisc;
use crate::net::proc_stage::ProcStats;
use crate::engine::time::{SimTime, Span};
use crate::host::cpu::HostCpu;
use crate::host::tcp::socket::TcpSocket;
use crate::results::table::{Column, Table};
use crate::scenario::model::FlowSpec;
use crate::results::summary::{CaptureSummary, ConservationSummary, CpsSummary, FlowSummary, HostCpuSummary, CoreSummary, LimitedSummary, LinkLossSummary, HostNicSummary, NicStreamSummary, NicSummary, HostSummary, PathSummary, PausePortSummary, SwitchPauseSummary, QsFlowSummary, QsInterfaceSummary, QueueSummary, Summary, WebSummary};
use crate::scenario;
use crate::scenario::model::Scenario;

/// The run's tables, as the recorders hand them over.
#[derive(Default)]
struct Recorded {
    tcp: TcpColumns,
    hosts: HostsColumns,
    busy: BusyColumns,
    flows: FlowsColumns,
    queues: QueuesColumns,
    packets: PacketsColumns,
}

/// End a run in short stages: close the recorders, balance the books
/// (spec 06 §7 V5), summarise each flow, queue and component, and refuse the
/// run if an invariant does not hold.
pub fn finish(s: &Scenario, mut w: World, wall: Instant) -> Result<RunOutput, Error> {
    let end = w.net.end;
    let mut rec = Recorded { tcp: close_monitors_and_traces(&mut w), ..Recorded::default() };
    let hosts = close_hosts(&mut w, &mut rec);
    let nics = tcp_nic_reports(&w);
    drain_monitors(&mut w, &mut rec);
    // Books: emitted = delivered + dropped + queued + on links (frames and L3 bytes).
    // Settling releases what eager ports started by the end; the balance holds
    // either way (`sim::invariants`), settled it shows the occupancy at the end.
    for p in w.net.ports.iter_mut() {
        if let Some(q) = p.queue.eager() {
            q.settle(end);
        }
    }
    let ledger = w.ledger();
    let (b, on_links_frames, on_links_bytes) = (ledger.books, ledger.on_links_frames, ledger.on_links_bytes);
    let mut problems = ledger.problems;

    let duration = end.as_secs_f64();
    let mut objects_cols = ObjectsColumns::default();
    let flows = s.flow.iter().enumerate().map(|(fi, f)| flow_summary(&w, fi, f, duration, &mut problems, &mut objects_cols)).collect();
    let queues = queue_summaries(&w);
    if !problems.is_empty() {
        return Err(Error::Runtime(format!(
            "invariant violated at t = {end} (seed {}): {}",
            s.sim.seed.unwrap_or(1),
            problems.join("; ")
        )));
    }
    let (captures, pcaps) = close_captures(&mut w);
    let summary = Summary {
        scenario: s.sim.name.clone().unwrap_or_default(),
        seed: s.sim.seed.unwrap_or(1),
        duration_s: duration,
        wall_seconds: wall.elapsed().as_secs_f64(),
        events_executed: w.net.log.count(),
        data_packets: b.data_packets,
        event_hash: w.net.log.hash_hex(),
        flows,
        queues,
        hosts,
        nics,
        host_nics: host_nic_summaries(&w, duration),
        link_losses: link_loss_summaries(&mut w, end),
        reordered_frames: w.net.channels.iter().filter_map(|c| c.impaired.as_ref()).map(|im| im.impair.reordered).sum(),
        host_cpus: w.hosts.nodes.iter().filter_map(|h| Some(cpu_summary(&h.io.name, h.cpu.as_ref()?, end))).collect(),
        pause_ports: pause_port_summaries(&w, end),
        switch_pause: switch_pause_summaries(&w),
        switches: w.switches.iter().map(|rt| super::switch::summary(rt, &w.net.ports, &w.hosts.flow_names)).collect(),
        quickstart_interfaces: qs_interface_summaries(&w, end),
        ttl_drops: w.net.books.drops.get(DropCause::Ttl),
        conservation: ConservationSummary {
            frames_emitted: b.emitted_frames,
            frames_delivered: b.delivered_frames,
            frames_dropped: b.dropped_frames,
            frames_queued_at_end: b.queued_frames,
            frames_on_links_at_end: on_links_frames,
            frames_processing_at_end: b.processing_frames,
            frames_in_network_max: b.peak_in_network_frames,
            bytes_emitted: b.emitted_bytes,
            bytes_delivered: b.delivered_bytes,
            bytes_dropped: b.dropped_bytes,
            bytes_queued_at_end: b.queued_bytes,
            bytes_on_links_at_end: on_links_bytes,
            bytes_processing_at_end: b.processing_bytes,
            drops_by_cause: b.drops.by_name().map(|(name, n)| (name.to_string(), n)).collect(),
            holds: true,
        },
        captures,
        partial: None,
    };
    Ok(RunOutput {
        summary,
        flows: rec.flows.into_table(),
        tcp: rec.tcp.into_table(),
        queues: rec.queues.into_table(),
        packets: rec.packets.into_table(),
        hosts: rec.hosts.into_table(),
        busy: rec.busy.into_table(),
        objects: objects_cols.into_table(),
        scenario_toml: scenario::to_toml(s),
        pcaps,
    })
}

/// Close the link monitors and the connection traces at the end of the run;
/// returns the `tcp` table's columns.
fn close_monitors_and_traces(w: &mut World) -> TcpColumns {
    let end = w.net.end;
    for m in w.net.monitors.iter_mut() {
        let q = *w.net.ports[m.port as usize].queue.stats();
        m.finish(end, &q);
    }
    let mut cols = std::mem::take(&mut w.hosts.tcp_cols);
    for tr in w.hosts.traces.iter_mut() {
        let (a, b) = (&w.hosts.sockets[tr.sender as usize], &w.hosts.sockets[tr.receiver as usize]);
        tr.finish(end, a, b, &mut cols);
    }
    cols
}

/// Close each host's burstiness diagnostic and I/O counters (spec 03 §2.1,
/// spec 01 §2.6); returns the hosts' summaries.
fn close_hosts(w: &mut World, rec: &mut Recorded) -> Vec<HostSummary> {
    let end = w.net.end;
    for h in w.hosts.nodes.iter_mut() {
        if let Some(b) = h.busy.as_mut() {
            b.finish(end);
            b.drain_into(&mut rec.busy);
        }
    }
    let mut hosts = Vec::new();
    for h in 0..w.hosts.nodes.len() {
        let written = host_written(&w.hosts.sockets, &w.hosts.socket_host, h as u32);
        let io = &mut w.hosts.nodes[h].io;
        io.finish(end, written);
        io.drain_into(end, &mut rec.hosts);
        hosts.push(HostSummary {
            name: io.name.clone(),
            io: io.total,
            mem_app_bytes_per_s: io.model.m_app(&io.total, end.as_secs_f64().max(1e-12)),
        });
    }
    hosts
}

/// The report of each host whose qdisc is a TCP-aware NIC (spec 03 §2.10).
fn tcp_nic_reports(w: &World) -> Vec<NicSummary> {
    w.hosts.nodes
        .iter()
        .filter_map(|h| {
            let r = w.net.ports[h.port as usize].queue.disc()?.as_any().downcast_ref::<TcpNicQdisc>()?.report();
            let streams = r
                .streams
                .iter()
                .map(|st| NicStreamSummary { entry: st.entry, flow: w.hosts.flow_names.get(st.flow as usize).cloned(), totals: st.totals })
                .collect();
            Some(NicSummary { host: h.io.name.clone(), ring_blocks: r.ring_blocks, shared_packets: r.shared_packets, streams })
        })
        .collect()
}

/// The monitors' `flows`, `queues` and `packets` rows.
fn drain_monitors(w: &mut World, rec: &mut Recorded) {
    for m in w.net.monitors.iter_mut() {
        m.drain_into(&w.hosts.flow_names, &mut rec.flows, &mut rec.queues);
        m.capture.drain_into(&m.name, &w.hosts.flow_names, &mut rec.packets);
    }
}

/// Flow `fi`'s summary; a sequence-space invariant that does not hold is a problem.
fn flow_summary(w: &World, fi: usize, f: &FlowSpec, duration: f64, problems: &mut Vec<String>, objects: &mut ObjectsColumns) -> FlowSummary {
    let start = f.start.map_or(0.0, |t| t.span.as_secs_f64());
    let active = (duration - start).max(1e-12);
    match w.hosts.flows[fi] {
        FlowEnds::Tcp(t) => tcp_flow_summary(w, t, f, start, active, problems),
        FlowEnds::Web(wi) => web_summary(w, wi, f, active, problems, objects),
        FlowEnds::Udp(_) => {
            let (bytes, _) = w.hosts.udp_delivered[fi];
            FlowSummary {
                name: f.name.clone(),
                kind: "udp_cbr".into(),
                goodput_bps: bytes as f64 * 8.0 / active,
                bytes_delivered: bytes,
                ..Default::default()
            }
        }
    }
}

/// A `tcp_bulk` or `request_response` flow's summary, with the spec 06 §7 V5
/// sequence-space checks.
fn tcp_flow_summary(w: &World, t: TcpFlow, f: &FlowSpec, start: f64, active: f64, problems: &mut Vec<String>) -> FlowSummary {
    // The data goes initiator → acceptor, or server → client for request_response.
    let (si, ri) = if t.app.is_some() { (t.acceptor, t.initiator) } else { (t.initiator, t.acceptor) };
    let snd = &w.hosts.sockets[si as usize];
    let rcv = &w.hosts.sockets[ri as usize];
    let rr = t.app.map(|a| w.hosts.rr_apps[a as usize]);
    if let Some(r) = rr {
        // The request direction keeps the same sequence-space invariant.
        let (c, sv) = (&w.hosts.sockets[r.client as usize], &w.hosts.sockets[r.server as usize]);
        if !(c.snd.snd_una <= sv.rcv.rcv_nxt && sv.rcv.rcv_nxt <= c.snd.snd_max) {
            problems.push(format!("flow {}: request sequence space does not hold", f.name));
        }
    }
    // spec 06 §7 V5: snd_una ≤ rcv_nxt ≤ snd_max; each byte reaches the application once.
    if !(snd.snd.snd_una <= rcv.rcv.rcv_nxt && rcv.rcv.rcv_nxt <= snd.snd.snd_max) {
        problems.push(format!(
            "flow {}: sequence space snd_una {} ≤ rcv_nxt {} ≤ snd_max {} does not hold",
            f.name, snd.snd.snd_una, rcv.rcv.rcv_nxt, snd.snd.snd_max
        ));
    }
    if rcv.rcv.bytes_read + rcv.rcv.readable() != rcv.rcv.rcv_nxt {
        problems.push(format!("flow {}: bytes read {} + unread {} ≠ rcv_nxt {}", f.name, rcv.rcv.bytes_read, rcv.rcv.readable(), rcv.rcv.rcv_nxt));
    }
    let st = snd.snd.stats;
    FlowSummary {
        name: f.name.clone(),
        kind: if rr.is_some() { "request_response" } else { "tcp_bulk" }.into(),
        goodput_bps: rcv.rcv.bytes_read as f64 * 8.0 / active,
        bytes_delivered: rcv.rcv.bytes_read,
        retransmitted_segments: st.retrans,
        timeouts: st.rtos,
        fast_retransmits: st.fast_retrans,
        // Both ends' handshake retransmissions: the SYN's and the SYN-ACK's.
        syn_retransmits: st.syn_retrans + rcv.snd.stats.syn_retrans,
        tlp_probes: st.tlp_probes,
        tlp_recoveries: st.tlp_recoveries,
        lost_retransmits: st.lost_retransmits,
        rcvbuf_drops: rcv.rcv.rcvbuf_drops,
        completion_s: snd.completed_at.map(|t| t.as_secs_f64()),
        cps: snd.cps.as_ref().map(|c| CpsSummary { handover_s: c.handover_at.map(|t| t.as_secs_f64()), spaced_rounds: c.spaced_rounds }),
        response_time_s: rr.and_then(|r| r.response_done_at).map(|t| t.as_secs_f64() - start),
        quickstart: qs_summary(snd, rcv),
        web: None,
        limited_s: Some(limited_summary(snd, w.net.now)),
        slow_start_exit_s: st.slow_start_exit.map(|(t, _)| t.as_secs_f64()),
        slow_start_exit_cwnd: st.slow_start_exit.map(|(_, cwnd)| cwnd),
        min_rtt_s: snd.rtt.min_rtt.map(|r| r.as_secs_f64()),
        path: path_summary(w, snd),
    }
}

/// The data sender's time under each sending limit up to `now` (issue 40).
fn limited_summary(snd: &TcpSocket, now: SimTime) -> LimitedSummary {
    let t = snd.snd.lim_detail_time_at(now).map(|s| s.as_secs_f64());
    let [slow_start, recovery, congestion_avoidance, rwnd, sndbuf, application, pacing, stall] = t;
    LimitedSummary { slow_start, recovery, congestion_avoidance, rwnd, sndbuf, application, pacing, stall }
}

/// The route of a sender's data and of its ACKs back (`sim::path`): hops,
/// bottleneck, wire bound and propagation RTT.
fn path_summary(w: &World, snd: &TcpSocket) -> Option<PathSummary> {
    let (from, to) = (snd.addr.local, snd.addr.remote);
    let data = super::path::route(w, from, to)?;
    let acks = super::path::route(w, to, from)?;
    let b = &w.net.ports[data.bottleneck(w)? as usize];
    let mss = snd.snd.mss;
    let frame = crate::net::phy::l2_bytes(snd.data_l3_bytes() as u64, false) + b.framing_bytes as u64;
    Some(PathSummary {
        hops: data.ports.iter().map(|&p| w.net.ports[p as usize].name.clone()).collect(),
        bottleneck: b.name.clone(),
        bottleneck_bps: b.rate_bps,
        wire_bound_bps: b.rate_bps as f64 * mss as f64 / frame as f64,
        base_rtt_s: (data.one_way + acks.one_way).as_secs_f64(),
        mss_bytes: mss,
    })
}

/// Each egress queue's counts, drops by cause and peak.
fn queue_summaries(w: &World) -> Vec<QueueSummary> {
    w.net.ports
        .iter()
        .map(|p| {
            let st = p.queue.stats();
            let by = st.drops.by_name().map(|(name, n)| (name.to_string(), n)).collect();
            QueueSummary { name: p.name.clone(), enqueued: st.enqueued, dropped: st.drops.total(), drops_by_cause: by, max_bytes: st.max_bytes }
        })
        .collect()
}

/// Close the pcap taps: their summaries and files.
fn close_captures(w: &mut World) -> (Vec<CaptureSummary>, Vec<(String, Vec<u8>)>) {
    let mut pcaps = Vec::new();
    let mut captures = Vec::new();
    for tap in std::mem::take(&mut w.net.taps) {
        let file = format!("{}.pcap", tap.name());
        captures.push(CaptureSummary { name: tap.name().to_string(), file: file.clone(), frames: tap.frames(), pause_frames: tap.pause_frames, missed: tap.missed });
        pcaps.push((file, tap.finish()));
    }
    (captures, pcaps)
}

/// The NIC pipeline of each host that has one (spec 04 §2.4–2.6).
fn host_nic_summaries(w: &World, duration: f64) -> Vec<HostNicSummary> {
    w.hosts.nodes
        .iter()
        .filter_map(|h| {
            let n = h.nic.as_ref()?;
            let g = n.xoff.as_ref();
            Some(HostNicSummary {
                host: h.io.name.clone(),
                rx_frames: n.rx.stats.frames,
                rx_fifo_drop: n.rx.stats.fifo_drops,
                rx_fifo_max_bytes: n.rx.stats.fifo_max_bytes,
                rx_ring_max: n.rx.stats.ring_max,
                tx_frames: n.tx.stats.frames,
                tx_ring_max: n.tx.stats.ring_max,
                tx_fifo_max_bytes: n.tx.stats.fifo_max_bytes,
                bus_busy_fraction: n.bus.as_ref().map(|b| b.busy.as_secs_f64() / duration.max(1e-12)),
                pause_xoff_sent: g.map_or(0, |g| g.sent_xoff),
                pause_xon_sent: g.map_or(0, |g| g.sent_xon),
                tx_rate_cap_bps: n.tx.cap.as_ref().map(|c| c.cfg.cap_bps),
                tx_rate_cap_clamped: n.cap_clamped,
            })
        })
        .collect()
}

/// Each link loss model's drops and, for Gilbert–Elliott, its time Bad and
/// its transitions (spec 04 §2.12).
fn link_loss_summaries(w: &mut World, end: SimTime) -> Vec<LinkLossSummary> {
    let ports = &w.net.ports;
    w.net.losses
        .iter_mut()
        .enumerate()
        .filter_map(|(c, l)| {
            let l = l.as_mut()?;
            let name = ports.iter().find(|p| p.channel == c as u32).map_or_else(String::new, |p| p.name.clone());
            // bad_time(end) advances the state to the end of the run, no further.
            let bad_s = l.ge.as_mut().map(|g| g.bad_time(end).as_secs_f64());
            let transitions = l.ge.as_ref().map_or_else(Vec::new, |g| g.transitions.iter().map(|(t, bad)| (t.as_secs_f64(), *bad)).collect());
            Some(LinkLossSummary { link: name, dropped: l.dropped, bad_s, transitions })
        })
        .collect()
}

/// Ports that honour PAUSE (spec 04 §2.5).
fn pause_port_summaries(w: &World, end: SimTime) -> Vec<PausePortSummary> {
    w.net.ports
        .iter()
        .filter_map(|p| {
            let h = p.fc.as_ref()?.honour.as_ref()?;
            Some(PausePortSummary {
                name: p.name.clone(),
                pause_received: h.received_xoff,
                pause_zero_received: h.received_xon,
                paused_s: h.paused_time(end).as_secs_f64(),
            })
        })
        .collect()
}

/// Ingress ports of switches and routers that generate PAUSE (spec 04 §2.5).
fn switch_pause_summaries(w: &World) -> Vec<SwitchPauseSummary> {
    w.net.ingress_fc
        .iter()
        .flatten()
        .flat_map(|fc| fc.ports.iter().flatten())
        .map(|a| SwitchPauseSummary {
            name: w.net.ports[a.port as usize].name.clone(),
            pause_xoff_sent: a.xoff.sent_xoff,
            pause_xon_sent: a.xoff.sent_xon,
            held_max_bytes: a.held_max_bytes,
        })
        .collect()
}

/// Each interface with a Quick-Start router function (spec 02 §2.5).
fn qs_interface_summaries(w: &World, end: SimTime) -> Vec<QsInterfaceSummary> {
    w.net.ports
        .iter()
        .filter_map(|p| {
            let q = p.qs.as_ref()?;
            let proc = p.proc.as_ref().map_or_else(ProcStats::default, |st| st.stats(end.since(SimTime::ZERO)));
            Some(QsInterfaceSummary { name: p.name.clone(), counters: q.counters(), proc })
        })
        .collect()
}

/// The data sender's Quick-Start state and the receiver's echo counters.
fn qs_summary(snd: &TcpSocket, rcv: &TcpSocket) -> Option<QsFlowSummary> {
    let q = snd.qs.as_ref()?.sender.as_ref()?;
    let st = q.stats;
    let echo = rcv.qs.as_ref().map(|r| r.echo);
    Some(QsFlowSummary {
        state: q.state.as_str().into(),
        requests: st.requests,
        approvals: st.approvals(),
        nonce_failures: st.nonce_failures,
        not_useful: st.not_useful,
        reports_sent: st.reports_sent,
        requested_code: st.last_requested,
        approved_code: st.last_approved,
        w_qs: st.last_w_qs,
        qs_pkts_sent: st.last_qs_pkts_sent,
        outcome: st.last_outcome.map(|o| o.as_str().into()),
        qs_start_s: st.last_qs_start.map(|t| t.as_secs_f64()),
        echoed: echo.map_or(0, |e| e.echoed),
        echo_no_space: echo.map_or(0, |e| e.no_space),
    })
}

/// `objects.parquet`: one row per completed Web object (spec 02 §3.2.1).
#[derive(Default)]
struct ObjectsColumns {
    flow: Vec<String>,
    user: Vec<u64>,
    object: Vec<u64>,
    files: Vec<u64>,
    bytes: Vec<u64>,
    start_s: Vec<f64>,
    end_s: Vec<f64>,
    download_s: Vec<f64>,
    connections: Vec<u64>,
}

impl ObjectsColumns {
    fn into_table(self) -> Table {
        Table::new(
            "objects",
            vec![
                ("flow", Column::Str(self.flow)),
                ("user", Column::U64(self.user)),
                ("object", Column::U64(self.object)),
                ("files", Column::U64(self.files)),
                ("bytes", Column::U64(self.bytes)),
                ("start_s", Column::F64(self.start_s)),
                ("end_s", Column::F64(self.end_s)),
                ("download_s", Column::F64(self.download_s)),
                ("connections", Column::U64(self.connections)),
            ],
        )
    }
}

/// A Web flow's summary and object rows; checks every connection's sequence space.
fn web_summary(w: &World, wi: u32, f: &FlowSpec, active: f64, problems: &mut Vec<String>, cols: &mut ObjectsColumns) -> FlowSummary {
    let rt = &w.hosts.web[wi as usize];
    let (mut delivered, mut retrans, mut rtos, mut fast, mut rcvbuf, mut syn) = (0, 0, 0, 0, 0, 0);
    let (mut tlp, mut tlp_rec, mut lost_rx) = (0, 0, 0);
    let (mut req, mut full, mut reduced, mut refused, mut approved_bps, mut approved_max) = (0, 0, 0, 0, 0u64, 0u8);
    for &(c, sv) in &rt.sockets {
        let (c, sv) = (&w.hosts.sockets[c as usize], &w.hosts.sockets[sv as usize]);
        for (a, b, what) in [(sv, c, "response"), (c, sv, "request")] {
            if !(a.snd.snd_una <= b.rcv.rcv_nxt && b.rcv.rcv_nxt <= a.snd.snd_max) {
                problems.push(format!("flow {} connection {}: {what} sequence space does not hold", f.name, c.addr.conn));
            }
        }
        // Liveness: the server has answered every request that reached it whole.
        if let Some(n) = rt.workload.unanswered(c.addr.conn, sv.rcv.rcv_nxt) {
            problems.push(format!("flow {} connection {}: {n} request(s) arrived but were never answered", f.name, c.addr.conn));
        }
        delivered += c.rcv.bytes_read;
        retrans += sv.snd.stats.retrans;
        rtos += sv.snd.stats.rtos;
        fast += sv.snd.stats.fast_retrans;
        tlp += sv.snd.stats.tlp_probes;
        tlp_rec += sv.snd.stats.tlp_recoveries;
        lost_rx += sv.snd.stats.lost_retransmits;
        syn += c.snd.stats.syn_retrans + sv.snd.stats.syn_retrans;
        rcvbuf += c.rcv.rcvbuf_drops + sv.rcv.rcvbuf_drops;
        if let Some(q) = sv.qs.as_ref().and_then(|q| q.sender.as_ref()) {
            let st = q.stats;
            req += st.requests;
            full += st.approved_full;
            reduced += st.approved_reduced;
            approved_bps += st.approved_bps;
            approved_max = approved_max.max(st.approved_max);
            // Requests without a valid approval (an outstanding request is not yet refused).
            refused += st.requests - st.approvals() - u64::from(q.state == crate::quickstart::sender::QsState::ReqSent);
        }
    }
    let recs = &rt.workload.records;
    for r in recs {
        cols.flow.push(f.name.clone());
        cols.user.push(r.user as u64);
        cols.object.push(r.object as u64);
        cols.files.push(r.files as u64);
        cols.bytes.push(r.bytes);
        cols.start_s.push(r.start.as_secs_f64());
        cols.end_s.push(r.end.as_secs_f64());
        cols.download_s.push(r.end.since(r.start).as_secs_f64());
        cols.connections.push(r.connections as u64);
    }
    let stats = rt.workload.catalogue().stats();
    FlowSummary {
        name: f.name.clone(),
        kind: "web".into(),
        goodput_bps: delivered as f64 * 8.0 / active,
        bytes_delivered: delivered,
        retransmitted_segments: retrans,
        timeouts: rtos,
        fast_retransmits: fast,
        syn_retransmits: syn,
        tlp_probes: tlp,
        tlp_recoveries: tlp_rec,
        lost_retransmits: lost_rx,
        rcvbuf_drops: rcvbuf,
        completion_s: None,
        cps: None,
        response_time_s: None,
        quickstart: None,
        web: Some(WebSummary {
            users: f.users.unwrap_or(1),
            http: rt.workload.variant.as_str().into(),
            web_model: f.web_model.clone().unwrap_or_default(),
            objects: recs.len() as u64,
            connections: rt.sockets.len() as u64,
            mean_download_s: (!recs.is_empty()).then(|| recs.iter().map(|r| r.end.since(r.start).as_secs_f64()).sum::<f64>() / recs.len() as f64),
            qs_requests: req,
            qs_approved_full: full,
            qs_approved_reduced: reduced,
            qs_refused: refused,
            qs_approved_mean_bps: (full + reduced > 0).then(|| approved_bps as f64 / (full + reduced) as f64),
            qs_approved_max_bps: (approved_max > 0).then(|| crate::quickstart::rate::rate_bps(approved_max)),
            files: stats.files,
            catalogue_objects: stats.objects,
            mean_file_bytes: stats.mean_file_bytes,
            median_file_bytes: stats.median_file_bytes,
            mean_object_bytes: stats.mean_object_bytes,
            median_object_bytes: stats.median_object_bytes,
        }),
        ..Default::default()
    }
}

/// A host CPU over the run (spec 04 §2.13 CPU per core and category).
fn cpu_summary(host: &str, c: &HostCpu, end: SimTime) -> HostCpuSummary {
    let run = end.since(SimTime::ZERO).as_secs_f64().max(1e-12);
    let cores = c
        .cores
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let f = |s: Span| s.as_secs_f64() / run;
            let (user, system, softirq) = (f(k.busy.user), f(k.busy.system), f(k.busy.softirq));
            CoreSummary {
                core: i as u32,
                user,
                system,
                softirq,
                idle: (1.0 - user - system - softirq).max(0.0),
                items: k.items,
                bins_user_s: k.bins.iter().map(|b| b.user.as_secs_f64()).collect(),
                bins_system_s: k.bins.iter().map(|b| b.system.as_secs_f64()).collect(),
                bins_softirq_s: k.bins.iter().map(|b| b.softirq.as_secs_f64()).collect(),
            }
        })
        .collect();
    let st = c.stats;
    HostCpuSummary {
        host: host.to_string(),
        freq_ghz: c.cfg.freq_ghz,
        bin_s: c.bin.as_secs_f64(),
        interrupts: c.irq.irqs,
        polls: st.polls,
        rx_frames: st.rx_frames,
        tx_cleaned: st.tx_cleaned,
        packets_built: st.packets_built,
        writes: st.writes,
        reads: st.reads,
        bytes_written: st.bytes_written,
        bytes_read: st.bytes_read,
        cores,
    }
}
