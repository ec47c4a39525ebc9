//! The integration tests, in one harness binary (as ripgrep's `tests/tests.rs`): each module
//! runs the real `tracediff` binary, or the library, on the project's fixtures and, when it is
//! beside the repository, on `../shared`'s real traces. One binary links the library once
//! instead of once per file. `render_memory` stays a binary of its own: it counts every
//! allocation of its process with a global allocator.

mod common;
mod webdriver;

mod aa_one_run;
mod classes;
mod cli;
mod conventions;
mod dataset;
mod docs;
mod explain;
mod fields;
mod flamegraph;
mod format_edges;
mod formats;
mod gate_causes;
mod gate_real;
mod gate_verdicts;
mod golden;
mod graphs;
mod graphs_captured;
mod history;
mod history_recorded;
mod layers;
mod modules;
mod names_fit;
mod nsight;
mod one_run;
mod paper_cuts;
mod plots;
mod ranks;
mod ranks_in_one_file;
mod reading;
mod real_traces;
mod reliability3;
mod replicates;
mod replicates_modules;
mod report;
mod report_headline;
mod report_runs;
mod robust;
mod robust2;
mod rocprof;
mod runs_views;
mod scale;
mod side_folders;
mod sides;
mod slurm_example;
mod summaries;
mod threads;
mod trust;
mod views;
mod views_model;
mod why;
mod widths;
