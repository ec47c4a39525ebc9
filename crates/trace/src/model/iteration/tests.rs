use super::*;
use crate::model::place::Place;
use crate::model::store::{NO_STREAM, NewEvent};

#[test]
fn step_numbers_follow_htas_pattern() {
    assert_eq!(step_number("ProfilerStep#12"), Some(12));
    assert_eq!(step_number("ProfilerStep # 3"), Some(3));
    assert_eq!(step_number("ProfilerStep#7x"), Some(7));
    assert_eq!(step_number("ProfilerStep"), None);
    assert_eq!(step_number("ProfilerStep#"), None);
    assert_eq!(step_number("aten::mm"), None);
}

struct Builder {
    strings: StringTable,
    events: EventTable,
}

impl Builder {
    fn new() -> Self {
        Builder {
            strings: StringTable::new(),
            events: EventTable::default(),
        }
    }
    fn add(&mut self, name: &str, ts_us: i64, dur_us: i64, stream: i64, correlation: i64) -> &mut Self {
        self.add_cat("c", name, ts_us, dur_us, stream, correlation)
    }
    fn add_cat(&mut self, cat: &str, name: &str, ts_us: i64, dur_us: i64, stream: i64, corr: i64) -> &mut Self {
        let correlation = corr;
        let name = self.strings.intern(name);
        let cat = self.strings.intern(cat);
        let index = self.events.len() as u32;
        self.events.push(NewEvent {
            index,
            name,
            cat,
            ts_ns: ts_us * 1000,
            dur_ns: dur_us * 1000,
            pid: cat,
            tid: cat,
            stream,
            correlation,
        });
        self
    }
}

#[test]
fn host_events_by_window_device_events_by_launch() {
    let mut b = Builder::new();
    b.add("ProfilerStep#1", 0, 100, NO_STREAM, -1)
        .add("ProfilerStep#2", 100, 100, NO_STREAM, -1)
        .add("aten::mm", 10, 5, NO_STREAM, -1)
        .add("cudaLaunchKernel", 99, 1, NO_STREAM, 7)
        .add("aten::add", 100, 1, NO_STREAM, -1)
        .add("outside", 250, 1, NO_STREAM, -1)
        // runs later, in step 2's window, but was launched in step 1
        .add("gemm", 150, 10, 7, 7)
        // stream 0 (AMD): linked too
        .add("amd_kernel", 160, 1, 0, 7)
        .add("orphan_kernel", 50, 1, 7, 1234);
    let steps = assign_iterations(&b.strings, &mut b.events);
    assert_eq!(steps.iter().map(|s| s.number).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(b.events.iteration.to_vec(), vec![1, 2, 1, 1, 2, -1, 1, 1, -1]);
}

#[test]
fn overlapping_steps_the_last_in_file_order_wins() {
    let mut b = Builder::new();
    b.add("ProfilerStep#5", 0, 100, NO_STREAM, -1)
        .add("ProfilerStep#4", 50, 100, NO_STREAM, -1)
        .add("a", 60, 1, NO_STREAM, -1)
        .add("b", 20, 1, NO_STREAM, -1)
        .add("c", 120, 1, NO_STREAM, -1);
    assert_eq!(assign_iterations(&b.strings, &mut b.events).len(), 2);
    // "ProfilerStep#5" itself starts at 0, only in its own window.
    assert_eq!(b.events.iteration.to_vec(), vec![5, 4, 4, 5, 4]);
}

#[test]
fn serving_steps_reach_the_end_of_their_device_work() {
    let mut b = Builder::new();
    b.add_cat("user_annotation", "step[DECODE bs=16]", 0, 30, NO_STREAM, -1)
        .add_cat("cuda_runtime", "cudaGraphLaunch", 10, 5, NO_STREAM, 7)
        .add_cat("user_annotation", "step[DECODE bs=16]", 200, 30, NO_STREAM, -1)
        .add_cat("cuda_runtime", "cudaGraphLaunch", 210, 5, NO_STREAM, 8)
        // Step 0's kernels run until 120, past its annotation (30); step 1's until 400,
        // past the next step's start: cut there (there is none: to 400).
        .add_cat("kernel", "gemm", 20, 100, 7, 7)
        .add_cat("kernel", "gemm", 220, 180, 7, 8);
    let steps = assign_iterations(&b.strings, &mut b.events);
    let spans: Vec<(i64, i64, i64)> = steps.iter().map(|s| (s.number, s.ts_ns, s.dur_ns)).collect();
    assert_eq!(spans, vec![(0, 0, 120_000), (1, 200_000, 200_000)]);
    // The events keep the iterations the annotations gave them.
    assert_eq!(b.events.iteration.to_vec(), vec![0, 0, 1, 1, 0, 1]);
    // Work that outlives its step into the next is cut at the next step's start.
    let mut b = Builder::new();
    b.add_cat("user_annotation", "step[DECODE bs=16]", 0, 30, NO_STREAM, -1)
        .add_cat("cuda_runtime", "cudaGraphLaunch", 10, 5, NO_STREAM, 7)
        .add_cat("user_annotation", "step[DECODE bs=16]", 50, 30, NO_STREAM, -1)
        .add_cat("kernel", "gemm", 20, 100, 7, 7);
    let steps = assign_iterations(&b.strings, &mut b.events);
    assert_eq!(steps[0].dur_ns, 50_000);
    // ProfilerStep windows stay the host's.
    let mut b = Builder::new();
    b.add("ProfilerStep#1", 0, 30, NO_STREAM, -1)
        .add_cat("cuda_runtime", "cudaLaunchKernel", 10, 5, NO_STREAM, 7)
        .add_cat("kernel", "gemm", 20, 100, 7, 7);
    assert_eq!(assign_iterations(&b.strings, &mut b.events)[0].dur_ns, 30_000);
}

#[test]
fn a_steps_device_mirror_is_marked_as_such() {
    let mut b = Builder::new();
    b.add_cat("gpu_user_annotation", "ProfilerStep#1", 5, 20, 7, -1)
        .add("ProfilerStep#1", 0, 30, NO_STREAM, -1);
    let steps = assign_iterations(&b.strings, &mut b.events);
    let flags: Vec<(i64, bool)> = steps.iter().map(|s| (s.dur_ns, s.on_device)).collect();
    assert_eq!(flags, [(20_000, true), (30_000, false)]);
}

#[test]
fn many_nested_steps_are_assigned_in_time_linear_in_their_number() {
    // 200,000 steps each holding the next: the last in file order (the innermost) wins its
    // own span. Quadratic, this took minutes.
    let n = 200_000i64;
    let steps: Vec<Step> = (0..n)
        .map(|k| Step {
            number: k,
            ts_ns: k,
            dur_ns: 2 * (n - k),
            on_device: false,
        })
        .collect();
    let windows = StepWindows::new(&steps);
    assert_eq!(windows.iteration_at(0), 0);
    assert_eq!(windows.iteration_at(n - 1), n - 1);
    assert_eq!(windows.iteration_at(n), n - 1);
    assert_eq!(windows.iteration_at(n + 1), n - 2);
    assert_eq!(windows.iteration_at(2 * n - 1), 0);
    assert_eq!(windows.iteration_at(2 * n), NO_ITERATION);
}

#[test]
fn many_randomly_overlapping_steps_match_the_last_covering_step() {
    // 3,000 steps of pseudo-random starts and lengths, many covering each other: every
    // point takes the last step in file order that covers it, as a plain scan finds it.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m) as i64
    };
    let steps: Vec<Step> = (0..3000)
        .map(|k| Step {
            number: k,
            ts_ns: next(10_000),
            dur_ns: next(2_000),
            on_device: false,
        })
        .collect();
    let windows = StepWindows::new(&steps);
    for t in (-5..12_100).step_by(7) {
        let want = steps
            .iter()
            .rev()
            .find(|s| s.dur_ns > 0 && s.ts_ns <= t && t < s.ts_ns + s.dur_ns)
            .map_or(NO_ITERATION, |s| s.number);
        assert_eq!(windows.iteration_at(t), want, "at {t}");
    }
}

#[test]
fn without_steps_every_event_has_no_iteration() {
    let mut b = Builder::new();
    b.add("aten::mm", 10, 5, NO_STREAM, -1);
    assert!(assign_iterations(&b.strings, &mut b.events).is_empty());
    assert_eq!(b.events.iteration.to_vec(), vec![NO_ITERATION]);
}

#[test]
fn a_triton_launch_cpu_op_with_a_stream_is_host_work() {
    let mut b = Builder::new();
    b.add_cat("cpu_op", "ProfilerStep#1", 0, 100, NO_STREAM, -1)
        .add_cat("cpu_op", "triton_poi_fused_add_0", 10, 5, 7, -1)
        .add_cat("cuda_driver", "cuLaunchKernel", 11, 2, NO_STREAM, 9)
        .add_cat("kernel", "triton_poi_fused_add_0", 150, 3, 7, 9);
    assign_iterations(&b.strings, &mut b.events);
    assert_eq!(
        b.events.place,
        vec![Place::Host, Place::Host, Place::Host, Place::Device]
    );
    assert_eq!(b.events.iteration.to_vec(), vec![1, 1, 1, 1]);
}

#[test]
fn device_events_without_a_correlation_are_placed_by_their_time() {
    let mut b = Builder::new();
    b.add_cat("cpu_op", "ProfilerStep#1", 0, 100, NO_STREAM, -1)
        .add_cat("cpu_op", "ProfilerStep#2", 100, 100, NO_STREAM, -1)
        .add_cat("mtia_ccp_events", "dma_request", 120, 5, 3, -1)
        .add_cat("mtia_ccp_events", "dma_request", 250, 5, 3, -1)
        .add_cat("gpu_user_annotation", "ProfilerStep#1", 10, 50, NO_STREAM, -1);
    assign_iterations(&b.strings, &mut b.events);
    assert_eq!(b.events.iteration.to_vec(), vec![1, 2, 2, NO_ITERATION, 1]);
    assert!(b.events.place[2].on_device() && b.events.place[4] == Place::Annotation);
}
