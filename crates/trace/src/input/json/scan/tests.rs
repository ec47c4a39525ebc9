use super::*;

fn spans(s: &str) -> Option<(Vec<Option<String>>, usize)> {
    let (f, len) = event(s.as_bytes(), 200, &AttrKeys::default(), &mut Vec::new())?;
    let all = [
        f.name,
        f.cat,
        f.ts,
        f.dur,
        f.pid,
        f.tid,
        f.ph,
        f.id,
        f.stream,
        f.correlation,
        f.device,
        f.total_allocated,
        f.bytes,
        f.device_type,
        f.device_id,
    ];
    Some((
        all.iter()
            .map(|r| r.get(s.as_bytes()).map(|b| String::from_utf8_lossy(b).into_owned()))
            .collect(),
        len,
    ))
}

#[test]
fn white_space_runs_end_at_the_first_other_byte() {
    for b in 0..=255u8 {
        for at in 0..20 {
            let mut s = b" \n\r\t \n  \t\r\n       \n    ".to_vec();
            s[at] = b;
            let want = if is_ws(b) { s.len() } else { at };
            assert_eq!(ws_end(&s, 0), want, "{b} at {at}");
            assert_eq!(ws_end(&s[..at], 0), at);
        }
    }
}

#[test]
fn skip_ws_stops_at_the_first_other_byte() {
    for s in [
        "",
        " ",
        "  ",
        "x",
        " x",
        "  x",
        "\n    x",
        "\r\n\t         \n  x",
        "      ",
    ] {
        let want = s.find(|c: char| !" \n\r\t".contains(c)).unwrap_or(s.len());
        assert_eq!(skip_ws(s.as_bytes(), 0), want, "{s:?}");
    }
    assert_eq!(skip_ws(b"ab", 5), 2);
}

#[test]
fn digit_runs_end_at_the_first_other_byte() {
    for b in 0..=255u8 {
        for at in 0..20 {
            let mut s = vec![b'7'; 20];
            s[at] = b;
            let want = if b.is_ascii_digit() { 20 } else { at };
            assert_eq!(digits_end(&s, 0), want, "{b} at {at}");
            assert_eq!(digits_end(&s[..at], 0), at);
        }
    }
}

/// `string_end` one byte at a time: what the sixteen- and eight-byte steps must agree with.
fn string_end_bytewise(s: &[u8], mut i: usize) -> Option<usize> {
    loop {
        match *s.get(i)? {
            b'"' => return Some(i),
            b'\\' => i = escape_end(s, i + 1)?,
            0..0x20 => return None,
            0x80.. => i = utf8_end(s, i)?,
            _ => i += 1,
        }
    }
}

#[test]
fn string_ends_agree_with_a_byte_at_a_time() {
    // Every byte value at every place of the first two sixteen-byte steps and the eight-byte
    // tail, in texts that end at every length around them.
    for b in 0..=255u8 {
        for at in 0..40 {
            for len in at + 1..=at + 20 {
                let mut s = vec![b'a'; len];
                s[at] = b;
                if len > at + 1 {
                    s[len - 1] = b'"';
                }
                let want = string_end_bytewise(&s, 0);
                assert_eq!(string_end(&s, 0, true, &mut false), want, "{b} at {at} of {len}");
            }
        }
    }
    // A plain run ends at its first special byte, whichever step finds it.
    let mut s = vec![b'x'; 64];
    for at in 0..64 {
        s[at] = b'"';
        assert_eq!(plain_run_end(&s, 0), at);
        s[at] = b'x';
    }
}

#[test]
fn reads_the_members_tracediff_uses() {
    let s = r#"{"ph": "X", "cat": "k\"x", "name": "a\u00e9", "ts": -1.5e3, "dur": 0, "pid": "p", "tid": 7,
            "args": {"stream": 7, "correlation": null, "x": [[], {"a": [1, {"b": {}}]}], "device": -0}, "id": null}  , "#;
    let (got, len) = spans(s).unwrap();
    assert_eq!(&s[len - 1..len], "}");
    assert_eq!(got[0].as_deref(), Some(r#""a\u00e9""#));
    assert_eq!(got[1].as_deref(), Some(r#""k\"x""#));
    assert_eq!(got[2].as_deref(), Some("-1.5e3"));
    assert_eq!(got[4].as_deref(), Some(r#""p""#));
    assert_eq!(got[7], None);
    assert_eq!(got[8].as_deref(), Some("7"));
    assert_eq!(got[9].as_deref(), Some("null"));
    assert_eq!(got[10].as_deref(), Some("-0"));
    assert_eq!(spans("{}").unwrap().1, 2);
    assert_eq!(spans("{ \n}").unwrap().1, 4);
}

#[test]
fn takes_strings_of_utf8_and_nothing_else() {
    let event = |value: &[u8]| {
        let mut s = b"{\"name\": \"".to_vec();
        s.extend_from_slice(value);
        s.extend_from_slice(b"\", \"k\": \"");
        s.extend_from_slice(value);
        s.extend_from_slice(b"\"}");
        event(&s, 200, &AttrKeys::default(), &mut Vec::new()).map(|(_, len)| len == s.len())
    };
    for ok in [
        "é",
        "aé",
        "€ and 😀",
        "abcdefgé",
        "abcdefghijklmnopqrstuvwxyz€",
        "\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}",
    ] {
        assert_eq!(event(ok.as_bytes()), Some(true), "{ok}");
    }
    let bad: [&[u8]; 12] = [
        b"\x80",
        b"abcdefgh\xbf",
        b"\xc0\x80",
        b"\xc1\xbf",
        b"\xe0\x80\x80",
        b"\xed\xa0\x80",
        b"\xe2\x82",
        b"\xe2\x82\"",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xff",
        b"a\xc3",
    ];
    for b in bad {
        assert_eq!(event(b), None, "{b:?}");
        assert!(std::str::from_utf8(b).is_err(), "{b:?}");
    }
}

#[test]
fn leaves_to_serde_json_what_it_does_not_take_as_it_stands() {
    for s in [
        r#"{"na\u006de": "x"}"#,
        r#"{"a": 01}"#,
        r#"{"a": 1.}"#,
        r#"{"a": 1e}"#,
        r#"{"a": -}"#,
        r#"{"a": [1,]}"#,
        r#"{"a": {"b": 1,}}"#,
        r#"{"a": 1,}"#,
        r#"{"a": "\x"}"#,
        r#"{"a": "\u12g4"}"#,
        "{\"a\": \"\t\"}",
        r#"{"a": tru}"#,
        r#"{"a": [}"#,
        r#"{"a": {]}"#,
        r#"{"a" 1}"#,
        r#"{"args": 1}"#,
        r#"{"args": []}"#,
        r#"{"a": 1"#,
        r#"{"a": "x"#,
        r#"{a: 1}"#,
        r#"{"a": [1 2]}"#,
        r#"{"a": {"b" 1}}"#,
    ] {
        assert_eq!(spans(s), None, "{s}");
    }
    let deep = format!("{{\"a\": {}{}}}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
    assert_eq!(spans(&deep), None);
    let ok = format!(
        "{{\"a\": {}{}}}",
        "[".repeat(MAX_NESTING - 1),
        "]".repeat(MAX_NESTING - 1)
    );
    assert!(spans(&ok).is_some());
    // The event itself too deep, or its one array.
    assert!(event(b"{}", 0, &AttrKeys::default(), &mut Vec::new()).is_none());
    assert!(event(b"{\"a\": []}", 1, &AttrKeys::default(), &mut Vec::new()).is_none());
    assert!(event(b"{\"a\": []}", 2, &AttrKeys::default(), &mut Vec::new()).is_some());
}
