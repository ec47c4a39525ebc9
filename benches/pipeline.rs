//! Throughput of the hot stages on a Kineto-shaped trace generated at benchmark time:
//! parsing (JSON text → columnar store), iteration assignment, and aggregation.
//!
//! `cargo bench --bench pipeline`; criterion reports MiB/s of JSON text for the parse.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;
use tracediff::Device;
use tracediff::{Keying, Naming, aggregate_file};
use tracediff_trace::input::attrs::AttrRequest;
use tracediff_trace::input::load::trace_from_reader;
use tracediff_trace::input::read::Compression;
use tracediff_trace::model::store::TraceFile;

/// A trace of `steps` ProfilerSteps, each with CPU ops, launches and kernels whose shape and
/// field mix follow real torch.profiler output (args with shapes, correlation, flows).
fn synthetic_trace(steps: usize) -> Vec<u8> {
    let mut ev = Vec::new();
    let mut ts: u64 = 1_700_000_000_000_000;
    let mut corr = 1u64;
    for step in 0..steps {
        ev.push(format!(
            r#"{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": 7, "tid": 7, "ts": {ts}.125, "dur": 90000.5, "args": {{"External id": {step}, "Trace iteration": 0}}}}"#
        ));
        for k in 0..2000u64 {
            let t = ts + 10 + k * 40;
            let op = ["aten::mm", "aten::add", "aten::relu", "aten::copy_", "aten::empty"][(k % 5) as usize];
            ev.push(format!(
                r#"{{"ph": "X", "cat": "cpu_op", "name": "{op}", "pid": 7, "tid": 7, "ts": {t}.250, "dur": 12.75, "args": {{"External id": {k}, "Sequence number": {k}, "Fwd thread id": 0, "Input Dims": [[64, 128], [128, 256]], "Input type": ["float", "float"], "Input Strides": [[128, 1], [256, 1]], "Concrete Inputs": ["", ""]}}}}"#
            ));
            if k % 2 == 0 {
                corr += 1;
                ev.push(format!(
                    r#"{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": {}.5, "dur": 4.5, "args": {{"External id": {k}, "cbid": 211, "correlation": {corr}}}}}"#,
                    t + 2
                ));
                ev.push(format!(
                    r#"{{"ph": "s", "id": {corr}, "pid": 7, "tid": 7, "ts": {}.5, "cat": "ac2g", "name": "ac2g"}}"#,
                    t + 2
                ));
                ev.push(format!(
                    r#"{{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "pid": 0, "tid": 7, "ts": {}.75, "dur": 3.125, "args": {{"External id": {k}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {corr}, "registers per thread": 16, "shared memory": 0, "blocks per SM": 1.6, "warps per SM": 6.4, "grid": [256, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 10}}}}"#,
                    t + 20
                ));
            }
        }
        ts += 100_000;
    }
    let mut text = String::from(
        r#"{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8}, "traceEvents": ["#,
    );
    text.push_str(&ev.join(",\n  "));
    text.push_str("]}\n");
    text.into_bytes()
}

fn load(text: &[u8]) -> TraceFile {
    trace_from_reader(
        text,
        Path::new("bench.json"),
        Compression::None,
        &AttrRequest::default(),
    )
    .expect("valid trace")
}

fn benches(c: &mut Criterion) {
    let text = synthetic_trace(8);
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(20);
    g.bench_function("parse_and_iterations", |b| b.iter(|| black_box(load(black_box(&text)))));
    g.finish();

    let file = load(&text);
    let mut g = c.benchmark_group("aggregate");
    g.throughput(Throughput::Elements(file.events.len() as u64));
    g.bench_function("all_devices_one_step", |b| {
        b.iter(|| black_box(aggregate_file(&file, Some(&[3]), Device::All, &Keying::default())))
    });
    g.bench_function("gpu_every_step_short_names", |b| {
        let keying = Keying {
            naming: Naming::ShortName,
            ..Keying::default()
        };
        b.iter(|| black_box(aggregate_file(&file, None, Device::Gpu, &keying)))
    });
    g.finish();
}

criterion_group!(pipeline, benches);
criterion_main!(pipeline);
