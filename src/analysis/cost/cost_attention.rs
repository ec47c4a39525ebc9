//! Scaled dot-product attention and the flash, memory-efficient and cuDNN attention ops,
//! forward and backward (docs/cost-model.md#attention).

use super::shapes::{Call, numel};
use super::work::{Work, bytes_n, product, sum, tensor};

/// How a query tensor lays its dimensions out.
#[derive(Clone, Copy)]
enum Layout {
    /// [batch, heads, length, head size]: the `scaled_dot_product_*` ops.
    Bhle,
    /// [batch, length, heads, head size]: the `_flash_attention_*` and `_efficient_attention_*` ops.
    Blhe,
}

/// Where an op says it is causal.
#[derive(Clone, Copy)]
enum Causal {
    /// A boolean argument (`is_causal`).
    Flag(usize),
    /// A mask type argument (`custom_mask_type`: 0 none, else causal).
    MaskType(usize),
}

/// One attention op: its layout, the place of its query (key and value follow), where it says
/// it is causal, and whether it is a backward op.
struct Op {
    layout: Layout,
    query: usize,
    causal: Causal,
    backward: bool,
}

const fn op(layout: Layout, query: usize, causal: Causal, backward: bool) -> Op {
    Op {
        layout,
        query,
        causal,
        backward,
    }
}

fn find(name: &str) -> Option<Op> {
    use Causal::{Flag, MaskType};
    use Layout::{Bhle, Blhe};
    Some(match name {
        "scaled_dot_product_attention" | "_scaled_dot_product_attention_math" => op(Bhle, 0, Flag(5), false),
        "_scaled_dot_product_flash_attention" | "_scaled_dot_product_flash_attention_for_cpu" => {
            op(Bhle, 0, Flag(4), false)
        }
        "_scaled_dot_product_efficient_attention" | "_scaled_dot_product_cudnn_attention" => {
            op(Bhle, 0, Flag(6), false)
        }
        "_flash_attention_forward" => op(Blhe, 0, Flag(8), false),
        "_efficient_attention_forward" => op(Blhe, 0, MaskType(9), false),
        "_scaled_dot_product_flash_attention_backward" | "_scaled_dot_product_efficient_attention_backward" => {
            op(Bhle, 1, Flag(11), true)
        }
        "_scaled_dot_product_flash_attention_for_cpu_backward" => op(Bhle, 1, Flag(7), true),
        "_scaled_dot_product_cudnn_attention_backward" => op(Bhle, 1, Flag(14), true),
        "_flash_attention_backward" => op(Blhe, 1, Flag(11), true),
        "_efficient_attention_backward" => op(Blhe, 1, MaskType(14), true),
        _ => return None,
    })
}

/// The work of attention op `name` (without `aten::`), or `None` where it is none.
pub(super) fn attention(name: &str, call: &Call) -> Option<Result<Work, String>> {
    let op = find(name)?;
    Some(work(&op, call))
}

/// (batch × heads, length, head size) of a query, key or value.
fn bhle(dims: &[u64], layout: Layout) -> Result<[u64; 3], String> {
    match (dims, layout) {
        ([b, h, l, e], Layout::Bhle) | ([b, l, h, e], Layout::Blhe) => Ok([product(&[*b, *h])?, *l, *e]),
        ([bh, l, e], _) => Ok([*bh, *l, *e]),
        _ => Err(format!(
            "expected a 3-d or 4-d query, key and value, got {}-d",
            dims.len()
        )),
    }
}

/// FLOPs: 2·B·H·Lq·Lk·(E + Ev) forward (the scores and the weighted sum), half that where
/// causal, 2.5× the forward's for a backward op; bytes: the inputs read and the output written.
fn work(op: &Op, call: &Call) -> Result<Work, String> {
    let (q, ty) = tensor(call, op.query, "the query")?;
    let (k, _) = tensor(call, op.query + 1, "the key")?;
    let (v, _) = tensor(call, op.query + 2, "the value")?;
    let [bh, lq, e] = bhle(&q, op.layout)?;
    let [_, lk, _] = bhle(&k, op.layout)?;
    let [_, _, ev] = bhle(&v, op.layout)?;
    let causal = match op.causal {
        Causal::Flag(i) => call.value(i).eq_ignore_ascii_case("true"),
        Causal::MaskType(i) => !matches!(call.value(i).trim(), "" | "0"),
    };
    let mut flops = product(&[2, bh, lq, lk, e.checked_add(ev).ok_or("the head size overflows")?])?;
    if causal {
        flops /= 2;
    }
    if op.backward {
        flops = flops.checked_mul(5).ok_or("the work overflows a u64")? / 2;
    }
    let out = product(&[bh, lq, ev])?;
    let inputs = sum(&[numel(&q)?, numel(&k)?, numel(&v)?])?;
    // A backward op reads the output's gradient, the inputs and the output, and writes the
    // inputs' gradients.
    let elements = if op.backward {
        sum(&[out, out, inputs, inputs])?
    } else {
        sum(&[inputs, out])?
    };
    Ok(Work {
        flops: Some(flops),
        bytes: bytes_n(elements, &ty).ok(),
    })
}
