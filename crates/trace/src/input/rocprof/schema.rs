//! The part of rocprofv3's JSON (`rocprofv3 --output-format json`, rocprofiler-sdk's tool) that
//! tracediff reads, as rocprofiler-sdk writes it: `source/lib/output/generateJSON.cpp` (the
//! sections), `source/include/rocprofiler-sdk/cxx/serialization.hpp` (each record's fields),
//! `source/lib/output/kernel_symbol_info.hpp` and `stream_info.hpp` (the names and streams
//! rocprofv3 adds), checked against `source/docs/rocprofv3-schema.json` and the tool's own
//! tests (`tests/rocprofv3/tracing/validate.py`). Every member not named here is skipped
//! unread; a member named here that a file lacks is empty, and the reader says where that
//! matters.

use serde::Deserialize;

/// The file: one entry per profiled process.
#[derive(Debug, Deserialize)]
pub struct ToolFile {
    /// `rocprofiler-sdk-tool`.
    #[serde(rename = "rocprofiler-sdk-tool")]
    pub processes: Vec<Process>,
}

/// What the file holds of one process.
#[derive(Debug, Deserialize)]
pub struct Process {
    /// `metadata`: the process id and its start and end.
    pub metadata: Option<Metadata>,
    /// `agents`: the CPUs and GPUs the process saw.
    #[serde(default)]
    pub agents: Vec<Agent>,
    /// `strings`: the names records refer to by number.
    pub strings: Option<Strings>,
    /// `kernel_symbols`: each kernel's names, by `kernel_id`.
    #[serde(default)]
    pub kernel_symbols: Vec<KernelSymbol>,
    /// `buffer_records`: the traced records.
    pub buffer_records: Option<BufferRecords>,
}

/// `metadata`.
#[derive(Debug, Deserialize)]
pub struct Metadata {
    /// `pid`.
    pub pid: u64,
}

/// An id rocprofiler-sdk writes as `{"handle": N}` (agents, queues, streams).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle {
    /// `handle`.
    pub handle: u64,
}

/// `ROCPROFILER_AGENT_TYPE_GPU`, the `type` of a GPU agent (1 is a CPU).
pub const AGENT_TYPE_GPU: u64 = 2;

/// One of `agents` (`rocprofiler_agent_v0_t`).
#[derive(Debug, Deserialize)]
pub struct Agent {
    /// `id`: what records name the agent by.
    pub id: Handle,
    /// `type`: [`AGENT_TYPE_GPU`] for a GPU.
    #[serde(rename = "type")]
    pub kind: u64,
    /// `logical_node_type_id`: a GPU's index among the GPUs, from 0 (rocprofv3's `gpu_index`).
    pub logical_node_type_id: Option<i64>,
    /// `node_id`: the agent's HSA node.
    pub node_id: Option<u64>,
    /// `product_name`: the marketing name ("AMD Instinct MI300X").
    pub product_name: Option<String>,
    /// `name`: the target ("gfx942").
    pub name: Option<String>,
    /// `local_mem_size`: a GPU's own memory, bytes.
    pub local_mem_size: Option<u64>,
}

/// `strings`.
#[derive(Debug, Default, Deserialize)]
pub struct Strings {
    /// `buffer_records`: per record kind (a record's `kind` is its index), the kind's name and
    /// its operations' names (a record's `operation` is the index).
    #[serde(default)]
    pub buffer_records: Vec<KindNames>,
    /// `marker_api`: the message of each roctx mark and range, by the correlation id of the
    /// call that gave it.
    #[serde(default)]
    pub marker_api: Vec<Message>,
}

/// One kind of `strings.buffer_records`.
#[derive(Debug, Deserialize)]
pub struct KindNames {
    /// `kind`: "KERNEL_DISPATCH", "HIP_RUNTIME_API", "MARKER_CORE_API", "MEMORY_COPY", …
    pub kind: String,
    /// `operations`: "hipLaunchKernel", "roctxRangePushA", "MEMORY_COPY_HOST_TO_DEVICE", …
    #[serde(default)]
    pub operations: Vec<String>,
}

/// One of `strings.marker_api`.
#[derive(Debug, Deserialize)]
pub struct Message {
    /// `key`: the correlation id (`internal`) of the mark or range.
    pub key: u64,
    /// `value`: its message.
    pub value: String,
}

/// One of `kernel_symbols`.
#[derive(Debug, Deserialize)]
pub struct KernelSymbol {
    /// `kernel_id`: what dispatches name the kernel by.
    pub kernel_id: u64,
    /// `kernel_name`: the symbol, mangled (`_Z15matrixTransposePfS_i.kd`).
    #[serde(default)]
    pub kernel_name: String,
    /// `demangled_kernel_name`: `matrixTranspose(float*, float*, int)`.
    pub demangled_kernel_name: Option<String>,
}

/// `buffer_records`.
#[derive(Debug, Default, Deserialize)]
pub struct BufferRecords {
    /// `kernel_dispatch`.
    #[serde(default)]
    pub kernel_dispatch: Vec<Dispatch>,
    /// `memory_copy`.
    #[serde(default)]
    pub memory_copy: Vec<Copy>,
    /// `hip_api`.
    #[serde(default)]
    pub hip_api: Vec<ApiCall>,
    /// `marker_api`.
    #[serde(default)]
    pub marker_api: Vec<ApiCall>,
}

/// `correlation_id`.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Correlation {
    /// `internal`: the id a runtime call shares with the dispatch or copy it made.
    pub internal: u64,
}

/// One of `kernel_dispatch`.
#[derive(Debug, Deserialize)]
pub struct Dispatch {
    /// `correlation_id`.
    pub correlation_id: Correlation,
    /// `start_timestamp`, ns.
    pub start_timestamp: u64,
    /// `end_timestamp`, ns.
    pub end_timestamp: u64,
    /// `dispatch_info`.
    pub dispatch_info: DispatchInfo,
    /// `stream_id`: the HIP stream (written since rocprofiler-sdk traces streams).
    pub stream_id: Option<Handle>,
}

/// `dispatch_info`.
#[derive(Debug, Deserialize)]
pub struct DispatchInfo {
    /// `agent_id`: the GPU.
    pub agent_id: Handle,
    /// `queue_id`: the HSA queue.
    pub queue_id: Handle,
    /// `kernel_id`: its entry of `kernel_symbols`.
    pub kernel_id: u64,
}

/// One of `memory_copy`.
#[derive(Debug, Deserialize)]
pub struct Copy {
    /// `operation`: its direction (`MEMORY_COPY_HOST_TO_DEVICE`, …).
    pub operation: usize,
    /// `kind`: its entry of `strings.buffer_records`.
    pub kind: usize,
    /// `correlation_id`.
    pub correlation_id: Correlation,
    /// `start_timestamp`, ns.
    pub start_timestamp: u64,
    /// `end_timestamp`, ns.
    pub end_timestamp: u64,
    /// `dst_agent_id`.
    pub dst_agent_id: Handle,
    /// `src_agent_id`.
    pub src_agent_id: Handle,
    /// `stream_id`, where written.
    pub stream_id: Option<Handle>,
}

/// One of `hip_api` or `marker_api`.
#[derive(Debug, Deserialize)]
pub struct ApiCall {
    /// `kind`: its entry of `strings.buffer_records`.
    pub kind: usize,
    /// `operation`: the call, within its kind's operations.
    pub operation: usize,
    /// `correlation_id`.
    pub correlation_id: Correlation,
    /// `start_timestamp`, ns.
    pub start_timestamp: u64,
    /// `end_timestamp`, ns.
    pub end_timestamp: u64,
    /// `thread_id`: the OS thread.
    pub thread_id: u64,
}

/// The file read only for who launched GPU work ([`ToolFile`] with every other member
/// skipped): how many ranks it is read as.
#[derive(Debug, Deserialize)]
pub struct ToolFileProcesses {
    /// `rocprofiler-sdk-tool`.
    #[serde(rename = "rocprofiler-sdk-tool")]
    pub processes: Vec<ProcessDispatches>,
}

/// Of one process, its `metadata` and whether it dispatched kernels.
#[derive(Debug, Deserialize)]
pub struct ProcessDispatches {
    /// `metadata`.
    pub metadata: Option<Metadata>,
    /// `buffer_records`, its kernel dispatches only.
    pub buffer_records: Option<DispatchRecords>,
}

/// `buffer_records`, its `kernel_dispatch` records left unread.
#[derive(Debug, Deserialize)]
pub struct DispatchRecords {
    /// `kernel_dispatch`.
    #[serde(default)]
    pub kernel_dispatch: Vec<serde::de::IgnoredAny>,
}
