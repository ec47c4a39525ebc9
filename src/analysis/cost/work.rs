//! What a call does, and the checked arithmetic every op family of the cost model shares
//! (docs/cost-model.md).

use super::shapes::{Call, bytes_of, numel};

/// What one call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Work {
    /// Floating-point operations, for the compute ops (GEMMs, convolutions, attention).
    pub flops: Option<u64>,
    /// Bytes read and written, where the element types are known.
    pub bytes: Option<u64>,
}

/// The unit of an op's work in the decomposition: FLOPs where the op computes, else bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Floating-point operations.
    Flops,
    /// Bytes moved.
    Bytes,
}

impl Unit {
    /// The unit's name in output (`FLOP`, `B`).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Flops => "FLOP",
            Unit::Bytes => "B",
        }
    }
}

impl Work {
    /// The figure the decomposition uses: FLOPs where known, else bytes.
    pub(crate) fn amount(&self) -> Option<(Unit, u64)> {
        match (self.flops, self.bytes) {
            (Some(f), _) => Some((Unit::Flops, f)),
            (None, Some(b)) => Some((Unit::Bytes, b)),
            (None, None) => None,
        }
    }
}

/// An input's shape, or the error that it is missing.
pub(crate) fn tensor(call: &Call, k: usize, what: &str) -> Result<(Vec<u64>, String), String> {
    let arg = call
        .args
        .get(k)
        .ok_or_else(|| format!("{what} (argument {k}) was not recorded"))?;
    let dims = arg
        .dims
        .clone()
        .ok_or_else(|| format!("{what} (argument {k}) is not a tensor"))?;
    Ok((dims, arg.ty.clone()))
}

/// `a × b × …` checked.
pub(crate) fn product(factors: &[u64]) -> Result<u64, String> {
    numel(factors).map_err(|_| "the work overflows a u64".to_string())
}

/// Sums bytes, checked.
pub(crate) fn sum(parts: &[u64]) -> Result<u64, String> {
    parts
        .iter()
        .try_fold(0u64, |s, &b| s.checked_add(b))
        .ok_or_else(|| "the bytes overflow a u64".to_string())
}

/// The bytes of `elements` of type `ty`, checked.
pub(crate) fn bytes_n(elements: u64, ty: &str) -> Result<u64, String> {
    bytes_of(&[elements], ty)
}
