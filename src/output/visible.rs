//! Control characters shown, never sent raw (docs/robustness.md#control-characters): a name or
//! path holding ESC, BEL or an OSC sequence must not move the cursor, retitle the window or
//! ring the terminal. Text meant for people — tables, Markdown, notes, errors, and anything on a
//! terminal — passes through [`VisibleControls`], which writes each C0 control (but the line
//! break), DEL and each C1 control as an escape: `\x1b`, `\x07`, `\x7f`, `\u{9b}`. CSV and JSON
//! written to a file or a pipe keep names exactly (JSON escapes them itself).

use std::io::Write;

/// A writer that escapes control characters on their way to `inner`.
pub(crate) struct VisibleControls<W: Write> {
    inner: W,
    /// A 0xC2 byte at the end of the last write: the first half of a C1 control, or of a
    /// printable character (U+00A0–U+00BF).
    pending_c2: bool,
}

impl<W: Write> VisibleControls<W> {
    /// A writer that passes what it is given on to `inner`, control characters escaped.
    pub(crate) fn new(inner: W) -> Self {
        VisibleControls {
            inner,
            pending_c2: false,
        }
    }
}

/// Whether byte `b` (outside a multi-byte character) is a control shown as `\xNN`.
fn is_c0(b: u8) -> bool {
    (b < 0x20 && b != b'\n') || b == 0x7f
}

impl<W: Write> Write for VisibleControls<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        let mut i = 0;
        if self.pending_c2 {
            self.pending_c2 = false;
            match buf.first() {
                Some(&b @ 0x80..=0x9f) => {
                    write!(self.inner, "\\u{{{b:x}}}")?;
                    start = 1;
                    i = 1;
                }
                _ => self.inner.write_all(&[0xc2])?,
            }
        }
        while i < buf.len() {
            let b = buf[i];
            if is_c0(b) {
                self.inner.write_all(&buf[start..i])?;
                write!(self.inner, "\\x{b:02x}")?;
                start = i + 1;
            } else if b == 0xc2 {
                match buf.get(i + 1) {
                    Some(&c @ 0x80..=0x9f) => {
                        self.inner.write_all(&buf[start..i])?;
                        write!(self.inner, "\\u{{{c:x}}}")?;
                        i += 1;
                        start = i + 1;
                    }
                    Some(_) => {}
                    None => {
                        self.inner.write_all(&buf[start..i])?;
                        self.pending_c2 = true;
                        start = i + 1;
                    }
                }
            }
            i += 1;
        }
        self.inner.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for VisibleControls<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// `text` with its control characters escaped as [`VisibleControls`] writes them.
pub(crate) fn visible(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let _ = VisibleControls::new(&mut out).write_all(text.as_bytes());
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_text_is_kept() {
        assert_eq!(
            visible("a\x1b]0;pwned\x07b\tc\r\nd\u{9b}31m é ü\u{7f}"),
            "a\\x1b]0;pwned\\x07b\\x09c\\x0d\nd\\u{9b}31m é ü\\x7f"
        );
    }

    #[test]
    fn a_c1_control_split_across_writes_is_still_shown() {
        let text = "x\u{9b}y\u{a0}z".as_bytes();
        for cut in 0..=text.len() {
            let mut out = Vec::new();
            {
                let mut w = VisibleControls::new(&mut out);
                w.write_all(&text[..cut]).unwrap();
                w.write_all(&text[cut..]).unwrap();
            }
            assert_eq!(String::from_utf8(out).unwrap(), "x\\u{9b}y\u{a0}z", "cut at {cut}");
        }
    }
}
