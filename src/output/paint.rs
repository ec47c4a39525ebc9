//! Colour at a terminal only (`--color auto|always|never`, `NO_COLOR`, as ripgrep reads them).
//! A renderer marks what stands out with three private-use characters ([`SLOWER`], [`FASTER`],
//! [`PLAIN`]), which pass through [`super::visible::VisibleControls`] as text; [`Paint`], the
//! last writer before standard output, turns them into colour escapes where colour is on and
//! drops them where it is off, so no escape ever reaches a pipe that did not ask for one.

use std::io::Write;

/// Marks a row significantly slower (more time): bold red.
pub(crate) const SLOWER: char = '\u{e000}';
/// Marks a row significantly faster (less time): bold green.
pub(crate) const FASTER: char = '\u{e001}';
/// Ends a mark.
pub(crate) const PLAIN: char = '\u{e002}';

/// When output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub(crate) enum ColorChoice {
    /// Where standard output is a terminal, `NO_COLOR` is unset or empty and `TERM` is not
    /// `dumb`.
    #[default]
    Auto,
    /// Always, a pipe too (`less -R`).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether output is coloured: `on_terminal` (standard output is one), `no_color` (the
    /// value of `NO_COLOR`), `term` (of `TERM`).
    pub(crate) fn colors(self, on_terminal: bool, no_color: Option<&str>, term: Option<&str>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => on_terminal && no_color.is_none_or(str::is_empty) && term != Some("dumb"),
        }
    }
}

/// The escape each mark becomes.
fn escape(mark: u8) -> &'static [u8] {
    match mark {
        0x80 => b"\x1b[1;31m",
        0x81 => b"\x1b[1;32m",
        _ => b"\x1b[0m",
    }
}

/// A writer that turns the marks into colour escapes (`on`) or drops them.
pub(crate) struct Paint<W: Write> {
    inner: W,
    on: bool,
    /// The start of a mark at the end of the last write (`EE`, `EE 80`).
    pending: Vec<u8>,
}

impl<W: Write> Paint<W> {
    /// Passes text on to `inner`, its marks coloured where `on`, else dropped.
    pub(crate) fn new(inner: W, on: bool) -> Self {
        Paint {
            inner,
            on,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for Paint<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let joined;
        let data: &[u8] = if self.pending.is_empty() {
            buf
        } else {
            let mut v = std::mem::take(&mut self.pending);
            v.extend_from_slice(buf);
            joined = v;
            &joined
        };
        let mut start = 0;
        let mut i = 0;
        while i < data.len() {
            if data[i] != 0xee {
                i += 1;
                continue;
            }
            match (data.get(i + 1), data.get(i + 2)) {
                (Some(0x80), Some(&m @ 0x80..=0x82)) => {
                    self.inner.write_all(&data[start..i])?;
                    if self.on {
                        self.inner.write_all(escape(m))?;
                    }
                    i += 3;
                    start = i;
                }
                (None, _) | (Some(0x80), None) => {
                    self.inner.write_all(&data[start..i])?;
                    self.pending = data[i..].to_vec();
                    return Ok(buf.len());
                }
                _ => i += 1,
            }
        }
        self.inner.write_all(&data[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Paint<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn painted(text: &str, on: bool, cut: usize) -> String {
        let mut out = Vec::new();
        {
            let mut p = Paint::new(&mut out, on);
            p.write_all(&text.as_bytes()[..cut]).unwrap();
            p.write_all(&text.as_bytes()[cut..]).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn marks_become_colour_or_nothing_at_any_cut() {
        let text = format!("a {SLOWER}slow{PLAIN} {FASTER}fast{PLAIN} \u{e003} é");
        for cut in 0..=text.len() {
            assert_eq!(
                painted(&text, true, cut),
                "a \x1b[1;31mslow\x1b[0m \x1b[1;32mfast\x1b[0m \u{e003} é",
                "cut at {cut}"
            );
            assert_eq!(painted(&text, false, cut), "a slow fast \u{e003} é", "cut at {cut}");
        }
    }

    #[test]
    fn auto_colours_a_terminal_without_no_color() {
        let auto = ColorChoice::Auto;
        assert!(auto.colors(true, None, Some("xterm")));
        assert!(auto.colors(true, Some(""), None));
        assert!(!auto.colors(true, Some("1"), None));
        assert!(!auto.colors(true, None, Some("dumb")));
        assert!(!auto.colors(false, None, None));
        assert!(ColorChoice::Always.colors(false, Some("1"), None));
        assert!(!ColorChoice::Never.colors(true, None, None));
    }
}
