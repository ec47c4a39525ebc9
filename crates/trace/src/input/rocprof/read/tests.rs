use super::*;

/// A process of rocprofv3's layout: a CPU and a GPU agent, two kernels (one without its
/// demangled name), a launch, a copy and a range, records of the layout before streams.
const FILE: &str = r#"{"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 7},
        "agents": [{"id": {"handle": 1}, "type": 1, "node_id": 0, "logical_node_type_id": 0, "product_name": "CPU"},
                   {"id": {"handle": 9}, "type": 2, "node_id": 1, "logical_node_type_id": 0,
                    "name": "gfx942", "product_name": "", "local_mem_size": 1024}],
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                       {"kind": "HIP_RUNTIME_API", "operations": ["hipLaunchKernel"]},
                                       {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA"]}],
                    "marker_api": [{"key": 1, "value": "aten::mm, seq = 3"}, {"key": 2, "value": "mark"}]},
        "kernel_symbols": [{"kernel_id": 4, "kernel_name": "_Z1kv.kd", "demangled_kernel_name": "k()"},
                           {"kernel_id": 5, "kernel_name": "Cijk_gemm.kd"}],
        "buffer_records": {
            "marker_api": [{"kind": 2, "operation": 1, "correlation_id": {"internal": 1}, "start_timestamp": 100, "end_timestamp": 900, "thread_id": 8},
                           {"kind": 2, "operation": 0, "correlation_id": {"internal": 2}, "start_timestamp": 150, "end_timestamp": 150, "thread_id": 8}],
            "hip_api": [{"kind": 1, "operation": 0, "correlation_id": {"internal": 3}, "start_timestamp": 200, "end_timestamp": 260, "thread_id": 8}],
            "kernel_dispatch": [{"correlation_id": {"internal": 3}, "start_timestamp": 300, "end_timestamp": 500,
                                 "dispatch_info": {"agent_id": {"handle": 9}, "queue_id": {"handle": 77}, "kernel_id": 5}},
                                {"correlation_id": {"internal": 3}, "start_timestamp": 500, "end_timestamp": 520,
                                 "dispatch_info": {"agent_id": {"handle": 9}, "queue_id": {"handle": 55}, "kernel_id": 4}}],
            "memory_copy": [{"kind": 0, "operation": 0, "correlation_id": {"internal": 3}, "start_timestamp": 600, "end_timestamp": 650,
                             "src_agent_id": {"handle": 9}, "dst_agent_id": {"handle": 1}}]
        }}]}"#;

/// A row as the test reads it: name, category, pid, tid, start, length, stream.
type Row = (String, String, String, String, i64, i64, i64);

fn rows(text: &str) -> Result<Vec<Row>> {
    let file: ToolFile = serde_json::from_str(text).unwrap();
    let t = into_columns(Path::new("results.json"), &file)?;
    let s = |id| t.strings.resolve(id).to_string();
    let e = &t.events;
    Ok((0..e.len())
        .map(|i| {
            (
                s(e.name[i]),
                s(e.cat[i]),
                s(e.pid[i]),
                s(e.tid[i]),
                e.ts_ns[i],
                e.dur_ns[i],
                e.stream.get(i),
            )
        })
        .collect())
}

#[test]
fn records_become_the_rows_the_profiler_writes() {
    let got = rows(FILE).unwrap();
    let row = |n: &str, c: &str, p: &str, t: &str, ts, dur, stream| {
        (
            n.to_string(),
            c.to_string(),
            p.to_string(),
            t.to_string(),
            ts,
            dur,
            stream,
        )
    };
    assert_eq!(
        got,
        [
            row("aten::mm", "cpu_op", "7", "8", 100, 800, NO_STREAM),
            row("hipLaunchKernel", "cuda_runtime", "7", "8", 200, 60, NO_STREAM),
            // Queues are numbered by handle: 55 is 0, 77 is 1.
            row("Cijk_gemm", "kernel", "0", "1", 300, 200, 1),
            row("k()", "kernel", "0", "0", 500, 20, 0),
            row(
                "Memcpy DtoH (Device -> Host)",
                "gpu_memcpy",
                "0",
                "0",
                600,
                50,
                NO_STREAM
            ),
        ]
    );
    let file: ToolFile = serde_json::from_str(FILE).unwrap();
    let d = devices(&[(0, &file.processes[0])]);
    assert_eq!(
        (d.len(), d[0].id, d[0].name.as_str(), d[0].total_global_mem),
        (1, 0, "gfx942", Some(1024))
    );
}

/// A file of FILE's process twice, as pids `first` (its kernels on GPU 1) then 7 (GPU 0),
/// and a launcher (pid 3) that dispatched nothing and has no strings.
fn two_processes(first: u64) -> String {
    let process = FILE
        .trim_start_matches(r#"{"rocprofiler-sdk-tool": ["#)
        .trim_end_matches("]}");
    let other = process.replace(r#""pid": 7"#, &format!(r#""pid": {first}"#)).replace(
        r#""node_id": 1, "logical_node_type_id": 0"#,
        r#""node_id": 2, "logical_node_type_id": 1"#,
    );
    let launcher = r#"{"metadata": {"pid": 3}, "buffer_records": {"marker_api": []}}"#;
    format!(r#"{{"rocprofiler-sdk-tool": [{other}, {launcher}, {process}]}}"#)
}

#[test]
fn a_file_of_two_processes_is_one_parse_per_process_by_pid() {
    let text = two_processes(9);
    let file: ToolFile = serde_json::from_str(&text).unwrap();
    let ranks = ranks_of(Path::new("results.json"), &file).unwrap();
    assert_eq!(ranks.len(), 2);
    // Rank 0 is pid 7 though it comes last; each rank holds its own rows and its GPU.
    for (rank, (pid, gpu)) in [("7", "0"), ("9", "1")].into_iter().enumerate() {
        let t = &ranks[rank];
        let s = |id| t.strings.resolve(id).to_string();
        let e = &t.events;
        assert_eq!(t.declared_rank, Some(rank as i64));
        assert_eq!(e.len(), 5, "rank {rank}");
        for i in 0..e.len() {
            let on_device = ["kernel", "gpu_memcpy"].contains(&s(e.cat[i]).as_str());
            assert_eq!(s(e.pid[i]), if on_device { gpu } else { pid }, "rank {rank} row {i}");
        }
        let ids: Vec<i64> = t.devices.iter().map(|d| d.id).collect();
        assert_eq!(ids, [gpu.parse::<i64>().unwrap()], "rank {rank}");
    }
    // Pids, not places, order the ranks: pid 5 first is rank 0.
    let file: ToolFile = serde_json::from_str(&two_processes(5)).unwrap();
    let ranks = ranks_of(Path::new("results.json"), &file).unwrap();
    let first_pid = ranks[0].strings.resolve(ranks[0].events.pid[0]).to_string();
    assert_eq!(first_pid, "5");
    // A file of one process that dispatched is one trace, as before.
    let file: ToolFile = serde_json::from_str(FILE).unwrap();
    let one = ranks_of(Path::new("results.json"), &file).unwrap();
    assert_eq!((one.len(), one[0].declared_rank), (1, None));
    assert_eq!(one[0].events.len(), rows(FILE).unwrap().len());
}

#[test]
fn copies_are_named_by_their_ends() {
    assert_eq!(copy_name((false, 0), (true, 1)), "Memcpy HtoD (Host -> Device)");
    assert_eq!(copy_name((true, 1), (true, 1)), "Memcpy DtoD (Device -> Device)");
    assert_eq!(copy_name((true, 0), (true, 1)), "Memcpy PtoP (Device -> Device)");
    assert_eq!(copy_name((false, 0), (false, 0)), "Memcpy HtoH (Host -> Host)");
}

#[test]
fn a_number_the_file_does_not_name_is_an_error_with_its_place() {
    let e = rows(&FILE.replace(r#""kind": 1, "operation": 0"#, r#""kind": 1, "operation": 3"#)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rocprofv3's JSON: rocprofiler-sdk-tool[0].buffer_records.hip_api[0]: operation 3 is not among the operations of HIP_RUNTIME_API (results.json)"
    );
    let e = rows(&FILE.replace(
        r#""agent_id": {"handle": 9}, "queue_id": {"handle": 55}"#,
        r#""agent_id": {"handle": 3}, "queue_id": {"handle": 55}"#,
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("kernel_dispatch[1]: agent 3 is not among the agents"),
        "{e}"
    );
    let e = rows(&FILE.replace(r#"{"key": 1, "value": "aten::mm, seq = 3"}, "#, "")).unwrap_err();
    assert!(
        e.to_string()
            .contains("marker_api[0]: no message in strings.marker_api for correlation id 1"),
        "{e}"
    );
}
