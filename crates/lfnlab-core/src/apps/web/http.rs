//! Web users and a lighttpd-like server over real TCP connections (spec 02
//! §3.2.1, §3.2.4, §3.2.5). Sans-IO: the world tells the workload about
//! deliveries and timer expiries with `now`; the workload answers with
//! actions (open a connection, write bytes at the client or the server,
//! close) and keeps the object download records.
//!
//! Byte streams: a connection's client → server stream is the concatenation
//! of its requests, the server → client stream that of its responses; the
//! application knows each message's length (HTTP Content-Length), so a
//! response is complete when the client's in-order bytes reach its end.

use std::collections::VecDeque;
use std::str::FromStr;

use super::catalogue::Catalogue;
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};

/// spec 02 §3.2.5: request size, response headers, keep-alive limits.
pub const REQUEST_BYTES: u64 = 150;
pub const RESPONSE_HEADER_BYTES: u64 = 250;
pub const KEEPALIVE_MAX_REQUESTS: u32 = 16;
pub const KEEPALIVE_IDLE: Span = Span::from_secs(5);

/// The HTTP variant of spec 02 §3.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpVariant {
    /// One connection per file; files of an object one after the other.
    Http10,
    /// One persistent connection per user, one request outstanding.
    Http11,
    /// As `Http11`, embedded files requested back to back after the base file.
    Http11Pipe,
}

impl HttpVariant {
    pub const NAMES: &'static [&'static str] = &["http10", "http11", "http11_pipe"];
    pub fn as_str(self) -> &'static str {
        match self {
            HttpVariant::Http10 => "http10",
            HttpVariant::Http11 => "http11",
            HttpVariant::Http11Pipe => "http11_pipe",
        }
    }
}

impl FromStr for HttpVariant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "http10" => Ok(HttpVariant::Http10),
            "http11" => Ok(HttpVariant::Http11),
            "http11_pipe" => Ok(HttpVariant::Http11Pipe),
            _ => Err(format!("one of {}", Self::NAMES.join(", "))),
        }
    }
}

/// What the world must do for the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebAction {
    /// Create connection `conn` (client and server sockets) and send the SYN.
    Open { conn: u32 },
    /// The client application writes `bytes` more on `conn`.
    ClientWrite { conn: u32, bytes: u64 },
    /// The server application writes `bytes` more on `conn`.
    ServerWrite { conn: u32, bytes: u64 },
    /// The server closed `conn`: neither end writes on it again.
    Close { conn: u32 },
}

/// One finished object download (spec 02 §3.2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectRecord {
    pub user: u32,
    pub object: u32,
    pub files: u32,
    /// Body bytes of all files.
    pub bytes: u64,
    /// Start of the object's first transaction (for a new connection: the SYN).
    pub start: SimTime,
    /// Arrival of the last byte of the object's last file.
    pub end: SimTime,
    /// Connections opened for this object.
    pub connections: u32,
}

/// A request in flight on a connection: where it ends in the request stream,
/// its response length and where that ends in the response stream.
#[derive(Clone, Copy, Debug)]
struct Exchange {
    req_end: u64,
    resp_bytes: u64,
    resp_end: u64,
    /// The server has written the response.
    answered: bool,
}

#[derive(Clone, Debug)]
struct Conn {
    user: u32,
    req_written: u64,
    resp_written: u64,
    requests: u32,
    inflight: VecDeque<Exchange>,
    /// Last request or response activity, for the keep-alive idle timeout.
    last_activity: SimTime,
}

#[derive(Clone, Debug)]
enum Phase {
    /// Thinking (or not yet started) until this time.
    Off(SimTime),
    /// Downloading `object`: files `next..` not yet requested, `done` complete.
    Fetching { object: u32, next: u32, done: u32, start: SimTime, connections: u32 },
}

#[derive(Clone, Debug)]
struct User {
    phase: Phase,
    /// The user's persistent connection (HTTP/1.1), if open.
    conn: Option<u32>,
}

/// The workload of one `[[flow]] kind = "web"`.
pub struct WebWorkload {
    pub variant: HttpVariant,
    catalogue: Catalogue,
    users: Vec<User>,
    conns: Vec<Conn>,
    /// Ids of the open connections, ascending: the timers look only at these
    /// (a run opens thousands of connections, few are open at a time).
    open: Vec<u32>,
    pick: Stream,
    think: Stream,
    pub records: Vec<ObjectRecord>,
}

impl WebWorkload {
    /// `users` users; each starts after one think time from `start` (CHOICE:
    /// desynchronizes the users).
    pub fn new(variant: HttpVariant, catalogue: Catalogue, users: u32, start: SimTime, pick: Stream, mut think: Stream) -> WebWorkload {
        let users = (0..users).map(|_| User { phase: Phase::Off(start + catalogue.think_time(&mut think)), conn: None }).collect();
        WebWorkload { variant, catalogue, users, conns: Vec::new(), open: Vec::new(), pick, think, records: Vec::new() }
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// Earliest time the workload has something to do.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let users = self.users.iter().filter_map(|u| match u.phase {
            Phase::Off(t) => Some(t),
            Phase::Fetching { .. } => None,
        });
        let idle = self.open.iter().map(|&c| &self.conns[c as usize]).filter(|c| c.inflight.is_empty()).map(|c| c.last_activity + KEEPALIVE_IDLE);
        users.chain(idle).min()
    }

    /// Timers due at `now`: users that stop thinking, idle connections the server closes.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<WebAction>) {
        let mut k = 0;
        while k < self.open.len() {
            let ci = self.open[k];
            let c = &self.conns[ci as usize];
            if c.inflight.is_empty() && c.last_activity + KEEPALIVE_IDLE <= now {
                self.close(ci, out); // removes open[k]
            } else {
                k += 1;
            }
        }
        for u in 0..self.users.len() {
            if matches!(self.users[u].phase, Phase::Off(t) if t <= now) {
                let object = self.catalogue.pick_object(&mut self.pick) as u32;
                self.users[u].phase = Phase::Fetching { object, next: 0, done: 0, start: now, connections: 0 };
                self.request_next(u as u32, now, out);
            }
        }
    }

    fn close(&mut self, conn: u32, out: &mut Vec<WebAction>) {
        let Ok(k) = self.open.binary_search(&conn) else { return };
        self.open.remove(k);
        let u = self.conns[conn as usize].user as usize;
        if self.users[u].conn == Some(conn) {
            self.users[u].conn = None;
        }
        out.push(WebAction::Close { conn });
    }

    /// A connection the user may send a request on now, opening one if needed.
    fn connection_for(&mut self, user: u32, now: SimTime, out: &mut Vec<WebAction>) -> u32 {
        let reuse = match self.variant {
            HttpVariant::Http10 => None,
            // A user's connection is open until `close` clears it.
            HttpVariant::Http11 | HttpVariant::Http11Pipe => {
                self.users[user as usize].conn.filter(|&c| self.conns[c as usize].requests < KEEPALIVE_MAX_REQUESTS)
            }
        };
        if let Some(c) = reuse {
            return c;
        }
        let conn = self.conns.len() as u32;
        self.conns.push(Conn { user, req_written: 0, resp_written: 0, requests: 0, inflight: VecDeque::new(), last_activity: now });
        self.open.push(conn);
        if self.variant != HttpVariant::Http10 {
            self.users[user as usize].conn = Some(conn);
        }
        if let Phase::Fetching { connections, .. } = &mut self.users[user as usize].phase {
            *connections += 1;
        }
        out.push(WebAction::Open { conn });
        conn
    }

    /// Send the user's next request(s) (spec 02 §3.2.4).
    fn request_next(&mut self, user: u32, now: SimTime, out: &mut Vec<WebAction>) {
        let Phase::Fetching { object, next, .. } = self.users[user as usize].phase else { return };
        let files = self.catalogue.object_files(object as usize).len() as u32;
        if next >= files {
            return;
        }
        // Pipelining: after the base file every embedded GET goes at once
        // (as many as the connection's keep-alive budget allows).
        let burst = if self.variant == HttpVariant::Http11Pipe && next >= 1 { files - next } else { 1 };
        let conn = self.connection_for(user, now, out);
        let room = KEEPALIVE_MAX_REQUESTS - self.conns[conn as usize].requests;
        let n = burst.min(room).max(1);
        let mut bytes = 0;
        for k in 0..n {
            let size = self.catalogue.object_files(object as usize)[(next + k) as usize];
            let c = &mut self.conns[conn as usize];
            c.req_written += REQUEST_BYTES;
            bytes += REQUEST_BYTES;
            c.requests += 1;
            let resp_bytes = RESPONSE_HEADER_BYTES + size;
            let resp_end = c.inflight.back().map_or(c.resp_written, |e| e.resp_end) + resp_bytes;
            c.inflight.push_back(Exchange { req_end: c.req_written, resp_bytes, resp_end, answered: false });
            c.last_activity = now;
        }
        if let Phase::Fetching { next, .. } = &mut self.users[user as usize].phase {
            *next += n;
        }
        out.push(WebAction::ClientWrite { conn, bytes });
    }

    /// Requests on `conn` that arrived whole at the server (`server_read`
    /// bytes) but were not answered: a liveness invariant checked at the end
    /// of a run (None when there are none).
    pub fn unanswered(&self, conn: u32, server_read: u64) -> Option<usize> {
        let n = self.conns.get(conn as usize)?.inflight.iter().filter(|e| !e.answered && e.req_end <= server_read).count();
        (n > 0).then_some(n)
    }

    /// In-order bytes on `conn` now delivered at the server (`server_read`)
    /// and at the client (`client_read`).
    pub fn on_delivery(&mut self, now: SimTime, conn: u32, server_read: u64, client_read: u64, out: &mut Vec<WebAction>) {
        let ci = conn as usize;
        // Server: answer every request that has fully arrived, in order
        // (earlier pipelined ones may be answered and still in flight).
        let mut write = 0;
        for e in self.conns[ci].inflight.iter_mut().skip_while(|e| e.answered) {
            if server_read < e.req_end {
                break;
            }
            e.answered = true;
            write += e.resp_bytes;
        }
        if write > 0 {
            let c = &mut self.conns[ci];
            c.resp_written += write;
            c.last_activity = now;
            out.push(WebAction::ServerWrite { conn, bytes: write });
        }
        // Client: complete responses, in order.
        let user = self.conns[ci].user;
        let mut completed = 0;
        while let Some(e) = self.conns[ci].inflight.front() {
            if !e.answered || client_read < e.resp_end {
                break;
            }
            self.conns[ci].inflight.pop_front();
            self.conns[ci].last_activity = now;
            completed += 1;
        }
        if completed == 0 {
            return;
        }
        let c = &self.conns[ci];
        // The server closes after the response (HTTP/1.0) or after the last
        // request the keep-alive limit allows.
        if self.variant == HttpVariant::Http10 || (c.requests >= KEEPALIVE_MAX_REQUESTS && c.inflight.is_empty()) {
            self.close(conn, out);
        }
        self.on_files_done(user, completed, now, out);
    }

    fn on_files_done(&mut self, user: u32, completed: u32, now: SimTime, out: &mut Vec<WebAction>) {
        let Phase::Fetching { object, next, done, start, connections } = &mut self.users[user as usize].phase else { return };
        *done += completed;
        let files = self.catalogue.object_files(*object as usize).len() as u32;
        if *done >= files {
            let bytes = self.catalogue.object_bytes(*object as usize);
            self.records.push(ObjectRecord { user, object: *object, files, bytes, start: *start, end: now, connections: *connections });
            let think = self.catalogue.think_time(&mut self.think);
            self.users[user as usize].phase = Phase::Off(now + think);
            return;
        }
        // Sequential variants ask for the next file when the previous one is
        // complete; pipelining asks for what is left once nothing is in flight.
        if *next == *done {
            self.request_next(user, now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::web::{CatalogueConfig, WebModel};

    fn workload(variant: HttpVariant) -> WebWorkload {
        seeded(variant, 1)
    }

    /// One user of the large-files model, every stream from `seed`.
    fn seeded(variant: HttpVariant, seed: u64) -> WebWorkload {
        let cfg = CatalogueConfig::for_model(WebModel::LargeFiles);
        let cat = Catalogue::build(&cfg, &mut Stream::derive(seed, "cat"));
        WebWorkload::new(variant, cat, 1, SimTime::ZERO, Stream::derive(seed, "pick"), Stream::derive(seed, "think"))
    }

    /// Drive one user through one object with instant delivery; returns the actions.
    fn fetch_one(w: &mut WebWorkload) -> Vec<WebAction> {
        let mut all = Vec::new();
        let t0 = w.next_deadline().unwrap();
        let mut out = Vec::new();
        w.on_timer(t0, &mut out);
        let mut req = std::collections::BTreeMap::<u32, u64>::new();
        let mut resp = std::collections::BTreeMap::<u32, u64>::new();
        let mut now = t0;
        for _ in 0..10_000 {
            if out.is_empty() {
                break;
            }
            let acts: Vec<WebAction> = std::mem::take(&mut out);
            all.extend(acts.iter().copied());
            for a in acts {
                now = now + Span::from_ms(1);
                match a {
                    WebAction::ClientWrite { conn, bytes } => {
                        *req.entry(conn).or_default() += bytes;
                        let (r, s) = (req[&conn], resp.get(&conn).copied().unwrap_or(0));
                        w.on_delivery(now, conn, r, s, &mut out);
                    }
                    WebAction::ServerWrite { conn, bytes } => {
                        *resp.entry(conn).or_default() += bytes;
                        let (r, s) = (req[&conn], resp[&conn]);
                        w.on_delivery(now, conn, r, s, &mut out);
                    }
                    WebAction::Open { .. } | WebAction::Close { .. } => {}
                }
            }
        }
        all
    }

    #[test]
    fn http10_opens_one_connection_per_file() {
        let mut w = workload(HttpVariant::Http10);
        let acts = fetch_one(&mut w);
        let r = w.records[0];
        let opens = acts.iter().filter(|a| matches!(a, WebAction::Open { .. })).count() as u32;
        let closes = acts.iter().filter(|a| matches!(a, WebAction::Close { .. })).count() as u32;
        assert_eq!((opens, closes, r.connections), (r.files, r.files, r.files));
        // Each request is 150 B; each response 250 B + the file.
        let resp: u64 = acts.iter().filter_map(|a| if let WebAction::ServerWrite { bytes, .. } = a { Some(*bytes) } else { None }).sum();
        assert_eq!(resp, r.bytes + RESPONSE_HEADER_BYTES * r.files as u64);
    }

    #[test]
    fn http11_reuses_one_connection_and_sends_one_request_at_a_time() {
        let mut w = workload(HttpVariant::Http11);
        let acts = fetch_one(&mut w);
        let r = w.records[0];
        assert_eq!(r.connections, 1);
        let writes: Vec<u64> = acts.iter().filter_map(|a| if let WebAction::ClientWrite { bytes, .. } = a { Some(*bytes) } else { None }).collect();
        assert_eq!(writes.len() as u32, r.files);
        assert!(writes.iter().all(|&b| b == REQUEST_BYTES));
    }

    #[test]
    fn pipelining_sends_the_embedded_requests_together() {
        // Find a seed whose first object is compound.
        for seed in 1..50 {
            let mut w = seeded(HttpVariant::Http11Pipe, seed);
            let acts = fetch_one(&mut w);
            let r = w.records[0];
            if r.files < 3 {
                continue;
            }
            let writes: Vec<u64> = acts.iter().filter_map(|a| if let WebAction::ClientWrite { bytes, .. } = a { Some(*bytes) } else { None }).collect();
            assert_eq!(writes, vec![REQUEST_BYTES, REQUEST_BYTES * (r.files as u64 - 1)]);
            return;
        }
        panic!("no compound object in 50 seeds");
    }

    #[test]
    fn server_answers_pipelined_requests_that_arrive_in_pieces() {
        for seed in 1..50 {
            let mut w = seeded(HttpVariant::Http11Pipe, seed);
            let mut out = Vec::new();
            let t0 = w.next_deadline().unwrap();
            w.on_timer(t0, &mut out);
            let files = match w.users[0].phase {
                Phase::Fetching { object, .. } => w.catalogue.object_files(object as usize).len() as u64,
                Phase::Off(_) => unreachable!(),
            };
            if files < 3 {
                continue;
            }
            // The base file's request and response complete.
            assert!(matches!(out.as_slice(), [WebAction::Open { .. }, WebAction::ClientWrite { .. }]), "{out:?}");
            out.clear();
            w.on_delivery(t0, 0, REQUEST_BYTES, 0, &mut out);
            let [WebAction::ServerWrite { bytes: base_resp, .. }] = out[..] else { panic!("{out:?}") };
            out.clear();
            w.on_delivery(t0, 0, REQUEST_BYTES, base_resp, &mut out);
            // The embedded requests arrive at the server in two pieces: the first
            // request alone, then the rest; the server answers each piece.
            assert!(matches!(out.as_slice(), [WebAction::ClientWrite { bytes, .. }] if *bytes == REQUEST_BYTES * (files - 1)));
            out.clear();
            w.on_delivery(t0, 0, 2 * REQUEST_BYTES, base_resp, &mut out);
            let first = out.iter().filter(|a| matches!(a, WebAction::ServerWrite { .. })).count();
            out.clear();
            w.on_delivery(t0, 0, files * REQUEST_BYTES, base_resp, &mut out);
            let rest = out.iter().filter(|a| matches!(a, WebAction::ServerWrite { .. })).count();
            assert_eq!((first, rest), (1, 1), "each piece answered");
            assert_eq!(w.unanswered(0, files * REQUEST_BYTES), None);
            return;
        }
        panic!("no compound object in 50 seeds");
    }

    #[test]
    fn idle_keepalive_connection_closes_after_five_seconds() {
        let mut w = workload(HttpVariant::Http11);
        fetch_one(&mut w);
        let done = w.records[0].end;
        let mut out = Vec::new();
        // Thinking ≥ 2 s; the connection closes 5 s after the last activity unless reused.
        w.on_timer(done + Span::from_secs(5), &mut out);
        let closed = out.iter().any(|a| matches!(a, WebAction::Close { conn: 0 }));
        let reused = out.iter().any(|a| matches!(a, WebAction::ClientWrite { conn: 0, .. }));
        assert!(closed || reused);
    }
}
