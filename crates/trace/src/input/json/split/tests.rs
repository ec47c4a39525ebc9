use super::*;

/// A reader that hands out at most `n` bytes per call.
pub(crate) struct Trickle<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) n: usize,
}
impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

fn ends(text: &str, n: usize) -> Vec<usize> {
    let mut input = Input::new(Trickle {
        data: text.as_bytes(),
        n,
    });
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((i, _)) = input.skip_ws(at).unwrap() {
        let end = input.value_end(i, 0).unwrap();
        out.push(end);
        at = end;
    }
    out
}

#[test]
fn values_end_where_they_end_whatever_the_pieces() {
    let text = r#"{"a": "x}\"]", "b": [1, {"c": "\\"}]} "s\"" 12 true [[]]"#;
    let want = ends(text, 1 << 20);
    assert_eq!(want, [37, 43, 46, 51, 56]);
    for n in [1, 2, 3, 5] {
        assert_eq!(ends(text, n), want, "pieces of {n}");
    }
}

/// Where a value ends, byte by byte: the reference for the word-at-a-time scan.
fn reference_end(s: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escape) = (0usize, false, false);
    for (k, &b) in s.iter().enumerate() {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn the_word_scan_agrees_with_the_byte_scan() {
    // Random texts over the bytes that matter (and their look-alikes), cut in pieces.
    let alphabet = b"\"\\{}[]Y_y\x7f a,:0";
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..3000 {
        let len = 1 + (next() % 90) as usize;
        let mut text = vec![b'{'];
        text.extend((0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]));
        let want = reference_end(&text);
        let n = 1 + round % 13;
        let mut input = Input::new(Trickle { data: &text, n });
        let got = match input.value_end(0, 0) {
            Ok(end) => Some(end),
            Err(Cut::Eof(_)) => None,
            Err(e) => panic!("{e:?}"),
        };
        assert_eq!(got, want, "{:?} in pieces of {n}", String::from_utf8_lossy(&text));
    }
}

#[test]
fn depth_is_limited_and_eof_is_reported() {
    let deep = "[".repeat(MAX_DEPTH + 3);
    let mut input = Input::new(deep.as_bytes());
    assert!(matches!(input.value_end(0, 0), Err(Cut::TooDeep(256))));
    let mut input = Input::new(&b"{\"a\": [1"[..]);
    assert!(matches!(input.value_end(0, 0), Err(Cut::Eof(0))));
    let mut input = Input::new(&b"12"[..]);
    assert_eq!(input.value_end(0, 0).unwrap(), 2);
}

#[test]
fn a_huge_string_is_cut_in_linear_time() {
    // 64 MiB read 4 KiB at a time: rescanning from the start on each read would take minutes.
    let body = "x".repeat(64 << 20);
    let text = format!("\"{body}\"");
    let mut input = Input::new(Trickle {
        data: text.as_bytes(),
        n: 4096,
    });
    assert_eq!(input.value_end(0, 0).unwrap(), text.len());
}
