//! The optional per-frame CSV trace, through a buffered writer (formatting
//! into its buffer does not allocate). Columns:
//! `dir,arrival_ns,start_ns,depart_ns,sent_ns,len_bytes`; a dropped frame has
//! empty start/depart and `drop:<reason>` in place of `sent_ns`, except a frame
//! lost at random after the queue and the line (`drop:link_loss`), which keeps
//! the start and departure it had. Times are
//! CLOCK_REALTIME ns; `len_bytes` is the captured length (no FCS).
//!
//! The first write error stops the trace and is reported in the statistics.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::stats::DropReason;

pub struct Trace {
    out: Option<BufWriter<File>>,
    error: Option<String>,
}

impl Trace {
    pub fn create(path: &Path) -> io::Result<Trace> {
        let f = File::create(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        out.write_all(b"dir,arrival_ns,start_ns,depart_ns,sent_ns,len_bytes\n")?;
        Ok(Trace { out: Some(out), error: None })
    }

    fn emit(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.error = Some(e.to_string());
            self.out = None;
        }
    }

    #[inline]
    pub fn delivered(&mut self, dir: &str, arrival_ns: u64, start_ns: u64, depart_ns: u64, sent_ns: u64, len: usize) {
        if let Some(w) = self.out.as_mut() {
            let r = writeln!(w, "{dir},{arrival_ns},{start_ns},{depart_ns},{sent_ns},{len}");
            self.emit(r);
        }
    }

    #[inline]
    pub fn dropped(&mut self, dir: &str, arrival_ns: u64, reason: DropReason, len: usize) {
        if let Some(w) = self.out.as_mut() {
            let r = writeln!(w, "{dir},{arrival_ns},,,drop:{},{len}", reason.name());
            self.emit(r);
        }
    }

    /// A frame that went through the queue and the line and was then lost (`loss.rs`).
    #[inline]
    pub fn lost(&mut self, dir: &str, arrival_ns: u64, start_ns: u64, depart_ns: u64, len: usize) {
        if let Some(w) = self.out.as_mut() {
            let r = writeln!(w, "{dir},{arrival_ns},{start_ns},{depart_ns},drop:{},{len}", DropReason::LinkLoss.name());
            self.emit(r);
        }
    }

    /// Flushes; returns the first error seen, if any.
    pub fn finish(mut self) -> Option<String> {
        if let Some(mut w) = self.out.take() {
            let r = w.flush();
            self.emit(r);
        }
        self.error
    }
}
