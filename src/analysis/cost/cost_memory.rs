//! The ops whose work is the bytes they move (docs/cost-model.md#bytes-moved): elementwise
//! ops, norms, softmax, reductions, copies and fills, embeddings and collectives. Bytes are
//! numel × element size of what is read and written; no FLOPs are claimed for them.

use super::shapes::{Call, bytes_of, numel};
use super::work::{Work, bytes_n, sum};

/// Families of ops that move bytes, each with its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Reads every tensor input and writes one output the size of the largest input
    /// (elementwise ops, norms, softmax and their backward ops).
    ReadAllWriteLargest,
    /// Reads every tensor input (reductions, whose output is small; `copy_`, whose inputs are
    /// the destination written and the source read; collectives, the message).
    ReadAll,
    /// Writes its first input (fills).
    WriteFirst,
    /// Reads its first input and writes a copy of it (`clone`, `contiguous`, `_to_copy`).
    CopyFirst,
    /// Reads every input and writes them side by side (`cat`, `stack`).
    Concat,
    /// `embedding(weight [V, D], indices)`: reads the indices and one row per index, writes
    /// the rows.
    Embedding,
}

const ELEMENTWISE: &[&str] = &[
    "add",
    "add_",
    "sub",
    "sub_",
    "rsub",
    "mul",
    "mul_",
    "div",
    "div_",
    "neg",
    "neg_",
    "exp",
    "exp_",
    "log",
    "log_",
    "sqrt",
    "sqrt_",
    "rsqrt",
    "rsqrt_",
    "pow",
    "pow_",
    "abs",
    "reciprocal",
    "sin",
    "cos",
    "erf",
    "square",
    "relu",
    "relu_",
    "gelu",
    "gelu_",
    "gelu_backward",
    "silu",
    "silu_",
    "silu_backward",
    "sigmoid",
    "sigmoid_",
    "sigmoid_backward",
    "tanh",
    "tanh_",
    "tanh_backward",
    "threshold_backward",
    "hardtanh",
    "hardtanh_",
    "hardtanh_backward",
    "leaky_relu",
    "leaky_relu_",
    "elu",
    "mish",
    "where",
    "clamp",
    "clamp_",
    "clamp_min",
    "clamp_min_",
    "clamp_max",
    "clamp_max_",
    "addcmul",
    "addcmul_",
    "addcdiv",
    "addcdiv_",
    "lerp",
    "lerp_",
    "masked_fill",
    "masked_fill_",
    "dropout",
    "native_dropout",
    "native_dropout_backward",
    "maximum",
    "minimum",
    "eq",
    "ne",
    "lt",
    "gt",
    "le",
    "ge",
    "sign",
    "floor",
    "ceil",
    "round",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "mul_scalar",
];

const NORMS_AND_SOFTMAX: &[&str] = &[
    "layer_norm",
    "native_layer_norm",
    "native_layer_norm_backward",
    "rms_norm",
    "_fused_rms_norm",
    "_fused_rms_norm_backward",
    "batch_norm",
    "native_batch_norm",
    "native_batch_norm_backward",
    "_batch_norm_impl_index",
    "_batch_norm_impl_index_backward",
    "cudnn_batch_norm",
    "cudnn_batch_norm_backward",
    "miopen_batch_norm",
    "miopen_batch_norm_backward",
    "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training",
    "group_norm",
    "native_group_norm",
    "native_group_norm_backward",
    "softmax",
    "_softmax",
    "log_softmax",
    "_log_softmax",
    "_softmax_backward_data",
    "_log_softmax_backward_data",
    "embedding_dense_backward",
];

const REDUCTIONS: &[&str] = &[
    "sum",
    "mean",
    "amax",
    "amin",
    "max",
    "min",
    "argmax",
    "argmin",
    "norm",
    "linalg_vector_norm",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "prod",
    "any",
    "all",
    "logsumexp",
    "nll_loss_forward",
    "nll_loss",
    "nll_loss2d_forward",
    "nll_loss_backward",
    "copy_",
];

fn rule(name: &str, op: &str) -> Option<Rule> {
    if ELEMENTWISE.contains(&op) || NORMS_AND_SOFTMAX.contains(&op) {
        return Some(Rule::ReadAllWriteLargest);
    }
    if REDUCTIONS.contains(&op) || is_collective(name) {
        return Some(Rule::ReadAll);
    }
    Some(match op {
        "fill_" | "zero_" | "normal_" | "uniform_" | "random_" | "bernoulli_" => Rule::WriteFirst,
        "clone" | "contiguous" | "_to_copy" => Rule::CopyFirst,
        "embedding" => Rule::Embedding,
        "cat" | "stack" => Rule::Concat,
        _ => return None,
    })
}

/// A collective whose inputs are its message: `c10d::*` ops and ATen's collectives.
fn is_collective(name: &str) -> bool {
    name.starts_with("c10d::") || name.starts_with("_c10d_functional::")
}

/// The work of op `name` (`op` without `aten::`), or `None` where the op is not one of these.
pub(super) fn cost(name: &str, op: &str, call: &Call) -> Option<Result<Work, String>> {
    let rule = rule(name, op)?;
    Some(bytes(rule, call).map(|b| Work {
        flops: None,
        bytes: Some(b),
    }))
}

fn bytes(rule: Rule, call: &Call) -> Result<u64, String> {
    if call.args.iter().any(|a| !a.list.is_empty()) {
        return Err("the element type of a tensor list is not recorded".to_string());
    }
    let tensors: Vec<(&[u64], &str)> = call.tensors().collect();
    let Some(&(first, ty)) = tensors.first() else {
        return Err("no tensor input was recorded".to_string());
    };
    let each: Vec<u64> = tensors.iter().map(|(d, t)| bytes_of(d, t)).collect::<Result<_, _>>()?;
    match rule {
        Rule::ReadAll => sum(&each),
        Rule::Concat => sum(&[sum(&each)?, sum(&each)?]),
        Rule::WriteFirst => Ok(each[0]),
        Rule::CopyFirst => sum(&[each[0], each[0]]),
        Rule::ReadAllWriteLargest => {
            let largest = tensors.iter().map(|(d, _)| numel(d)).collect::<Result<Vec<_>, _>>()?;
            let out = bytes_n(largest.into_iter().max().unwrap_or(0), ty)?;
            sum(&[sum(&each)?, out])
        }
        Rule::Embedding => {
            let (Some(&row), Some(&(indices, ity))) = (first.last(), tensors.get(1)) else {
                return Err("expected a weight [V, D] and indices".to_string());
            };
            let rows = bytes_n(numel(indices)?.checked_mul(row).ok_or("the rows overflow a u64")?, ty)?;
            sum(&[bytes_of(indices, ity)?, rows, rows])
        }
    }
}
