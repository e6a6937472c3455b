//! The client/server response-time test of spec 02 §3.1: the client connects
//! and writes a request; once the whole request has arrived the server writes
//! its response; the response time runs from the client's SYN to the last
//! response byte delivered to the client application. Sans-IO: the world
//! calls `on_delivery` after a segment reached either end and applies what
//! it returns to the server's send half.

use crate::engine::time::SimTime;

/// One request/response exchange on one connection.
#[derive(Clone, Copy, Debug)]
pub struct RequestResponse {
    /// Socket indices of the client (initiator) and the server (acceptor).
    pub client: u32,
    pub server: u32,
    pub request_bytes: u64,
    /// `None`: unlimited (the server always has data).
    pub response_bytes: Option<u64>,
    /// When the server had the whole request and wrote its response.
    pub request_done_at: Option<SimTime>,
    /// When the last response byte reached the client application.
    pub response_done_at: Option<SimTime>,
}

/// What the server's application does after a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerAction {
    None,
    /// Write the response: the server's total becomes this (`None`: unlimited).
    Respond(Option<u64>),
}

impl RequestResponse {
    pub fn new(client: u32, server: u32, request_bytes: u64, response_bytes: Option<u64>) -> RequestResponse {
        RequestResponse { client, server, request_bytes, response_bytes, request_done_at: None, response_done_at: None }
    }

    /// In-order bytes now delivered at the server (`server_read`) and at the client (`client_read`).
    pub fn on_delivery(&mut self, now: SimTime, server_read: u64, client_read: u64) -> ServerAction {
        let mut action = ServerAction::None;
        if self.request_done_at.is_none() && server_read >= self.request_bytes {
            self.request_done_at = Some(now);
            action = ServerAction::Respond(self.response_bytes);
        }
        if self.response_done_at.is_none() && self.response_bytes.is_some_and(|n| client_read >= n) {
            self.response_done_at = Some(now);
        }
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responds_once_after_the_whole_request() {
        let mut rr = RequestResponse::new(0, 1, 100, Some(5000));
        let t = |ms: u64| SimTime(ms * 1_000_000_000);
        assert_eq!(rr.on_delivery(t(1), 99, 0), ServerAction::None);
        assert_eq!(rr.on_delivery(t(2), 100, 0), ServerAction::Respond(Some(5000)));
        assert_eq!(rr.on_delivery(t(3), 100, 4999), ServerAction::None);
        assert_eq!(rr.response_done_at, None);
        rr.on_delivery(t(4), 100, 5000);
        assert_eq!((rr.request_done_at, rr.response_done_at), (Some(t(2)), Some(t(4))));
    }
}
