//! The inputs of one operator call as a trace recorded them with `record_shapes=True`: each
//! argument's shape (`Input Dims`), type (`Input type`) and, for scalars and lists, its value
//! (`Concrete Inputs`), read from the compact JSON text the store keeps (docs/cost-model.md).
//!
//! Nothing here trusts the text: a shape that is not a list of whole numbers, a negative
//! dimension or a size that overflows a `u64` is an error naming what was wrong, never a panic
//! nor a wrapped number.

use serde_json::Value;

/// The attribute columns a call is read from (HTA's names for `Input Dims`, `Input type` and
/// `Concrete Inputs`).
pub(crate) const COLUMNS: [&str; 3] = ["input_dims", "input_type", "concrete_inputs"];

/// One argument of a call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Arg {
    /// Its shape where it is a tensor (`[64, 512]`; `[]` a 0-d tensor).
    pub dims: Option<Vec<u64>>,
    /// The shapes of a tensor list (`aten::cat`'s first argument).
    pub list: Vec<Vec<u64>>,
    /// Its type as recorded (`float`, `c10::BFloat16`, `Scalar`, `TensorList`, or empty).
    pub ty: String,
    /// Its value where recorded (`[1, 1]`, `False`, `1`), else empty.
    pub value: String,
}

/// The arguments of one call, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Call {
    /// The arguments.
    pub args: Vec<Arg>,
}

impl Call {
    /// Reads a call from the text of its `Input Dims`, `Input type` and `Concrete Inputs`
    /// (the last two may be missing: empty text). An argument is a tensor where its type names
    /// an element type ([`element_size`] knows it or not: `Scalar`, `ScalarList`, `TensorList`,
    /// `GenericList` and the empty type are not tensors).
    pub(crate) fn parse(dims: &str, types: &str, values: &str) -> Result<Call, String> {
        let dims = list_of(dims, "Input Dims")?;
        let types = strings_of(types, "Input type")?;
        let values = strings_of(values, "Concrete Inputs")?;
        let n = dims.len().max(types.len()).max(values.len());
        let mut args = Vec::with_capacity(n);
        for k in 0..n {
            let d = dims.get(k).unwrap_or(&Value::Null);
            let ty = types.get(k).cloned().unwrap_or_default();
            let value = values.get(k).cloned().unwrap_or_default();
            let (dims, list) = match d {
                Value::Array(items) if items.iter().any(Value::is_array) => {
                    let list = items.iter().map(|s| shape(s, k)).collect::<Result<Vec<_>, _>>()?;
                    (None, list)
                }
                _ if is_tensor_type(&ty) || (types.is_empty() && d.as_array().is_some_and(|a| !a.is_empty())) => {
                    (Some(shape(d, k)?), Vec::new())
                }
                _ => (None, Vec::new()),
            };
            args.push(Arg { dims, list, ty, value });
        }
        Ok(Call { args })
    }

    /// Argument `k`'s shape, where it is a tensor.
    #[cfg(test)]
    pub(crate) fn dims(&self, k: usize) -> Option<&[u64]> {
        self.args.get(k)?.dims.as_deref()
    }

    /// Argument `k`'s recorded value (empty where none).
    pub(crate) fn value(&self, k: usize) -> &str {
        self.args.get(k).map_or("", |a| a.value.as_str())
    }

    /// The tensors among the arguments: (shape, type), in order.
    pub(crate) fn tensors(&self) -> impl Iterator<Item = (&[u64], &str)> {
        self.args
            .iter()
            .filter_map(|a| Some((a.dims.as_deref()?, a.ty.as_str())))
    }

    /// The shapes of the tensors as people read them: `[64, 512]×[512, 512]` (tensor lists
    /// as `{[2, 3], [2, 3]}`); empty where the call has no tensor.
    pub(crate) fn shapes_text(&self) -> String {
        let fmt = |d: &[u64]| format!("[{}]", d.iter().map(u64::to_string).collect::<Vec<_>>().join(", "));
        let parts: Vec<String> = self
            .args
            .iter()
            .filter_map(|a| match (&a.dims, a.list.is_empty()) {
                (Some(d), _) => Some(fmt(d)),
                (None, false) => Some(format!(
                    "{{{}}}",
                    a.list.iter().map(|d| fmt(d)).collect::<Vec<_>>().join(", ")
                )),
                (None, true) => None,
            })
            .collect();
        parts.join("×")
    }

    /// The distinct element types of the tensors, in order of first use (`float`,
    /// `c10::BFloat16, float`); empty where the call has no tensor.
    pub(crate) fn dtypes_text(&self) -> String {
        let mut seen: Vec<&str> = Vec::new();
        for (_, ty) in self.tensors() {
            if !seen.contains(&ty) {
                seen.push(ty);
            }
        }
        seen.join(", ")
    }
}

/// Whether a recorded type is a tensor's element type (not a scalar, a list or nothing).
fn is_tensor_type(ty: &str) -> bool {
    !matches!(
        ty,
        "" | "Scalar" | "ScalarList" | "TensorList" | "GenericList" | "None" | "Device" | "Layout" | "ScalarType"
    ) && !ty.ends_with("List")
}

/// The size in bytes of one element of a recorded type, or `None` where the type is unknown.
pub(crate) fn element_size(ty: &str) -> Option<u64> {
    Some(match ty {
        "double" | "long int" | "long" | "int64_t" | "c10::complex<float>" | "unsigned long" => 8,
        "float" | "int" | "unsigned int" | "c10::complex<c10::Half>" => 4,
        "c10::Half" | "c10::BFloat16" | "short int" | "short" | "unsigned short" => 2,
        "c10::complex<double>" => 16,
        "bool" | "signed char" | "unsigned char" | "char" | "c10::qint8" | "c10::quint8" => 1,
        t if t.starts_with("c10::Float8_") => 1,
        _ => return None,
    })
}

/// The number of elements of a shape, or an error where it overflows a `u64`.
pub(crate) fn numel(dims: &[u64]) -> Result<u64, String> {
    dims.iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| format!("the shape [{}] overflows a u64", join(dims)))
}

/// The bytes of a tensor of `dims` and type `ty`.
pub(crate) fn bytes_of(dims: &[u64], ty: &str) -> Result<u64, String> {
    let size = element_size(ty).ok_or_else(|| format!("element type '{ty}' is unknown"))?;
    numel(dims)?
        .checked_mul(size)
        .ok_or_else(|| format!("the bytes of [{}] overflow a u64", join(dims)))
}

fn join(dims: &[u64]) -> String {
    dims.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The JSON list of `text` (an attribute's compact JSON), named `what` in errors.
fn list_of(text: &str, what: &str) -> Result<Vec<Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Ok(items),
        _ => Err(format!("{what} is not a list")),
    }
}

/// A JSON list of strings (empty text: no list).
fn strings_of(text: &str, what: &str) -> Result<Vec<String>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    Ok(list_of(text, what)?
        .into_iter()
        .map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .collect())
}

/// One shape: a list of whole, non-negative numbers.
fn shape(v: &Value, arg: usize) -> Result<Vec<u64>, String> {
    let Value::Array(items) = v else {
        return Err(format!("Input Dims of argument {arg} is not a list of numbers"));
    };
    items
        .iter()
        .map(|d| match d {
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(x), _) => Ok(x),
                (None, Some(_)) => Err(format!("Input Dims of argument {arg} has a negative dimension")),
                _ => Err(format!(
                    "Input Dims of argument {arg} has a dimension that is not a whole number"
                )),
            },
            _ => Err(format!(
                "Input Dims of argument {arg} has a dimension that is not a number"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_reads_tensors_scalars_and_lists() {
        let c = Call::parse(
            r#"[[64,512],[512,512],[],[[2,3],[2,3]]]"#,
            r#"["float","float","Scalar","TensorList"]"#,
            r#"["","","1",""]"#,
        )
        .unwrap();
        assert_eq!(c.dims(0), Some(&[64, 512][..]));
        assert_eq!(c.dims(2), None);
        assert_eq!(c.value(2), "1");
        assert_eq!(c.args[3].list, vec![vec![2, 3], vec![2, 3]]);
        assert_eq!(c.shapes_text(), "[64, 512]×[512, 512]×{[2, 3], [2, 3]}");
        assert_eq!(c.dtypes_text(), "float");
        // A 0-d tensor is a tensor.
        assert_eq!(Call::parse("[[]]", r#"["float"]"#, "").unwrap().dims(0), Some(&[][..]));
    }

    #[test]
    fn bad_shapes_are_errors_not_panics() {
        for (dims, why) in [
            (r#""[1,2]""#, "not a list"),
            (r#"[["a"]]"#, "not a number"),
            ("[[-1, 2]]", "negative"),
            ("[[1.5]]", "not a whole number"),
            ("[[1e30]]", "not a whole number"),
            ("[3]", "not a list of numbers"),
        ] {
            let e = Call::parse(dims, r#"["float"]"#, "").unwrap_err();
            assert!(e.contains(why), "{dims}: {e}");
        }
        assert!(numel(&[u64::MAX, 2]).unwrap_err().contains("overflows"));
        assert!(bytes_of(&[u64::MAX / 2], "float").unwrap_err().contains("overflow"));
        assert!(bytes_of(&[2], "quaternion").unwrap_err().contains("unknown"));
        assert_eq!(bytes_of(&[2, 3], "c10::BFloat16"), Ok(12));
    }
}
