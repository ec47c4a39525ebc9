//! Suggestions for a mistyped flag that fit what was typed: `--tpo 5` suggests `--top`, the
//! command's own flag one swap away (clap's similarity measure suggested `--output`). The
//! flag typed is measured against the long flags of the command it was given to, by edit
//! distance with swaps of neighbours (optimal string alignment); the nearest within a third of
//! its length (at least one edit) is suggested, none where nothing is that near.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;

/// Clap's error for an unknown flag, rendered again with a suggestion that fits: `None` where
/// `error` is of another kind (clap's own text then stands).
pub(crate) fn unknown_flag(error: &clap::Error, args: &[OsString], root: clap::Command) -> Option<String> {
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = typed.strip_prefix("--")?.split('=').next()?.to_string();
    let mut root = root.styles(clap::builder::Styles::plain());
    root.build();
    let mut command = innermost(root, args);
    let flags: Vec<String> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default())
        .map(str::to_string)
        .collect();
    let mut fresh = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(&command);
    fresh.insert(ContextKind::InvalidArg, ContextValue::String(typed.clone()));
    if let Some(best) = nearest(&flag, &flags) {
        fresh.insert(ContextKind::SuggestedArg, ContextValue::String(format!("--{best}")));
    }
    fresh.insert(ContextKind::Usage, ContextValue::StyledStr(command.render_usage()));
    Some(fresh.render().ansi().to_string())
}

/// The subcommand (or sub-subcommand) the arguments name, else `root`.
fn innermost(root: clap::Command, args: &[OsString]) -> clap::Command {
    let mut command = root;
    for arg in args.iter().skip(1) {
        let Some(arg) = arg.to_str() else { break };
        if arg.starts_with('-') {
            continue;
        }
        match command.find_subcommand(arg) {
            Some(sub) => command = sub.clone(),
            None => break,
        }
    }
    command
}

/// The flag of `flags` nearest to `typed` (without their `--`), within a third of its length
/// (one edit at least); ties go to the flag first in name order. A flag that `typed` begins
/// (`--full` of `--full-names`) counts when it is the only one.
pub(crate) fn nearest<'f>(typed: &str, flags: &'f [String]) -> Option<&'f str> {
    let most = (typed.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for flag in flags {
        let d = distance(typed, flag);
        if d <= most && best.is_none_or(|(bd, bf)| d < bd || (d == bd && flag.as_str() < bf)) {
            best = Some((d, flag));
        }
    }
    if let Some((_, flag)) = best {
        return Some(flag);
    }
    let mut starting = flags.iter().filter(|f| typed.len() >= 2 && f.starts_with(typed));
    match (starting.next(), starting.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// The edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of
/// two neighbours, each one edit (optimal string alignment).
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_swap_is_one_edit() {
        assert_eq!(distance("tpo", "top"), 1);
        assert_eq!(distance("tpo", "output"), 4);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("full-name", "full-names"), 1);
    }

    #[test]
    fn the_nearest_flag_within_a_third_of_the_length() {
        let f = flags(&["output", "top", "sort", "format", "full-names", "only-significant"]);
        assert_eq!(nearest("tpo", &f), Some("top"));
        assert_eq!(nearest("sotr", &f), Some("sort"));
        assert_eq!(nearest("fromat", &f), Some("format"));
        assert_eq!(nearest("full", &f), Some("full-names"));
        assert_eq!(nearest("only-signifcant", &f), Some("only-significant"));
        assert_eq!(nearest("zebra", &f), None);
    }
}
