//! The peak rates of the devices the cost model knows (docs/cost-model.md#peaks): dense
//! matrix throughput per precision, no sparsity, and memory bandwidth, from the vendors'
//! datasheets. A device is found by the name its trace's `deviceProperties` give.

/// A precision of the peak table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Precision {
    /// 32-bit floats on the plain (non-tensor-core) units.
    Fp32,
    /// 32-bit floats through TF32 tensor cores.
    Tf32,
    /// Half precision.
    Fp16,
    /// bfloat16.
    Bf16,
    /// 8-bit floats.
    Fp8,
}

impl Precision {
    /// The precision of a call whose first tensor has element type `ty`; float runs as TF32
    /// where its kernels name `tf32` (`kernels_tf32`). `None`: a type the table has no peak for.
    pub(crate) fn of(ty: &str, kernels_tf32: bool) -> Option<Precision> {
        Some(match ty {
            "float" if kernels_tf32 => Precision::Tf32,
            "float" => Precision::Fp32,
            "c10::Half" => Precision::Fp16,
            "c10::BFloat16" => Precision::Bf16,
            t if t.starts_with("c10::Float8_") => Precision::Fp8,
            _ => return None,
        })
    }

    /// Its name in output.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
        }
    }
}

/// One device's peaks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Peak {
    /// Its name in the table.
    pub device: &'static str,
    /// Dense TFLOP/s: fp32, tf32, fp16, bf16, fp8 (`None`: not supported).
    pub tflops: [Option<f64>; 5],
    /// Memory bandwidth, TB/s.
    pub tb_per_s: f64,
}

impl Peak {
    /// The peak FLOP/s at `p`.
    pub(crate) fn flops_per_s(&self, p: Precision) -> Option<f64> {
        self.tflops[p as usize].map(|t| t * 1e12)
    }

    /// The peak bytes per second.
    pub(crate) fn bytes_per_s(&self) -> f64 {
        self.tb_per_s * 1e12
    }
}

const fn peak(device: &'static str, tflops: [Option<f64>; 5], tb_per_s: f64) -> Peak {
    Peak {
        device,
        tflops,
        tb_per_s,
    }
}

/// The table: (what the device's name holds, its peaks), the first match wins, so the more
/// particular names come first.
const TABLE: &[(&str, Peak)] = &[
    (
        "H100 PCIe",
        peak(
            "H100 PCIe",
            [Some(51.0), Some(378.0), Some(756.0), Some(756.0), Some(1513.0)],
            2.0,
        ),
    ),
    (
        "H100",
        peak(
            "H100 SXM",
            [Some(67.0), Some(495.0), Some(989.0), Some(989.0), Some(1979.0)],
            3.35,
        ),
    ),
    (
        "H200",
        peak(
            "H200 SXM",
            [Some(67.0), Some(495.0), Some(989.0), Some(989.0), Some(1979.0)],
            4.8,
        ),
    ),
    (
        "A100-SXM4-40GB",
        peak(
            "A100 40GB",
            [Some(19.5), Some(156.0), Some(312.0), Some(312.0), None],
            1.555,
        ),
    ),
    (
        "A100",
        peak(
            "A100 80GB",
            [Some(19.5), Some(156.0), Some(312.0), Some(312.0), None],
            2.039,
        ),
    ),
    (
        "V100",
        peak("V100 SXM2", [Some(15.7), None, Some(125.0), None, None], 0.9),
    ),
    (
        "L4",
        peak(
            "L4",
            [Some(30.3), Some(60.0), Some(121.0), Some(121.0), Some(242.0)],
            0.3,
        ),
    ),
    (
        "MI300X",
        peak(
            "MI300X",
            [Some(163.4), Some(653.7), Some(1307.4), Some(1307.4), Some(2614.9)],
            5.3,
        ),
    ),
    (
        "MI325X",
        peak(
            "MI325X",
            [Some(163.4), Some(653.7), Some(1307.4), Some(1307.4), Some(2614.9)],
            6.0,
        ),
    ),
    (
        "B200",
        peak(
            "B200",
            [Some(75.0), Some(1100.0), Some(2250.0), Some(2250.0), Some(4500.0)],
            8.0,
        ),
    ),
    (
        "B300",
        peak(
            "B300",
            [Some(75.0), Some(1100.0), Some(2250.0), Some(2250.0), Some(4500.0)],
            8.0,
        ),
    ),
];

/// The peaks of the device named `name` (`NVIDIA H100 80GB HBM3`, `AMD Instinct MI300X`).
pub(crate) fn find(name: &str) -> Option<Peak> {
    let upper = name.to_ascii_uppercase();
    // A key matches where no digit follows it: `L4` is not the `L40S`.
    let matches = |key: &str| {
        let key = key.to_ascii_uppercase();
        upper
            .match_indices(&key)
            .any(|(at, _)| !upper[at + key.len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    TABLE.iter().find(|(key, _)| matches(key)).map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_by_their_trace_names() {
        assert_eq!(find("NVIDIA H100 80GB HBM3").unwrap().device, "H100 SXM");
        assert_eq!(find("NVIDIA H100 PCIe").unwrap().device, "H100 PCIe");
        assert_eq!(find("NVIDIA A100-SXM4-40GB").unwrap().device, "A100 40GB");
        assert_eq!(find("AMD Instinct MI300X").unwrap().device, "MI300X");
        assert_eq!(find("Tesla V100-SXM2-16GB").unwrap().flops_per_s(Precision::Bf16), None);
        assert_eq!(find("NVIDIA GeForce RTX 4090"), None);
        assert_eq!(find("NVIDIA L4").unwrap().device, "L4");
        assert_eq!(find("NVIDIA L40S"), None);
        assert_eq!(Precision::of("float", true), Some(Precision::Tf32));
        assert_eq!(Precision::of("long int", false), None);
    }
}
