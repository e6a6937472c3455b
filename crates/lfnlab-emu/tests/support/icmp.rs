//! ICMP echo over a raw socket, like `ping` (which is not installed on every
//! test machine): the replies come from the kernel of the far namespace, so
//! nothing has to run there. Call from a thread inside the sending namespace.
//!
//! As `ping` does, a reply's time is the kernel's receive timestamp
//! (SO_TIMESTAMPNS, CLOCK_REALTIME), so the wake-up of this thread is not in the RTT.

use std::io;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

const ICMP_ECHO_REQUEST: u8 = 8;
const ICMP_ECHO_REPLY: u8 = 0;

/// RFC 1071 Internet checksum.
fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn echo_request(id: u16, seq: u16, payload_bytes: usize) -> Vec<u8> {
    let mut p = vec![0u8; 8 + payload_bytes];
    p[0] = ICMP_ECHO_REQUEST;
    p[4..6].copy_from_slice(&id.to_be_bytes());
    p[6..8].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in p[8..].iter_mut().enumerate() {
        *b = i as u8;
    }
    let c = checksum(&p);
    p[2..4].copy_from_slice(&c.to_be_bytes());
    p
}

/// A raw ICMP socket (needs CAP_NET_RAW).
pub struct Pinger {
    fd: std::os::fd::OwnedFd,
    dst: libc::sockaddr_in,
    id: u16,
}

impl Pinger {
    pub fn new(dst: Ipv4Addr) -> io::Result<Pinger> {
        use std::os::fd::FromRawFd;
        // SAFETY: plain system call; the descriptor is owned at once.
        let raw = unsafe { libc::socket(libc::AF_INET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::IPPROTO_ICMP) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(raw) };
        // SAFETY: all-zero is a valid sockaddr_in; the fields are then set.
        let mut sa: libc::sockaddr_in = unsafe { std::mem::zeroed() };
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr = libc::in_addr { s_addr: u32::from(dst).to_be() };
        let id = (std::process::id() as u16) ^ 0x5a5a;
        let on: libc::c_int = 1;
        // SAFETY: SO_TIMESTAMPNS (35 on asm-generic) takes an int, passed with its size.
        let rc = unsafe { libc::setsockopt(raw, libc::SOL_SOCKET, 35, (&on as *const libc::c_int).cast(), size_of::<libc::c_int>() as libc::socklen_t) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Pinger { fd, dst: sa, id })
    }

    fn raw(&self) -> i32 {
        use std::os::fd::AsRawFd;
        self.fd.as_raw_fd()
    }

    pub fn send(&self, seq: u16, payload_bytes: usize) -> io::Result<()> {
        let p = echo_request(self.id, seq, payload_bytes);
        // SAFETY: `p` and `self.dst` are live for the call, with their true sizes.
        let rc = unsafe { libc::sendto(self.raw(), p.as_ptr().cast(), p.len(), 0, (&self.dst as *const libc::sockaddr_in).cast(), size_of::<libc::sockaddr_in>() as libc::socklen_t) };
        if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
    }

    /// Waits up to `timeout` for an echo reply of ours; returns its
    /// sequence number and kernel receive time (CLOCK_REALTIME ns).
    pub fn recv_reply(&self, timeout: Duration) -> io::Result<Option<(u16, u64)>> {
        let deadline = Instant::now() + timeout;
        let mut buf = [0u8; 2048];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let mut pfd = libc::pollfd { fd: self.raw(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            let rc = unsafe { libc::poll(&mut pfd, 1, left.as_millis().max(1) as i32) };
            if rc <= 0 {
                continue;
            }
            let mut ctrl = [0u64; 16];
            let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
            // SAFETY: all-zero is a valid msghdr; it then points to `iov`
            // over `buf` and to `ctrl`, all live during the call.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = ctrl.as_mut_ptr().cast();
            msg.msg_controllen = size_of_val(&ctrl) as _;
            // SAFETY: see above.
            let n = unsafe { libc::recvmsg(self.raw(), &mut msg, libc::MSG_DONTWAIT) };
            if n < 0 {
                continue;
            }
            let mut ts_ns = now_realtime_ns();
            // SAFETY: the kernel wrote well-formed cmsgs into `ctrl`; the
            // timestamp is read unaligned from a cmsg of type SCM_TIMESTAMPNS.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == 35 {
                        let t = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::timespec>());
                        ts_ns = t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64;
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            let pkt = &buf[..n as usize];
            let ihl = usize::from(pkt.first().copied().unwrap_or(0) & 0x0f) * 4;
            let Some(icmp) = pkt.get(ihl..).filter(|i| i.len() >= 8) else { continue };
            if icmp[0] == ICMP_ECHO_REPLY && u16::from_be_bytes([icmp[4], icmp[5]]) == self.id {
                return Ok(Some((u16::from_be_bytes([icmp[6], icmp[7]]), ts_ns)));
            }
        }
    }
}

/// CLOCK_REALTIME, ns (the clock of SO_TIMESTAMPNS).
fn now_realtime_ns() -> u64 {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    d.as_nanos() as u64
}

/// `count` echoes `interval` apart, each waiting up to `timeout` for its
/// reply; the round-trip time of each (None if no reply).
pub fn ping(dst: Ipv4Addr, count: u16, interval: Duration, payload_bytes: usize, timeout: Duration) -> io::Result<Vec<Option<Duration>>> {
    let p = Pinger::new(dst)?;
    let mut rtts = Vec::new();
    for seq in 0..count {
        let t0 = Instant::now();
        let sent_ns = now_realtime_ns();
        p.send(seq, payload_bytes)?;
        let mut rtt = None;
        while let Some((s, ts_ns)) = p.recv_reply(timeout.saturating_sub(t0.elapsed()))? {
            if s == seq {
                rtt = Some(Duration::from_nanos(ts_ns.saturating_sub(sent_ns)));
                break;
            }
        }
        rtts.push(rtt);
        std::thread::sleep(interval.saturating_sub(t0.elapsed()));
    }
    Ok(rtts)
}

/// `count` echo requests back to back (like `ping -f -l`); returns how many
/// replies came back within `linger` after the last one.
pub fn flood(dst: Ipv4Addr, count: u16, payload_bytes: usize, linger: Duration) -> io::Result<u32> {
    let p = Pinger::new(dst)?;
    for seq in 0..count {
        p.send(seq, payload_bytes)?;
    }
    let mut replies = 0;
    while p.recv_reply(linger)?.is_some() {
        replies += 1;
    }
    Ok(replies)
}
