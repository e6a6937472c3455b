//! AF_PACKET sockets: one per interface, reading and writing whole Ethernet
//! frames in batches (recvmmsg/sendmmsg), with the kernel's receive timestamp
//! of every frame. With `sys.rs`, the only unsafe code of the crate.
//!
//! A socket is opened with protocol 0 (it hears nothing) and then bound to
//! one interface with ETH_P_ALL, so that no frame of another interface is
//! ever queued on it (packet(7)). It ignores the frames it sends itself
//! (PACKET_IGNORE_OUTGOING, Linux 4.20), has large kernel buffers
//! (SO_RCVBUFFORCE/SO_SNDBUFFORCE: root bypasses rmem_max), asks for
//! SO_TIMESTAMPNS (CLOCK_REALTIME, stamped when the frame entered the stack)
//! and PACKET_AUXDATA (to notice frames whose checksum is not filled in),
//! and puts the interface in promiscuous mode (PACKET_ADD_MEMBERSHIP).
//!
//! Errors carry the interface and the call: `veth0: recvmmsg: ...`.

use std::ffi::CString;
use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr;

use libc::{c_int, c_uint, c_ushort, c_void};

// The constants below are from the kernel's UAPI headers, spelled out here
// because not every libc release exports them for every target.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
compile_error!("socket.rs uses the asm-generic socket option numbers (x86_64, aarch64, riscv64)");

/// linux/if_packet.h.
const PACKET_ADD_MEMBERSHIP: c_int = 1;
const PACKET_MR_PROMISC: c_ushort = 1;
const PACKET_AUXDATA: c_int = 8;
const PACKET_QDISC_BYPASS: c_int = 20;
const PACKET_IGNORE_OUTGOING: c_int = 23;
/// `tp_status` bit: the frame's transport checksum is partial (checksum offload).
const TP_STATUS_CSUMNOTREADY: u32 = 1 << 3;
/// asm-generic/socket.h (64-bit: struct timespec with 64-bit fields).
const SO_SNDBUFFORCE: c_int = 32;
const SO_RCVBUFFORCE: c_int = 33;
const SO_TIMESTAMPNS: c_int = 35;
const SCM_TIMESTAMPNS: c_int = SO_TIMESTAMPNS;
/// linux/sockios.h.
const SIOCGIFMTU: libc::c_ulong = 0x8921;
/// linux/if_ether.h, in network byte order as sockaddr_ll wants it.
const ETH_P_ALL_BE: u16 = (libc::ETH_P_ALL as u16).to_be();

/// linux/if_packet.h `struct packet_mreq`.
#[repr(C)]
struct PacketMreq {
    mr_ifindex: c_int,
    mr_type: c_ushort,
    mr_alen: c_ushort,
    mr_address: [u8; 8],
}

/// linux/if_packet.h `struct tpacket_auxdata`.
#[repr(C)]
#[derive(Clone, Copy)]
struct TpacketAuxdata {
    tp_status: u32,
    tp_len: u32,
    tp_snaplen: u32,
    tp_mac: u16,
    tp_net: u16,
    tp_vlan_tci: u16,
    tp_vlan_tpid: u16,
}

/// linux/if.h `struct ifreq` with the `ifr_mtu` member (40 bytes in all).
#[repr(C)]
struct IfreqMtu {
    name: [libc::c_char; libc::IFNAMSIZ],
    mtu: c_int,
    _pad: [u8; 20],
}

/// Room for the control messages of one frame: SCM_TIMESTAMPNS (16 B of
/// data) and PACKET_AUXDATA (20 B), each with its cmsghdr.
const CTRL_BYTES: usize = 128;

#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Ctrl([u8; CTRL_BYTES]);

/// `err` with the interface and the call that failed.
fn context(ifname: &str, call: &str, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{ifname}: {call}: {err}"))
}

fn last_error(ifname: &str, call: &str) -> io::Error {
    context(ifname, call, io::Error::last_os_error())
}

/// Would retrying later help? (non-blocking socket full or empty, a signal, or kernel memory pressure)
fn transient(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::EAGAIN | libc::EINTR | libc::ENOBUFS))
}

/// The index of interface `name` in this network namespace, if it exists.
pub fn if_index(name: &str) -> Option<u32> {
    let cname = CString::new(name).ok()?;
    // SAFETY: `cname` is a valid NUL-terminated string.
    let index = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    (index != 0).then_some(index)
}

/// Settings of a packet socket.
#[derive(Clone, Copy, Debug)]
pub struct SocketOptions {
    /// SO_RCVBUFFORCE and SO_SNDBUFFORCE, bytes (needs CAP_NET_ADMIN).
    pub buffer_bytes: u64,
    /// Put the interface in promiscuous mode while the socket is open.
    pub promiscuous: bool,
}

/// A raw packet socket bound to one interface.
#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
    ifname: String,
    mtu_bytes: u32,
}

impl PacketSocket {
    /// Opens, configures and binds a socket on `ifname`.
    pub fn open(ifname: &str, opts: SocketOptions) -> io::Result<PacketSocket> {
        let cname = CString::new(ifname).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("{ifname}: interface name contains NUL")))?;
        // SAFETY: `cname` is a valid NUL-terminated string.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) } as c_int;
        if ifindex == 0 {
            return Err(last_error(ifname, "if_nametoindex (no such interface?)"));
        }
        // SAFETY: plain system call; the result is checked and owned at once.
        let raw = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(last_error(ifname, "socket(AF_PACKET, SOCK_RAW)"));
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let sock = PacketSocket { fd, ifname: ifname.to_string(), mtu_bytes: 0 };
        sock.set_int(libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "setsockopt(PACKET_IGNORE_OUTGOING)")?;
        sock.set_int(libc::SOL_PACKET, PACKET_AUXDATA, 1, "setsockopt(PACKET_AUXDATA)")?;
        // Sent frames skip the egress qdisc (a veth has none by default): lower latency.
        sock.set_int(libc::SOL_PACKET, PACKET_QDISC_BYPASS, 1, "setsockopt(PACKET_QDISC_BYPASS)")?;
        let buf = opts.buffer_bytes.min(i32::MAX as u64) as c_int;
        sock.set_int(libc::SOL_SOCKET, SO_RCVBUFFORCE, buf, "setsockopt(SO_RCVBUFFORCE)")?;
        sock.set_int(libc::SOL_SOCKET, SO_SNDBUFFORCE, buf, "setsockopt(SO_SNDBUFFORCE)")?;
        sock.set_int(libc::SOL_SOCKET, SO_TIMESTAMPNS, 1, "setsockopt(SO_TIMESTAMPNS)")?;

        // SAFETY: a zeroed sockaddr_ll is valid; the fields set make it a
        // bind address for (ETH_P_ALL, ifindex), passed with its true size.
        let rc = unsafe {
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = ETH_P_ALL_BE;
            sll.sll_ifindex = ifindex;
            libc::bind(sock.fd(), (&sll as *const libc::sockaddr_ll).cast(), size_of::<libc::sockaddr_ll>() as libc::socklen_t)
        };
        if rc != 0 {
            return Err(last_error(ifname, "bind(ETH_P_ALL)"));
        }
        if opts.promiscuous {
            let mreq = PacketMreq { mr_ifindex: ifindex, mr_type: PACKET_MR_PROMISC, mr_alen: 0, mr_address: [0; 8] };
            sock.set_raw(libc::SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq, "setsockopt(PACKET_ADD_MEMBERSHIP, PACKET_MR_PROMISC)")?;
        }
        let mtu_bytes = sock.read_mtu()?;
        Ok(PacketSocket { mtu_bytes, ..sock })
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    /// The interface's MTU (L3 bytes).
    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    fn set_int(&self, level: c_int, name: c_int, value: c_int, call: &str) -> io::Result<()> {
        self.set_raw(level, name, &value, call)
    }

    fn set_raw<T>(&self, level: c_int, name: c_int, value: &T, call: &str) -> io::Result<()> {
        // SAFETY: `value` points to a live T of `size_of::<T>()` bytes, the
        // layout the option expects (callers pass c_int or the repr(C) struct).
        let rc = unsafe { libc::setsockopt(self.fd(), level, name, (value as *const T).cast(), size_of::<T>() as libc::socklen_t) };
        if rc != 0 { Err(last_error(&self.ifname, call)) } else { Ok(()) }
    }

    fn read_mtu(&self) -> io::Result<u32> {
        let mut ifr = IfreqMtu { name: [0; libc::IFNAMSIZ], mtu: 0, _pad: [0; 20] };
        for (d, s) in ifr.name.iter_mut().zip(self.ifname.bytes().take(libc::IFNAMSIZ - 1)) {
            *d = s as libc::c_char;
        }
        // SAFETY: SIOCGIFMTU reads the NUL-terminated name and writes one int
        // inside the 40-byte struct ifreq that `ifr` is.
        let rc = unsafe { libc::ioctl(self.fd(), SIOCGIFMTU as _, &mut ifr as *mut IfreqMtu) };
        if rc != 0 {
            return Err(last_error(&self.ifname, "ioctl(SIOCGIFMTU)"));
        }
        Ok(ifr.mtu.max(0) as u32)
    }
}

/// What the kernel said about one received frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxMeta {
    /// Bytes in the buffer: the Ethernet frame from the destination address, no FCS.
    pub len: usize,
    /// SO_TIMESTAMPNS: CLOCK_REALTIME ns when the frame entered the stack.
    pub kernel_ts_ns: Option<u64>,
    /// The frame was longer than the buffer (MSG_TRUNC); `len` bytes were kept.
    pub truncated: bool,
    /// The transport checksum was left to offload (TP_STATUS_CSUMNOTREADY):
    /// forwarded as is, the receiver will see a bad checksum.
    pub csum_not_ready: bool,
}

/// A batch of receive slots, each with its own frame buffer.
pub struct RxBatch {
    bufs: Vec<Box<[u8]>>,
    iovs: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
    ctrls: Vec<Ctrl>,
    meta: Vec<RxMeta>,
}

impl RxBatch {
    /// `batch` slots of `frame_bytes` each.
    pub fn new(batch: usize, frame_bytes: usize) -> RxBatch {
        // SAFETY: mmsghdr and iovec are plain C structs for which all-zero
        // (null pointers, zero lengths) is a valid value.
        let (iov0, hdr0) = unsafe { (std::mem::zeroed::<libc::iovec>(), std::mem::zeroed::<libc::mmsghdr>()) };
        RxBatch {
            bufs: (0..batch).map(|_| vec![0u8; frame_bytes].into_boxed_slice()).collect(),
            iovs: vec![iov0; batch],
            hdrs: vec![hdr0; batch],
            ctrls: vec![Ctrl([0; CTRL_BYTES]); batch],
            meta: vec![RxMeta::default(); batch],
        }
    }

    /// Reads up to one batch without blocking; returns how many frames came (0: none waiting).
    pub fn recv(&mut self, sock: &PacketSocket) -> io::Result<usize> {
        let n = self.bufs.len();
        for i in 0..n {
            self.iovs[i] = libc::iovec { iov_base: self.bufs[i].as_mut_ptr().cast::<c_void>(), iov_len: self.bufs[i].len() };
            let h = &mut self.hdrs[i];
            h.msg_len = 0;
            h.msg_hdr.msg_name = ptr::null_mut();
            h.msg_hdr.msg_namelen = 0;
            h.msg_hdr.msg_iov = &mut self.iovs[i];
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = self.ctrls[i].0.as_mut_ptr().cast::<c_void>();
            h.msg_hdr.msg_controllen = CTRL_BYTES as _;
            h.msg_hdr.msg_flags = 0;
        }
        // SAFETY: each of the `n` headers points to one iovec over a live
        // buffer of iov_len bytes and to a live control buffer of
        // CTRL_BYTES; all stay in place (no reallocation) during the call.
        let rc = unsafe { libc::recvmmsg(sock.fd(), self.hdrs.as_mut_ptr(), n as c_uint, libc::MSG_DONTWAIT, ptr::null_mut()) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return if transient(&e) { Ok(0) } else { Err(context(sock.ifname(), "recvmmsg", e)) };
        }
        let got = rc as usize;
        for i in 0..got {
            self.meta[i] = parse_meta(&self.hdrs[i]);
        }
        Ok(got)
    }

    /// Metadata of received frame `i` (of the last `recv`).
    pub fn meta(&self, i: usize) -> RxMeta {
        self.meta[i]
    }

    /// Bytes of received frame `i`.
    pub fn frame(&self, i: usize) -> &[u8] {
        &self.bufs[i][..self.meta[i].len]
    }

    /// Trades slot `i`'s buffer (holding the frame) for `other` (a free
    /// buffer of the same size): the frame moves without a copy.
    pub fn swap_buf(&mut self, i: usize, other: &mut Box<[u8]>) {
        debug_assert_eq!(self.bufs[i].len(), other.len(), "pool buffers and slots have one size");
        std::mem::swap(&mut self.bufs[i], other);
    }
}

/// Timestamp, truncation and checksum state of one received message.
fn parse_meta(h: &libc::mmsghdr) -> RxMeta {
    let mut meta = RxMeta { len: h.msg_len as usize, truncated: h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0, ..RxMeta::default() };
    // SAFETY: the kernel filled `msg_control` with `msg_controllen` bytes of
    // well-formed cmsgs; CMSG_FIRSTHDR/NXTHDR stay inside them; each payload
    // is read unaligned and only when its cmsg_len covers the struct read.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&h.msg_hdr);
        while !c.is_null() {
            let (level, kind, len) = ((*c).cmsg_level, (*c).cmsg_type, (*c).cmsg_len as usize);
            let data = libc::CMSG_DATA(c);
            if level == libc::SOL_SOCKET && kind == SCM_TIMESTAMPNS && len >= libc::CMSG_LEN(size_of::<libc::timespec>() as c_uint) as usize {
                let ts = ptr::read_unaligned(data.cast::<libc::timespec>());
                let ns = crate::sys::timespec_ns(&ts);
                meta.kernel_ts_ns = (ns > 0).then_some(ns);
            } else if level == libc::SOL_PACKET && kind == PACKET_AUXDATA && len >= libc::CMSG_LEN(size_of::<TpacketAuxdata>() as c_uint) as usize {
                let aux = ptr::read_unaligned(data.cast::<TpacketAuxdata>());
                meta.csum_not_ready = aux.tp_status & TP_STATUS_CSUMNOTREADY != 0;
                meta.truncated |= aux.tp_len > aux.tp_snaplen;
            }
            c = libc::CMSG_NXTHDR(&h.msg_hdr, c);
        }
    }
    meta
}

/// Headers for one batched send.
pub struct TxBatch {
    iovs: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
}

impl TxBatch {
    pub fn new(batch: usize) -> TxBatch {
        // SAFETY: all-zero is a valid iovec and mmsghdr (null pointers, no name, no control).
        let (iov0, hdr0) = unsafe { (std::mem::zeroed::<libc::iovec>(), std::mem::zeroed::<libc::mmsghdr>()) };
        TxBatch { iovs: vec![iov0; batch], hdrs: vec![hdr0; batch] }
    }

    /// Sends up to one batch of `frames`, in order, out of `sock`'s
    /// interface; returns how many left (the first ones). `Ok(0)` when the
    /// socket cannot take one now (retry later); `Err` when the first frame
    /// was refused for good.
    pub fn send<'a>(&mut self, sock: &PacketSocket, frames: impl Iterator<Item = &'a [u8]>) -> io::Result<usize> {
        let mut n = 0;
        for f in frames.take(self.hdrs.len()) {
            self.iovs[n] = libc::iovec { iov_base: f.as_ptr() as *mut c_void, iov_len: f.len() };
            let h = &mut self.hdrs[n];
            h.msg_len = 0;
            h.msg_hdr.msg_iov = &mut self.iovs[n];
            h.msg_hdr.msg_iovlen = 1;
            n += 1;
        }
        if n == 0 {
            return Ok(0);
        }
        // SAFETY: the first `n` headers each point to one iovec over a frame
        // borrowed for 'a, which outlives this call; the kernel only reads
        // them. No name (the bound interface is used) and no control data.
        let rc = unsafe { libc::sendmmsg(sock.fd(), self.hdrs.as_mut_ptr(), n as c_uint, libc::MSG_DONTWAIT) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return if transient(&e) { Ok(0) } else { Err(context(sock.ifname(), "sendmmsg", e)) };
        }
        Ok(rc as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uapi_struct_sizes() {
        assert_eq!(size_of::<PacketMreq>(), 16);
        assert_eq!(size_of::<TpacketAuxdata>(), 20);
        assert_eq!(size_of::<IfreqMtu>(), 40);
        // SAFETY: CMSG_SPACE is arithmetic on its argument only.
        let space = unsafe { libc::CMSG_SPACE(16) + libc::CMSG_SPACE(20) };
        assert!(space as usize <= CTRL_BYTES);
    }

    #[test]
    fn a_missing_interface_names_itself() {
        let e = PacketSocket::open("lfnemu-none0", SocketOptions { buffer_bytes: 1 << 20, promiscuous: false }).unwrap_err();
        assert!(e.to_string().starts_with("lfnemu-none0: "), "{e}");
    }
}
