//! Build-time facts for the integration tests only: whether `../shared` (real traces, HTA's
//! output, JSONTestSuite) sits beside the repository, whether a browser and its WebDriver are
//! on PATH, and whether util-linux's `script` (a pseudo-terminal) is. Tests that need what is missing are marked `ignore` with the reason, so `cargo test`
//! lists them as ignored instead of passing them in no time. The library and binary do not look
//! at these flags.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tracediff_no_shared)");
    println!("cargo::rustc-check-cfg=cfg(tracediff_no_browser)");
    println!("cargo::rustc-check-cfg=cfg(tracediff_no_script)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in [
        "TRACEDIFF_SHARED",
        "TRACEDIFF_REQUIRE_BROWSER",
        "TRACEDIFF_REQUIRE_SCRIPT",
        "TRACEDIFF_BROWSER",
        "PATH",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let shared = env::var_os("TRACEDIFF_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../shared"));
    if shared.join("traces").is_dir() {
        // Watched only where it exists: a path that does not exist would rebuild every time.
        // Where it appears later, `touch build.rs` (or setting TRACEDIFF_SHARED) notices it.
        println!("cargo::rerun-if-changed={}", shared.display());
    } else {
        println!("cargo::rustc-cfg=tracediff_no_shared");
    }
    // With TRACEDIFF_REQUIRE_BROWSER=1 (CI) the browser tests run and fail where it is missing.
    let required = env::var("TRACEDIFF_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let firefox = env::var("TRACEDIFF_BROWSER").is_ok_and(|v| v == "firefox");
    let (drivers, browsers): (&[&str], &[&str]) = if firefox {
        (&["geckodriver"], &["firefox-esr", "firefox"])
    } else {
        (&["chromedriver"], &["chromium", "chromium-browser", "google-chrome"])
    };
    let found: Vec<PathBuf> = [drivers, browsers].iter().filter_map(|names| which(names)).collect();
    for path in &found {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    if found.len() < 2 && !required {
        println!("cargo::rustc-cfg=tracediff_no_browser");
    }
    // util-linux's `script` runs a command on a pseudo-terminal (the terminal width, progress);
    // with TRACEDIFF_REQUIRE_SCRIPT=1 (CI) those tests run and fail where it is missing.
    match which(&["script"]) {
        Some(path) => println!("cargo::rerun-if-changed={}", path.display()),
        None if !env::var("TRACEDIFF_REQUIRE_SCRIPT").is_ok_and(|v| v == "1") => {
            println!("cargo::rustc-cfg=tracediff_no_script");
        }
        None => {}
    }
}

/// The first of `names` found on PATH.
fn which(names: &[&str]) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    names
        .iter()
        .flat_map(|n| env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}
