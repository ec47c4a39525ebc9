//! Characters that XML 1.0 forbids, kept out of every SVG tracediff writes: a name is any
//! Unicode text, and one holding a C0 control or the noncharacters U+FFFE and U+FFFF would make
//! the document ill-formed (a browser then shows an error instead of the picture). Each is
//! written as a visible escape, as the tables write control characters: `\x01`, `\u{fffe}`.

use std::fmt::Write;

/// `s` escaped for HTML text and attribute values: the five markup characters as entities
/// (the report's page and its parts).
pub(crate) fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Whether XML 1.0 allows `c` in a document (`#x9 | #xA | #xD | [#x20-#xD7FF] |
/// [#xE000-#xFFFD] | [#x10000-#x10FFFF]`; a Rust `char` is never a surrogate).
pub(crate) fn allowed_in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// `svg` with every character XML 1.0 forbids replaced by its visible escape. The drawing's own
/// markup never holds one, so only text taken from names changes; bytes that are not UTF-8
/// are left as they are.
pub(crate) fn xml_safe(svg: Vec<u8>) -> Vec<u8> {
    let suspect = |b: &u8| (*b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || *b == 0xEF;
    if !svg.iter().any(suspect) {
        return svg;
    }
    let Ok(text) = std::str::from_utf8(&svg) else {
        return svg;
    };
    if text.chars().all(allowed_in_xml) {
        return svg;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if allowed_in_xml(c) {
            out.push(c);
        } else if c < ' ' {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_characters_are_escaped_and_the_rest_kept() {
        let svg = "<text>a\u{1}b\u{FFFE}c\u{FFFF}d\u{FFFD}\u{10FFFF}\t</text>"
            .as_bytes()
            .to_vec();
        assert_eq!(
            String::from_utf8(xml_safe(svg)).unwrap(),
            "<text>a\\x01b\\u{fffe}c\\u{ffff}d\u{FFFD}\u{10FFFF}\t</text>"
        );
        let plain = b"<svg>\xc3\xa9</svg>".to_vec();
        assert_eq!(xml_safe(plain.clone()), plain);
    }
}
