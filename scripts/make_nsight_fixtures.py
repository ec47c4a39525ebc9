#!/usr/bin/env python3
"""Writes the small Nsight Systems SQLite exports in fixtures/nsight/ that the tests use.

Standard library only (sqlite3), deterministic: running it again rewrites the same rows. The
tables and columns are those of the documented export schema (nsys 2024.6, EXPORT_SCHEMA_VERSION
3.16.1: `StringIds`, `PROCESSES`, `TARGET_INFO_GPU`, `TARGET_INFO_SESSION_START_TIME`,
`META_DATA_EXPORT`, `CUPTI_ACTIVITY_KIND_KERNEL`, `..._MEMCPY`, `..._MEMSET`, `..._RUNTIME`,
`NVTX_EVENTS` and the `ENUM_*` tables they reference), reduced to the tables a CUDA + NVTX
capture of a PyTorch program fills. Times are ns from the capture's start; `globalTid` is the
serialized id (pid << 24 | tid, with a vm id in the top bits), as nsys writes it.

  nsight/control.sqlite   one process, ProfilerStep#1..#3 as NVTX push/pop ranges; in each step
                          emit_nvtx-style operator ranges (`aten::mm, seq = …, sizes = …`,
                          `aten::add_, seq = …`), a `forward` range of the user's, a mark and a
                          start/end range never ended (both left out); each operator launches its
                          kernel (cudaLaunchKernel_v7000, joined by correlationId) on device 0
                          stream 7; a host-to-device copy and a set per step.
  nsight/test.sqlite      the same with the GEMM 50% slower and one more elementwise kernel per
                          step (a second launch in aten::add_).
  nsight/two_processes.sqlite
                          one report of a job of two ranks (nsys profile torchrun …): a launcher
                          (pid 4100) with an NVTX range and no GPU work, then pid 4343 (written
                          first, its steps the earlier: the test side's steps on device 1) and
                          pid 4242 (the control side's steps on device 0). Read as rank 0 = pid
                          4242 and rank 1 = pid 4343, by pid.
  nsight/other.sqlite     an SQLite database that is not an export.

`make_nsight_fixtures.py --big PATH STEPS` writes one export of STEPS such steps instead (the
benchmark input of scripts/bench.sh: 100,000 steps are about 100 MB).
"""

import os
import sqlite3
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "nsight")

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
    isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
    smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
    launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
    gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
    blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
    srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER,
    dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
    callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
    int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_VERSION','2024.6.2.225');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.16.1');
"""

GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
SHORT = {GEMM: "Kernel2", ADD: "vectorized_elementwise_kernel", FILL: "vectorized_elementwise_kernel"}
LAUNCH = "cudaLaunchKernel_v7000"
MEMCPY_API = "cudaMemcpyAsync_v3020"
MEMSET_API = "cudaMemsetAsync_v3020"


class Export:
    def __init__(self, path, pid=4242):
        if os.path.exists(path):
            os.remove(path)
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)
        self.strings = {}
        self.correlation = 100
        self.device = 0
        self.set_process(pid)
        self.db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, ?, ?)",
                        (1704067200000000000, "2024-01-01T00:00:00Z", "2024-01-01T00:00:00"))
        self.db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, cuDevice) VALUES (0, 0, ?, ?, 0)",
                        ("NVIDIA H100 80GB HBM3", 85520809984))

    def set_process(self, pid):
        self.pid = pid
        # Serialized GlobalId: a vm id in the top bits, then pid << 24 | tid.
        self.global_pid = (1 << 56) | (pid << 24)
        self.global_tid = self.global_pid | pid
        self.db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (self.global_pid, pid, "python"))

    def string(self, value):
        if value not in self.strings:
            self.strings[value] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[value], value))
        return self.strings[value]

    def nvtx(self, start, end, text, event_type=59, registered=False):
        text_id = self.string(text) if registered else None
        self.db.execute(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) VALUES (?, ?, ?, ?, ?, ?, 0)",
            (start, end, event_type, None if registered else text, self.global_tid, text_id))

    def runtime(self, start, dur, api):
        self.correlation += 1
        self.db.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)",
            (start, start + dur, self.global_tid, self.correlation, self.string(api)))
        return self.correlation

    def launch(self, start, kernel, k_start, k_dur, stream=7):
        corr = self.runtime(start, 6_000, LAUNCH)
        self.db.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
            " demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
            " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)"
            " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, 32, 64, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?)",
            (k_start, k_start + k_dur, self.device, stream, corr, self.global_pid, self.string(kernel), self.string(SHORT[kernel]), corr))

    def memcpy(self, start, k_start, k_dur):
        corr = self.runtime(start, 5_000, MEMCPY_API)
        self.db.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
            " bytes, copyKind, srcKind, dstKind) VALUES (?, ?, ?, 1, 7, ?, ?, 1048576, 1, 0, 2)",
            (k_start, k_start + k_dur, self.device, corr, self.global_pid))

    def memset(self, start, k_start, k_dur):
        corr = self.runtime(start, 4_000, MEMSET_API)
        self.db.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
            " value, bytes, memKind) VALUES (?, ?, ?, 1, 7, ?, ?, 0, 4096, 2)",
            (k_start, k_start + k_dur, self.device, corr, self.global_pid))

    def close(self):
        self.db.commit()
        self.db.close()


def steps(e, slow_gemm=1.0, extra_add=False, first_step=1, base=1_000_000, count=3):
    for k in range(count):
        t = base + k * 1_000_000
        e.nvtx(t, t + 900_000, f"ProfilerStep#{first_step + k}", registered=True)
        e.nvtx(t + 1_000, t + 800_000, "forward")
        e.nvtx(t + 2_000, t + 40_000, f"aten::mm, seq = {3 * k}, op_id = {10 * k}, sizes = [[64, 128], [128, 256]]")
        e.launch(t + 10_000, GEMM, t + 100_000, int(200_000 * slow_gemm))
        e.nvtx(t + 50_000, t + 90_000, f"aten::add_, seq = {3 * k + 1}")
        e.launch(t + 60_000, ADD, t + 400_000, 30_000)
        if extra_add:
            e.launch(t + 75_000, ADD, t + 440_000, 30_000)
        e.nvtx(t + 95_000, t + 120_000, "aten::fill_")
        e.launch(t + 100_000, FILL, t + 500_000, 10_000)
        e.memcpy(t + 130_000, t + 520_000, 50_000)
        e.memset(t + 140_000, t + 580_000, 5_000)
        # Left out: a mark (no length) and a range that never ended.
        e.nvtx(t + 150_000, None, "checkpoint", event_type=34)
        e.nvtx(t + 160_000, None, "never ended", event_type=60)


def main():
    os.makedirs(HERE, exist_ok=True)
    e = Export(os.path.join(HERE, "control.sqlite"))
    steps(e)
    e.close()
    e = Export(os.path.join(HERE, "test.sqlite"))
    steps(e, slow_gemm=1.5, extra_add=True)
    e.close()
    e = Export(os.path.join(HERE, "two_processes.sqlite"), pid=4100)
    e.db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, cuDevice) VALUES (0, 1, ?, ?, 1)",
                 ("NVIDIA H100 80GB HBM3", 85520809984))
    e.nvtx(500_000, 9_000_000, "torchrun")
    e.set_process(4343)
    e.device = 1
    steps(e, slow_gemm=1.5, extra_add=True)
    e.set_process(4242)
    e.device = 0
    steps(e, base=5_000_000)
    e.close()
    path = os.path.join(HERE, "other.sqlite")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes VALUES (1, 'not a profile')")
    db.commit()
    db.close()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--big":
        e = Export(sys.argv[2])
        steps(e, count=int(sys.argv[3]))
        e.close()
    else:
        main()
