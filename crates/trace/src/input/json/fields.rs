//! The members of an event that tracediff reads, in one table that both parsers use: the fast
//! scan (`scan`) and the exact way through serde_json (`event`). A key added here is read by
//! both, so they can never disagree on what an event holds.

/// The longest event read (an event's members are found by the low 32 bits of their address:
/// [`Raw`]).
pub(crate) const MAX_EVENT_BYTES: usize = u32::MAX as usize;

/// Where the raw text of a member's value is, kept in 8 bytes so that the fields of an event
/// are copied as a few vector moves, not with `memcpy` (which was 8% of the parse's time):
/// the low 32 bits of its address and its length (0 for a member that is absent, as a value is
/// never empty). In an event shorter than 4 GiB the offset from the event's start is the
/// difference of the low bits, wrapping.
#[derive(Clone, Copy, Default)]
pub(crate) struct Raw {
    addr: u32,
    len: u32,
}

impl Raw {
    /// The value whose text is `text` (never empty).
    pub(crate) fn span(text: &[u8]) -> Raw {
        Raw {
            addr: text.as_ptr() as usize as u32,
            len: text.len() as u32,
        }
    }

    /// The value's text in the event's `text`, which it was borrowed from.
    pub(crate) fn get(self, text: &[u8]) -> Option<&[u8]> {
        if self.len == 0 {
            return None;
        }
        let at = self.addr.wrapping_sub(text.as_ptr() as usize as u32) as usize;
        text.get(at..at + self.len as usize)
    }
}

/// The raw values of the fields tracediff reads.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    pub(crate) name: Raw,
    pub(crate) cat: Raw,
    pub(crate) ts: Raw,
    pub(crate) dur: Raw,
    pub(crate) pid: Raw,
    pub(crate) tid: Raw,
    /// `ph` and `id`, read for `fwdbwd` flows.
    pub(crate) ph: Raw,
    pub(crate) id: Raw,
    pub(crate) stream: Raw,
    pub(crate) correlation: Raw,
    /// `args.device`, and the `args` of a `[memory]` instant event.
    pub(crate) device: Raw,
    pub(crate) total_allocated: Raw,
    pub(crate) bytes: Raw,
    pub(crate) device_type: Raw,
    pub(crate) device_id: Raw,
    /// [`PLAIN_NAME`] and [`PLAIN_CAT`]: the scan found `name` or `cat` a string without
    /// escapes, whose text is what stands between its quotes.
    pub(crate) plain: u8,
    text: std::marker::PhantomData<&'a str>,
}

pub(crate) const PLAIN_NAME: u8 = 1;
pub(crate) const PLAIN_CAT: u8 = 2;

/// What a top-level member of an event is to the parsers.
pub(crate) enum Member<'f> {
    /// A member read as it stands: its slot, and for `name` and `cat` its bit of `plain`.
    Read(&'f mut Raw, u8),
    /// `args`, read member by member ([`Fields::arg`]).
    Args,
    /// Anything else: checked, not kept.
    Other,
}

/// The table itself: each top-level member read, its slot in [`Fields`] and its bit of
/// `plain`; then each member of `args` read and its slot. It makes [`Fields::member`] and
/// [`Fields::arg`], which both parsers call, and (for the tests) the list of its keys.
macro_rules! member_table {
    (
        members { $($key:literal => $slot:ident $bit:expr),* $(,)? }
        args { $($arg:literal => $arg_slot:ident),* $(,)? }
    ) => {
        impl Fields<'_> {
            /// The top-level member `key` of an event.
            #[inline]
            pub(crate) fn member(&mut self, key: &[u8]) -> Member<'_> {
                match key {
                    $($key => Member::Read(&mut self.$slot, $bit),)*
                    b"args" => Member::Args,
                    _ => Member::Other,
                }
            }

            /// The slot of the member `key` of `args`, where it is one tracediff reads.
            #[inline]
            pub(crate) fn arg(&mut self, key: &[u8]) -> Option<&mut Raw> {
                match key {
                    $($arg => Some(&mut self.$arg_slot),)*
                    _ => None,
                }
            }

            /// Every slot by name, with its text in the event's `text`.
            #[cfg(test)]
            pub(crate) fn slots<'t>(&self, text: &'t [u8]) -> Vec<(&'static str, Option<&'t [u8]>)> {
                vec![
                    $((stringify!($slot), self.$slot.get(text)),)*
                    $((stringify!($arg_slot), self.$arg_slot.get(text)),)*
                ]
            }
        }

        /// The top-level keys of the table.
        #[cfg(test)]
        pub(crate) const MEMBER_KEYS: &[&[u8]] = &[$($key),*];
        /// The `args` keys of the table.
        #[cfg(test)]
        pub(crate) const ARG_KEYS: &[&[u8]] = &[$($arg),*];
    };
}

member_table! {
    members {
        b"name" => name PLAIN_NAME,
        b"cat" => cat PLAIN_CAT,
        b"ts" => ts 0,
        b"dur" => dur 0,
        b"pid" => pid 0,
        b"tid" => tid 0,
        b"ph" => ph 0,
        b"id" => id 0,
    }
    args {
        b"stream" => stream,
        b"correlation" => correlation,
        b"device" => device,
        b"Total Allocated" => total_allocated,
        b"Bytes" => bytes,
        b"Device Type" => device_type,
        b"Device Id" => device_id,
    }
}

/// `args` members that place an event (its stream and correlation) and are never also
/// attribute columns; the other members of [`Fields::arg`] may be asked for as attributes too.
pub(crate) fn is_place_arg(key: &[u8]) -> bool {
    matches!(key, b"stream" | b"correlation")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of every kind, escapes included.
    const VALUES: [&str; 9] = [
        r#""v""#,
        r#""e\u00e9\"x""#,
        "12",
        "-1.5e3",
        "null",
        "true",
        r#"{"a": [1, {"b": null}]}"#,
        "[1, 2]",
        r#""""#,
    ];

    /// Each slot of an event by name, with its text.
    type Slots<'t> = Vec<(&'static str, Option<&'t [u8]>)>;

    /// The slots both parsers fill from `text`: the fast scan's and serde_json's.
    fn both(text: &str) -> (Slots<'_>, Slots<'_>) {
        let bytes = text.as_bytes();
        let (scanned, len) =
            super::super::scan::event(bytes, 60, &Default::default(), &mut Vec::new()).expect("the scan takes it");
        assert_eq!(len, bytes.len(), "{text}");
        let exact = super::super::entry::exact_fields(text).expect("serde_json takes it");
        (scanned.slots(bytes), exact.slots(bytes))
    }

    /// Every key of the table, with whether it sits in `args` (else at the top level).
    fn table_keys() -> impl Iterator<Item = (bool, &'static &'static [u8])> {
        MEMBER_KEYS
            .iter()
            .map(|k| (false, k))
            .chain(ARG_KEYS.iter().map(|k| (true, k)))
    }

    #[test]
    fn every_key_of_the_table_is_read_alike_by_both_parsers() {
        for (in_args, key) in table_keys() {
            let key = std::str::from_utf8(key).unwrap();
            for value in VALUES {
                let text = if in_args {
                    format!(r#"{{"zz": 0, "args": {{"y": [1], "{key}": {value}, "z": {{}}}}, "q": 1}}"#)
                } else {
                    format!(r#"{{"zz": 0, "{key}": {value}, "args": {{"y": 1}}, "q": "x"}}"#)
                };
                let (scanned, exact) = both(&text);
                assert_eq!(scanned, exact, "{text}");
                let filled: Vec<&str> = scanned.iter().filter(|s| s.1.is_some()).map(|s| s.0).collect();
                // The key fills one slot (none for a top-level `null`, which reads as absent).
                let want = usize::from(in_args || value != "null");
                assert_eq!(filled.len(), want, "{text}: {filled:?}");
            }
        }
    }

    #[test]
    fn keys_not_in_the_table_fill_nothing_in_either_parser() {
        for key in ["Name", "names", "arg", "stream", "Device", ""] {
            let text = format!(r#"{{"{key}": 1, "args": {{"{key}x": 2, "name": 3}}}}"#);
            let bytes = text.as_bytes();
            let exact = super::super::entry::exact_fields(&text).expect("serde_json takes it");
            assert!(exact.slots(bytes).iter().all(|s| s.1.is_none()), "{text}");
            let (scanned, _) =
                super::super::scan::event(bytes, 60, &Default::default(), &mut Vec::new()).expect("the scan takes it");
            assert!(scanned.slots(bytes).iter().all(|s| s.1.is_none()), "{text}");
        }
    }

    /// A key spelt with an escape is that key: the scan leaves the event to serde_json, which
    /// fills the key's slot.
    #[test]
    fn an_escaped_key_is_the_key_it_spells() {
        for (in_args, key) in table_keys() {
            let plain = std::str::from_utf8(key).unwrap();
            let escaped = format!("\\u{:04x}{}", key[0], &plain[1..]);
            let event = |k: &str| {
                if in_args {
                    format!(r#"{{"args": {{"{k}": 7}}}}"#)
                } else {
                    format!(r#"{{"{k}": 7}}"#)
                }
            };
            let plain_text = event(plain);
            let (want, _) = both(&plain_text);
            let text = event(&escaped);
            assert!(
                super::super::scan::event(text.as_bytes(), 60, &Default::default(), &mut Vec::new()).is_none(),
                "{text}"
            );
            let exact = super::super::entry::exact_fields(&text).expect("serde_json takes it");
            let names = |slots: Slots<'_>| -> Vec<&str> {
                slots.iter().filter(|s| s.1 == Some(&b"7"[..])).map(|s| s.0).collect()
            };
            assert_eq!(names(exact.slots(text.as_bytes())), names(want), "{text}");
        }
    }
}
