//! The gate on a pair of sides, loaded from their paths (docs/significance.md#the-gates-rules):
//! the rules of [`crate::analysis::gate`], and the run-wide shift looked for as `compare` looks
//! (kept apart from the rules' module, which judges measured rows and reads no file).

use crate::analysis::aggregate::Keying;
use crate::analysis::compare::{CompareRequest, run_shift_of};
use crate::analysis::gate::{Beyond, GateConfig, GateReport, Rules, device_row_keys, evaluate, measure};
use crate::analysis::shift::gate_shift_note;
use crate::error::Result;

/// The gate on a pair of sides, as the command line and the Python package run it: loads both
/// sides into summaries with `sel`, keys rows as the rules say (names normalised unless they
/// say otherwise; Python frames never judged), measures the judged rows and evaluates `config`.
/// Returns the report and the notes of loading.
pub fn gate_pair(
    config: &GateConfig,
    baseline: &std::path::Path,
    candidate: &std::path::Path,
    sel: &crate::analysis::select::SideSelection,
) -> Result<(GateReport, Vec<String>)> {
    let rules = Rules::from_config(config)?;
    let keying = Keying {
        naming: if config.short_names.unwrap_or(false) {
            crate::analysis::aggregate::Naming::ShortName
        } else {
            crate::analysis::aggregate::Naming::Name
        },
        normalize: config.normalize_names.unwrap_or(true),
        group_by: Vec::new(),
        skip_python_frames: true,
        gpu_annotations_apart: true,
    };
    let device = config.device.unwrap_or_default();
    let (base, cand) = crate::analysis::summary::load_summary_pair(baseline, candidate, (sel, sel))?;
    if !config.allow_missing_ranks.unwrap_or(false) {
        refuse_missing_ranks(&base, "baseline")?;
        refuse_missing_ranks(&cand, "candidate")?;
    }
    let notes = crate::input::load::pair_notes(&base, &cand);
    let base_res = crate::analysis::select::resolve(&base, "baseline", sel)?;
    let cand_res = crate::analysis::select::resolve(&cand, "candidate", sel)?;
    let base_samples = measure(&base, &base_res, device, &keying, true)?;
    let cand_samples = measure(&cand, &cand_res, device, &keying, true)?;
    // Looked for as `compare` looks, over host and device whatever `device` judges (a step
    // holds both): a user whose gate fails on a slower machine learns why, and the timing rules
    // judge beyond it where `beyond_run_shift` asks.
    let mut req = CompareRequest::new(baseline, candidate).operations();
    (req.control_selection, req.test_selection) = (sel.clone(), sel.clone());
    req.device = crate::analysis::select::Device::All;
    req.naming = keying.naming;
    req.normalize_names = keying.normalize;
    req.labels = ["baseline".to_string(), "candidate".to_string()];
    req.beyond_shift = rules.beyond_run_shift;
    let mut run_shift = run_shift_of(&req, &base, &cand, [&base_res, &cand_res])?.0;
    // The timing rules scale by the host's and the device's factors alone.
    crate::analysis::threads::not_per_thread(&mut run_shift);
    let beyond = if run_shift.applied {
        Beyond {
            host: run_shift.host,
            device: run_shift.device,
            on_device: device_row_keys([(&base, &base_res), (&cand, &cand_res)], &keying, true)?,
        }
    } else {
        Beyond::default()
    };
    let mut report = evaluate(
        &rules,
        (&base, &base_res, &base_samples),
        (&cand, &cand_res, &cand_samples),
        &beyond,
    );
    report.run_shift = run_shift;
    report.run_shift_note = gate_shift_note(&report.run_shift, ["baseline", "candidate"]);
    Ok((report, notes))
}

/// A gate over part of a job passes or fails for the ranks left out: a side that lacks ranks
/// of its world size is refused unless `allow_missing_ranks`.
fn refuse_missing_ranks<T>(side: &crate::input::load::SideOf<T>, label: &str) -> Result<()> {
    let (Some(world), Some(first)) = (side.world_size, side.missing_ranks.first()) else {
        return Ok(());
    };
    // Counted, not taken from the list, which a huge declared world size cuts short.
    let held = side.present.iter().filter(|p| (0..world).contains(&p.rank)).count();
    let count = world - held as i64;
    let which = if count == 1 {
        format!("rank {first}")
    } else {
        format!("{count} ranks (the first: {first})")
    };
    Err(crate::error::Error::input(
        &side.input,
        format!(
            "the {label} lacks {which} of its {world} (distributedInfo.world_size): a gate over part of a job \
             judges only the ranks it holds; give every rank's file, or --allow-missing-ranks to gate it anyway"
        ),
    ))
}
