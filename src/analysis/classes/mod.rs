//! What a kernel is (docs/kernel-classes.md): every device event gets one of twelve classes
//! (`gemm`, `attention`, `conv`, …) from the name patterns of [`rules::RULES`], tried in order,
//! after the user's own patterns (`--kernel-classes FILE`). Two runs on different vendors,
//! libraries or compilers then compare by what their kernels do.

pub(crate) mod flame;
pub(crate) mod pairing;
pub(crate) mod rules;

use crate::error::{Error, Location, Result};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use regex::RegexSet;
use serde::Serialize;
use std::path::Path;
use std::sync::OnceLock;

/// What a device event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelClass {
    /// Matrix multiplications (dense, batched, grouped; MoE expert GEMMs too).
    Gemm,
    /// Attention kernels (fused or flash attention, paged decode, their backward helpers).
    Attention,
    /// Convolutions (direct, implicit GEMM, Winograd, their gradient kernels).
    Conv,
    /// Normalisations (layer, RMS, batch, group norm; forward and backward).
    Norm,
    /// Pointwise arithmetic and activations.
    Elementwise,
    /// Reductions: sums, means, softmax, losses, scans, pooling.
    Reduce,
    /// Gathers, scatters, embeddings, sorting, top-k.
    Index,
    /// Memory copies and sets, casts, concatenations, transposes, KV-cache writes.
    Copy,
    /// Collectives and point-to-point transfers between devices.
    Communication,
    /// Mixture-of-experts routing, sorting, alignment and permutation.
    Moe,
    /// Optimizer steps.
    Optimizer,
    /// A name no rule matches.
    Other,
}

impl KernelClass {
    /// Every class, in the order tables list them.
    pub const ALL: [KernelClass; 12] = [
        KernelClass::Gemm,
        KernelClass::Attention,
        KernelClass::Conv,
        KernelClass::Norm,
        KernelClass::Elementwise,
        KernelClass::Reduce,
        KernelClass::Index,
        KernelClass::Copy,
        KernelClass::Communication,
        KernelClass::Moe,
        KernelClass::Optimizer,
        KernelClass::Other,
    ];

    /// The class's name in outputs and in `--kernel-classes` files.
    pub fn name(self) -> &'static str {
        match self {
            KernelClass::Gemm => "gemm",
            KernelClass::Attention => "attention",
            KernelClass::Conv => "conv",
            KernelClass::Norm => "norm",
            KernelClass::Elementwise => "elementwise",
            KernelClass::Reduce => "reduce",
            KernelClass::Index => "index",
            KernelClass::Copy => "copy",
            KernelClass::Communication => "communication",
            KernelClass::Moe => "moe",
            KernelClass::Optimizer => "optimizer",
            KernelClass::Other => "other",
        }
    }

    /// The class named `name`, if it is one.
    pub fn parse(name: &str) -> Option<KernelClass> {
        KernelClass::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for KernelClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Classifies kernel names: the user's patterns first, then the built-in rules, the first
/// match deciding; `other` where none matches.
#[derive(Debug, Clone)]
pub struct Classifier {
    /// Shared by clones: a cloned `RegexSet` starts with an empty match cache and builds its
    /// automaton again, which cost the report a second on a ResNet pair (a clone per table).
    set: std::sync::Arc<RegexSet>,
    classes: Vec<KernelClass>,
}

impl crate::request::CompareRequest {
    /// The kernel classes: the patterns of [`CompareRequest::kernel_classes`](crate::request::CompareRequest::kernel_classes) first, then the
    /// built-in rules.
    pub fn classifier(&self) -> Result<Classifier> {
        match &self.kernel_classes {
            Some(path) => Classifier::from_file(path),
            None => Ok(Classifier::builtin()),
        }
    }
}

impl Classifier {
    /// The built-in rules alone (compiled once per process).
    pub fn builtin() -> Classifier {
        static BUILTIN: OnceLock<Classifier> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                // The built-in patterns are checked by a unit test: they always compile.
                Classifier::with_user(&[]).unwrap_or_else(|e| panic!("a built-in kernel class rule: {e}"))
            })
            .clone()
    }

    /// The built-in rules after `user`'s (class, pattern) pairs, which are tried first.
    fn with_user(user: &[(KernelClass, String)]) -> std::result::Result<Classifier, regex::Error> {
        let patterns = user
            .iter()
            .map(|(_, p)| p.as_str())
            .chain(rules::RULES.iter().map(|r| r.pattern));
        let classes = user
            .iter()
            .map(|(c, _)| *c)
            .chain(rules::RULES.iter().map(|r| r.class))
            .collect();
        Ok(Classifier {
            set: std::sync::Arc::new(RegexSet::new(patterns)?),
            classes,
        })
    }

    /// The built-in rules after those of a `--kernel-classes` file: TOML, one key per class,
    /// each a list of patterns (or one pattern). Errors name the line and the key.
    pub fn from_file(path: &Path) -> Result<Classifier> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                path,
                format!("cannot read kernel classes: {}", crate::error::io_reason(&e)),
            )
        })?;
        Classifier::from_toml(&text, path)
    }

    /// [`Classifier::from_file`] on text already read from `path`.
    pub fn from_toml(text: &str, path: &Path) -> Result<Classifier> {
        let at = |offset: usize| Location::Text(format!("line {}", line_of(text, offset)));
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let what = format!("invalid kernel classes: {}", e.message().trim());
            match e.span() {
                Some(span) => Error::input_at(path, what, at(span.start)),
                None => Error::input(path, what),
            }
        })?;
        let key_at = |key: &str| at(key_offset(text, key));
        let mut user = Vec::new();
        for (key, value) in &table {
            let Some(class) = KernelClass::parse(key) else {
                let names: Vec<&str> = KernelClass::ALL.iter().map(|c| c.name()).collect();
                return Err(Error::input_at(
                    path,
                    format!("unknown kernel class `{key}` (the classes are {})", names.join(", ")),
                    key_at(key),
                ));
            };
            let patterns: Vec<&str> = match value {
                toml::Value::String(s) => vec![s.as_str()],
                toml::Value::Array(a) => a.iter().filter_map(toml::Value::as_str).collect(),
                _ => Vec::new(),
            };
            let is_list = matches!(value, toml::Value::String(_))
                || matches!(value, toml::Value::Array(a) if a.len() == patterns.len());
            if !is_list {
                return Err(Error::input_at(
                    path,
                    format!("kernel class `{key}`: expected a pattern or a list of patterns (strings)"),
                    key_at(key),
                ));
            }
            for p in patterns {
                if let Err(e) = regex::Regex::new(p) {
                    let why = e.to_string().lines().last().unwrap_or_default().trim().to_string();
                    return Err(Error::input_at(
                        path,
                        format!("kernel class `{key}`: invalid pattern `{p}`: {why}"),
                        key_at(key),
                    ));
                }
                user.push((class, p.to_string()));
            }
        }
        Classifier::with_user(&user).map_err(|e| Error::input(path, format!("invalid kernel classes: {e}")))
    }

    /// The class of a kernel named `name`.
    pub fn classify(&self, name: &str) -> KernelClass {
        self.set
            .matches(name)
            .iter()
            .next()
            .map_or(KernelClass::Other, |i| self.classes[i])
    }

    /// The class of every name id of `file` that names a device event (others: `other`),
    /// indexed by the id: each distinct name is matched once, however many events carry it.
    pub fn file_classes(&self, file: &TraceFile) -> Vec<KernelClass> {
        let ev = &file.events;
        let mut seen = vec![false; file.strings.len()];
        let mut out = vec![KernelClass::Other; file.strings.len()];
        for i in 0..ev.len() {
            let id = ev.name[i];
            if ev.place[i] == Place::Device && !seen[id.index()] {
                seen[id.index()] = true;
                out[id.index()] = self.classify(file.strings.resolve(id));
            }
        }
        out
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The byte offset of the line that defines top-level `key` (`key =` or `"key" =`), else 0.
fn key_offset(text: &str, key: &str) -> usize {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let rest = t
            .strip_prefix(key)
            .or_else(|| t.strip_prefix(&format!("\"{key}\"")))
            .or_else(|| t.strip_prefix(&format!("'{key}'")));
        if rest.is_some_and(|r| r.trim_start().starts_with('=')) {
            return offset;
        }
        offset += line.len();
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_its_example_gets_its_class() {
        let c = Classifier::builtin();
        for r in rules::RULES {
            assert!(regex::Regex::new(r.pattern).is_ok(), "{}", r.pattern);
            assert_eq!(c.classify(r.example), r.class, "{} ({})", r.example, r.library);
        }
    }

    #[test]
    fn names_across_vendors_get_the_class_of_what_they_do() {
        let c = Classifier::builtin();
        let cases = [
            ("nvjet_sm103_tst_128x8_64x12_2x1_v_bz_NNT", KernelClass::Gemm),
            (
                "void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int)",
                KernelClass::Index,
            ),
            ("attn_fwd", KernelClass::Attention),
            // SageAttention's quantized attention (a Flux pair read "attention -97%" without it).
            (
                "void sage_fwd_kernel<128, 64, (QuantGranularity)2, float, half>(half*, int)",
                KernelClass::Attention,
            ),
            (
                "kernel_cutlass_kernel_flashinfernormkernelsfused_add_rmsnormFusedAddRMSNormKernel_object_at_",
                KernelClass::Norm,
            ),
            ("create_flashinfer_kv_indices_triton", KernelClass::Index),
            ("aiter::topksoftmax_4x128x8_bf16", KernelClass::Moe),
            ("triton__moe_fused_kernel_0d1d2d3d4d5d6d7d8d9d10d", KernelClass::Gemm),
            ("triton_poi_fused__to_copy_1", KernelClass::Copy),
            ("triton_poi_fused__unsafe_view_mul_silu_2", KernelClass::Elementwise),
            ("triton_per_fused__softmax_0", KernelClass::Reduce),
            (
                "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                KernelClass::Communication,
            ),
            ("Memset (Device)", KernelClass::Copy),
            ("igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32", KernelClass::Conv),
            ("triton__0d1d2d", KernelClass::Other),
        ];
        for (name, class) in cases {
            assert_eq!(c.classify(name), class, "{name}");
        }
    }

    #[test]
    fn user_patterns_come_first_and_errors_name_the_line_and_key() {
        let path = Path::new("classes.toml");
        let c = Classifier::from_toml("# mine\ngemm = [\"^my_kernel\"]\nother = \"^attn_fwd$\"\n", path).unwrap();
        assert_eq!(c.classify("my_kernel_3"), KernelClass::Gemm);
        assert_eq!(c.classify("attn_fwd"), KernelClass::Other);
        let e = Classifier::from_toml("gemm = [\"x\"]\n\nmatmul = [\"y\"]\n", path).unwrap_err();
        assert!(e.to_string().starts_with("unknown kernel class `matmul`"), "{e}");
        assert!(e.to_string().ends_with("(classes.toml: line 3)"), "{e}");
        let e = Classifier::from_toml("\nnorm = [\"(\"]\n", path).unwrap_err();
        assert!(
            e.to_string().contains("kernel class `norm`: invalid pattern `(`"),
            "{e}"
        );
        assert!(e.to_string().ends_with("(classes.toml: line 2)"), "{e}");
        let e = Classifier::from_toml("norm = [1]\n", path).unwrap_err();
        assert!(e.to_string().contains("expected a pattern or a list"), "{e}");
        let e = Classifier::from_toml("norm = [\n", path).unwrap_err();
        assert!(e.to_string().starts_with("invalid kernel classes:"), "{e}");
    }
}
