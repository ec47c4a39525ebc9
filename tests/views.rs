//! The views of a diff run (design §4: operators, kernels, overview) and the host/device rules
//! they rest on (§3.3, §3.4), on the repository's own fixtures. Output is checked exactly.

use assert_cmd::Command;
use tempfile::TempDir;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let state = TempDir::new().unwrap();
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TRACEDIFF_STATE_DIR", state.path())
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn ok(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, 0, "args {args:?}\nstderr: {}", r.stderr);
    r.stdout
}

const HEADER: &str = "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories\n";

fn compare_self(file: &str, extra: &[&str]) -> String {
    let mut args = vec!["compare", file, file, "--format", "csv"];
    args.extend_from_slice(extra);
    ok(&args)
}

/// Inductor's Triton launch `cpu_op` carries `args.stream`; it is host work (design §3.4), so the
/// Triton kernel counts once on the GPU, and the launch op stays on the CPU.
#[test]
fn a_triton_launch_cpu_op_with_a_stream_is_host_work() {
    let f = "fixtures/place/triton_nosteps.json";
    assert_eq!(
        compare_self(f, &["--device", "gpu"]),
        format!("{HEADER}triton_poi_fused_add_0,1,3,1,3,0,0,=\n")
    );
    assert_eq!(
        compare_self(f, &["--device", "cpu"]),
        format!("{HEADER}cuLaunchKernel,1,4,1,4,0,0,=\ntriton_poi_fused_add_0,1,8,1,8,0,0,=\n")
    );
}

/// MTIA DMA requests carry no correlation: they are placed by their own time (design §3.3), the
/// one after the last step in none; a device event with a correlation takes its launch's step. The Triton launch op inside a step is counted on the CPU.
#[test]
fn device_events_without_a_correlation_are_placed_by_their_time() {
    let f = "fixtures/place/mtia_steps.json";
    assert_eq!(
        compare_self(f, &["--iteration", "all", "--device", "gpu"]),
        format!("{HEADER}dma_request,2,10,2,10,0,0,=\nkernel_a,1,5,1,5,0,0,=\n")
    );
    assert_eq!(
        compare_self(f, &["--iteration", "2", "--device", "gpu"]),
        format!("{HEADER}dma_request,1,6,1,6,0,0,=\n"),
        "kernel_a runs in step 2's window but was launched in step 1"
    );
    assert!(
        compare_self(f, &["--device", "cpu"]).contains("\ntriton_poi_fused_add_0,1,8,1,8,0,0,=\n"),
        "the Triton launch op is host work of step 1"
    );
}
