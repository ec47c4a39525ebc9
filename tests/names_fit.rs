//! Names that fit: at a terminal's width the name column keeps what tells rows apart (two
//! cutlass kernels that differ in `nn`/`nt` deep in their template list, an AMD `Cijk_…` name
//! of 1,000 characters); piped or to a file a table fits `COLUMNS`, else 160 columns;
//! `--width N` and `--full-names` override it; the gate's lines in a CI log stay within it;
//! CSV and JSON always hold the names whole.

use crate::common;
use std::path::Path;
use tempfile::TempDir;
use unicode_width::UnicodeWidthStr;

const NN: &str = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)";
const NT: &str = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)";

/// An AMD (hipBLASLt/Tensile) kernel name of about 1,000 characters.
fn cijk(mt: &str) -> String {
    let fields = "MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRPM1_GRVW8_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPP128_LPA0_LPB8_LDL1_LRVW16_LWPMn1_LDW0_FMA_MIAV1_MDA2_MO40_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR5_SIA3_SS1_SU32_SUM0_SUS256_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT4_64_TLDS1_USFGROn1_VAW2_VSn1_VW4_WSGRA0_WSGRB0_WS64_WG32_8_1_WGM8";
    format!("Cijk_Ailk_Bljk_HHS_BH_MT{mt}_{}", fields.repeat(2))
}

/// `fixtures/views` with its kernels renamed: `gemm_kernel` (both sides) and `gelu_kernel`
/// (test only) to two cutlass kernels that differ in `nn`/`nt`, `triton_copy` to a Cijk name.
fn long_pair(dir: &Path) -> (String, String, String) {
    let amd = cijk("128x128x32");
    let side = |name: &str| {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/views").join(name);
        let text = std::fs::read_to_string(from.join("trace.json"))
            .unwrap()
            .replace("\"gemm_kernel\"", &format!("\"{NN}\""))
            .replace("\"gelu_kernel\"", &format!("\"{NT}\""))
            .replace("\"triton_copy\"", &format!("\"{amd}\""));
        let to = dir.join(name);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(to.join("trace.json"), text).unwrap();
        to.to_str().unwrap().to_string()
    };
    (side("control"), side("test"), amd)
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.width()).max().unwrap_or(0)
}

#[test]
fn at_80_columns_the_parts_that_tell_kernels_apart_are_kept() {
    let dir = TempDir::new().unwrap();
    let (c, t, _) = long_pair(dir.path());
    let state = TempDir::new().unwrap();
    for args in [
        &["kernels", &c, &t][..],
        &["compare", &c, &t, "--no-save", "--device", "gpu"],
    ] {
        let r = common::run_with(state.path(), args, Some("80"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        let names: Vec<&str> = common::table_rows(&r.stdout).map(common::name_cell).collect();
        let nn = names.iter().find(|n| n.contains("_nn_align1"));
        let nt = names.iter().find(|n| n.contains("_nt_align1"));
        assert!(nn.is_some() && nt.is_some(), "{args:?}:\n{}", r.stdout);
        assert!(nn.unwrap().starts_with("Kernel2<"), "{args:?}:\n{}", r.stdout);
        assert!(widest(&r.stdout) <= 80, "{args:?}:\n{}", r.stdout);
    }
}

#[test]
fn piped_lines_fit_160_columns_or_columns_or_the_width_asked() {
    let dir = TempDir::new().unwrap();
    let (c, t, amd) = long_pair(dir.path());
    let state = TempDir::new().unwrap();
    for args in [
        &["kernels", &c, &t][..],
        &["compare", &c, &t, "--no-save"],
        &["operators", &c, &t],
        &["events", &c, "--format", "table"],
    ] {
        let r = common::run_with(state.path(), args, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            widest(&r.stdout) <= 160,
            "{args:?}: {}\n{}",
            widest(&r.stdout),
            r.stdout
        );
        assert!(!r.stdout.contains(&amd), "{args:?}");
        let r = common::run_with(state.path(), args, Some("120"));
        assert!(widest(&r.stdout) <= 120, "{args:?}:\n{}", r.stdout);
        let mut narrow = args.to_vec();
        narrow.extend(["--width", "90"]);
        let r = common::run_with(state.path(), &narrow, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(widest(&r.stdout) <= 90, "{narrow:?}:\n{}", r.stdout);
        // A file gets the same table as the pipe.
        let file = dir.path().join("table.txt");
        let mut to_file = args.to_vec();
        to_file.extend(["-o", file.to_str().unwrap()]);
        let r = common::run_with(state.path(), &to_file, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(widest(&std::fs::read_to_string(&file).unwrap()) <= 160, "{to_file:?}");
    }
}

#[test]
fn full_names_keeps_every_name_whole() {
    let dir = TempDir::new().unwrap();
    let (c, t, amd) = long_pair(dir.path());
    let state = TempDir::new().unwrap();
    for args in [
        &["kernels", &c, &t, "--full-names"][..],
        &["compare", &c, &t, "--no-save", "--full-names"],
        &["events", &c, "--format", "table", "--full-names"],
    ] {
        for columns in [None, Some("80")] {
            let r = common::run_with(state.path(), args, columns);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(r.stdout.contains(&amd), "{args:?}:\n{}", r.stdout);
            assert!(
                r.stdout.contains(NN) || r.stdout.contains(&NN[5..]),
                "{args:?}:\n{}",
                r.stdout
            );
        }
    }
}

#[test]
fn csv_and_json_hold_names_whole() {
    let dir = TempDir::new().unwrap();
    let (c, t, amd) = long_pair(dir.path());
    let state = TempDir::new().unwrap();
    for format in ["csv", "json"] {
        for args in [
            &["kernels", &c, &t, "--format", format][..],
            &["compare", &c, &t, "--no-save", "--format", format],
        ] {
            let r = common::run_with(state.path(), args, Some("80"));
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(r.stdout.contains(&amd), "{args:?}");
            assert!(r.stdout.contains(NT), "{args:?}");
            assert!(!r.stdout.contains('…'), "{args:?}");
        }
    }
}

/// The gate's report piped into a CI log: every line within 160 columns, the 1,000-character
/// kernel among the top contributors included.
#[test]
fn gate_lines_are_bounded_in_a_ci_log() {
    let dir = TempDir::new().unwrap();
    let amd = cijk("256x256x64");
    let cutlass = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)";
    let side = |name: &str| {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gate").join(name);
        let text = std::fs::read_to_string(from.join("trace.json"))
            .unwrap()
            .replace(cutlass, &amd);
        let to = dir.path().join(name);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(to.join("trace.json"), text).unwrap();
        to.to_str().unwrap().to_string()
    };
    let (base, slow) = (side("base"), side("kernel2x"));
    let state = TempDir::new().unwrap();
    let args = ["gate", "--config", "examples/tracediff-gate.toml", &base, &slow];
    let r = common::run_with(state.path(), &args, None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("Cijk_Ailk"), "{}", r.stdout);
    assert!(widest(&r.stdout) <= 160, "{}:\n{}", widest(&r.stdout), r.stdout);
    let mut whole = args.to_vec();
    whole.push("--full-names");
    let r = common::run_with(state.path(), &whole, None);
    assert!(r.stdout.contains(&amd), "{}", r.stdout);
}
