//! The world side of a Web workload (spec 02 §3.2): creating the TCP
//! connections its users open, carrying out its writes and closes, and
//! telling it about deliveries and timer expiries.

use super::network::Net;
use super::host::Hosts;
use crate::apps::web::{WebAction, WebWorkload};
use crate::engine::event_queue::Event;
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span};
use crate::host::cc::{self, params::CcParams};
use crate::host::tcp::config::TcpConfig;
use crate::host::tcp::socket::{Addr, QsConn, TcpSocket};
use crate::quickstart::sender::QsSenderConfig;

/// What every connection of the workload is made from.
pub struct ConnTemplate {
    pub flow: u32,
    pub cfg: TcpConfig,
    pub cc_name: String,
    pub cc_params: CcParams,
    pub basis: cc::reno::Basis,
    /// Client and server addressing with `dir` and `conn` filled per connection.
    pub client: Addr,
    pub server: Addr,
    pub client_host: u32,
    pub server_host: u32,
    /// Quick-Start of the server (the data sender) and the host's tick phase.
    pub qs: Option<(QsSenderConfig, Span)>,
    pub seed: u64,
}

/// A Web workload and its connections' sockets.
pub struct WebRuntime {
    pub workload: WebWorkload,
    pub template: ConnTemplate,
    /// (client socket, server socket) per connection.
    pub sockets: Vec<(u32, u32)>,
    /// Pending WebTimer event time.
    pub timer_at: Option<SimTime>,
    /// Scratch buffer for the workload's actions (reused, no allocation).
    pub actions: Vec<WebAction>,
}

impl WebRuntime {
    fn new_sockets(&self, conn: u32) -> (TcpSocket, TcpSocket) {
        let t = &self.template;
        let mk_cc = |salt: u64| {
            let seed = Stream::derive(t.seed, &format!("flow[{}].conn[{conn}].cc", t.flow)).next_u64().rotate_left(salt as u32);
            cc::create(&t.cc_name, &t.cc_params, &cc::CreateCtx { basis: t.basis, seed })
        };
        // The names were checked when the scenario was resolved.
        let (Some(cc_c), Some(cc_s)) = (mk_cc(0), mk_cc(1)) else { unreachable!("congestion control {} resolved", t.cc_name) };
        let mut client = TcpSocket::new(Addr { conn, ..t.client }, &t.cfg, cc_c);
        let mut server = TcpSocket::new(Addr { conn, ..t.server }, &t.cfg, cc_s);
        client.snd.app.set(Some(0), None, false);
        server.snd.app.set(Some(0), None, false);
        if let Some((qcfg, phase)) = &t.qs {
            let rng = Stream::derive(t.seed, &format!("flow[{}].conn[{conn}].quickstart", t.flow));
            QsConn::attach(&mut server, &mut client, qcfg, *phase, rng);
        }
        (client, server)
    }
}

impl Hosts {
    pub(super) fn on_web_timer(&mut self, net: &mut Net, wi: u32) {
        let rt = &mut self.web[wi as usize];
        if rt.timer_at != Some(net.now) {
            return;
        }
        rt.timer_at = None;
        let mut acts = std::mem::take(&mut rt.actions);
        rt.workload.on_timer(net.now, &mut acts);
        self.web_apply(net, wi, &mut acts);
        self.web[wi as usize].actions = acts;
        self.arm_web_timer(net, wi);
    }

    /// Data reached an end of Web connection `conn`.
    pub(super) fn on_web_delivery(&mut self, net: &mut Net, wi: u32, conn: u32) {
        let (c, s) = self.web[wi as usize].sockets[conn as usize];
        let (server_read, client_read) = (self.sockets[s as usize].rcv.rcv_nxt, self.sockets[c as usize].rcv.rcv_nxt);
        let rt = &mut self.web[wi as usize];
        let mut acts = std::mem::take(&mut rt.actions);
        rt.workload.on_delivery(net.now, conn, server_read, client_read, &mut acts);
        self.web_apply(net, wi, &mut acts);
        self.web[wi as usize].actions = acts;
        self.arm_web_timer(net, wi);
    }

    pub(super) fn arm_web_timer(&mut self, net: &mut Net, wi: u32) {
        let rt = &mut self.web[wi as usize];
        if let Some(d) = rt.workload.next_deadline() {
            let d = d.max(net.now);
            if rt.timer_at.is_none_or(|t| t > d) {
                rt.timer_at = Some(d);
                net.events.push(d, Event::WebTimer(wi));
            }
        }
    }

    fn web_apply(&mut self, net: &mut Net, wi: u32, acts: &mut Vec<WebAction>) {
        for a in acts.drain(..) {
            match a {
                WebAction::Open { conn } => {
                    let rt = &mut self.web[wi as usize];
                    debug_assert_eq!(conn as usize, rt.sockets.len(), "connections open in order");
                    let (client, server) = rt.new_sockets(conn);
                    let (ch, sh) = (rt.template.client_host, rt.template.server_host);
                    let ci = self.push_socket_pair(client, server, (ch, sh), None);
                    self.web[wi as usize].sockets.push((ci, ci + 1));
                    let mut out = std::mem::take(&mut self.out);
                    self.sockets[ci as usize].open(net.now, &mut out);
                    self.emit(net, ci, &mut out);
                    self.out = out;
                    self.arm_socket_timer(net, ci);
                }
                WebAction::ClientWrite { conn, bytes } | WebAction::ServerWrite { conn, bytes } => {
                    let (c, s) = self.web[wi as usize].sockets[conn as usize];
                    let sock = if matches!(a, WebAction::ClientWrite { .. }) { c } else { s };
                    self.sockets[sock as usize].snd.app_add(net.now, bytes);
                    self.pump(net, sock);
                }
                WebAction::Close { .. } => {
                    // The application is done with the connection; its sockets
                    // finish what is in flight (FIN exchange not simulated).
                }
            }
        }
    }
}
