//! rocprofv3's JSON read into the columns every format parses into ([`ParsedTrace`]), as the
//! PyTorch profiler writes the same work on ROCm: kernel dispatches and copies on the device
//! (`pid` the GPU's index, `tid` the stream), HIP runtime calls and roctx ranges on the host
//! (`pid` the process, `tid` the OS thread), times in ns as rocprofv3 gives them
//! (docs/formats.md#rocprofv3-json).

use crate::error::{Error, Result};
use crate::input::json::parse::ParsedTrace;
use crate::input::nsight::names::nvtx_name;
use crate::input::read::{describe_read_error, open};
use crate::input::rocprof::schema::{AGENT_TYPE_GPU, Agent, Handle, Process, ToolFile, ToolFileProcesses};
use crate::model::store::{DeviceProperties, NO_CORRELATION, NO_STREAM, NameId, NewEvent, StringTable};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

/// The roctx calls whose records are ranges (a push to its pop, a start to its stop); a mark
/// (`roctxMarkA`) has no length and the other calls name threads or pause the profiler.
const RANGE_CALLS: [&str; 2] = ["roctxRangePushA", "roctxRangeStartA"];

/// The file at `path` parsed (inflated where it is gzip), or an error naming the line and
/// column where its JSON stops making sense.
pub fn parse(path: &Path) -> Result<ToolFile> {
    parse_as(path)
}

#[cfg(test)]
thread_local! {
    /// How many times this thread has read a rocprofv3 file ([`parse_as`]): tests count the
    /// reads a scan or a load makes.
    pub(crate) static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The file at `path` parsed as `T` (the whole file, or the part of it `T` names).
fn parse_as<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    #[cfg(test)]
    READS.with(|n| n.set(n.get() + 1));
    let mut reader = open(path)?;
    let mut text = Vec::new();
    reader
        .inner
        .read_to_end(&mut text)
        .map_err(|e| Error::input(path, describe_read_error(&e, reader.compression)))?;
    serde_json::from_slice(&text).map_err(|e| Error::input(path, format!("rocprofv3's JSON: {e}")))
}

/// A problem with one record: where it is (`rocprofiler-sdk-tool[0].buffer_records…`) and what.
fn wrong(path: &Path, place: String, what: impl std::fmt::Display) -> Error {
    Error::input(path, format!("rocprofv3's JSON: {place}: {what}"))
}

/// A timestamp or id as the store's signed number.
fn signed(path: &Path, place: impl Fn() -> String, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| wrong(path, place(), format!("{value} is out of range")))
}

/// What one process's records refer to by number.
struct Lookups<'p> {
    /// Per record kind, its name and its operations' names.
    kinds: &'p [crate::input::rocprof::schema::KindNames],
    /// The marker messages by correlation id.
    messages: FxHashMap<u64, &'p str>,
    /// The kernels' names by kernel id.
    kernels: FxHashMap<u64, String>,
    /// The agents by handle, with a GPU's index.
    agents: FxHashMap<Handle, (bool, i64)>,
    /// Each HSA queue's number: its rank among the process's queues.
    queues: FxHashMap<Handle, i64>,
}

/// Each GPU agent's index: `logical_node_type_id` where written, else its rank among the GPUs
/// by node and handle.
fn gpu_indexes(agents: &[Agent]) -> FxHashMap<Handle, (bool, i64)> {
    let mut gpus: Vec<&Agent> = agents.iter().filter(|a| a.kind == AGENT_TYPE_GPU).collect();
    gpus.sort_by_key(|a| (a.node_id, a.id));
    let mut out: FxHashMap<Handle, (bool, i64)> = agents.iter().map(|a| (a.id, (false, 0))).collect();
    for (k, a) in gpus.iter().enumerate() {
        out.insert(a.id, (true, a.logical_node_type_id.unwrap_or(k as i64)));
    }
    out
}

/// A kernel's name as the PyTorch profiler gives it: demangled where rocprofv3 could, else the
/// symbol without its `.kd` descriptor suffix.
fn kernel_name(symbol: &crate::input::rocprof::schema::KernelSymbol) -> String {
    match symbol.demangled_kernel_name.as_deref() {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => symbol
            .kernel_name
            .strip_suffix(".kd")
            .unwrap_or(&symbol.kernel_name)
            .to_string(),
    }
}

impl<'p> Lookups<'p> {
    fn of(process: &'p Process) -> Self {
        let strings = process.strings.as_ref();
        // Sorted by handle, so a queue's number is the same whatever the records' order.
        let queues: BTreeSet<Handle> = process
            .buffer_records
            .iter()
            .flat_map(|b| b.kernel_dispatch.iter().map(|d| d.dispatch_info.queue_id))
            .collect();
        Lookups {
            kinds: strings.map_or(&[], |s| s.buffer_records.as_slice()),
            messages: strings
                .iter()
                .flat_map(|s| s.marker_api.iter().map(|m| (m.key, m.value.as_str())))
                .collect(),
            kernels: process
                .kernel_symbols
                .iter()
                .map(|k| (k.kernel_id, kernel_name(k)))
                .collect(),
            agents: gpu_indexes(&process.agents),
            queues: queues.into_iter().enumerate().map(|(k, q)| (q, k as i64)).collect(),
        }
    }

    /// The name of record kind `kind` and of its operation `op`.
    fn call(&self, kind: usize, op: usize) -> std::result::Result<(&'p str, &'p str), String> {
        let names = self
            .kinds
            .get(kind)
            .ok_or_else(|| format!("kind {kind} is not in strings.buffer_records"))?;
        let call = names
            .operations
            .get(op)
            .ok_or_else(|| format!("operation {op} is not among the operations of {}", names.kind))?;
        Ok((names.kind.as_str(), call.as_str()))
    }

    /// Whether agent `id` is a GPU, and its index.
    fn agent(&self, id: Handle) -> std::result::Result<(bool, i64), String> {
        self.agents
            .get(&id)
            .copied()
            .ok_or_else(|| format!("agent {} is not among the agents", id.handle))
    }
}

/// The columns being filled.
struct Reader<'a> {
    path: &'a Path,
    strings: StringTable,
    numbers: FxHashMap<i64, NameId>,
    events: Vec<NewEvent>,
    device_use: FxHashMap<i64, u64>,
}

impl Reader<'_> {
    fn number(&mut self, n: i64) -> NameId {
        let strings = &mut self.strings;
        *self.numbers.entry(n).or_insert_with(|| strings.intern(&n.to_string()))
    }

    /// One row: its span (`start`, `end` in ns), name, category, place and links.
    fn push(
        &mut self,
        place: &dyn Fn() -> String,
        (start, end): (u64, u64),
        (name, cat): (NameId, NameId),
        (pid, tid): (NameId, NameId),
        (stream, correlation): (i64, Option<u64>),
    ) -> Result<()> {
        let ts_ns = signed(self.path, || format!("{}.start_timestamp", place()), start)?;
        let end_ns = signed(self.path, || format!("{}.end_timestamp", place()), end)?;
        let correlation = match correlation {
            Some(id) => signed(self.path, || format!("{}.correlation_id", place()), id)?,
            None => NO_CORRELATION,
        };
        self.events.push(NewEvent {
            index: 0,
            name,
            cat,
            ts_ns,
            dur_ns: end_ns.saturating_sub(ts_ns).max(0),
            pid,
            tid,
            stream,
            correlation,
        });
        Ok(())
    }

    /// A device row's place: `pid` the GPU, `tid` the stream; counted for the GPU.
    fn device_row(&mut self, device: i64, stream: i64) -> (NameId, NameId) {
        *self.device_use.entry(device).or_default() += 1;
        (self.number(device), self.number(stream))
    }

    /// The process's roctx ranges, as the PyTorch profiler's annotations (and, for the ranges
    /// `emit_nvtx` pushes for operators, its operators).
    fn markers(&mut self, k: usize, process: &Process, names: &Lookups<'_>, pid: NameId) -> Result<()> {
        let op = self.strings.intern("cpu_op");
        let annotation = self.strings.intern("user_annotation");
        let records = process.buffer_records.iter().flat_map(|b| b.marker_api.iter());
        for (i, r) in records.enumerate() {
            let place = || format!("rocprofiler-sdk-tool[{k}].buffer_records.marker_api[{i}]");
            let (_, call) = names
                .call(r.kind, r.operation)
                .map_err(|e| wrong(self.path, place(), e))?;
            if !RANGE_CALLS.contains(&call) {
                continue;
            }
            let text = names.messages.get(&r.correlation_id.internal).ok_or_else(|| {
                let id = r.correlation_id.internal;
                wrong(
                    self.path,
                    place(),
                    format!("no message in strings.marker_api for correlation id {id}"),
                )
            })?;
            let (name, is_op) = nvtx_name(text);
            let name = self.strings.intern(name);
            let tid = self.number(signed(self.path, || format!("{}.thread_id", place()), r.thread_id)?);
            let cat = if is_op { op } else { annotation };
            let span = (r.start_timestamp, r.end_timestamp);
            self.push(&place, span, (name, cat), (pid, tid), (NO_STREAM, None))?;
        }
        Ok(())
    }

    /// The process's HIP runtime calls (the compiler's `__hip…` calls are not runtime calls).
    fn runtime(&mut self, k: usize, process: &Process, names: &Lookups<'_>, pid: NameId) -> Result<()> {
        let cat = self.strings.intern("cuda_runtime");
        let records = process.buffer_records.iter().flat_map(|b| b.hip_api.iter());
        for (i, r) in records.enumerate() {
            let place = || format!("rocprofiler-sdk-tool[{k}].buffer_records.hip_api[{i}]");
            let (kind, call) = names
                .call(r.kind, r.operation)
                .map_err(|e| wrong(self.path, place(), e))?;
            if !kind.starts_with("HIP_RUNTIME_API") {
                continue;
            }
            let name = self.strings.intern(call);
            let tid = self.number(signed(self.path, || format!("{}.thread_id", place()), r.thread_id)?);
            let span = (r.start_timestamp, r.end_timestamp);
            self.push(
                &place,
                span,
                (name, cat),
                (pid, tid),
                (NO_STREAM, Some(r.correlation_id.internal)),
            )?;
        }
        Ok(())
    }

    fn kernels(&mut self, k: usize, process: &Process, names: &Lookups<'_>) -> Result<()> {
        let cat = self.strings.intern("kernel");
        let records = process.buffer_records.iter().flat_map(|b| b.kernel_dispatch.iter());
        for (i, r) in records.enumerate() {
            let place = || format!("rocprofiler-sdk-tool[{k}].buffer_records.kernel_dispatch[{i}]");
            let info = &r.dispatch_info;
            let kernel = names.kernels.get(&info.kernel_id).ok_or_else(|| {
                let id = info.kernel_id;
                wrong(self.path, place(), format!("kernel_id {id} is not in kernel_symbols"))
            })?;
            let name = self.strings.intern(kernel);
            let (_, device) = names.agent(info.agent_id).map_err(|e| wrong(self.path, place(), e))?;
            let stream = match r.stream_id {
                Some(s) => signed(self.path, || format!("{}.stream_id", place()), s.handle)?,
                None => names.queues.get(&info.queue_id).copied().unwrap_or(0),
            };
            let row = self.device_row(device, stream);
            let span = (r.start_timestamp, r.end_timestamp);
            self.push(
                &place,
                span,
                (name, cat),
                row,
                (stream, Some(r.correlation_id.internal)),
            )?;
        }
        Ok(())
    }

    /// The process's copies, named as the PyTorch profiler names them on ROCm (`Memcpy HtoD
    /// (Host -> Device)`; `PtoP` between two GPUs), on their GPU (the source's where both are).
    fn copies(&mut self, k: usize, process: &Process, names: &Lookups<'_>) -> Result<()> {
        let cat = self.strings.intern("gpu_memcpy");
        let first_gpu = names.agents.values().filter(|a| a.0).map(|a| a.1).min().unwrap_or(0);
        let records = process.buffer_records.iter().flat_map(|b| b.memory_copy.iter());
        for (i, r) in records.enumerate() {
            let place = || format!("rocprofiler-sdk-tool[{k}].buffer_records.memory_copy[{i}]");
            let src = names.agent(r.src_agent_id).map_err(|e| wrong(self.path, place(), e))?;
            let dst = names.agent(r.dst_agent_id).map_err(|e| wrong(self.path, place(), e))?;
            let name = self.strings.intern(&copy_name(src, dst));
            let device = [src, dst].iter().find(|a| a.0).map_or(first_gpu, |a| a.1);
            let stream = match r.stream_id {
                Some(s) => signed(self.path, || format!("{}.stream_id", place()), s.handle)?,
                None => NO_STREAM,
            };
            let row = self.device_row(device, stream.max(0));
            let span = (r.start_timestamp, r.end_timestamp);
            self.push(
                &place,
                span,
                (name, cat),
                row,
                (stream, Some(r.correlation_id.internal)),
            )?;
        }
        Ok(())
    }
}

/// A copy's name from its ends (whether each is a GPU, and which): `Memcpy DtoH (Device ->
/// Host)`, as Kineto writes a ROCm copy.
pub fn copy_name(src: (bool, i64), dst: (bool, i64)) -> String {
    let end = |gpu: bool| if gpu { ("D", "Device") } else { ("H", "Host") };
    let ((s, src_word), (d, dst_word)) = (end(src.0), end(dst.0));
    let kind = if src.0 && dst.0 && src.1 != dst.1 {
        "PtoP".to_string()
    } else {
        format!("{s}to{d}")
    };
    format!("Memcpy {kind} ({src_word} -> {dst_word})")
}

/// The GPUs of `processes` (their `agents` of type GPU), by index, each once.
fn devices(processes: &[(usize, &Process)]) -> Vec<DeviceProperties> {
    let mut out: FxHashMap<i64, DeviceProperties> = FxHashMap::default();
    for (_, p) in processes {
        let indexes = gpu_indexes(&p.agents);
        for a in p.agents.iter().filter(|a| a.kind == AGENT_TYPE_GPU) {
            let id = indexes.get(&a.id).map_or(0, |x| x.1);
            let name = a.product_name.clone().filter(|n| !n.is_empty());
            out.entry(id).or_insert_with(|| DeviceProperties {
                id,
                name: name.or_else(|| a.name.clone()).unwrap_or_default(),
                total_global_mem: a.local_mem_size.filter(|&m| m > 0),
            });
        }
    }
    let mut devices: Vec<DeviceProperties> = out.into_values().collect();
    devices.sort_by_key(|d| d.id);
    devices
}

/// The processes of `file` that dispatched a kernel, each with its place in the file, in rank
/// order: by pid (0 where `metadata` is missing), then by place.
fn gpu_processes(file: &ToolFile) -> Vec<(usize, &Process)> {
    let mut order: Vec<(u64, usize, &Process)> = (file.processes.iter().enumerate())
        .filter(|(_, p)| p.buffer_records.as_ref().is_some_and(|b| !b.kernel_dispatch.is_empty()))
        .map(|(k, p)| (p.metadata.as_ref().map_or(0, |m| m.pid), k, p))
        .collect();
    order.sort_unstable_by_key(|&(pid, k, _)| (pid, k));
    order.into_iter().map(|(_, k, p)| (k, p)).collect()
}

/// The number of ranks the file at `path` is read as: one per process that dispatched a
/// kernel where there are several, else one. Reads the file whole, skipping all but whether
/// each process dispatched.
pub fn rank_count(path: &Path) -> Result<usize> {
    let file: ToolFileProcesses = parse_as(path)?;
    let gpu = (file.processes.iter())
        .filter(|p| p.buffer_records.as_ref().is_some_and(|b| !b.kernel_dispatch.is_empty()))
        .count();
    Ok(gpu.max(1))
}

/// Reads the file at `path` as one trace (see [`read_ranks`]); a file of several ranks is
/// refused: what reads one trace cannot take it.
pub fn read_tool_file(path: &Path) -> Result<ParsedTrace> {
    let mut ranks = read_ranks(path)?;
    if ranks.len() > 1 {
        return Err(Error::input(
            path,
            format!(
                "rocprofv3's JSON holds the GPU work of {} processes, read as ranks 0–{}: pass it as a side (compare, overview, gate… take it with --rank), or summarize it into a dataset of one summary per rank (tracediff summarize {} --label RUN -o OUTDIR)",
                ranks.len(),
                ranks.len() - 1,
                path.display()
            ),
        ));
    }
    // `ranks_of` gives one trace at least.
    Ok(ranks.pop().unwrap_or_default())
}

/// Reads the file at `path` into its columns: one trace, or one per rank where its GPU work
/// is that of several processes (see [`ranks_of`]).
pub fn read_ranks(path: &Path) -> Result<Vec<ParsedTrace>> {
    let file = parse(path)?;
    ranks_of(path, &file)
}

/// The parsed file as its ranks. A file whose kernels were dispatched by several processes
/// is one trace per such process, rank `i` the `i`-th by pid (`gpu_processes`), each with its
/// own records (its kernels, copies, HIP runtime calls and roctx ranges) and of its GPU agents
/// those its device rows ran on; the processes that dispatched no kernel are left out
/// (docs/formats.md#several-processes-in-one-rocprofv3-file). Any other file is one trace of
/// every process ([`into_columns`]).
pub fn ranks_of(path: &Path, file: &ToolFile) -> Result<Vec<ParsedTrace>> {
    let gpu = gpu_processes(file);
    if gpu.len() < 2 {
        return Ok(vec![into_columns(path, file)?]);
    }
    let mut out = Vec::with_capacity(gpu.len());
    for (rank, &process) in gpu.iter().enumerate() {
        let mut parsed = columns(path, &[process], true)?;
        parsed.declared_rank = Some(rank as i64);
        out.push(parsed);
    }
    Ok(out)
}

/// The parsed file's records, of every process, into one trace's columns, in file order: by
/// start, the longer first where two start together (an enclosing range before what it
/// encloses), then by section.
pub fn into_columns(path: &Path, file: &ToolFile) -> Result<ParsedTrace> {
    let every: Vec<(usize, &Process)> = file.processes.iter().enumerate().collect();
    columns(path, &every, false)
}

/// The records of `processes` (each with its place in the file) into one trace's columns;
/// with `used_gpus`, its devices are only the GPUs its device rows ran on, else every GPU
/// agent of the processes.
fn columns(path: &Path, processes: &[(usize, &Process)], used_gpus: bool) -> Result<ParsedTrace> {
    let mut r = Reader {
        path,
        strings: StringTable::new(),
        numbers: FxHashMap::default(),
        events: Vec::new(),
        device_use: FxHashMap::default(),
    };
    for &(k, process) in processes {
        let at = format!("rocprofiler-sdk-tool[{k}]");
        if process.buffer_records.is_none() {
            return Err(wrong(
                path,
                at,
                "no buffer_records (trace with rocprofv3 --kernel-trace, --hip-trace or --marker-trace and --output-format json)",
            ));
        }
        if process.strings.is_none() {
            return Err(wrong(path, at, "no strings (the names its records refer to)"));
        }
        let names = Lookups::of(process);
        let pid = process.metadata.as_ref().map_or(0, |m| m.pid);
        let pid = r.number(signed(path, || format!("{at}.metadata.pid"), pid)?);
        r.markers(k, process, &names, pid)?;
        r.runtime(k, process, &names, pid)?;
        r.kernels(k, process, &names)?;
        r.copies(k, process, &names)?;
    }
    let mut devices = devices(processes);
    if used_gpus {
        devices.retain(|d| r.device_use.contains_key(&d.id));
    }
    Ok(finish(r, devices))
}

/// The rows put in file order, into the parse's columns.
fn finish(r: Reader<'_>, devices: Vec<DeviceProperties>) -> ParsedTrace {
    let Reader {
        path,
        strings,
        events,
        device_use,
        ..
    } = r;
    crate::input::finish::rows_into_parsed(path, strings, events, devices, device_use)
}

#[cfg(test)]
mod tests;
