//! Writing a run's result directory (spec 00 §2.4).
//!
//! The files are written into a hidden sibling directory and renamed into
//! place only when all of them are complete, so a directory named like a result
//! is never a partial one. The bytes depend only on the `RunOutput`: no
//! timestamps, fixed Parquet writer settings (V6 determinism, spec 06 §7).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, WriterVersion};

use super::arrow::to_record_batch;
use super::table::Table;
use crate::error::Error;
use super::RunOutput;

/// The files of a result directory (`write_all` writes `summary.json` last).
pub const RESULT_FILES: [&str; 9] = [
    "summary.json",
    "flows.parquet",
    "tcp.parquet",
    "queues.parquet",
    "packets.parquet",
    "hosts.parquet",
    "busy.parquet",
    "objects.parquet",
    "scenario.toml",
];

/// The file whose presence marks a directory as an lfnlab result (and so replaceable).
const MARKER: &str = "summary.json";

/// Parquet settings, fixed so that identical tables give identical bytes across runs.
/// `created_by` stays the library's default ("parquet-rs version X"): readers use it
/// to recognise writer versions, and it changes only with the parquet crate.
fn writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(None)
        .build()
}

/// A table as a complete Parquet file (one row group per 1 Mi rows, the writer's default).
pub fn to_parquet(t: &Table) -> Result<Vec<u8>, Error> {
    let batch = to_record_batch(t);
    let err = |e: parquet::errors::ParquetError| Error::Io(format!("{}.parquet: {e}", t.name));
    let mut w =
        ArrowWriter::try_new(Vec::new(), batch.schema(), Some(writer_properties())).map_err(err)?;
    w.write(&batch).map_err(err)?;
    w.into_inner().map_err(err)
}

/// `summary.json`: pretty-printed, fields in the order of `Summary`, trailing newline.
pub fn summary_json(out: &RunOutput) -> Result<Vec<u8>, Error> {
    let mut s = serde_json::to_vec_pretty(&out.summary)
        .map_err(|e| Error::Io(format!("summary.json: {e}")))?;
    s.push(b'\n');
    Ok(s)
}

/// Checks that `dir` may receive a result: it does not exist, or it is a directory that
/// is empty or already holds a result (has `summary.json`). Anything else would be
/// deleted by the replacement, so it is refused. Returns the reason on refusal.
pub fn check_out_dir(dir: &Path) -> Result<(), String> {
    if dir.file_name().is_none() {
        return Err(format!(
            "{}: give the result directory a name (not `.`, `..` or `/`)",
            dir.display()
        ));
    }
    let meta = match fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    if meta.file_type().is_symlink() {
        // Renaming would replace the link, not the directory it points to.
        return Err(format!(
            "{}: is a symbolic link; give the directory it points to",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return Err(format!("{}: exists and is not a directory", dir.display()));
    }
    if dir.join(MARKER).is_file() {
        return Ok(());
    }
    let mut entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if entries.next().is_none() {
        return Ok(());
    }
    Err(format!(
        "{}: exists and is not an lfnlab result directory (no {MARKER}); refusing to replace it",
        dir.display()
    ))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = fs::File::create(path).map_err(|e| io(path, e))?;
    f.write_all(bytes).map_err(|e| io(path, e))?;
    f.sync_all().map_err(|e| io(path, e))
}

/// Writes every file into the hidden directory `tmp`, `summary.json` last: the
/// marker of a result (`check_out_dir`) appears only once everything else is
/// complete, even in a directory that a killed run leaves behind.
fn write_all(tmp: &Path, out: &RunOutput) -> Result<(), Error> {
    write_file(&tmp.join("flows.parquet"), &to_parquet(&out.flows)?)?;
    write_file(&tmp.join("tcp.parquet"), &to_parquet(&out.tcp)?)?;
    write_file(&tmp.join("queues.parquet"), &to_parquet(&out.queues)?)?;
    write_file(&tmp.join("packets.parquet"), &to_parquet(&out.packets)?)?;
    write_file(&tmp.join("hosts.parquet"), &to_parquet(&out.hosts)?)?;
    write_file(&tmp.join("busy.parquet"), &to_parquet(&out.busy)?)?;
    write_file(&tmp.join("objects.parquet"), &to_parquet(&out.objects)?)?;
    for (file, bytes) in &out.pcaps {
        write_file(&tmp.join(file), bytes)?;
    }
    write_file(&tmp.join("scenario.toml"), out.scenario_toml.as_bytes())?;
    write_file(&tmp.join("summary.json"), &summary_json(out)?)
}

/// A hidden sibling of `dir`: `parent/.NAME.SUFFIX-PID`.
fn sibling(parent: &Path, name: &str, suffix: &str) -> PathBuf {
    parent.join(format!(".{name}.{suffix}-{}", std::process::id()))
}

/// Removes the hidden siblings of `name` that a killed run left behind
/// (`.NAME.partial-PID`, `.NAME.old-PID` of a process that no longer exists).
/// Only where processes can be looked up (Linux `/proc`); best effort.
fn remove_stale_siblings(parent: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let pid = [".partial-", ".old-"].iter().find_map(|s| file.strip_prefix(&format!(".{name}")).and_then(|rest| rest.strip_prefix(s)));
        let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

fn remove_if_present(p: &Path) -> Result<(), Error> {
    match fs::remove_dir_all(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(p, e)),
        _ => Ok(()),
    }
}

/// Writes `summary.json`, the Parquet tables, one `<name>.pcap` per `[[capture]]`
/// and `scenario.toml` into `dir`, replacing a previous result there (see `check_out_dir`).
/// Parent directories are created. On failure nothing named `dir` is left half-written.
pub fn write_dir(dir: &Path, out: &RunOutput) -> Result<(), Error> {
    check_out_dir(dir).map_err(Error::Io)?;
    let name = dir
        .file_name()
        .expect("checked by check_out_dir")
        .to_string_lossy()
        .into_owned();
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    remove_stale_siblings(&parent, &name);

    let tmp = sibling(&parent, &name, "partial");
    remove_if_present(&tmp)?;
    fs::create_dir(&tmp).map_err(|e| io(&tmp, e))?;
    if let Err(e) = write_all(&tmp, out) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }

    // rename(2) cannot replace a non-empty directory: move the old result aside first.
    let old = sibling(&parent, &name, "old");
    let had_old = dir.exists();
    if had_old {
        remove_if_present(&old)?;
        if let Err(e) = fs::rename(dir, &old) {
            let _ = fs::remove_dir_all(&tmp);
            return Err(io(dir, e));
        }
    }
    if let Err(e) = fs::rename(&tmp, dir) {
        if had_old {
            let _ = fs::rename(&old, dir);
        }
        let _ = fs::remove_dir_all(&tmp);
        return Err(io(dir, e));
    }
    if had_old {
        remove_if_present(&old)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::arrow::tests::{from_batch, sample};
    use crate::results::summary::{ConservationSummary, FlowSummary, QueueSummary, Summary};
    use crate::results::table::Column;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn output() -> RunOutput {
        let summary = Summary {
            scenario: "unit".into(),
            seed: 7,
            duration_s: 2.0,
            wall_seconds: 0.25,
            events_executed: 1234,
            data_packets: 99,
            event_hash: "00ff".into(),
            flows: vec![FlowSummary {
                name: "bulk".into(),
                kind: "tcp_bulk".into(),
                goodput_bps: 4.5e8,
                bytes_delivered: 1_000_000,
                retransmitted_segments: 3,
                timeouts: 0,
                fast_retransmits: 1,
                ..Default::default()
            }],
            queues: vec![QueueSummary {
                name: "wan->rcv".into(),
                enqueued: 10,
                dropped: 2,
                drops_by_cause: [("tail".to_string(), 2)].into_iter().collect(),
                max_bytes: 3000,
            }],
            hosts: Vec::new(),
            nics: Vec::new(),
            host_nics: Vec::new(),
            host_cpus: Vec::new(),
            link_losses: Vec::new(),
            reordered_frames: 0,
            pause_ports: Vec::new(),
            switch_pause: Vec::new(),
            switches: Vec::new(),
            quickstart_interfaces: Vec::new(),
            ttl_drops: 0,
            conservation: ConservationSummary {
                frames_emitted: 1,
                frames_delivered: 1,
                frames_dropped: 0,
                frames_queued_at_end: 0,
                frames_on_links_at_end: 0,
                frames_processing_at_end: 0,
                frames_in_network_max: 0,
                bytes_emitted: 10,
                bytes_delivered: 10,
                bytes_dropped: 0,
                bytes_queued_at_end: 0,
                bytes_on_links_at_end: 0,
                bytes_processing_at_end: 0,
                drops_by_cause: Default::default(),
                holds: true,
            },
            captures: Vec::new(),
            partial: None,
        };
        let flows = Table::new(
            "flows",
            vec![
                ("monitor", Column::Str(vec!["wan->rcv".into()])),
                ("flow", Column::Str(vec!["bulk".into()])),
                ("t", Column::F64(vec![0.001])),
                ("bytes", Column::U64(vec![1538])),
                ("packets", Column::U64(vec![1])),
            ],
        );
        let queues = Table::new(
            "queues",
            vec![("queue", Column::Str(vec![])), ("t", Column::F64(vec![]))],
        );
        RunOutput {
            summary,
            flows,
            tcp: sample(),
            queues,
            packets: Table::new("packets", vec![("t", Column::F64(vec![]))]),
            hosts: Table::new("hosts", vec![("t", Column::F64(vec![]))]),
            busy: Table::new("busy", vec![("t", Column::F64(vec![]))]),
            objects: Table::new("objects", vec![("t", Column::F64(vec![]))]),
            scenario_toml: "[sim]\nname = \"unit\"\n".into(),
            pcaps: Vec::new(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lfnlab-write-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn read_parquet(path: &Path) -> Table {
        let f = fs::File::open(path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(f)
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
        assert_eq!(batches.len(), 1);
        from_batch(&sample().name, &batches[0])
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        RESULT_FILES
            .iter()
            .map(|f| (f.to_string(), fs::read(dir.join(f)).unwrap()))
            .collect()
    }

    #[test]
    fn a_killed_runs_leftovers_are_removed_by_the_next_write() {
        let d = scratch("stale");
        // PIDs above the kernel's pid_max (at most 2^22) belong to no process.
        for stale in [".r.partial-4999999", ".r.old-4999998"] {
            fs::create_dir_all(d.join(stale)).unwrap();
            fs::write(d.join(stale).join("flows.parquet"), b"half").unwrap();
        }
        let alive = format!(".r.partial-{}", std::process::id());
        let other = ".rr.partial-4999997"; // another result's: not ours to touch
        fs::create_dir_all(d.join(other)).unwrap();
        write_dir(&d.join("r"), &output()).unwrap();
        let mut left: Vec<String> = fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, vec![other.to_string(), "r".to_string()], "{alive} is renamed into place");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn parquet_round_trips() {
        let d = scratch("roundtrip");
        let out = output();
        write_dir(&d.join("r"), &out).unwrap();
        assert_eq!(read_parquet(&d.join("r/tcp.parquet")), out.tcp);
        let mut flows = read_parquet(&d.join("r/flows.parquet"));
        flows.name = "flows".into();
        assert_eq!(flows, out.flows);
        let f = fs::File::open(d.join("r/queues.parquet")).unwrap();
        let b = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
        assert_eq!(b.schema().fields().len(), 2);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn summary_and_scenario_files() {
        let d = scratch("summary");
        let out = output();
        write_dir(&d.join("r"), &out).unwrap();
        let text = fs::read_to_string(d.join("r/summary.json")).unwrap();
        assert!(text.ends_with("}\n"));
        assert!(
            text.starts_with(
                "{\n  \"scenario\": \"unit\",\n  \"seed\": 7,\n  \"duration_s\": 2.0,"
            )
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["flows"][0]["retransmitted_segments"], 3);
        assert_eq!(v["queues"][0]["drops_by_cause"]["tail"], 2);
        assert_eq!(
            fs::read_to_string(d.join("r/scenario.toml")).unwrap(),
            out.scenario_toml
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn two_writes_give_identical_bytes() {
        let d = scratch("determinism");
        write_dir(&d.join("a"), &output()).unwrap();
        write_dir(&d.join("b"), &output()).unwrap();
        assert_eq!(files(&d.join("a")), files(&d.join("b")));
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn replaces_a_previous_result_and_leaves_no_siblings() {
        let d = scratch("replace");
        let r = d.join("r");
        write_dir(&r, &output()).unwrap();
        fs::write(r.join("stale.txt"), "from an older run").unwrap();
        let mut second = output();
        second.summary.seed = 8;
        write_dir(&r, &second).unwrap();
        assert!(!r.join("stale.txt").exists());
        assert!(
            fs::read_to_string(r.join("summary.json"))
                .unwrap()
                .contains("\"seed\": 8")
        );
        let names: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("r")]);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn refuses_to_replace_what_is_not_a_result() {
        let d = scratch("refuse");
        let precious = d.join("home");
        fs::create_dir(&precious).unwrap();
        fs::write(precious.join("notes.txt"), "keep me").unwrap();
        assert!(matches!(write_dir(&precious, &output()), Err(Error::Io(_))));
        assert_eq!(
            fs::read_to_string(precious.join("notes.txt")).unwrap(),
            "keep me"
        );
        fs::write(d.join("file"), "x").unwrap();
        assert!(write_dir(&d.join("file"), &output()).is_err());
        assert!(check_out_dir(Path::new(".")).is_err());
        // A symbolic link, even to a result, is refused: rename would replace the link.
        write_dir(&d.join("real"), &output()).unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("link")).unwrap();
        assert!(write_dir(&d.join("link"), &output()).is_err());
        assert!(d.join("real/summary.json").is_file());
        // An empty directory is accepted.
        fs::create_dir(d.join("empty")).unwrap();
        write_dir(&d.join("empty"), &output()).unwrap();
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn creates_missing_parents() {
        let d = scratch("parents");
        write_dir(&d.join("out/deeper/r"), &output()).unwrap();
        assert!(d.join("out/deeper/r/scenario.toml").is_file());
        let _ = fs::remove_dir_all(&d);
    }
}
