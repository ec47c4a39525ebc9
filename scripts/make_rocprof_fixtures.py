#!/usr/bin/env python3
"""Writes the small rocprofv3 JSON files in fixtures/rocprof/ that the tests use.

Standard library only, deterministic. The layout is rocprofiler-sdk's own (`rocprofv3
--output-format json`): the sections of source/lib/output/generateJSON.cpp (metadata, agents,
counters, strings, code_objects, kernel_symbols, host_functions, summary, callback_records,
buffer_records, in that order), each record's fields as source/include/rocprofiler-sdk/cxx/
serialization.hpp writes them (kernel dispatches and copies with the `stream_id` that
source/lib/output/stream_info.hpp adds, except in old_layout.json, which is of the layout before
it),
and the numbers records refer to: `kind` is the index of the record kind in
`strings.buffer_records` (the order of rocprofiler_buffer_tracing_kind_t), `operation` the
index of the call among its kind's operations (the order of rocprofiler-sdk/hip/
runtime_api_id.h, marker/api_id.h, the memory copy directions of fwd.h). Of the HIP runtime
calls the list stops at the last one used here (hipStreamSynchronize, id 346); the HSA and other
kinds' lists are left empty. Timestamps are ns (rocprofiler's clock).

  rocprof/control.json   one process, ProfilerStep#1..#3 as roctx push/pop ranges; in each step
                         emit_nvtx-style operator ranges (`aten::mm, seq = …, sizes = …`,
                         `aten::add_, seq = …`), a `forward` range of the user's, a roctxMarkA
                         (left out); each operator launches its kernel (hipLaunchKernel, joined
                         by the correlation id) on GPU 0, stream 0; the compiler's
                         __hipPushCallConfiguration (left out), a host-to-device copy
                         (hipMemcpyAsync) and a hipStreamSynchronize per step.
  rocprof/test.json      the same with the GEMM 50% slower and one more elementwise kernel per
                         step (a second launch in aten::add_).
  rocprof/old_layout.json
                         control.json as rocprofv3 wrote it before it traced streams (no
                         stream_id: kernels by their HSA queue, copies on no stream).
  rocprof/two_processes.json
                         one file of a job of two ranks, each process seeing both GPUs: pid 4343
                         (test.json's steps, on GPU 1, first in the file and starting earlier), a
                         launcher (pid 4100: a roctx range, no GPU work), then pid 4242
                         (control.json's steps, on GPU 0).
  rocprof/bad/truncated.json   control.json cut short.
  rocprof/bad/unknown_kernel.json
                         a dispatch whose kernel_id is not in kernel_symbols.
  rocprof/bad/no_records.json  a process without buffer_records.

`make_rocprof_fixtures.py --big PATH STEPS` writes one file of STEPS such steps instead (a
benchmark input: 20,000 steps are about 94 MB).
"""

import copy
import json
import os
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "rocprof")

# rocprofiler_buffer_tracing_kind_t, in order (the index is a record's `kind`).
KINDS = [
    "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
    "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API",
    "MARKER_NAME_API", "MEMORY_COPY", "KERNEL_DISPATCH", "PAGE_MIGRATION", "SCRATCH_MEMORY",
    "CORRELATION_ID_RETIREMENT", "RCCL_API",
]
KIND = {name: k for k, name in enumerate(KINDS)}

# rocprofiler_hip_runtime_api_id_t from 0 (hipApiName) to hipStreamSynchronize.
HIP_RUNTIME = """
    hipApiName hipArray3DCreate hipArray3DGetDescriptor hipArrayCreate hipArrayDestroy
    hipArrayGetDescriptor hipArrayGetInfo hipBindTexture hipBindTexture2D hipBindTextureToArray
    hipBindTextureToMipmappedArray hipChooseDevice hipChooseDeviceR0000 hipConfigureCall
    hipCreateSurfaceObject hipCreateTextureObject hipCtxCreate hipCtxDestroy
    hipCtxDisablePeerAccess hipCtxEnablePeerAccess hipCtxGetApiVersion hipCtxGetCacheConfig
    hipCtxGetCurrent hipCtxGetDevice hipCtxGetFlags hipCtxGetSharedMemConfig hipCtxPopCurrent
    hipCtxPushCurrent hipCtxSetCacheConfig hipCtxSetCurrent hipCtxSetSharedMemConfig
    hipCtxSynchronize hipDestroyExternalMemory hipDestroyExternalSemaphore
    hipDestroySurfaceObject hipDestroyTextureObject hipDeviceCanAccessPeer
    hipDeviceComputeCapability hipDeviceDisablePeerAccess hipDeviceEnablePeerAccess hipDeviceGet
    hipDeviceGetAttribute hipDeviceGetByPCIBusId hipDeviceGetCacheConfig
    hipDeviceGetDefaultMemPool hipDeviceGetGraphMemAttribute hipDeviceGetLimit
    hipDeviceGetMemPool hipDeviceGetName hipDeviceGetP2PAttribute hipDeviceGetPCIBusId
    hipDeviceGetSharedMemConfig hipDeviceGetStreamPriorityRange hipDeviceGetUuid
    hipDeviceGraphMemTrim hipDevicePrimaryCtxGetState hipDevicePrimaryCtxRelease
    hipDevicePrimaryCtxReset hipDevicePrimaryCtxRetain hipDevicePrimaryCtxSetFlags
    hipDeviceReset hipDeviceSetCacheConfig hipDeviceSetGraphMemAttribute hipDeviceSetLimit
    hipDeviceSetMemPool hipDeviceSetSharedMemConfig hipDeviceSynchronize hipDeviceTotalMem
    hipDriverGetVersion hipDrvGetErrorName hipDrvGetErrorString hipDrvGraphAddMemcpyNode
    hipDrvMemcpy2DUnaligned hipDrvMemcpy3D hipDrvMemcpy3DAsync hipDrvPointerGetAttributes
    hipEventCreate hipEventCreateWithFlags hipEventDestroy hipEventElapsedTime hipEventQuery
    hipEventRecord hipEventSynchronize hipExtGetLinkTypeAndHopCount hipExtLaunchKernel
    hipExtLaunchMultiKernelMultiDevice hipExtMallocWithFlags hipExtStreamCreateWithCUMask
    hipExtStreamGetCUMask hipExternalMemoryGetMappedBuffer hipFree hipFreeArray hipFreeAsync
    hipFreeHost hipFreeMipmappedArray hipFuncGetAttribute hipFuncGetAttributes
    hipFuncSetAttribute hipFuncSetCacheConfig hipFuncSetSharedMemConfig hipGLGetDevices
    hipGetChannelDesc hipGetDevice hipGetDeviceCount hipGetDeviceFlags
    hipGetDevicePropertiesR0600 hipGetDevicePropertiesR0000 hipGetErrorName hipGetErrorString
    hipGetLastError hipGetMipmappedArrayLevel hipGetSymbolAddress hipGetSymbolSize
    hipGetTextureAlignmentOffset hipGetTextureObjectResourceDesc
    hipGetTextureObjectResourceViewDesc hipGetTextureObjectTextureDesc hipGetTextureReference
    hipGraphAddChildGraphNode hipGraphAddDependencies hipGraphAddEmptyNode
    hipGraphAddEventRecordNode hipGraphAddEventWaitNode hipGraphAddHostNode
    hipGraphAddKernelNode hipGraphAddMemAllocNode hipGraphAddMemFreeNode hipGraphAddMemcpyNode
    hipGraphAddMemcpyNode1D hipGraphAddMemcpyNodeFromSymbol hipGraphAddMemcpyNodeToSymbol
    hipGraphAddMemsetNode hipGraphChildGraphNodeGetGraph hipGraphClone hipGraphCreate
    hipGraphDebugDotPrint hipGraphDestroy hipGraphDestroyNode hipGraphEventRecordNodeGetEvent
    hipGraphEventRecordNodeSetEvent hipGraphEventWaitNodeGetEvent hipGraphEventWaitNodeSetEvent
    hipGraphExecChildGraphNodeSetParams hipGraphExecDestroy hipGraphExecEventRecordNodeSetEvent
    hipGraphExecEventWaitNodeSetEvent hipGraphExecHostNodeSetParams
    hipGraphExecKernelNodeSetParams hipGraphExecMemcpyNodeSetParams
    hipGraphExecMemcpyNodeSetParams1D hipGraphExecMemcpyNodeSetParamsFromSymbol
    hipGraphExecMemcpyNodeSetParamsToSymbol hipGraphExecMemsetNodeSetParams hipGraphExecUpdate
    hipGraphGetEdges hipGraphGetNodes hipGraphGetRootNodes hipGraphHostNodeGetParams
    hipGraphHostNodeSetParams hipGraphInstantiate hipGraphInstantiateWithFlags
    hipGraphKernelNodeCopyAttributes hipGraphKernelNodeGetAttribute hipGraphKernelNodeGetParams
    hipGraphKernelNodeSetAttribute hipGraphKernelNodeSetParams hipGraphLaunch
    hipGraphMemAllocNodeGetParams hipGraphMemFreeNodeGetParams hipGraphMemcpyNodeGetParams
    hipGraphMemcpyNodeSetParams hipGraphMemcpyNodeSetParams1D
    hipGraphMemcpyNodeSetParamsFromSymbol hipGraphMemcpyNodeSetParamsToSymbol
    hipGraphMemsetNodeGetParams hipGraphMemsetNodeSetParams hipGraphNodeFindInClone
    hipGraphNodeGetDependencies hipGraphNodeGetDependentNodes hipGraphNodeGetEnabled
    hipGraphNodeGetType hipGraphNodeSetEnabled hipGraphReleaseUserObject
    hipGraphRemoveDependencies hipGraphRetainUserObject hipGraphUpload
    hipGraphicsGLRegisterBuffer hipGraphicsGLRegisterImage hipGraphicsMapResources
    hipGraphicsResourceGetMappedPointer hipGraphicsSubResourceGetMappedArray
    hipGraphicsUnmapResources hipGraphicsUnregisterResource hipHostAlloc hipHostFree
    hipHostGetDevicePointer hipHostGetFlags hipHostMalloc hipHostRegister hipHostUnregister
    hipImportExternalMemory hipImportExternalSemaphore hipInit hipIpcCloseMemHandle
    hipIpcGetEventHandle hipIpcGetMemHandle hipIpcOpenEventHandle hipIpcOpenMemHandle
    hipKernelNameRef hipKernelNameRefByPtr hipLaunchByPtr hipLaunchCooperativeKernel
    hipLaunchCooperativeKernelMultiDevice hipLaunchHostFunc hipLaunchKernel hipMalloc
    hipMalloc3D hipMalloc3DArray hipMallocArray hipMallocAsync hipMallocFromPoolAsync
    hipMallocHost hipMallocManaged hipMallocMipmappedArray hipMallocPitch hipMemAddressFree
    hipMemAddressReserve hipMemAdvise hipMemAllocHost hipMemAllocPitch hipMemCreate
    hipMemExportToShareableHandle hipMemGetAccess hipMemGetAddressRange
    hipMemGetAllocationGranularity hipMemGetAllocationPropertiesFromHandle hipMemGetInfo
    hipMemImportFromShareableHandle hipMemMap hipMemMapArrayAsync hipMemPoolCreate
    hipMemPoolDestroy hipMemPoolExportPointer hipMemPoolExportToShareableHandle
    hipMemPoolGetAccess hipMemPoolGetAttribute hipMemPoolImportFromShareableHandle
    hipMemPoolImportPointer hipMemPoolSetAccess hipMemPoolSetAttribute hipMemPoolTrimTo
    hipMemPrefetchAsync hipMemPtrGetInfo hipMemRangeGetAttribute hipMemRangeGetAttributes
    hipMemRelease hipMemRetainAllocationHandle hipMemSetAccess hipMemUnmap hipMemcpy hipMemcpy2D
    hipMemcpy2DAsync hipMemcpy2DFromArray hipMemcpy2DFromArrayAsync hipMemcpy2DToArray
    hipMemcpy2DToArrayAsync hipMemcpy3D hipMemcpy3DAsync hipMemcpyAsync hipMemcpyAtoH
    hipMemcpyDtoD hipMemcpyDtoDAsync hipMemcpyDtoH hipMemcpyDtoHAsync hipMemcpyFromArray
    hipMemcpyFromSymbol hipMemcpyFromSymbolAsync hipMemcpyHtoA hipMemcpyHtoD hipMemcpyHtoDAsync
    hipMemcpyParam2D hipMemcpyParam2DAsync hipMemcpyPeer hipMemcpyPeerAsync hipMemcpyToArray
    hipMemcpyToSymbol hipMemcpyToSymbolAsync hipMemcpyWithStream hipMemset hipMemset2D
    hipMemset2DAsync hipMemset3D hipMemset3DAsync hipMemsetAsync hipMemsetD16 hipMemsetD16Async
    hipMemsetD32 hipMemsetD32Async hipMemsetD8 hipMemsetD8Async hipMipmappedArrayCreate
    hipMipmappedArrayDestroy hipMipmappedArrayGetLevel hipModuleGetFunction hipModuleGetGlobal
    hipModuleGetTexRef hipModuleLaunchCooperativeKernel
    hipModuleLaunchCooperativeKernelMultiDevice hipModuleLaunchKernel hipModuleLoad
    hipModuleLoadData hipModuleLoadDataEx hipModuleOccupancyMaxActiveBlocksPerMultiprocessor
    hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
    hipModuleOccupancyMaxPotentialBlockSize hipModuleOccupancyMaxPotentialBlockSizeWithFlags
    hipModuleUnload hipOccupancyMaxActiveBlocksPerMultiprocessor
    hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags hipOccupancyMaxPotentialBlockSize
    hipPeekAtLastError hipPointerGetAttribute hipPointerGetAttributes hipPointerSetAttribute
    hipProfilerStart hipProfilerStop hipRuntimeGetVersion hipSetDevice hipSetDeviceFlags
    hipSetupArgument hipSignalExternalSemaphoresAsync hipStreamAddCallback
    hipStreamAttachMemAsync hipStreamBeginCapture hipStreamCreate hipStreamCreateWithFlags
    hipStreamCreateWithPriority hipStreamDestroy hipStreamEndCapture hipStreamGetCaptureInfo
    hipStreamGetCaptureInfo_v2 hipStreamGetDevice hipStreamGetFlags hipStreamGetPriority
    hipStreamIsCapturing hipStreamQuery hipStreamSynchronize
""".split()
HIP_COMPILER = [
    "__hipPopCallConfiguration", "__hipPushCallConfiguration", "__hipRegisterFatBinary",
    "__hipRegisterFunction", "__hipRegisterManagedVar", "__hipRegisterSurface",
    "__hipRegisterTexture", "__hipRegisterVar", "__hipUnregisterFatBinary",
]
MARKER_CORE = ["roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA",
               "roctxRangeStop", "roctxGetThreadId"]
MARKER_CONTROL = ["roctxProfilerPause", "roctxProfilerResume"]
MARKER_NAME = ["roctxNameOsThread", "roctxNameHsaAgent", "roctxNameHipDevice", "roctxNameHipStream"]
MEMORY_COPY = ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
               "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"]
KERNEL_DISPATCH = ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]
OPERATIONS = {
    "HIP_RUNTIME_API": HIP_RUNTIME, "HIP_COMPILER_API": HIP_COMPILER,
    "MARKER_CORE_API": MARKER_CORE, "MARKER_CONTROL_API": MARKER_CONTROL,
    "MARKER_NAME_API": MARKER_NAME, "MEMORY_COPY": MEMORY_COPY,
    "KERNEL_DISPATCH": KERNEL_DISPATCH,
}

# Kernels: (kernel_id, symbol, demangled name); the Tensile GEMM is an unmangled extern "C"
# symbol, written without its demangled name (a fallback the reader must take).
GEMM = (1, "Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_1LDSB0_GRVW4_K1_WG32_8_1.kd", None)
ADD = (2, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_.kd",
       "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)")
FILL = (3, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_.kd",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)")

CPU_AGENT = 1
GPU_AGENT = 2
QUEUE = 140237451329536


def agent(handle, kind, node, name, product, local_mem, index=0):
    gpu = kind == 2
    return {
        "size": 1048, "id": {"handle": handle}, "type": kind,
        "cpu_cores_count": 0 if gpu else 96, "simd_count": 1216 if gpu else 0,
        "mem_banks_count": 1, "caches_count": 4, "io_links_count": 1,
        "cpu_core_id_base": 0, "simd_id_base": 2147487744 if gpu else 0,
        "max_waves_per_simd": 8 if gpu else 0, "lds_size_in_kb": 64 if gpu else 0,
        "gds_size_in_kb": 0, "num_gws": 64 if gpu else 0, "wave_front_size": 64 if gpu else 0,
        "num_xcc": 8 if gpu else 1, "cu_count": 304 if gpu else 0,
        "gfx_target_version": 90402 if gpu else 0, "vendor_id": 4098 if gpu else 0,
        "device_id": 29857 if gpu else 0, "local_mem_size": local_mem,
        "name": name, "vendor_name": "AMD" if gpu else "CPU", "product_name": product,
        "model_name": "" , "node_id": node, "logical_node_id": node,
        "logical_node_type_id": index,
    }


class Process:
    """One process's part of the file. `gpu` is the index of the GPU its work runs on; with
    `gpus`, it sees that many GPUs (agent handles 2, 3, …, index 0, 1, …), else the one GPU of
    index 0 (agent handle 2); with `gpus=0` it sees only the CPU and dispatches nothing."""

    def __init__(self, pid, streams=True, gpu=0, gpus=None):
        self.pid = pid
        self.gpus = gpus
        self.gpu_agent = GPU_AGENT + gpu
        self.tid = pid
        self.streams = streams
        self.correlation = 0
        self.messages = []
        self.records = {"kernel_dispatch": [], "hip_api": [], "hsa_api": [], "marker_api": [],
                        "rccl_api": [], "memory_copy": [], "memory_allocation": [],
                        "scratch_memory": [], "pc_sample_host_trap": [], "rocdecode_api": [],
                        "rocjpeg_api": []}
        self.dispatch_id = 0

    def next_correlation(self):
        self.correlation += 1
        return self.correlation

    def api(self, section, kind, call, start, end, correlation=None):
        correlation = correlation or self.next_correlation()
        self.records[section].append({
            "size": 56, "kind": KIND[kind], "operation": OPERATIONS[kind].index(call),
            "correlation_id": {"internal": correlation, "external": 0},
            "start_timestamp": start, "end_timestamp": end, "thread_id": self.tid,
        })
        return correlation

    def range(self, start, end, text):
        # One record per push/pop pair, with the push's correlation id (the tool pairs them).
        corr = self.api("marker_api", "MARKER_CORE_API", "roctxRangePushA", start, end)
        self.messages.append({"key": corr, "value": text})

    def mark(self, at, text):
        corr = self.api("marker_api", "MARKER_CORE_API", "roctxMarkA", at, at)
        self.messages.append({"key": corr, "value": text})

    def launch(self, start, kernel, k_start, k_dur):
        self.api("hip_api", "HIP_COMPILER_API", "__hipPushCallConfiguration", start - 900, start - 500)
        corr = self.api("hip_api", "HIP_RUNTIME_API", "hipLaunchKernel", start, start + 6_000)
        self.dispatch_id += 1
        record = {
            "size": 112, "kind": KIND["KERNEL_DISPATCH"], "operation": 2, "thread_id": self.tid,
            "correlation_id": {"internal": corr, "external": 0},
            "start_timestamp": k_start, "end_timestamp": k_start + k_dur,
            "dispatch_info": {
                "size": 80, "agent_id": {"handle": self.gpu_agent}, "queue_id": {"handle": QUEUE},
                "kernel_id": kernel[0], "dispatch_id": self.dispatch_id,
                "private_segment_size": 0, "group_segment_size": 0,
                "workgroup_size": {"x": 256, "y": 1, "z": 1},
                "grid_size": {"x": 65536, "y": 1, "z": 1},
            },
        }
        if self.streams:
            record["stream_id"] = {"handle": 0}
            record["kernel_rename_val"] = 0
        self.records["kernel_dispatch"].append(record)

    def memcpy(self, start, k_start, k_dur):
        corr = self.api("hip_api", "HIP_RUNTIME_API", "hipMemcpyAsync", start, start + 5_000)
        record = {
            "size": 72, "kind": KIND["MEMORY_COPY"],
            "operation": MEMORY_COPY.index("MEMORY_COPY_HOST_TO_DEVICE"), "thread_id": self.tid,
            "correlation_id": {"internal": corr, "external": 0},
            "start_timestamp": k_start, "end_timestamp": k_start + k_dur,
            "dst_agent_id": {"handle": self.gpu_agent}, "src_agent_id": {"handle": CPU_AGENT},
            "bytes": 1048576,
        }
        if self.streams:
            record["stream_id"] = {"handle": 0}
        self.records["memory_copy"].append(record)

    def agents(self):
        cpu = agent(CPU_AGENT, 1, 0, "AMD EPYC 9654 96-Core Processor",
                    "AMD EPYC 9654 96-Core Processor", 0)
        if self.gpus is None:
            return [cpu, agent(GPU_AGENT, 2, 1, "gfx942", "AMD Instinct MI300X", 205822885888)]
        return [cpu] + [agent(GPU_AGENT + k, 2, 1 + k, "gfx942", "AMD Instinct MI300X", 205822885888, k)
                        for k in range(self.gpus)]

    def document(self):
        kernels = [GEMM, ADD, FILL] if self.gpus != 0 else []
        symbols = []
        for kernel_id, symbol, demangled in kernels:
            entry = {"size": 88, "kernel_id": kernel_id, "code_object_id": 1, "kernel_name": symbol,
                     "kernel_object": 140237000000000 + kernel_id, "kernarg_segment_size": 24,
                     "kernarg_segment_alignment": 8, "group_segment_size": 0,
                     "private_segment_size": 0, "sgpr_count": 32, "arch_vgpr_count": 64,
                     "accum_vgpr_count": 0, "kernel_code_entry_byte_offset": 4096,
                     "kernel_address": {"handle": 140237000004096 + kernel_id},
                     "formatted_kernel_name": demangled or symbol[:-3],
                     "truncated_kernel_name": (demangled or symbol[:-3]).split("<")[0]}
            if demangled is not None:
                entry["demangled_kernel_name"] = demangled
            symbols.append(entry)
        return {
            "metadata": {"pid": self.pid, "init_time": 4_999_000_000_000, "fini_time": 5_100_000_000_000,
                         "config": {}, "command": ["python3", "train.py"]},
            "agents": self.agents(),
            "counters": [],
            "strings": {
                "callback_records": [],
                "buffer_records": [{"kind": k, "operations": OPERATIONS.get(k, [])} for k in KINDS],
                "marker_api": self.messages,
                "correlation_id": {"external": []},
                "counters": {"dimension_ids": []},
                "pc_sample_instructions": [], "pc_sample_comments": [],
                "att_filenames": [], "code_object_snapshot_filenames": [],
            },
            "code_objects": [{"size": 72, "code_object_id": 1, "rocp_agent": {"handle": self.gpu_agent},
                              "hsa_agent": {"handle": 94000000}, "uri": "file:///opt/rocm/lib/libamdhip64.so#offset=0&size=0",
                              "load_base": 140236000000000, "load_size": 65536, "load_delta": 0,
                              "storage_type": 1}] if kernels else [],
            "kernel_symbols": symbols,
            "host_functions": [],
            "summary": [],
            "callback_records": {"counter_collection": []},
            "buffer_records": self.records,
        }


def steps(p, slow_gemm=1.0, extra_add=False, base=5_000_000_000_000, count=3):
    for k in range(count):
        t = base + k * 1_000_000
        p.range(t, t + 900_000, f"ProfilerStep#{k + 1}")
        p.range(t + 1_000, t + 800_000, "forward")
        p.range(t + 2_000, t + 40_000, f"aten::mm, seq = {3 * k}, op_id = {10 * k}, sizes = [[64, 128], [128, 256]]")
        p.launch(t + 10_000, GEMM, t + 100_000, int(200_000 * slow_gemm))
        p.range(t + 50_000, t + 90_000, f"aten::add_, seq = {3 * k + 1}")
        p.launch(t + 60_000, ADD, t + 400_000, 30_000)
        if extra_add:
            p.launch(t + 75_000, ADD, t + 440_000, 30_000)
        p.range(t + 95_000, t + 120_000, "aten::fill_")
        p.launch(t + 100_000, FILL, t + 500_000, 10_000)
        p.memcpy(t + 130_000, t + 520_000, 50_000)
        p.mark(t + 150_000, "checkpoint")
        p.api("hip_api", "HIP_RUNTIME_API", "hipStreamSynchronize", t + 160_000, t + 580_000)


def write(path, processes):
    text = json.dumps({"rocprofiler-sdk-tool": [p.document() for p in processes]})
    with open(path, "w") as f:
        f.write(text + "\n")
    return text


def main():
    os.makedirs(os.path.join(HERE, "bad"), exist_ok=True)
    control = Process(4242)
    steps(control)
    text = write(os.path.join(HERE, "control.json"), [control])
    test = Process(4242)
    steps(test, slow_gemm=1.5, extra_add=True)
    write(os.path.join(HERE, "test.json"), [test])
    old = Process(4242, streams=False)
    steps(old)
    write(os.path.join(HERE, "old_layout.json"), [old])
    first = Process(4343, gpu=1, gpus=2)
    steps(first, slow_gemm=1.5, extra_add=True, base=4_999_999_000_000)
    launcher = Process(4100, gpus=0)
    launcher.range(4_999_990_000_000, 5_000_010_000_000, "torchrun")
    second = Process(4242, gpu=0, gpus=2)
    steps(second)
    write(os.path.join(HERE, "two_processes.json"), [first, launcher, second])
    with open(os.path.join(HERE, "bad", "truncated.json"), "w") as f:
        f.write(text[: len(text) * 2 // 3])
    unknown = copy.deepcopy(control)
    unknown.records["kernel_dispatch"][4]["dispatch_info"]["kernel_id"] = 99
    write(os.path.join(HERE, "bad", "unknown_kernel.json"), [unknown])
    doc = control.document()
    del doc["buffer_records"]
    with open(os.path.join(HERE, "bad", "no_records.json"), "w") as f:
        f.write(json.dumps({"rocprofiler-sdk-tool": [doc]}) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--big":
        big = Process(4242)
        steps(big, count=int(sys.argv[3]))
        write(sys.argv[2], [big])
    else:
        main()
