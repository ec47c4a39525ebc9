//! An Nsight Systems SQLite export read into the columns every format parses into
//! ([`ParsedTrace`]): kernels, copies and sets on the device (`pid` the device, `tid` the
//! stream, as Kineto writes them), CUDA runtime calls and NVTX ranges on the host (`pid` and
//! `tid` from the export's serialized thread id), times in ns as the export gives them
//! (docs/formats.md).

use crate::error::{Error, Result};
use crate::input::json::parse::ParsedTrace;
use crate::input::nsight::names::{memcpy_name, memset_name, nvtx_name, runtime_name};
use crate::model::store::{DeviceProperties, NO_CORRELATION, NO_STREAM, NameId, NewEvent, StringTable};
use rusqlite::{Connection, OpenFlags, Row};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

/// The tables the export's work is read from.
pub const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
/// CUDA runtime calls.
pub const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
/// NVTX marks and ranges.
pub const NVTX: &str = "NVTX_EVENTS";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const STRINGS: &str = "StringIds";
const GPUS: &str = "TARGET_INFO_GPU";

/// `ENUM_NSYS_EVENT_TYPE`: a push/pop range and a start/end range (marks have no length).
const NVTX_RANGES: &str = "eventType IN (59, 60)";

/// The export at `path`, opened read-only.
pub fn open(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(path, flags).map_err(|e| failed(path, e))
}

/// A failure of SQLite on the export at `path`, as the user reads it.
pub fn failed(path: &Path, e: rusqlite::Error) -> Error {
    Error::input(path, format!("cannot read the Nsight Systems export: {e}"))
}

/// The names of the database's tables.
pub fn tables(conn: &Connection) -> rusqlite::Result<FxHashSet<String>> {
    let mut q = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    q.query_map([], |r| r.get::<_, String>(0))?.collect()
}

/// The process of a serialized global thread or process id (`globalTid`, `globalPid`).
fn pid_of(global: i64) -> i64 {
    (global >> 24) & 0xFF_FFFF
}

/// The thread of a serialized global thread id.
fn tid_of(global: i64) -> i64 {
    global & 0xFF_FFFF
}

/// One trace's columns being filled (the export's, or one rank's where it holds several):
/// its strings, the names already interned, its rows and each device's use.
#[derive(Default)]
struct Part {
    strings: StringTable,
    interned: FxHashMap<i64, NameId>,
    numbers: FxHashMap<i64, NameId>,
    runtime_names: FxHashMap<i64, NameId>,
    events: Vec<NewEvent>,
    device_use: FxHashMap<i64, u64>,
}

impl Part {
    fn number(&mut self, n: i64) -> NameId {
        let strings = &mut self.strings;
        *self.numbers.entry(n).or_insert_with(|| strings.intern(&n.to_string()))
    }

    /// The export's string `id` (of `ids`), interned once (empty where the export lacks it).
    fn string(&mut self, id: i64, ids: &FxHashMap<i64, String>) -> NameId {
        if let Some(&n) = self.interned.get(&id) {
            return n;
        }
        let n = self.strings.intern(ids.get(&id).map_or("", String::as_str));
        self.interned.insert(id, n);
        n
    }

    fn push(
        &mut self,
        (start, end): (i64, i64),
        name: NameId,
        cat: NameId,
        (pid, tid): (NameId, NameId),
        link: (i64, i64),
    ) {
        let (stream, correlation) = link;
        self.events.push(NewEvent {
            index: 0,
            name,
            cat,
            ts_ns: start,
            dur_ns: end.saturating_sub(start).max(0),
            pid,
            tid,
            stream,
            correlation,
        });
    }

    /// A device row's place: `pid` the device, `tid` the stream; counted for the device.
    fn device_row(&mut self, device: i64, stream: i64) -> (NameId, NameId) {
        *self.device_use.entry(device).or_default() += 1;
        (self.number(device), self.number(stream))
    }

    /// The host thread of a serialized `globalTid`.
    fn host_row(&mut self, global: Option<i64>) -> (NameId, NameId) {
        let g = global.unwrap_or(0);
        (self.number(pid_of(g)), self.number(tid_of(g)))
    }
}

/// The columns being filled, with the export's strings by id: one [`Part`] holding every row,
/// or one per rank, each row going to the part of its process.
struct Reader<'c> {
    conn: &'c Connection,
    ids: FxHashMap<i64, String>,
    parts: Vec<Part>,
    /// The part of each process ([`process_of`]) where the export is read as several ranks;
    /// `None`: the one part takes every row.
    rank_of: Option<FxHashMap<i64, usize>>,
}

impl Reader<'_> {
    /// The part a row of the serialized process or thread id `global` goes to; `None` where
    /// the export is read as several ranks and the row's process launched no GPU work.
    fn part(&self, global: Option<i64>) -> Option<usize> {
        match &self.rank_of {
            None => Some(0),
            Some(ranks) => global.and_then(|g| ranks.get(&process_of(g)).copied()),
        }
    }

    /// The column that gives a device row's process, where rows are split by process (`NULL`,
    /// read by no one, where they are not: an export of an older layout may lack it).
    fn process_column(&self) -> &'static str {
        if self.rank_of.is_some() { "globalPid" } else { "NULL" }
    }

    /// `text` interned in every part (a category), in the parts' order.
    fn intern_all(&mut self, text: &str) -> Vec<NameId> {
        self.parts.iter_mut().map(|p| p.strings.intern(text)).collect()
    }

    fn kernels(&mut self) -> rusqlite::Result<()> {
        let cats = self.intern_all("kernel");
        let sql = format!(
            "SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName, {} FROM {KERNEL}",
            self.process_column()
        );
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let Some(k) = self.part(r.get(7)?) else { continue };
            let part = &mut self.parts[k];
            let (device, stream): (i64, i64) = (r.get(2)?, r.get(3)?);
            let name_id: Option<i64> = r.get::<_, Option<i64>>(5)?.or(r.get(6)?);
            let name = part.string(name_id.unwrap_or(-1), &self.ids);
            let place = part.device_row(device, stream);
            let correlation = r.get::<_, Option<i64>>(4)?.unwrap_or(NO_CORRELATION);
            part.push(span(r)?, name, cats[k], place, (stream, correlation));
        }
        Ok(())
    }

    /// Copies (`memset` false) or sets: named as Kineto names them.
    fn copies(&mut self, memset: bool) -> rusqlite::Result<()> {
        let process = self.process_column();
        let (cat, sql, process_at) = if memset {
            (
                "gpu_memset",
                format!("SELECT start, end, deviceId, streamId, correlationId, memKind, {process} FROM {MEMSET}"),
                6,
            )
        } else {
            (
                "gpu_memcpy",
                format!(
                    "SELECT start, end, deviceId, streamId, correlationId, copyKind, srcKind, dstKind, {process} FROM {MEMCPY}"
                ),
                8,
            )
        };
        let cats = self.intern_all(cat);
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let Some(k) = self.part(r.get(process_at)?) else {
                continue;
            };
            let part = &mut self.parts[k];
            let (device, stream): (i64, i64) = (r.get(2)?, r.get(3)?);
            let text = if memset {
                memset_name(r.get(5)?)
            } else {
                memcpy_name(r.get(5)?, r.get(6)?, r.get(7)?)
            };
            let name = part.strings.intern(&text);
            let place = part.device_row(device, stream);
            let correlation = r.get::<_, Option<i64>>(4)?.unwrap_or(NO_CORRELATION);
            part.push(span(r)?, name, cats[k], place, (stream, correlation));
        }
        Ok(())
    }

    fn runtime(&mut self) -> rusqlite::Result<()> {
        let cats = self.intern_all("cuda_runtime");
        let mut q = self.conn.prepare(&format!(
            "SELECT start, end, globalTid, correlationId, nameId FROM {RUNTIME}"
        ))?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let global: Option<i64> = r.get(2)?;
            let Some(k) = self.part(global) else { continue };
            let part = &mut self.parts[k];
            let id: i64 = r.get(4)?;
            let name = match part.runtime_names.get(&id) {
                Some(&n) => n,
                None => {
                    let text = self.ids.get(&id).map_or("", |s| runtime_name(s));
                    let n = part.strings.intern(text);
                    part.runtime_names.insert(id, n);
                    n
                }
            };
            let place = part.host_row(global);
            let correlation = r.get::<_, Option<i64>>(3)?.unwrap_or(NO_CORRELATION);
            part.push(span(r)?, name, cats[k], place, (NO_STREAM, correlation));
        }
        Ok(())
    }

    fn nvtx(&mut self) -> rusqlite::Result<()> {
        let ops = self.intern_all("cpu_op");
        let annotations = self.intern_all("user_annotation");
        let sql =
            format!("SELECT start, end, text, textId, globalTid FROM {NVTX} WHERE end IS NOT NULL AND {NVTX_RANGES}");
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let global: Option<i64> = r.get(4)?;
            let Some(k) = self.part(global) else { continue };
            let text = nvtx_text(r, &self.ids)?;
            let (name, is_op) = nvtx_name(&text);
            let part = &mut self.parts[k];
            let name = part.strings.intern(name);
            let place = part.host_row(global);
            let cat = if is_op { ops[k] } else { annotations[k] };
            part.push(span(r)?, name, cat, place, (NO_STREAM, NO_CORRELATION));
        }
        Ok(())
    }
}

/// A row's `start` and `end` (columns 0 and 1).
fn span(r: &Row<'_>) -> rusqlite::Result<(i64, i64)> {
    Ok((r.get(0)?, r.get(1)?))
}

/// An NVTX row's text: its own (`text`, column 2), else its registered string (`textId`, 3).
fn nvtx_text(r: &Row<'_>, ids: &FxHashMap<i64, String>) -> rusqlite::Result<String> {
    if let Some(t) = r.get::<_, Option<String>>(2)? {
        return Ok(t);
    }
    let id: Option<i64> = r.get(3)?;
    Ok(id.and_then(|i| ids.get(&i)).cloned().unwrap_or_default())
}

/// The export's strings by id.
fn string_ids(conn: &Connection) -> rusqlite::Result<FxHashMap<i64, String>> {
    let mut q = conn.prepare(&format!("SELECT id, value FROM {STRINGS}"))?;
    q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
}

/// The GPUs the export describes (`TARGET_INFO_GPU`: `id`, `name`, `totalMemory`); none where
/// the table is absent or of an older layout.
fn gpus(conn: &Connection, tables: &FxHashSet<String>) -> Vec<DeviceProperties> {
    if !tables.contains(GPUS) {
        return Vec::new();
    }
    let read = || -> rusqlite::Result<Vec<DeviceProperties>> {
        let mut q = conn.prepare(&format!("SELECT id, name, totalMemory FROM {GPUS} ORDER BY id"))?;
        q.query_map([], |r| {
            Ok(DeviceProperties {
                id: r.get(0)?,
                name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                total_global_mem: r.get::<_, Option<i64>>(2)?.and_then(|m| u64::try_from(m).ok()),
            })
        })?
        .collect()
    };
    read().unwrap_or_default()
}

/// A row's process: its serialized process or thread id (`globalPid`, `globalTid`) without
/// the thread (the vm id and the pid, so that two hosts' processes of one pid stay apart).
fn process_of(global: i64) -> i64 {
    global >> 24
}

/// The processes whose kernels the export holds ([`process_of`]), in rank order: by pid, then
/// by the rest of the id (none where kernels carry no `globalPid`, as in an older layout). An
/// error is SQLite's failure to read the kernels' processes (a damaged export), never taken as
/// an export of one process.
fn kernel_processes(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    let mut columns = conn.prepare(&format!("SELECT name FROM pragma_table_info('{KERNEL}')"))?;
    let has_pid = (columns.query_map([], |r| r.get::<_, String>(0))?)
        .collect::<rusqlite::Result<FxHashSet<String>>>()?
        .contains("globalPid");
    if !has_pid {
        return Ok(Vec::new());
    }
    let mut q = conn.prepare(&format!(
        "SELECT DISTINCT globalPid FROM {KERNEL} WHERE globalPid IS NOT NULL"
    ))?;
    let pids = q
        .query_map([], |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    let mut processes: Vec<i64> = pids.into_iter().map(process_of).collect();
    processes.sort_unstable_by_key(|&p| (p & 0xFF_FFFF, p));
    processes.dedup();
    Ok(processes)
}

/// [`kernel_processes`] of the export at `path` (none where it has no kernel table), its
/// failure an error naming the table.
fn processes_of(conn: &Connection, path: &Path, tables: &FxHashSet<String>) -> Result<Vec<i64>> {
    if !tables.contains(KERNEL) {
        return Ok(Vec::new());
    }
    kernel_processes(conn).map_err(|e| {
        Error::input(
            path,
            format!(
                "cannot read the Nsight Systems export: {KERNEL}.globalPid (the processes that launched kernels): {e}"
            ),
        )
    })
}

/// The number of ranks the export at `path` is read as: one per process that launched GPU
/// work where there are several of them, else one. An export whose kernels' processes cannot
/// be read is an error, as reading it would be.
pub fn rank_count(path: &Path) -> Result<usize> {
    let conn = open(path)?;
    let tables = tables(&conn).map_err(|e| failed(path, e))?;
    Ok(processes_of(&conn, path, &tables)?.len().max(1))
}

/// Reads the export at `path` as one trace (see [`read_ranks`]); an export of several ranks is
/// refused: what reads one trace cannot take it.
pub fn read_export(path: &Path) -> Result<ParsedTrace> {
    let mut ranks = read_ranks(path)?;
    if ranks.len() > 1 {
        return Err(Error::input(
            path,
            format!(
                "the Nsight Systems export holds the GPU work of {} processes, read as ranks 0–{}: pass it as a side (compare, overview, gate… take it with --rank), or summarize it into a dataset of one summary per rank (tracediff summarize {} --label RUN -o OUTDIR)",
                ranks.len(),
                ranks.len() - 1,
                path.display()
            ),
        ));
    }
    // `read_ranks` gives one trace at least.
    Ok(ranks.pop().unwrap_or_default())
}

/// Reads the export at `path` into its columns, in file order: by start, the longer first
/// where two start together (an enclosing range before what it encloses), then by table. An
/// export whose GPU work is that of several processes is read as one trace per such process,
/// rank `i` the `i`-th by pid, each with its own rows (its GPU work, its CUDA runtime calls and
/// NVTX ranges) and the GPUs it used; the rows of processes that launched no GPU work are left
/// out (docs/formats.md#several-processes-in-one-export). Any other export is one trace of
/// every row.
pub fn read_ranks(path: &Path) -> Result<Vec<ParsedTrace>> {
    let conn = open(path)?;
    let tables = tables(&conn).map_err(|e| failed(path, e))?;
    let processes = processes_of(&conn, path, &tables)?;
    let ids = if tables.contains(STRINGS) {
        string_ids(&conn).map_err(|e| failed(path, e))?
    } else {
        FxHashMap::default()
    };
    let split = processes.len() > 1;
    let mut r = Reader {
        conn: &conn,
        ids,
        parts: (0..processes.len().max(1)).map(|_| Part::default()).collect(),
        rank_of: split.then(|| processes.iter().enumerate().map(|(k, &p)| (p, k)).collect()),
    };
    let read = |r: &mut Reader<'_>| -> rusqlite::Result<()> {
        if tables.contains(NVTX) {
            r.nvtx()?;
        }
        if tables.contains(RUNTIME) {
            r.runtime()?;
        }
        if tables.contains(KERNEL) {
            r.kernels()?;
        }
        if tables.contains(MEMCPY) {
            r.copies(false)?;
        }
        if tables.contains(MEMSET) {
            r.copies(true)?;
        }
        Ok(())
    };
    read(&mut r).map_err(|e| failed(path, e))?;
    let devices = gpus(&conn, &tables);
    let mut out = Vec::with_capacity(r.parts.len());
    for (rank, part) in r.parts.into_iter().enumerate() {
        let Part {
            strings,
            events,
            device_use,
            ..
        } = part;
        // Each rank is told the GPUs it used; the export's one trace, every GPU it describes.
        let devices = if split {
            devices
                .iter()
                .filter(|d| device_use.contains_key(&d.id))
                .cloned()
                .collect()
        } else {
            devices.clone()
        };
        let mut parsed = crate::input::finish::rows_into_parsed(path, strings, events, devices, device_use);
        if split {
            parsed.declared_rank = Some(rank as i64);
        }
        out.push(parsed);
    }
    Ok(out)
}

/// The ProfilerStep numbers of the export's NVTX ranges, sorted and unique.
pub fn step_numbers(path: &Path) -> Result<Vec<i64>> {
    let conn = open(path)?;
    let tables = tables(&conn).map_err(|e| failed(path, e))?;
    if !tables.contains(NVTX) {
        return Ok(Vec::new());
    }
    let ids = if tables.contains(STRINGS) {
        string_ids(&conn).map_err(|e| failed(path, e))?
    } else {
        FxHashMap::default()
    };
    let read = || -> rusqlite::Result<Vec<i64>> {
        let sql = format!("SELECT start, end, text, textId FROM {NVTX} WHERE end IS NOT NULL AND {NVTX_RANGES}");
        let mut q = conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        let mut steps = Vec::new();
        while let Some(r) = rows.next()? {
            if let Some(n) = crate::model::iteration::step_number(nvtx_name(&nvtx_text(r, &ids)?).0) {
                steps.push(n);
            }
        }
        Ok(steps)
    };
    let mut steps = read().map_err(|e| failed(path, e))?;
    steps.sort_unstable();
    steps.dedup();
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/nsight")
            .join(name)
    }

    /// The names of a parse's rows.
    fn names(p: &ParsedTrace) -> FxHashSet<String> {
        (0..p.events.len())
            .map(|i| p.strings.resolve(p.events.name[i]).to_string())
            .collect()
    }

    #[test]
    fn an_export_of_two_processes_is_one_parse_per_process_by_pid() {
        let path = fixture("two_processes.sqlite");
        assert_eq!(rank_count(&path).unwrap(), 2);
        let ranks = read_ranks(&path).unwrap();
        assert_eq!(ranks.len(), 2);
        assert_eq!(
            ranks.iter().map(|p| p.declared_rank).collect::<Vec<_>>(),
            [Some(0), Some(1)]
        );
        // pid 4242 ran on device 0, pid 4343 (whose rows come first) on device 1: each is told
        // its own GPU.
        assert_eq!(ranks[0].device_use, [(0, 15)]);
        assert_eq!(ranks[1].device_use, [(1, 18)]);
        assert_eq!(ranks[0].devices.iter().map(|d| d.id).collect::<Vec<_>>(), [0]);
        assert_eq!(ranks[1].devices.iter().map(|d| d.id).collect::<Vec<_>>(), [1]);
        // Each rank's host rows are its own; the launcher's (no GPU work) are no rank's.
        for p in &ranks {
            let names = names(p);
            assert!(names.contains("ProfilerStep#1"), "{names:?}");
            assert!(!names.contains("torchrun"), "{names:?}");
        }
        let e = read_export(&path).unwrap_err().to_string();
        assert!(
            e.contains("holds the GPU work of 2 processes, read as ranks 0–1"),
            "{e}"
        );
    }

    #[test]
    fn an_export_of_one_process_is_one_parse_of_every_row() {
        let path = fixture("control.sqlite");
        assert_eq!(rank_count(&path).unwrap(), 1);
        let ranks = read_ranks(&path).unwrap();
        assert_eq!(ranks.len(), 1);
        assert_eq!(ranks[0].declared_rank, None);
        let whole = read_export(&path).unwrap();
        assert_eq!(whole.events.len(), ranks[0].events.len());
        assert_eq!(whole.devices, ranks[0].devices);
    }
}
