//! Loading a side: discover its files, read and parse them in parallel, assign iterations.

use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::discover::discover_with_notes;
use crate::input::fanout::{files_side_by_side, try_map_files};
pub use crate::input::finish::set_after_trace_dropped;
pub use crate::input::format::SummarizeFn;
use crate::input::format::{Header, TraceFormat};
use crate::input::guess::{Formats, format_name, skip_not_traces};
use crate::input::json::format::KinetoJson;
pub use crate::input::json::format::{summarize_opened, trace_from_reader};
use crate::input::nsight::NsightSqlite;
use crate::input::parser::Parser;
use crate::input::ranks::RankCheck;
use crate::input::rocprof::RocprofJson;
use crate::model::pick::{Pick, SideSelection};
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The traces of one side of a comparison, one file per rank, sorted by rank.
pub type Side = SideOf<TraceFile>;

/// The summaries of one side (from traces or from `tracediff summarize` files).
pub type SummarySide = SideOf<FileSummary>;

/// What a side is made of, per file: a parsed trace or its summary.
pub trait RankedFile: Send + Sync {
    /// `distributedInfo.rank`, when the file has one.
    fn declared_rank(&self) -> Option<i64>;
    /// `distributedInfo.world_size`, when the file has one.
    fn declared_world_size(&self) -> Option<i64>;
    /// Its ProfilerStep numbers, sorted and unique.
    fn step_numbers(&self) -> Vec<i64>;
    /// The trace file it is (or was made from, for a summary).
    fn source(&self) -> &Path;
    /// Its events' durations added up, exactly: what [`SIDE_TIME_BUDGET_NS`] bounds.
    fn summed_dur_ns(&self) -> i128;
    /// The begin and end events (`ph` `B`/`E`, `b`/`e`) it left out (none for a summary).
    fn begin_end_events(&self) -> u64 {
        0
    }
    /// The rank it stands for: its declared rank, or 0 when it declares none.
    fn rank(&self) -> i64 {
        self.declared_rank().unwrap_or(0)
    }
}

impl RankedFile for TraceFile {
    fn declared_rank(&self) -> Option<i64> {
        self.declared_rank
    }
    fn declared_world_size(&self) -> Option<i64> {
        self.declared_world_size
    }
    fn step_numbers(&self) -> Vec<i64> {
        TraceFile::step_numbers(self)
    }
    fn source(&self) -> &Path {
        &self.path
    }
    fn summed_dur_ns(&self) -> i128 {
        self.events.dur_ns.iter().map(|&d| i128::from(d)).sum()
    }
    fn begin_end_events(&self) -> u64 {
        self.begin_end_events
    }
}

impl RankedFile for FileSummary {
    fn declared_rank(&self) -> Option<i64> {
        self.meta.declared_rank
    }
    fn declared_world_size(&self) -> Option<i64> {
        self.meta.world_size
    }
    fn step_numbers(&self) -> Vec<i64> {
        FileSummary::step_numbers(self)
    }
    fn source(&self) -> &Path {
        &self.meta.source
    }
    fn summed_dur_ns(&self) -> i128 {
        let rows: i128 = self.rows.iter().map(|r| i128::from(r.total_ns).abs()).sum();
        let steps: i128 = (self.meta.iterations.iter())
            .map(|i| i128::from(i.step_ns).abs() + i128::from(i.gpu_busy_ns).abs())
            .sum();
        rows + steps
    }
    fn begin_end_events(&self) -> u64 {
        self.begin_end_events
    }
}

/// The most event time a side may add up to (2^61 ns, 73 years): with every `dur` at most that
/// too, any sum of one side's durations and any difference of the two sides' sums fits in an
/// i64, so every total is exact (docs/robustness.md#times-and-sums). Past it a side is refused.
pub const SIDE_TIME_BUDGET_NS: i128 = 1 << 61;

/// Refuses a side whose durations add up past [`SIDE_TIME_BUDGET_NS`], naming the file that
/// crossed it.
pub fn check_time_budget<T: RankedFile>(input: &Path, files: &[T]) -> Result<()> {
    let mut total: i128 = 0;
    for f in files {
        total += f.summed_dur_ns();
        if total > SIDE_TIME_BUDGET_NS {
            return Err(Error::input(
                f.source(),
                format!(
                    "the durations of {} add up past 2^61 ns (73 years), the most tracediff sums exactly",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// One side of a comparison, one file per rank, sorted by rank.
#[derive(Debug, Clone)]
pub struct SideOf<T> {
    /// The path the user gave: a directory or a file.
    pub input: PathBuf,
    /// Every rank of the side, sorted: one per trace file, or several of one file that holds
    /// several ([`TraceFormat::scan_ranks`]).
    pub present: Vec<PresentFile>,
    /// The parsed files: all of them, or those of the ranks asked for.
    pub files: Vec<Arc<T>>,
    /// Things worth telling the user on stderr (not errors).
    pub notes: Vec<String>,
    /// The job's number of ranks, as its files declare it (`distributedInfo.world_size`, the
    /// largest where they differ); `None` when none declares one.
    pub world_size: Option<i64>,
    /// The ranks below [`SideOf::world_size`] that no file of the side holds, sorted.
    pub missing_ranks: Vec<i64>,
}

/// A rank of a side (a trace file, or one rank of a file that holds several), parsed or only
/// scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentFile {
    /// Its declared rank (0 when it declares none).
    pub rank: i64,
    /// Where it is.
    pub path: PathBuf,
    /// Its step numbers, when known (always for parsed files; for the others, when scanned).
    pub steps: Option<Vec<i64>>,
}

impl<T: RankedFile> SideOf<T> {
    /// Ranks present, sorted.
    pub fn ranks(&self) -> Vec<i64> {
        self.present.iter().map(|f| f.rank).collect()
    }

    /// Step numbers found in any file of the side whose steps are known, sorted and unique.
    pub fn step_numbers(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self
            .present
            .iter()
            .filter_map(|f| f.steps.as_ref())
            .flatten()
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The parsed file of `rank`; `None` when the side has none or did not parse it.
    pub fn file_of_rank(&self, rank: i64) -> Option<&T> {
        self.files.iter().find(|f| f.rank() == rank).map(|f| &**f)
    }
}

/// [`Parser::load_file`] on a [`Parser`] of its own.
pub fn load_file(path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
    Parser::default().load_file(path, attrs)
}

impl Parser {
    /// Reads and parses one trace file (with the attributes `attrs` asks for), in the format
    /// its first bytes say ([`Formats::of`]), and assigns its iterations. A summary (Parquet)
    /// is refused: it holds no events.
    pub fn load_file(&self, path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
        let file = Formats::builtin().of(path)?.load(self, path, attrs)?;
        check_time_budget(path, std::slice::from_ref(&file))?;
        Ok(file)
    }

    /// Reads and parses every rank the trace file at `path` holds (one, or several where its
    /// format says so: an Nsight export or a rocprofv3 JSON of several processes), with their
    /// iterations assigned.
    pub fn load_ranks(&self, path: &Path, attrs: &AttrRequest) -> Result<Vec<TraceFile>> {
        let files = Formats::builtin().of(path)?.load_ranks(self, path, attrs)?;
        check_time_budget(path, &files)?;
        Ok(files)
    }

    /// Loads the files of `input` whose ranks any of `picks` selects (see [`load_side_ranks`]).
    pub fn load_side_ranks(
        &self,
        input: &Path,
        attrs: &AttrRequest,
        picks: &[&Pick],
        want_steps: bool,
    ) -> Result<Side> {
        let formats = Formats::builtin();
        let marker = crate::model::serving::step_marker(attrs.step_marker.as_deref()).map_err(Error::usage)?;
        let scan =
            |parser: &Parser, p: &Path, steps: bool| formats.of(p)?.scan_ranks(parser, p, steps, marker.as_ref());
        load_side_with(
            self,
            (input, attrs.step_marker.as_deref()),
            picks,
            want_steps,
            &|parser, p| parser.load_ranks(p, attrs),
            &scan,
        )
    }

    /// Parses the trace at `path` and summarises it (see [`summarize_trace`]).
    pub fn summarize_trace(&self, path: &Path, summarize: &SummarizeFn<'_>) -> Result<FileSummary> {
        Formats::builtin().of(path)?.summarize(self, path, None, summarize)
    }

    /// Parses every rank the trace at `path` holds and summarises each (see
    /// [`Parser::load_ranks`], [`summarize_trace`]).
    pub fn summarize_ranks(&self, path: &Path, summarize: &SummarizeFn<'_>) -> Result<Vec<FileSummary>> {
        Formats::builtin()
            .of(path)?
            .summarize_ranks(self, path, None, summarize)
    }
}

/// Loads every trace file of `input` (a directory or one file).
pub fn load_side(input: &Path, attrs: &AttrRequest) -> Result<Side> {
    Parser::default().load_side_ranks(input, attrs, &[&Pick::All], false)
}

/// Loads the files of `input` whose ranks any of `picks` selects. With several files and a
/// selection narrower than `all`, each file is first scanned only for its rank (up to
/// `traceEvents` when, as usual, `distributedInfo` comes first), and only the selected files are
/// parsed. With `want_steps`, the scan also reads the steps of the other files (every event is
/// read, none stored), for defaults that depend on the whole side (the lowest step).
/// The files are read with a [`Parser`] of their own ([`Parser::load_side_ranks`] with yours).
pub fn load_side_ranks(input: &Path, attrs: &AttrRequest, picks: &[&Pick], want_steps: bool) -> Result<Side> {
    Parser::default().load_side_ranks(input, attrs, picks, want_steps)
}

/// Parses the trace at `path` and summarises it. The store keeps only what the summary reads:
/// `index` is never stored, `pid` and `tid` become one thread number as soon as the parse ends,
/// `stream` and `correlation` are dropped once places and iterations are assigned, and the whole
/// store after the summary is made.
pub fn summarize_trace(path: &Path, summarize: &SummarizeFn<'_>) -> Result<FileSummary> {
    Parser::default().summarize_trace(path, summarize)
}

/// Loads one file of a side with the [`Parser`] it is given: every rank it holds, in rank
/// order (one, or several where its format says so: [`TraceFormat::load_ranks`]).
pub type LoadFn<'a, T> = dyn Fn(&Parser, &Path) -> Result<Vec<T>> + Sync + 'a;
/// Reads the ranks a file holds (and, when asked, their steps) without storing its events,
/// with the [`Parser`] it is given: one header per rank, in the order [`LoadFn`] gives them
/// ([`TraceFormat::scan_ranks`]).
pub type ScanFn<'a> = dyn Fn(&Parser, &Path, bool) -> Result<Vec<Header>> + Sync + 'a;

/// Loads the files of `input` whose ranks any of `picks` selects, with `load_file` for a
/// file to parse and `scan` for one only looked at (see [`load_side_ranks`]); `step_marker`,
/// the `--step-marker` pattern `load_file` names steps by (None: ProfilerStep), only words
/// the note on a side without steps.
pub fn load_side_with<T: RankedFile>(
    parser: &Parser,
    (input, step_marker): (&Path, Option<&str>),
    picks: &[&Pick],
    want_steps: bool,
    load_file: &LoadFn<'_, T>,
    scan: &ScanFn<'_>,
) -> Result<SideOf<T>> {
    let (paths, mut discover_notes) = discover_with_notes(input)?;
    let (paths, skipped) = skip_not_traces(paths);
    discover_notes.extend(skipped);
    let all = picks.iter().any(|p| **p == Pick::All);
    let (present, files, worlds) = if paths.len() == 1 || all {
        // One file at a time on every thread (see `load_pair_with`), or side by side when there
        // are more files than threads; the first error in path order stops it.
        let loaded = load_files(parser, &paths, load_file)?;
        let mut files = Vec::new();
        let mut present: Vec<Scanned> = Vec::new();
        for (ranks, p) in loaded.into_iter().zip(&paths) {
            for f in ranks {
                present.push((f.declared_rank(), p.clone(), Some(f.step_numbers())));
                files.push(f);
            }
        }
        let worlds: Vec<Option<i64>> = files.iter().map(|f| f.declared_world_size()).collect();
        // One file of several ranks: only those selected are kept, as of a folder of them.
        if !all && files.len() > 1 {
            let lowest = present.iter().map(|(r, _, _)| r.unwrap_or(0)).min();
            files.retain(|f| picked(picks, lowest, f.rank()));
        }
        (present, files, worlds)
    } else {
        load_picked(parser, &paths, picks, want_steps, load_file, scan)?
    };
    check_time_budget(input, &files)?;
    let present = by_rank(input, present)?;
    let mut notes = discover_notes;
    // A side of one file is that file (a job traced on one rank only, as is common): its
    // world size is kept, no rank is missing.
    let ranks = if present.len() > 1 {
        RankCheck::new(input, present.iter().map(|p| p.0), &worlds)
    } else {
        RankCheck {
            world_size: worlds.iter().flatten().copied().max(),
            ..RankCheck::default()
        }
    };
    notes.extend(ranks.note.clone());
    notes.extend(several_ranks_notes(&present));
    // Only where ranks matter: a side of one file is that file, whatever its rank.
    if present.len() > 1
        && let Some((_, path, _, _)) = present.iter().find(|(_, _, declared, _)| !declared)
    {
        notes.push(format!(
            "no distributedInfo.rank in {}; taking it as rank 0",
            path.display()
        ));
    }
    let mut files: Vec<Arc<T>> = files.into_iter().map(Arc::new).collect();
    files.sort_by_key(|f| f.rank());
    notes.extend(file_notes(input, &files, step_marker));
    Ok(SideOf {
        input: input.to_path_buf(),
        present: present
            .into_iter()
            .map(|(rank, path, _, steps)| PresentFile { rank, path, steps })
            .collect(),
        files,
        notes,
        world_size: ranks.world_size,
        missing_ranks: ranks.missing,
    })
}

/// A file of a side as first looked at: its declared rank, its path, its steps where read.
type Scanned = (Option<i64>, PathBuf, Option<Vec<i64>>);

/// The files of a side as looked at, the files loaded, and each file's declared world size.
type Picked<T> = (Vec<Scanned>, Vec<T>, Vec<Option<i64>>);

/// A file of a side by rank: its rank, its path, whether the rank was declared, its steps.
type Ranked = (i64, PathBuf, bool, Option<Vec<i64>>);

/// Whether any of `picks` selects `rank`, `lowest` the lowest rank of the side.
fn picked(picks: &[&Pick], lowest: Option<i64>, rank: i64) -> bool {
    picks.iter().any(|p| match p {
        Pick::All => true,
        Pick::Lowest => Some(rank) == lowest,
        Pick::List(v) => v.contains(&rank),
    })
}

/// The ranks of `paths` that `picks` selects, loaded; every rank as looked at, and each
/// rank's declared world size. A file is parsed where any of its ranks is selected (a file of
/// several ranks is read whole), and only the selected ranks are kept.
fn load_picked<T: RankedFile>(
    parser: &Parser,
    paths: &[PathBuf],
    picks: &[&Pick],
    want_steps: bool,
    load_file: &LoadFn<'_, T>,
    scan: &ScanFn<'_>,
) -> Result<Picked<T>> {
    // 1. Each file's ranks: its head only, when distributedInfo comes before traceEvents.
    let scans: Vec<Vec<Header>> = try_map_files(parser, paths, |parser, p| scan(parser, p, false))?;
    let worlds = scans.iter().flatten().map(|h| h.world_size).collect();
    let ranks_of: Vec<(PathBuf, Vec<Option<i64>>)> = (paths.iter().zip(&scans))
        .map(|(p, hs)| (p.clone(), hs.iter().map(|h| h.rank).collect()))
        .collect();
    let mut present: Vec<Scanned> = (scans.into_iter().zip(paths))
        .flat_map(|(hs, p)| hs.into_iter().map(move |h| (h.rank, p.clone(), h.steps)))
        .collect();
    let lowest = present.iter().map(|(r, _, _)| r.unwrap_or(0)).min();
    let wanted = |rank: Option<i64>| picked(picks, lowest, rank.unwrap_or(0));
    // 2. Parse the chosen files; with `want_steps`, read the others' steps alongside.
    enum Work<T> {
        Parse(Vec<T>),
        Steps(Vec<Vec<i64>>),
        Nothing,
    }
    let one = |parser: &Parser, (path, ranks): &(PathBuf, Vec<Option<i64>>)| -> Result<Work<T>> {
        if ranks.iter().any(|&r| wanted(r)) {
            load_file(parser, path).map(Work::Parse)
        } else if want_steps {
            let hs = scan(parser, path, true)?;
            Ok(Work::Steps(
                hs.into_iter().map(|h| h.steps.unwrap_or_default()).collect(),
            ))
        } else {
            Ok(Work::Nothing)
        }
    };
    let chosen = ranks_of
        .iter()
        .filter(|(_, ranks)| ranks.iter().any(|&r| wanted(r)))
        .count();
    let work: Vec<Work<T>> = if files_side_by_side(chosen) || (want_steps && files_side_by_side(ranks_of.len())) {
        try_map_files(parser, &ranks_of, one)?
    } else {
        ranks_of.iter().map(|s| one(parser, s)).collect::<Result<_>>()?
    };
    // Each file's ranks are its entries of `present`, in the order its scan gave them.
    let mut files = Vec::new();
    let mut entries = present.iter_mut();
    for ((_, ranks), w) in ranks_of.iter().zip(work) {
        let mut mine: Vec<&mut Scanned> = entries.by_ref().take(ranks.len()).collect();
        match w {
            Work::Parse(loaded) => {
                for f in loaded {
                    // A file of one rank is that rank, as its scan said.
                    let at = match mine.len() {
                        1 => Some(0),
                        _ => mine.iter().position(|e| e.0 == f.declared_rank()),
                    };
                    let Some(entry) = at.and_then(|k| mine.get_mut(k)) else {
                        continue;
                    };
                    entry.2 = Some(f.step_numbers());
                    if wanted(entry.0) {
                        files.push(f);
                    }
                }
            }
            Work::Steps(steps) => {
                for (entry, s) in mine.into_iter().zip(steps) {
                    entry.2 = Some(s);
                }
            }
            Work::Nothing => {}
        }
    }
    Ok((present, files, worlds))
}

/// The files of side `input` by rank (rank 0 where none is declared), then path: (rank, path,
/// whether the rank was declared, steps). Two files with one rank are an error.
fn by_rank(input: &Path, present: Vec<Scanned>) -> Result<Vec<Ranked>> {
    let mut present: Vec<Ranked> = present
        .into_iter()
        .map(|(r, p, s)| (r.unwrap_or(0), p, r.is_some(), s))
        .collect();
    present.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    for pair in present.windows(2) {
        if pair[0].0 == pair[1].0 {
            return Err(Error::input(
                input,
                format!(
                    "two trace files with rank {}: {} and {} (pass one file to compare it alone)",
                    pair[0].0,
                    pair[0].1.display(),
                    pair[1].1.display()
                ),
            ));
        }
    }
    Ok(present)
}

/// The note for each file that holds several ranks (an Nsight export or a rocprofv3 JSON of
/// several processes): which ranks it was read as, and how they were numbered.
fn several_ranks_notes(present: &[Ranked]) -> Vec<String> {
    let mut counts: Vec<(&Path, usize)> = Vec::new();
    for (_, path, _, _) in present {
        match counts.iter_mut().find(|(p, _)| p == path) {
            Some((_, n)) => *n += 1,
            None => counts.push((path, 1)),
        }
    }
    (counts.into_iter().filter(|&(_, n)| n > 1))
        .map(|(path, n)| {
            format!(
                "{} holds the GPU work of {n} processes: read as ranks 0–{}, in the order of their pids (docs/formats.md#several-processes-in-one-export)",
                path.display(),
                n - 1
            )
        })
        .collect()
}

/// The notes about the loaded files of side `input`: begin/end events left out, no steps
/// (named by `step_marker` where given, else ProfilerStep).
fn file_notes<T: RankedFile>(input: &Path, files: &[Arc<T>], step_marker: Option<&str>) -> Vec<String> {
    let mut notes = Vec::new();
    for f in files.iter().filter(|f| f.begin_end_events() > 0) {
        notes.push(format!(
            "left out {} begin/end events (ph B/E or b/e) of {}: tracediff reads complete events (ph X) only",
            f.begin_end_events(),
            f.source().display()
        ));
    }
    if !files.is_empty() && files.iter().all(|f| f.step_numbers().is_empty()) {
        let steps = match step_marker {
            Some(pattern) => format!("step that --step-marker '{pattern}' names"),
            None => "ProfilerStep".to_string(),
        };
        notes.push(format!("no {steps} in {}; comparing the whole trace", input.display()));
    }
    notes
}

/// Loads every file of `paths` with `load_file` (each file's ranks), in order: one at a time
/// (each file's parse keeps every thread busy) when there are no more files than threads, else
/// side by side ([`try_map_files`]). The first error in path order wins.
fn load_files<T: Send>(parser: &Parser, paths: &[PathBuf], load_file: &LoadFn<'_, T>) -> Result<Vec<Vec<T>>> {
    if files_side_by_side(paths.len()) {
        try_map_files(parser, paths, |parser, p| load_file(parser, p))
    } else {
        paths.iter().map(|p| load_file(parser, p)).collect()
    }
}

/// The notes of two sides, each once, and a note where one side is Kineto JSON and the
/// other an Nsight Systems export (what such a pair compares).
pub fn pair_notes<T>(control: &SideOf<T>, test: &SideOf<T>) -> Vec<String> {
    let mut notes = control.notes.clone();
    notes.extend(test.notes.iter().filter(|n| !control.notes.contains(n)).cloned());
    notes.extend(mixed_formats(control, test));
    notes
}

/// Loads both sides at once; the control side's error wins when both fail. When both sides
/// are the same path (rank against rank in one job), it is read once and shared.
pub fn load_pair(
    control: &Path,
    test: &Path,
    attrs: &AttrRequest,
    selections: (&SideSelection, &SideSelection),
) -> Result<(Arc<Side>, Arc<Side>)> {
    load_pair_with(control, test, selections, &|parser, p, picks, steps| {
        parser.load_side_ranks(p, attrs, picks, steps)
    })
}

/// Two loaded sides.
pub type SidePair<T> = (Arc<SideOf<T>>, Arc<SideOf<T>>);

/// Loads one side with the ranks `picks` select (and, when asked, every file's steps).
pub type SideFn<'a, T> = dyn Fn(&Parser, &Path, &[&Pick], bool) -> Result<SideOf<T>> + Sync + 'a;

/// Loads both sides with `load_side_ranks` (see [`load_pair`]).
pub fn load_pair_with<T: RankedFile + Clone>(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    load_side_ranks: &SideFn<'_, T>,
) -> Result<SidePair<T>> {
    // The lowest step is the lowest of the whole side (as in HTA), so the other ranks' steps
    // are needed; an explicit list is checked against the files that are read anyway.
    let wants_steps = |s: &SideSelection| s.iterations == Pick::Lowest;
    let (c_sel, t_sel) = selections;
    // One parser for both sides: its threads are made once, for the first file parsed on them.
    let parser = Parser::default();
    let same = match (std::fs::canonicalize(control), std::fs::canonicalize(test)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        let side = load_side_ranks(
            &parser,
            control,
            &[&c_sel.ranks, &t_sel.ranks],
            wants_steps(c_sel) || wants_steps(t_sel),
        )?;
        // Cheap: the files are shared, only the path as typed differs.
        let mut test_side = side.clone();
        test_side.input = test.to_path_buf();
        return Ok((Arc::new(side), Arc::new(test_side)));
    }
    let load_control = |parser: &Parser| load_side_ranks(parser, control, &[&c_sel.ranks], wants_steps(c_sel));
    let load_test = |parser: &Parser| load_side_ranks(parser, test, &[&t_sel.ranks], wants_steps(t_sel));
    // Big sides are read one at a time: each file's parse already keeps every core busy (a
    // reader thread, a decompression thread for gzip, and a parsing thread per core), and a
    // command that summarises files as it loads them (compare, gate, overview) then holds one
    // event store at a time. Reading big files side by side took as long and twice the memory.
    // Small sides are read side by side: a small file's parse leaves cores idle (start-up,
    // gzip's one inflating stream, the merge and summary at its end), which the other fills,
    // and two small stores are small.
    let (c, t) = if is_small_side(control) && is_small_side(test) {
        side_by_side(&parser, load_control, load_test)
    } else {
        let c = load_control(&parser)?;
        (Ok(c), load_test(&parser))
    };
    Ok((Arc::new(c?), Arc::new(t?)))
}

/// Runs the two loads side by side. With two threads, each side is read on a thread of its own
/// (a pool of one, and a parser of its own that reads on that thread: its parse takes no
/// parsing threads, its blocks are parsed where they are merged, and its files are read and
/// decompressed there too), so that the two cores each carry one side instead of handing every
/// block between seven threads. With more threads, both sides share `parser`'s threads as
/// every file does.
fn side_by_side<A: Send, B: Send>(
    parser: &Parser,
    a: impl FnOnce(&Parser) -> A + Send,
    b: impl FnOnce(&Parser) -> B + Send,
) -> (A, B) {
    let one = || rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    if parser.options().threads == 2
        && let (Some(pool_a), Some(pool_b)) = (one(), one())
    {
        let here = || Parser::new(crate::input::parser::ParseOptions::on_this_thread());
        return rayon::join(|| pool_a.install(|| a(&here())), || pool_b.install(|| b(&here())));
    }
    rayon::join(|| a(parser), || b(parser))
}

/// The most bytes on disk of a side read beside the other (its files summed): gzip's 10–20×
/// makes that up to about 160 MB of JSON, whose stores take a few tens of MB.
const SMALL_SIDE_BYTES: u64 = 8 << 20;

/// Whether `input` (a file, or a directory of trace files) holds at most [`SMALL_SIDE_BYTES`].
/// Anything unreadable counts as big: the files are then read one at a time and the first
/// error is the control side's, as ever.
fn is_small_side(input: &Path) -> bool {
    let Ok((paths, _)) = discover_with_notes(input) else {
        return false;
    };
    let mut total = 0u64;
    for path in paths {
        match std::fs::metadata(&path) {
            Ok(m) => total += m.len(),
            Err(_) => return false,
        }
    }
    total <= SMALL_SIDE_BYTES
}

/// What a pair of one Kineto side and one side of another profiler's files (Nsight Systems,
/// rocprofv3) compares, where it is one: each side's format by its first file.
fn mixed_formats<T>(control: &SideOf<T>, test: &SideOf<T>) -> Option<String> {
    let format = |s: &SideOf<T>| s.present.first().and_then(|f| format_name(&f.path));
    let (c, t) = (format(control)?, format(test)?);
    let kineto = KinetoJson.name();
    let other = match (c == kineto, t == kineto) {
        (true, false) => t,
        (false, true) => c,
        _ => return None,
    };
    let (calls, ranges) = if other == NsightSqlite.name() {
        ("CUDA runtime calls", "NVTX ranges of the export")
    } else if other == RocprofJson.name() {
        ("HIP runtime calls", "roctx ranges of the file")
    } else {
        return None;
    };
    Some(format!(
        "control is {c} and test {t}: kernels, copies, sets and {calls} mean the same on both; operators and annotations are the {ranges} (emit_nvtx, record_function) against the profiler's, and each side's times are from its own clock (docs/formats.md#mixed-pairs)"
    ))
}
