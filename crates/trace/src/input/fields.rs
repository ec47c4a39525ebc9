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

impl Fields<'_> {
    /// The top-level member `key` of an event.
    #[inline]
    pub(crate) fn member(&mut self, key: &[u8]) -> Member<'_> {
        match key {
            b"name" => Member::Read(&mut self.name, PLAIN_NAME),
            b"cat" => Member::Read(&mut self.cat, PLAIN_CAT),
            b"ts" => Member::Read(&mut self.ts, 0),
            b"dur" => Member::Read(&mut self.dur, 0),
            b"pid" => Member::Read(&mut self.pid, 0),
            b"tid" => Member::Read(&mut self.tid, 0),
            b"ph" => Member::Read(&mut self.ph, 0),
            b"id" => Member::Read(&mut self.id, 0),
            b"args" => Member::Args,
            _ => Member::Other,
        }
    }

    /// The slot of the member `key` of `args`, where it is one tracediff reads.
    #[inline]
    pub(crate) fn arg(&mut self, key: &[u8]) -> Option<&mut Raw> {
        match key {
            b"stream" => Some(&mut self.stream),
            b"correlation" => Some(&mut self.correlation),
            b"device" => Some(&mut self.device),
            b"Total Allocated" => Some(&mut self.total_allocated),
            b"Bytes" => Some(&mut self.bytes),
            b"Device Type" => Some(&mut self.device_type),
            b"Device Id" => Some(&mut self.device_id),
            _ => None,
        }
    }
}

/// `args` members that place an event (its stream and correlation) and are never also
/// attribute columns; the other members of [`Fields::arg`] may be asked for as attributes too.
pub(crate) fn is_place_arg(key: &[u8]) -> bool {
    matches!(key, b"stream" | b"correlation")
}
