//! How an Nsight Systems export's rows are named, so that they read as the PyTorch profiler
//! (Kineto) names the same work: kernels by their demangled name, copies and sets as
//! `Memcpy HtoD (Pageable -> Device)` and `Memset (Device)`, runtime calls without nsys's
//! version suffix (`cudaLaunchKernel_v7000` → `cudaLaunchKernel`), and the ranges
//! `torch.autograd.profiler.emit_nvtx` pushes without the sequence numbers and shapes it
//! appends (`aten::mm, seq = 12, sizes = [[2, 3]]` → `aten::mm`).

/// The short form of a copy's direction, by the export's `copyKind` (`ENUM_CUDA_MEMCPY_OPER`),
/// as Kineto writes it.
pub fn copy_kind(kind: i64) -> &'static str {
    match kind {
        1 => "HtoD",
        2 => "DtoH",
        3 => "HtoA",
        4 => "AtoH",
        5 => "AtoA",
        6 => "AtoD",
        7 => "DtoA",
        8 => "DtoD",
        9 => "HtoH",
        10 => "PtoP",
        11 => "HtoD",
        12 => "DtoH",
        13 => "DtoD",
        _ => "Unknown",
    }
}

/// A memory kind by the export's `ENUM_CUDA_MEM_KIND` id, as Kineto names it.
pub fn memory_kind(kind: Option<i64>) -> &'static str {
    match kind {
        Some(0) => "Pageable",
        Some(1) => "Pinned",
        Some(2) => "Device",
        Some(3) => "Array",
        Some(4) => "Managed",
        Some(5) => "Device Static",
        Some(6) => "Managed Static",
        _ => "Unknown",
    }
}

/// A copy's name: `Memcpy HtoD (Pageable -> Device)`.
pub fn memcpy_name(copy: i64, src: Option<i64>, dst: Option<i64>) -> String {
    format!(
        "Memcpy {} ({} -> {})",
        copy_kind(copy),
        memory_kind(src),
        memory_kind(dst)
    )
}

/// A set's name: `Memset (Device)`.
pub fn memset_name(kind: Option<i64>) -> String {
    format!("Memset ({})", memory_kind(kind))
}

/// A runtime call's name without nsys's `_v<digits>` suffix.
pub fn runtime_name(name: &str) -> &str {
    match name.rfind("_v") {
        Some(at) if at > 0 && name.len() > at + 2 && name[at + 2..].bytes().all(|b| b.is_ascii_digit()) => &name[..at],
        _ => name,
    }
}

/// What emit_nvtx appends to an operator's name.
const NVTX_SUFFIXES: [&str; 3] = [", seq = ", ", op_id = ", ", sizes = "];

/// An NVTX range's name and whether it is an operator (`cpu_op`) rather than a user
/// annotation: a range emit_nvtx pushed for an operator (its suffixes, cut off here, or an
/// `aten::` name) is an operator; any other (record_function, a user's own ranges,
/// ProfilerStep#N) an annotation.
pub fn nvtx_name(text: &str) -> (&str, bool) {
    let cut = NVTX_SUFFIXES.iter().filter_map(|s| text.find(s)).min();
    match cut {
        Some(at) => (&text[..at], true),
        None => (text, text.starts_with("aten::")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_named_as_kineto_names_them() {
        assert_eq!(memcpy_name(1, Some(0), Some(2)), "Memcpy HtoD (Pageable -> Device)");
        assert_eq!(memcpy_name(8, None, None), "Memcpy DtoD (Unknown -> Unknown)");
        assert_eq!(memset_name(Some(2)), "Memset (Device)");
        assert_eq!(runtime_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
        assert_eq!(runtime_name("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
        assert_eq!(runtime_name("cudaStreamIsCapturing_v10000"), "cudaStreamIsCapturing");
        assert_eq!(runtime_name("cuda_vX"), "cuda_vX");
        assert_eq!(runtime_name("_v12"), "_v12");
        assert_eq!(
            nvtx_name("aten::mm, seq = 12, sizes = [[2, 3], [3, 4]]"),
            ("aten::mm", true)
        );
        assert_eq!(nvtx_name("aten::relu"), ("aten::relu", true));
        assert_eq!(nvtx_name("ProfilerStep#3"), ("ProfilerStep#3", false));
        assert_eq!(nvtx_name("forward"), ("forward", false));
    }
}
