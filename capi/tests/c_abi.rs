//! The C ABI from C: builds `tests/c/two_targets_two_threads.c` against
//! `include/rspv_specialize.h` and the static library cargo built for this
//! test run, and runs it on references the Rust library writes.
//!
//! Needs a C compiler (`$CC`, else `cc`): without one the test is skipped
//! with a note, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use rspv_specialize::{ArchTables, Options, specialize};

const INPUT: &str = "tests/golden/dispatch-chain/input.spv";

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The static library cargo built for this run. This test runs from
/// `target/<profile>/deps/`, where rustc writes `librspv_specialize.a`
/// (staticlib names carry no hash) whenever it builds the lib for the tests.
/// `cargo test` does not copy it up to `target/<profile>/` (only `cargo
/// build` does), so the copy there may be stale or missing: not used.
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .expect("test executable is in target/<profile>/deps")
        .join("librspv_specialize.a")
}

/// The C compiler, or `None` (after a note) when there is none and CI is
/// not set.
fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match Command::new(&cc).arg("--version").output() {
        Ok(o) if o.status.success() => Some(cc),
        r => {
            let why = match r {
                Ok(o) => format!("`{cc} --version` failed: {}", o.status),
                Err(e) => format!("`{cc}` not found: {e}"),
            };
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("a C compiler is required in CI: {why}");
            }
            eprintln!("note: skipping the C ABI test: {why}");
            None
        }
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn two_targets_on_two_threads_from_c() {
    let Some(cc) = c_compiler() else { return };
    let lib = static_lib();
    assert!(
        lib.is_file(),
        "{} is missing: the [lib] crate-type must include staticlib",
        lib.display()
    );
    let tmp = std::env::temp_dir().join(format!("rspv-c-abi-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();

    // References from the Rust library.
    let input_path = manifest_dir().join(INPUT);
    let input = std::fs::read(&input_path).unwrap();
    let tables = ArchTables::embedded();
    let mut refs = Vec::new();
    for id in ["gfx942", "gfx1100"] {
        let target = tables.target(id).unwrap();
        let out = specialize(&input, &target, &Options::default()).unwrap();
        let path = tmp.join(format!("{id}.spv"));
        std::fs::write(&path, out.bytes()).unwrap();
        refs.push(path);
    }

    let include = manifest_dir().join("include");
    // The header alone is C89 (and C++ when a C++ compiler is around).
    let probe = tmp.join("header_c89.c");
    std::fs::write(
        &probe,
        "#include \"rspv_specialize.h\"\nint main(void) { return rspv_last_error() != 0; }\n",
    )
    .unwrap();
    run(Command::new(&cc)
        .args([
            "-std=c89",
            "-pedantic-errors",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .arg("-fsyntax-only")
        .arg("-I")
        .arg(&include)
        .arg(&probe));
    if Command::new("c++").arg("--version").output().is_ok() {
        run(Command::new("c++")
            .args(["-x", "c++", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
            .arg("-I")
            .arg(&include)
            .arg(&probe));
    }

    let exe = tmp.join("two_targets_two_threads");
    run(Command::new(&cc)
        .args(["-std=c99", "-pthread", "-Wall", "-Wextra"])
        .arg("-I")
        .arg(&include)
        .arg(manifest_dir().join("tests/c/two_targets_two_threads.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe));
    let stdout = run(Command::new(&exe)
        .arg(&input_path)
        .arg(&refs[0])
        .arg(&refs[1]));
    assert_eq!(stdout.trim(), "ok");
    let _ = std::fs::remove_dir_all(&tmp);
}
