//! Work per call from shapes and dtypes (docs/cost-model.md): one function per op family,
//! FLOPs for the compute ops (a multiply-add is 2 FLOPs) and bytes moved for every op the model
//! knows. An op it does not know has no figure, never a guess.

use super::cost_memory;
use super::shapes::{Call, numel};
pub use super::work::Unit;
pub(crate) use super::work::Work;
use super::work::{bytes_n, product, sum, tensor};

/// The cost model's answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cost {
    /// Its work.
    Known(Work),
    /// The op is not in the model.
    Unknown,
    /// The op is in the model but its inputs could not be read (the reason).
    Skipped(String),
}

/// The work of one call of operator `name` (with or without its `aten::` prefix).
pub(crate) fn cost(name: &str, call: &Call) -> Cost {
    let op = name.strip_prefix("aten::").unwrap_or(name);
    let found = match op {
        "mm" => gemm(call, 0, 1, false),
        "addmm" | "_addmm_activation" => gemm(call, 1, 2, false),
        "bmm" => gemm(call, 0, 1, true),
        "baddbmm" => gemm(call, 1, 2, true),
        "matmul" => matmul(call),
        "linear" => linear(call),
        _ => match conv_or_attention(op, call) {
            Some(found) => found,
            None => match cost_memory::cost(name, op, call) {
                Some(found) => found,
                None => return Cost::Unknown,
            },
        },
    };
    match found {
        Ok(w) => Cost::Known(w),
        Err(why) => Cost::Skipped(why),
    }
}

fn conv_or_attention(op: &str, call: &Call) -> Option<Result<Work, String>> {
    Some(match op {
        // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        "convolution" | "_convolution" => conv(call, [3, 4, 5], Some(6)),
        // (input, weight, bias, stride, padding, dilation, groups)
        "conv1d" | "conv2d" | "conv3d" => conv(call, [3, 4, 5], None),
        // (self, weight, padding, stride, dilation, groups, …)
        "cudnn_convolution" => conv(call, [3, 2, 4], None),
        // (self, weight, bias, padding, stride, dilation, groups)
        "mkldnn_convolution" => conv(call, [4, 3, 5], None),
        "convolution_backward" => conv_backward(call),
        _ => return super::cost_attention::attention(op, call),
    })
}

/// A GEMM of arguments `a` [.., m, k] and `b` [.., k, n]: 2·batch·m·k·n FLOPs, and the two
/// inputs read and the output written.
fn gemm(call: &Call, a: usize, b: usize, batched: bool) -> Result<Work, String> {
    let (da, ty) = tensor(call, a, "the first matrix")?;
    let (db, _) = tensor(call, b, "the second matrix")?;
    let rank = if batched { 3 } else { 2 };
    if da.len() != rank || db.len() != rank {
        return Err(format!(
            "expected {rank}-d matrices, got {}-d and {}-d",
            da.len(),
            db.len()
        ));
    }
    let (m, k, n) = (da[rank - 2], da[rank - 1], db[rank - 1]);
    let batch = if batched { da[0].max(db[0]) } else { 1 };
    gemm_work(batch, m, k, n, &ty)
}

/// 2·batch·m·k·n FLOPs; bytes batch·(m·k + k·n + m·n) elements of `ty`.
fn gemm_work(batch: u64, m: u64, k: u64, n: u64, ty: &str) -> Result<Work, String> {
    let flops = product(&[2, batch, m, k, n])?;
    let elements = sum(&[
        product(&[batch, m, k])?,
        product(&[batch, k, n])?,
        product(&[batch, m, n])?,
    ])?;
    Ok(Work {
        flops: Some(flops),
        bytes: bytes_n(elements, ty).ok(),
    })
}

/// `matmul(a, b)` as torch broadcasts it: a 1-d `a` is a row, a 1-d `b` a column, the batch
/// dimensions broadcast.
fn matmul(call: &Call) -> Result<Work, String> {
    let (mut da, ty) = tensor(call, 0, "the first operand")?;
    let (mut db, _) = tensor(call, 1, "the second operand")?;
    if da.is_empty() || db.is_empty() {
        return Err("matmul of a 0-d tensor".to_string());
    }
    if da.len() == 1 {
        da.insert(0, 1);
    }
    if db.len() == 1 {
        db.push(1);
    }
    let (m, k, n) = (da[da.len() - 2], da[da.len() - 1], db[db.len() - 1]);
    let (ba, bb) = (&da[..da.len() - 2], &db[..db.len() - 2]);
    let rank = ba.len().max(bb.len());
    let at = |b: &[u64], i: usize| if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
    let batch: Vec<u64> = (0..rank).map(|i| at(ba, i).max(at(bb, i))).collect();
    gemm_work(product(&batch)?, m, k, n, &ty)
}

/// `linear(input [.., k], weight [n, k], bias)`: a GEMM of every leading row of the input.
fn linear(call: &Call) -> Result<Work, String> {
    let (di, ty) = tensor(call, 0, "the input")?;
    let (dw, _) = tensor(call, 1, "the weight")?;
    let (Some((&k, rows)), [n, _]) = (di.split_last(), dw.as_slice()) else {
        return Err("expected an input [.., k] and a weight [n, k]".to_string());
    };
    gemm_work(1, product(rows)?, k, *n, &ty)
}

/// A list argument (`[2, 2]`, or one number for every dimension), `d` long; `default` where
/// nothing was recorded.
fn int_list(text: &str, d: usize, default: u64) -> Result<Vec<u64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(vec![default; d]);
    }
    let items: Result<Vec<u64>, _> = t
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().parse::<u64>())
        .collect();
    match items {
        Ok(v) if v.len() == 1 => Ok(vec![v[0]; d]),
        Ok(v) if v.len() == d => Ok(v),
        _ => Err(format!("cannot read the list '{t}' for {d} dimensions")),
    }
}

/// A convolution's FLOPs and bytes from its input, weight, the places of its [stride,
/// padding, dilation] arguments and of its transposed flag (docs/cost-model.md#convolutions).
/// The weight's second dimension is already the channels of one group.
fn conv(call: &Call, [s, p, dl]: [usize; 3], transposed: Option<usize>) -> Result<Work, String> {
    let (input, ty) = tensor(call, 0, "the input")?;
    let (weight, _) = tensor(call, 1, "the weight")?;
    let d = weight
        .len()
        .checked_sub(2)
        .filter(|&d| d >= 1)
        .ok_or("the weight has fewer than 3 dimensions")?;
    let input = match input.len() {
        x if x == d + 2 => input,
        x if x == d + 1 => [&[1][..], &input].concat(),
        _ => return Err(format!("a {}-d input for a {d}-d kernel", input.len())),
    };
    let kernel = &weight[2..];
    if transposed.is_some_and(|k| call.value(k).eq_ignore_ascii_case("true")) {
        // Every input position meets the whole kernel: 2·N·C_in·(C_out ÷ groups)·Πin·Πk.
        let flops = product(&[&[2, input[0], input[1], weight[1]][..], &input[2..], kernel].concat())?;
        return Ok(Work {
            flops: Some(flops),
            bytes: None,
        });
    }
    let (stride, dilation) = (int_list(call.value(s), d, 1)?, int_list(call.value(dl), d, 1)?);
    let padding = match call.value(p) {
        "same" => None,
        "valid" => Some(vec![0; d]),
        text => Some(int_list(text, d, 0)?),
    };
    let mut out = Vec::with_capacity(d);
    for i in 0..d {
        out.push(match &padding {
            None => input[2 + i].div_ceil(stride[i].max(1)),
            Some(pad) => conv_out(input[2 + i], kernel[i], stride[i], pad[i], dilation[i])?,
        });
    }
    // 2·N·C_out·(C_in ÷ groups)·Πout·Πk.
    let flops = product(&[&[2, input[0], weight[0], weight[1]][..], &out, kernel].concat())?;
    let output = product(&[&[input[0], weight[0]][..], &out].concat())?;
    let elements = sum(&[numel(&input)?, numel(&weight)?, output])?;
    Ok(Work {
        flops: Some(flops),
        bytes: bytes_n(elements, &ty).ok(),
    })
}

/// One output size of a convolution: ⌊(in + 2p − d(k − 1) − 1) / s⌋ + 1.
fn conv_out(input: u64, kernel: u64, stride: u64, pad: u64, dilation: u64) -> Result<u64, String> {
    let span = dilation
        .checked_mul(kernel.saturating_sub(1))
        .ok_or("the kernel span overflows")?;
    let room = input
        .checked_add(pad.saturating_mul(2))
        .and_then(|x| x.checked_sub(span + 1))
        .ok_or_else(|| format!("a kernel of {kernel} does not fit an input of {input}"))?;
    Ok(room / stride.max(1) + 1)
}

/// `convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
/// transposed, output_padding, groups, output_mask)`: the forward's FLOPs once for the input's
/// gradient and once for the weight's, as `output_mask` asks (both where it is not recorded).
fn conv_backward(call: &Call) -> Result<Work, String> {
    let (grad, ty) = tensor(call, 0, "the output's gradient")?;
    let (input, _) = tensor(call, 1, "the input")?;
    let (weight, _) = tensor(call, 2, "the weight")?;
    if weight.len() < 3 || grad.len() != input.len() || grad.len() < weight.len() - 1 {
        return Err("the gradient, input and weight do not fit a convolution".to_string());
    }
    let transposed = call.value(7).eq_ignore_ascii_case("true");
    let kernel = &weight[2..];
    let spatial = |t: &[u64]| t[t.len() - kernel.len()..].to_vec();
    let n = if grad.len() == weight.len() { grad[0] } else { 1 };
    let (channels, positions) = if transposed {
        (input[input.len() - kernel.len() - 1], spatial(&input))
    } else {
        (weight[0], spatial(&grad))
    };
    let forward = product(&[&[2, n, channels, weight[1]][..], &positions, kernel].concat())?;
    let mask = call.value(10).to_ascii_lowercase();
    let asked = match mask.trim_matches(|c| c == '[' || c == ']') {
        "" => 2,
        m => m.split(',').take(2).filter(|x| x.trim() == "true").count() as u64,
    };
    let elements = sum(&[numel(&grad)?, numel(&input)?, numel(&weight)?])?;
    let written = sum(&[numel(&input)?, numel(&weight)?])?;
    Ok(Work {
        flops: Some(product(&[forward, asked])?),
        bytes: sum(&[elements, written]).ok().and_then(|e| bytes_n(e, &ty).ok()),
    })
}

#[cfg(test)]
mod tests;
