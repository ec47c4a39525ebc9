//! Numbers for people, shared by the stages that word results (analysis notes) and those that
//! print them (output): a module below both, like [`crate::error`].

/// A duration for people: `812 ns`, `12.4 µs`, `3.21 ms`, `1.50 s`, with three significant
/// digits. `signed` adds `+` to positive values.
pub fn fmt_duration(ns: i64, signed: bool) -> String {
    let sign = if ns < 0 {
        "-"
    } else if signed && ns > 0 {
        "+"
    } else {
        ""
    };
    let abs = ns.unsigned_abs() as f64;
    let (value, unit) = if abs < 1e3 {
        return format!("{sign}{} ns", ns.unsigned_abs());
    } else if abs < 1e6 {
        (abs / 1e3, "µs")
    } else if abs < 1e9 {
        (abs / 1e6, "ms")
    } else {
        (abs / 1e9, "s")
    };
    let text = if value < 9.995 {
        format!("{value:.2}")
    } else if value < 99.95 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    };
    format!("{sign}{text} {unit}")
}
