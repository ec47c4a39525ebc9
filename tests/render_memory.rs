//! Rendering a large comparison must not hold copies of its rows (issue 9, defect 14: a
//! comparison of 10^6 names took 3.4 GB to print as a table). This test binary counts the
//! bytes allocated while each format is written to a sink.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tracediff::render::{CompareView, Format, TableStyle, compare as render};
use tracediff::{Comparison, Row, SideInfo, SortKey};
use tracediff::{Device, Resolved};
use tracediff::{Naming, Totals};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::SeqCst) + n;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The counters are global: one measuring test at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn comparison(rows: usize) -> Comparison {
    let side = |label: &str| SideInfo {
        label: label.into(),
        path: format!("/x/{label}"),
        files: vec![format!("/x/{label}/a.json")],
        resolved: Resolved {
            ranks: vec![0],
            iterations: Some(vec![1]),
        },
        steps_available: 1,
        ranks_available: 1,
        run_steps: vec![],
    };
    Comparison {
        control: side("control"),
        test: side("test"),
        device: Device::All,
        naming: Naming::Name,
        normalize_names: false,
        python_frames: true,
        group_by: vec![],
        include: vec![],
        exclude: vec![],
        significance: false,
        shift: Default::default(),
        step_ns: None,
        rows: (0..rows)
            .map(|i| Row {
                // Some names longer than the table's width, so that they are cut.
                name: format!("aten::op_with_a_long_enough_name_{i:07}{}", "_x".repeat(i % 50)),
                control: Totals {
                    count: (i % 7) as u64,
                    dur_ns: (i as i64) * 1000,
                },
                test: Totals {
                    count: (i % 5) as u64,
                    dur_ns: (i as i64) * 1100,
                },
                significant: None,
                per_step: None,
            })
            .collect(),
        why: None,
    }
}

#[test]
fn rendering_holds_no_copy_of_the_rows() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = comparison(100_000);
    let rows_bytes: usize = c.rows.iter().map(|r| std::mem::size_of::<Row>() + r.name.len()).sum();
    let view = CompareView::new(&c, SortKey::AbsDiffDuration, None);
    for format in [Format::Table, Format::Csv, Format::Json, Format::Markdown] {
        let base = CURRENT.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let mut sink = std::io::sink();
        render(&view, format, TableStyle::default(), &mut sink).unwrap();
        let extra = PEAK.load(Ordering::SeqCst) - base;
        println!("{format:?}: {extra} of {rows_bytes}");
        // A quarter of the rows' own size at most (old code: several times their size). The
        // table keeps 12 bytes per name cut around where it differs from its neighbours (here
        // all of them), and 8 more per cut name while equal cuts are looked for.
        assert!(
            extra < rows_bytes / 4,
            "{format:?}: {extra} bytes allocated at once to render {rows_bytes} bytes of rows"
        );
    }
}

/// `operators --format json|csv` of a million names took 9.1 GB (issue 21): the table was built
/// as one `serde_json::Value`, then one string. Now rows are written one at a time.
#[test]
fn operator_tables_are_written_row_by_row() {
    use tracediff::render::{TableView, view as write};
    use tracediff::{Measure, SortSide, SortSpec, ViewKind, ViewRow, ViewTable};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let c = comparison(0);
    let rows: Vec<ViewRow> = (0..100_000i64)
        .map(|i| ViewRow {
            operator: None,
            name: format!("aten::op_{i:07}"),
            control: vec![Some(i % 7), Some(i * 1000), Some(i * 1500), None, Some(i)],
            test: vec![Some(i % 5), Some(i * 1100), Some(i * 1600), Some(3), None],
            significant: Vec::new(),
            per_step: None,
        })
        .collect();
    let rows_bytes: usize = rows
        .iter()
        .map(|r| std::mem::size_of::<ViewRow>() + r.name.len() + 2 * 5 * 16)
        .sum();
    let table = ViewTable {
        kind: ViewKind::Operators,
        by_operator: false,
        // The operator view's measures.
        measures: &[
            Measure::Calls,
            Measure::HostSelf,
            Measure::HostTotal,
            Measure::DeviceSelf,
            Measure::DeviceTotal,
        ],
        rows,
        control: c.control.clone(),
        test: c.test.clone(),
        request: tracediff::commands::CompareRequest::new("/x/control", "/x/test"),
        has_device: true,
        zoom: None,
        significance: false,
        shift: Default::default(),
        classifier: None,
        step_total_ns: [None, None],
        coverage: None,
        step_ns: None,
    };
    let view = TableView {
        table: &table,
        rows: table.rows.iter().collect(),
        sort: SortSpec::Column {
            side: SortSide::AbsDiff,
            measure: 4,
        },
        top: None,
        time: 4,
        why: None,
    };
    for format in [Format::Csv, Format::Json] {
        let base = CURRENT.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let mut sink = std::io::sink();
        write(&view, format, TableStyle::default(), &mut sink).unwrap();
        let extra = PEAK.load(Ordering::SeqCst) - base;
        println!("{format:?}: {extra} of {rows_bytes}");
        assert!(
            extra < 64 * 1024,
            "{format:?}: {extra} bytes allocated at once to write {rows_bytes} bytes of rows"
        );
    }
}
