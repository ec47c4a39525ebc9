//! The gate config's errors in a user's words: what a value should be (`expected a number or a
//! string such as "10%"`), never the Rust type that reads it (`untagged enum`, `f64`), and the
//! line of the key a checked value came from.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A threshold value as written in the TOML file: text, or a bare number (kept as its text so
/// that it is judged like the same value on the command line).
pub(super) fn text_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    d.deserialize_option(Optional)
}

const EXPECTED: &str = "a number or a string such as \"10%\"";

/// `None`, or the value read by [`TextOrNumber`].
struct Optional;

impl<'de> Visitor<'de> for Optional {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(TextOrNumber).map(Some)
    }
}

/// Text or a number, as text; anything else is refused saying what was expected.
struct TextOrNumber;

impl<'de> Visitor<'de> for TextOrNumber {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Err(E::custom(format!("expected {EXPECTED}, not {v}")))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::custom(format!("expected {EXPECTED}, not an array")))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(de::Error::custom(format!("expected {EXPECTED}, not a table")))
    }
}

/// A TOML or serde message in a user's words: the types a user writes in TOML for the types Rust
/// reads them into.
pub(super) fn user_words(message: &str) -> String {
    const WORDS: [(&str, &str); 9] = [
        ("expected f64", "expected a number"),
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("unknown variant", "unknown value"),
        ("invalid type: sequence", "invalid type: an array"),
        ("invalid type: map", "invalid type: a table"),
        ("invalid type: floating point", "invalid type: the number"),
        ("invalid type: integer", "invalid type: the number"),
        ("a boolean", "true or false"),
    ];
    WORDS
        .iter()
        .fold(message.to_string(), |m, (rust, user)| m.replace(rust, user))
}

/// `key`, with the line of the TOML file `text` that sets it (`noise_k (line 3)`), for a
/// message about a value that was read and then checked.
pub(super) fn key_at(text: &str, key: &str) -> String {
    let line = text.lines().position(|l| {
        l.split_once('=').is_some_and(|(k, _)| {
            let k = k.trim().trim_matches('"');
            k == key || k.ends_with(&format!(".{key}"))
        })
    });
    match line {
        Some(n) => format!("{key} (line {})", n + 1),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_on_their_line() {
        let text = "[gate]\n# noise_k = 1\nmax_op_regression = \"5%\"\n  noise_k=nan\n";
        assert_eq!(key_at(text, "noise_k"), "noise_k (line 4)");
        assert_eq!(key_at("gate.noise_k = 2", "noise_k"), "noise_k (line 1)");
        assert_eq!(key_at(text, "relative"), "relative");
        assert_eq!(
            user_words("invalid type: string \"3\", expected f64"),
            "invalid type: string \"3\", expected a number"
        );
    }
}
