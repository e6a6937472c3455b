//! Test support: a three-namespace lab (a ↔ m ↔ b) with the relay in m,
//! removed by a Drop guard whatever happens in the test.
//!
//! Namespaces are named `lfnemu-<pid>-<tag>-{a,m,b}`; the guard deletes only
//! the namespaces this lab created and kills only the relay it started.

#![allow(dead_code)]

pub mod icmp;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Address of side a and side b (one /24).
pub const ADDR_A: &str = "10.77.0.1";
pub const ADDR_B: &str = "10.77.0.2";
/// Interface names: `va` in a, `ma`/`mb` in m, `vb` in b.
pub const IF_MA: &str = "ma";
pub const IF_MB: &str = "mb";

/// Runs `program args`, returning its stdout or a message with its stderr.
pub fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program).args(args).output().map_err(|e| format!("{program} {}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!("{program} {}: {}: {}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Why these tests cannot run here, if they cannot (probed once per process).
pub fn skip_reason() -> Option<String> {
    static REASON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    REASON.get_or_init(probe_skip_reason).clone()
}

fn probe_skip_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not running as root (network namespaces and AF_PACKET need it)".into());
    }
    if let Err(e) = run("ip", &["-V"]) {
        return Some(format!("the `ip` command does not run: {e}"));
    }
    let probe = format!("lfnemu-{}-probe", std::process::id());
    if let Err(e) = run("ip", &["netns", "add", &probe]) {
        return Some(format!("`ip netns add` does not work here: {e}"));
    }
    let _ = run("ip", &["netns", "del", &probe]);
    None
}

/// Held by each test for its whole run: one lab at a time, so that the
/// timing of one is not disturbed by the other's relay.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Prints why a test is skipped (it then passes).
pub fn skip(test: &str, reason: &str) {
    eprintln!("SKIPPED {test}: {reason}");
}

pub struct Lab {
    /// Namespaces created (deleted on drop).
    namespaces: Vec<String>,
    prefix: String,
    relay: Option<Child>,
    /// Files to remove on drop.
    files: Vec<PathBuf>,
}

impl Lab {
    /// Namespaces, veth pairs a↔m and m↔b, addresses on a and b, offloads off.
    pub fn new(tag: &str) -> Result<Lab, String> {
        let prefix = format!("lfnemu-{}-{tag}", std::process::id());
        let mut lab = Lab { namespaces: Vec::new(), prefix, relay: None, files: Vec::new() };
        for side in ["a", "m", "b"] {
            let name = lab.ns(side);
            run("ip", &["netns", "add", &name])?;
            lab.namespaces.push(name);
        }
        let (a, m, b) = (lab.ns("a"), lab.ns("m"), lab.ns("b"));
        run("ip", &["-n", &a, "link", "add", "dev", "va", "type", "veth", "peer", "name", IF_MA, "netns", &m])?;
        run("ip", &["-n", &b, "link", "add", "dev", "vb", "type", "veth", "peer", "name", IF_MB, "netns", &m])?;
        let have_ethtool = run("ethtool", &["--version"]).is_ok();
        if !have_ethtool {
            eprintln!("note: ethtool not found, offloads stay as they are");
        }
        for (ns, dev) in [(&a, "va"), (&m, IF_MA), (&m, IF_MB), (&b, "vb")] {
            // No IPv6 chatter (router solicitations, DAD) in the counts.
            let _ = run("ip", &["netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
            if have_ethtool {
                // GRO/GSO/TSO would hand the relay 64 KB super-frames; tx
                // checksum offload would leave checksums for a NIC that never comes.
                run("ip", &["netns", "exec", ns, "ethtool", "-K", dev, "gro", "off", "gso", "off", "tso", "off", "tx", "off"])?;
            }
            let _ = run("ip", &["-n", ns, "link", "set", "dev", dev, "gso_max_segs", "1"]);
            run("ip", &["-n", ns, "link", "set", "dev", dev, "up"])?;
        }
        run("ip", &["-n", &a, "addr", "add", &format!("{ADDR_A}/24"), "dev", "va"])?;
        run("ip", &["-n", &b, "addr", "add", &format!("{ADDR_B}/24"), "dev", "vb"])?;
        Ok(lab)
    }

    /// The name of namespace `side` ("a", "m" or "b").
    pub fn ns(&self, side: &str) -> String {
        format!("{}-{side}", self.prefix)
    }

    /// A file path in the temporary directory, removed with the lab.
    pub fn temp_file(&mut self, name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("{}-{name}", self.prefix));
        self.files.push(p.clone());
        p
    }

    /// Starts the relay in m between `ma` and `mb` with `args` and waits
    /// until it says it is relaying.
    pub fn start_relay(&mut self, args: &[&str]) -> Result<(), String> {
        let m = self.ns("m");
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &m, env!("CARGO_BIN_EXE_lfnlab-emu"), "--if-a", IF_MA, "--if-b", IF_MB]).args(args);
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| format!("spawning the relay: {e}"))?;
        let stderr = child.stderr.take().expect("piped");
        self.relay = Some(child);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[relay] {line}");
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.contains("relaying") => return Ok(()),
                Ok(_) => {}
                Err(_) => {
                    let status = self.relay.as_mut().and_then(|c| c.try_wait().ok().flatten());
                    return Err(format!("the relay did not start (exit status {status:?})"));
                }
            }
        }
    }

    /// SIGTERM to the relay; waits for it to write its statistics and exit.
    pub fn stop_relay(&mut self) -> Result<ExitStatus, String> {
        let mut child = self.relay.take().ok_or("no relay running")?;
        // SAFETY: kill(2) on the pid of our own child, which has not been
        // waited for, so the pid cannot have been reused.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                return Ok(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the relay did not stop within 20 s of SIGTERM".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(mut child) = self.relay.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for ns in self.namespaces.drain(..).rev() {
            if let Err(e) = run("ip", &["netns", "del", &ns]) {
                eprintln!("warning: could not delete namespace {ns}: {e}");
            }
        }
        for f in self.files.drain(..) {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// Runs `f` on a thread that has entered network namespace `ns`.
pub fn in_netns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let path = format!("/run/netns/{ns}");
    let file = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
    std::thread::spawn(move || {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid namespace file descriptor; CLONE_NEWNET moves only
        // this thread, which ends after `f`.
        if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!("setns({path}): {}", std::io::Error::last_os_error()));
        }
        Ok(f())
    })
    .join()
    .map_err(|_| "the thread in the namespace panicked".to_string())?
}

/// Reads a JSON file.
pub fn read_json(path: &std::path::Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
