//! The value parsers of the numeric flags: a number too large (or too small) for the flag says
//! that it is out of range and what the range is, never "number too large to fit in target type".

use std::fmt::Display;
use std::num::IntErrorKind;

/// A whole number of type `T`, from `min` to `max`.
fn whole<T: TryFrom<i128> + Display>(s: &str, min: T, max: T) -> Result<T, String> {
    let t = s.trim();
    let out = || format!("{t} is out of range: expected a whole number from {min} to {max}");
    match t.parse::<i128>() {
        Ok(v) => T::try_from(v).map_err(|_| out()),
        Err(e) if matches!(e.kind(), IntErrorKind::PosOverflow | IntErrorKind::NegOverflow) => Err(out()),
        Err(_) => Err(format!(
            "'{t}' is not a whole number (expected one from {min} to {max})"
        )),
    }
}

/// A count or a size: `--top`, `--depth`, `--window`, `--table-rows`, ….
pub(crate) fn count(s: &str) -> Result<usize, String> {
    whole(s, 0, usize::MAX)
}

/// A number of pixels: `--width`, `--height`.
pub(crate) fn pixels(s: &str) -> Result<u32, String> {
    whole(s, 0, u32::MAX)
}

/// A multiplier: a finite number ≥ 0 (`--noise-k`).
pub(crate) fn factor(s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) if v.is_nan() => Err(format!("'{t}' is not a number (expected a number ≥ 0 such as 3)")),
        Ok(_) => Err(format!(
            "{t} is out of range: expected a finite number from 0 to {:e}",
            f64::MAX
        )),
        Err(_) => Err(format!("'{t}' is not a number (expected a number ≥ 0 such as 3)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_range_say_so_and_name_the_range() {
        assert_eq!(count("12"), Ok(12));
        let e = count("99999999999999999999").unwrap_err();
        assert!(
            e.contains("is out of range") && e.contains(&usize::MAX.to_string()),
            "{e}"
        );
        assert!(count("-1").unwrap_err().contains("out of range"));
        assert!(count("1".repeat(60).as_str()).unwrap_err().contains("out of range"));
        assert!(count("ten").unwrap_err().contains("is not a whole number"));
        assert!(pixels("4294967296").unwrap_err().contains("from 0 to 4294967295"));
        assert_eq!(factor("2.5"), Ok(2.5));
        assert!(factor("1e999").unwrap_err().contains("out of range"));
        assert!(factor("-1").unwrap_err().contains("out of range"));
        assert!(factor("nan").unwrap_err().contains("is not a number"));
    }
}
