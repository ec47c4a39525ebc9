//! The segments of a path: `Key[ordinal]` joined by `/`, a slash or backslash inside a key escaped.

/// A key as a path writes it: `/` and `\` inside it escaped with `\` (an annotation named
/// `model/encoder` is the segment `model\/encoder[0]`), so every path reads back as the node.
pub(super) fn escape_key(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['/', '\\']) {
        std::borrow::Cow::Owned(key.replace('\\', "\\\\").replace('/', "\\/"))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// The segments of a path: split at each `/` that no `\` escapes, escapes undone (`\/` a
/// slash, `\\` a backslash), empty segments (a slash at either end) left out.
pub(crate) fn path_segments(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.push(chars.next().unwrap_or('\\')),
            '/' => segments.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    segments.push(current);
    segments.retain(|s| !s.is_empty());
    segments
}

/// `Key[3]` → (`Key`, 3); `Key` → (`Key`, 0). `None` for a malformed ordinal.
pub(crate) fn parse_segment(segment: &str) -> Option<(&str, usize)> {
    match segment.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
        Some((key, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => Some((key, n.parse().ok()?)),
        Some(_) => None,
        None => Some((segment, 0)),
    }
}
