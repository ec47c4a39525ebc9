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

/// The columns being filled, with the export's strings by id and the names already interned.
struct Reader<'c> {
    conn: &'c Connection,
    strings: StringTable,
    ids: FxHashMap<i64, String>,
    interned: FxHashMap<i64, NameId>,
    numbers: FxHashMap<i64, NameId>,
    events: Vec<NewEvent>,
    device_use: FxHashMap<i64, u64>,
}

impl Reader<'_> {
    fn number(&mut self, n: i64) -> NameId {
        let strings = &mut self.strings;
        *self.numbers.entry(n).or_insert_with(|| strings.intern(&n.to_string()))
    }

    /// The export's string `id`, interned once (empty where the export lacks it).
    fn string(&mut self, id: i64) -> NameId {
        if let Some(&n) = self.interned.get(&id) {
            return n;
        }
        let n = self.strings.intern(self.ids.get(&id).map_or("", String::as_str));
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

    fn kernels(&mut self) -> rusqlite::Result<()> {
        let cat = self.strings.intern("kernel");
        let sql =
            format!("SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName FROM {KERNEL}");
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let (device, stream): (i64, i64) = (r.get(2)?, r.get(3)?);
            let name_id: Option<i64> = r.get::<_, Option<i64>>(5)?.or(r.get(6)?);
            let name = self.string(name_id.unwrap_or(-1));
            let place = self.device_row(device, stream);
            let correlation = r.get::<_, Option<i64>>(4)?.unwrap_or(NO_CORRELATION);
            self.push(span(r)?, name, cat, place, (stream, correlation));
        }
        Ok(())
    }

    /// Copies (`memset` false) or sets: named as Kineto names them.
    fn copies(&mut self, memset: bool) -> rusqlite::Result<()> {
        let (cat, sql) = if memset {
            (
                "gpu_memset",
                format!("SELECT start, end, deviceId, streamId, correlationId, memKind FROM {MEMSET}"),
            )
        } else {
            (
                "gpu_memcpy",
                format!(
                    "SELECT start, end, deviceId, streamId, correlationId, copyKind, srcKind, dstKind FROM {MEMCPY}"
                ),
            )
        };
        let cat = self.strings.intern(cat);
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let (device, stream): (i64, i64) = (r.get(2)?, r.get(3)?);
            let text = if memset {
                memset_name(r.get(5)?)
            } else {
                memcpy_name(r.get(5)?, r.get(6)?, r.get(7)?)
            };
            let name = self.strings.intern(&text);
            let place = self.device_row(device, stream);
            let correlation = r.get::<_, Option<i64>>(4)?.unwrap_or(NO_CORRELATION);
            self.push(span(r)?, name, cat, place, (stream, correlation));
        }
        Ok(())
    }

    /// The host thread of a serialized `globalTid`.
    fn host_row(&mut self, global: Option<i64>) -> (NameId, NameId) {
        let g = global.unwrap_or(0);
        (self.number(pid_of(g)), self.number(tid_of(g)))
    }

    fn runtime(&mut self) -> rusqlite::Result<()> {
        let cat = self.strings.intern("cuda_runtime");
        let mut names: FxHashMap<i64, NameId> = FxHashMap::default();
        let mut q = self.conn.prepare(&format!(
            "SELECT start, end, globalTid, correlationId, nameId FROM {RUNTIME}"
        ))?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(4)?;
            let name = match names.get(&id) {
                Some(&n) => n,
                None => {
                    let text = self.ids.get(&id).map_or("", |s| runtime_name(s));
                    let n = self.strings.intern(text);
                    names.insert(id, n);
                    n
                }
            };
            let place = self.host_row(r.get(2)?);
            let correlation = r.get::<_, Option<i64>>(3)?.unwrap_or(NO_CORRELATION);
            self.push(span(r)?, name, cat, place, (NO_STREAM, correlation));
        }
        Ok(())
    }

    fn nvtx(&mut self) -> rusqlite::Result<()> {
        let op = self.strings.intern("cpu_op");
        let annotation = self.strings.intern("user_annotation");
        let sql =
            format!("SELECT start, end, text, textId, globalTid FROM {NVTX} WHERE end IS NOT NULL AND {NVTX_RANGES}");
        let mut q = self.conn.prepare(&sql)?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let text = nvtx_text(r, &self.ids)?;
            let (name, is_op) = nvtx_name(&text);
            let name = self.strings.intern(name);
            let place = self.host_row(r.get(4)?);
            let cat = if is_op { op } else { annotation };
            self.push(span(r)?, name, cat, place, (NO_STREAM, NO_CORRELATION));
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

/// The processes whose kernels the export holds, sorted (none where kernels carry no
/// `globalPid`).
fn kernel_processes(conn: &Connection) -> Vec<i64> {
    let sql = format!("SELECT DISTINCT globalPid FROM {KERNEL} WHERE globalPid IS NOT NULL");
    let read = || -> rusqlite::Result<Vec<i64>> {
        let mut q = conn.prepare(&sql)?;
        q.query_map([], |r| r.get::<_, i64>(0))?.collect()
    };
    let mut pids: Vec<i64> = read().unwrap_or_default().into_iter().map(pid_of).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Reads the export at `path` into its columns, in file order: by start, the longer first
/// where two start together (an enclosing range before what it encloses), then by table.
pub fn read_export(path: &Path) -> Result<ParsedTrace> {
    let conn = open(path)?;
    let tables = tables(&conn).map_err(|e| failed(path, e))?;
    let processes = kernel_processes(&conn);
    if processes.len() > 1 {
        let shown: Vec<String> = processes.iter().map(i64::to_string).collect();
        return Err(Error::input(
            path,
            format!(
                "the Nsight Systems export holds the GPU work of {} processes (pids {}), one per rank: profile each rank into a report of its own (nsys profile -o rank%q{{RANK}} …), export each, and pass their folder",
                processes.len(),
                shown.join(", ")
            ),
        ));
    }
    let ids = if tables.contains(STRINGS) {
        string_ids(&conn).map_err(|e| failed(path, e))?
    } else {
        FxHashMap::default()
    };
    let mut r = Reader {
        conn: &conn,
        strings: StringTable::new(),
        ids,
        interned: FxHashMap::default(),
        numbers: FxHashMap::default(),
        events: Vec::new(),
        device_use: FxHashMap::default(),
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
    Ok(finish(r, gpus(&conn, &tables), path))
}

/// The rows put in file order, into the parse's columns.
fn finish(r: Reader<'_>, devices: Vec<DeviceProperties>, path: &Path) -> ParsedTrace {
    let Reader {
        strings,
        events,
        device_use,
        ..
    } = r;
    crate::input::finish::rows_into_parsed(path, strings, events, devices, device_use)
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
