//! `plot`'s bar charts (docs/commands.md#plot): which rows they draw and in which order, host
//! and device rows apart, significant rows marked, names on the axis, the step and runtime-API
//! rows left out unless asked, and the PNG written.

use crate::common::{ok, run};
use tempfile::TempDir;

const BASIC: [&str; 2] = ["fixtures/basic/control", "fixtures/basic/test"];

/// The rows of an SVG chart as its tooltips give them, in the order drawn (top first).
fn rows_of(svg: &str) -> Vec<String> {
    svg.split("<title>")
        .skip(1)
        .map(|t| {
            t.split("</title>")
                .next()
                .unwrap()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

/// The texts an SVG chart draws, each trimmed.
fn texts_of(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split("</text>").next()?.trim().to_string()))
        .map(|t| t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
        .collect()
}

fn duration_svg(dir: &TempDir, extra: &[&str]) -> String {
    let path = dir.path().join("d.svg");
    let top = if extra.is_empty() { "4" } else { "20" };
    let mut args = vec!["plot", BASIC[0], BASIC[1], "--metric", "duration", "--top", top, "-o"];
    args.push(path.to_str().unwrap());
    args.extend_from_slice(extra);
    ok(&args);
    std::fs::read_to_string(&path).unwrap()
}

/// The findings: `ProfilerStep#*` and the CUDA runtime calls dominated the charts, the
/// bars were numbered with their names in a key below, host and device rows shared one axis,
/// and nothing marked a significant change.
#[test]
fn the_duration_chart_draws_host_and_device_rows_apart_with_marks() {
    let dir = TempDir::new().unwrap();
    let svg = duration_svg(&dir, &[]);
    // Per step (three steps a side), largest |Δ| first: four host rows, then four device rows;
    // no step row, no cudaMemcpyAsync or cudaLaunchKernel.
    assert_eq!(
        rows_of(&svg),
        [
            "aten::gelu: control 0 ns, test 30.0 µs; significant",
            "aten::relu: control 25.0 µs, test 0 ns; significant",
            "aten::add: control 40.0 µs, test 60.0 µs; significant",
            "aten::copy_: control 24.0 µs, test 12.0 µs; significant",
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params): control 200 µs, test 300 µs; significant",
            "Memcpy HtoD (Pageable -> Device): control 30.0 µs, test 15.0 µs; significant",
            "void at::native::(anonymous namespace)::GeluCUDAKernelImpl<float>(at::TensorIteratorBase&): control 0 ns, test 9.00 µs",
            "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>): control 7.00 µs, test 0 ns",
        ]
    );
    let texts = texts_of(&svg);
    // Two panels, each named; the names on the axis, significant ones marked; no numbered key.
    for t in [
        "host: operators, annotations",
        "device: kernels, copies, sets",
        "aten::gelu *",
        "aten::copy_ *",
    ] {
        assert!(texts.iter().any(|x| x == t), "{t}: {texts:?}");
    }
    assert!(
        texts
            .iter()
            .any(|x| x.starts_with("Kernel<cutlass_80_tensorop") && x.ends_with(" *")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|x| x.starts_with("1. ") || x == "1"), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|x| x == "* changed beyond run-to-run noise (significant)")
    );
    assert!(!svg.contains("ProfilerStep") && !svg.contains("cudaLaunchKernel"));
}

#[test]
fn every_row_with_all_rows_or_an_exclude_of_ones_own() {
    let dir = TempDir::new().unwrap();
    let all = rows_of(&duration_svg(&dir, &["--all-rows"]));
    assert!(all.iter().any(|r| r.starts_with("ProfilerStep#*: ")), "{all:?}");
    assert!(all.iter().any(|r| r.starts_with("cudaLaunchKernel: ")), "{all:?}");
    // An --exclude given replaces the default: the runtime calls are back, aten::gelu gone.
    let own = rows_of(&duration_svg(&dir, &["--exclude", "gelu"]));
    assert!(own.iter().any(|r| r.starts_with("cudaLaunchKernel: ")), "{own:?}");
    assert!(!own.iter().any(|r| r.starts_with("aten::gelu")), "{own:?}");
    // --help shows the default, written from the constant.
    let help = ok(&["plot", "--help"]);
    let default = format!("[default: {}]", tracediff::render::DEFAULT_EXCLUDE.join(" "));
    assert!(help.contains(&default), "{help}");
    assert_eq!(
        run(&["plot", BASIC[0], BASIC[1], "--all-rows", "--exclude", "x"]).code,
        2
    );
}

#[test]
fn both_charts_are_written_as_png() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("chart.png");
    let printed = ok(&["plot", BASIC[0], BASIC[1], "-o", out.to_str().unwrap()]);
    for metric in ["counts", "duration"] {
        let path = dir.path().join(format!("chart-{metric}.png"));
        assert!(printed.contains(&path.display().to_string()), "{printed}");
        let bytes = std::fs::read(&path).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let info = decoder.read_info().unwrap();
        assert_eq!((info.info().width, info.info().height), (1600, 900));
    }
}
