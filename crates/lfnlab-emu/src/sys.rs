//! Process-level system calls: the clock, the stop signals, waiting, and the
//! optional real-time settings. With `socket.rs`, the only unsafe code.
//!
//! Clock: every time in the relay is CLOCK_REALTIME in ns since the epoch,
//! because that is the clock of the kernel's SO_TIMESTAMPNS receive
//! timestamps (`skb->tstamp`, `ktime_get_real`). A step of the wall clock
//! during a run (NTP, settimeofday) therefore shifts the schedule; run the
//! relay on a host whose clock slews, or not at all, during a measurement.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// SIGINT and SIGTERM received so far.
static STOP_SIGNALS: AtomicU32 = AtomicU32::new(0);

/// CLOCK_REALTIME, ns since the epoch.
#[inline]
pub fn now_realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME always exists,
    // so the call cannot fail (vDSO, no system call).
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    timespec_ns(&ts)
}

/// A timespec as ns (negative times, before 1970, read as 0).
#[inline]
pub fn timespec_ns(ts: &libc::timespec) -> u64 {
    (ts.tv_sec.max(0) as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec.max(0) as u64)
}

extern "C" fn on_stop_signal(_signal: libc::c_int) {
    // Only an atomic add: async-signal-safe.
    STOP_SIGNALS.fetch_add(1, Ordering::SeqCst);
}

/// SIGINT and SIGTERM set the stop flag instead of killing the process.
/// Installed without SA_RESTART, so a blocked `ppoll` returns EINTR at once.
pub fn install_stop_signals() -> io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value;
        // the handler is an extern "C" fn that only stores an atomic, and
        // `sigemptyset` gets a valid pointer into the struct.
        let rc = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(signal, &sa, std::ptr::null_mut())
        };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("sigaction({signal}): {e}")));
        }
    }
    Ok(())
}

/// Has SIGINT or SIGTERM arrived?
#[inline]
pub fn stop_requested() -> bool {
    STOP_SIGNALS.load(Ordering::Relaxed) > 0
}

/// Has a second one arrived (stop at once, without draining)?
#[inline]
pub fn stop_now_requested() -> bool {
    STOP_SIGNALS.load(Ordering::Relaxed) > 1
}

/// Waits until one of `fds` is readable or `timeout_ns` passed; returns
/// whether any is readable. EINTR (a stop signal) returns `Ok(false)`.
pub fn wait_readable(fds: &[RawFd], timeout_ns: u64) -> io::Result<bool> {
    let mut pfds = [libc::pollfd { fd: -1, events: 0, revents: 0 }; 2];
    let n = fds.len().min(pfds.len());
    for (p, &fd) in pfds.iter_mut().zip(fds) {
        *p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    }
    let ts = libc::timespec { tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t, tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long };
    // SAFETY: `pfds` holds `n` initialized pollfd entries; `ts` is a valid
    // timespec; a null sigmask leaves the mask unchanged.
    let rc = unsafe { libc::ppoll(pfds.as_mut_ptr(), n as libc::nfds_t, &ts, std::ptr::null()) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(io::Error::new(e.kind(), format!("ppoll: {e}"))) };
    }
    Ok(rc > 0)
}

/// Lets timed sleeps wake within `slack_ns` of their deadline (the default
/// slack of a normal thread is 50 µs; SCHED_FIFO threads have none).
pub fn set_timer_slack_ns(slack_ns: u64) -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes one unsigned long argument and touches no memory.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong) };
    if rc != 0 { Err(io::Error::other(format!("prctl(PR_SET_TIMERSLACK): {}", io::Error::last_os_error()))) } else { Ok(()) }
}

/// Moves the calling process to SCHED_FIFO at `priority`.
pub fn set_sched_fifo(priority: i32) -> io::Result<()> {
    let param = libc::sched_param { sched_priority: priority };
    // SAFETY: `param` is a valid sched_param; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("sched_setscheduler(SCHED_FIFO, {priority}): {e}")));
    }
    Ok(())
}

/// Locks current and future pages in memory, so that no page fault delays a frame.
pub fn lock_memory() -> io::Result<()> {
    // SAFETY: mlockall takes flags only and touches no memory of ours.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("mlockall(MCL_CURRENT | MCL_FUTURE): {e}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_the_epoch_clock() {
        let ns = now_realtime_ns();
        let std_ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
        assert!(ns.abs_diff(std_ns) < 1_000_000_000, "CLOCK_REALTIME {ns} vs SystemTime {std_ns}");
    }

    #[test]
    fn waiting_times_out() {
        let t0 = now_realtime_ns();
        assert!(!wait_readable(&[], 2_000_000).unwrap());
        assert!(now_realtime_ns() - t0 >= 2_000_000);
    }
}
