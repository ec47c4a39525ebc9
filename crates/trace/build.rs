//! Build-time facts for this crate's unit tests only: whether JSONTestSuite sits in `../shared`
//! beside the repository (or under `$TRACEDIFF_SHARED`). A test that needs it is marked `ignore`
//! with the reason where it is absent, so `cargo test` lists it as ignored instead of passing it
//! in no time. The library does not look at this flag.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tracediff_no_jsontestsuite)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=TRACEDIFF_SHARED");
    let shared = env::var_os("TRACEDIFF_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../../../shared"));
    let suite = shared.join("jsontestsuite/test_parsing");
    if suite.is_dir() {
        // Watched only where it exists: a path that does not exist would rebuild every time.
        println!("cargo::rerun-if-changed={}", suite.display());
    } else {
        println!("cargo::rustc-cfg=tracediff_no_jsontestsuite");
    }
}
