//! The C ABI from C: builds `tests/c/two_targets_two_threads.c` against
//! `include/rspv_specialize.h` and the static library cargo built for this
//! test run, runs it on references the Rust library writes, and compares the
//! JSON it gets (reports, inspections) with the Rust library's. Also checks
//! the shared library's SONAME and the pkg-config template.
//!
//! Needs a C compiler (`$CC`, else `cc`): without one the test is skipped
//! with a note, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use rspv::{ArchTables, Options, TargetOptions, specialize};
use serde_json::Value;

/// The dispatch-chain golden input, relative to the repository.
const INPUT: &str = "tests/golden/dispatch-chain/input.spv";

/// This crate's directory (`capi/`).
fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository (the workspace root).
fn repo_dir() -> &'static Path {
    manifest_dir().parent().expect("capi/ is in the repository")
}

/// A library of this crate, by file name (`librspv_specialize.a` or
/// `.so`), freshly built. `cargo test` builds a lib target only when the
/// tests can link it as Rust, which a `cdylib`/`staticlib`-only crate they
/// cannot, so the test builds it once with `cargo build` (same cargo,
/// target directory and profile: only this crate's lib is compiled) and
/// takes it from `target/<profile>/`, where `cargo build` puts it.
fn built_lib(name: &str) -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        // The test runs from target/<profile>/deps/.
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("test executable is in target/<profile>/deps");
        let target_dir = profile_dir.parent().expect("target/<profile>");
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(repo_dir())
            .args(["build", "--quiet", "--lib", "-p", env!("CARGO_PKG_NAME")])
            .env("CARGO_TARGET_DIR", target_dir);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        run(&mut cmd);
        profile_dir.to_path_buf()
    });
    dir.join(name)
}

/// Parses a JSON file the C program wrote.
fn read_json(path: &Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
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
    let lib = built_lib("librspv_specialize.a");
    assert!(
        lib.is_file(),
        "{} is missing: the [lib] crate-type must include staticlib",
        lib.display()
    );
    let tmp = std::env::temp_dir().join(format!("rspv-c-abi-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();

    // References from the Rust library.
    let input_path = repo_dir().join(INPUT);
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
        .arg(&refs[1])
        .arg(&tmp));
    assert_eq!(stdout.trim(), "ok");

    // The JSON the C ABI gave is the Rust library's, value for value.
    for (file, id, wave64, processor) in [
        ("report_tahiti.json", "tahiti", false, "gfx600"),
        ("report_gfx1100_wave64.json", "gfx1100", true, "gfx1100"),
    ] {
        let target = tables.target_with(id, &TargetOptions { wave64 }).unwrap();
        let out = specialize(&input, &target, &Options::default()).unwrap();
        let got = read_json(&tmp.join(file));
        assert_eq!(got, rspv::json::report(out.report()), "{file}");
        assert_eq!(got["target"], id, "{file}: the target as given");
        assert_eq!(got["processor"], processor, "{file}");
        // gfx600 runs wave64 only; gfx1100 was asked for wave64.
        assert_eq!(got["wavefront_size"], 64, "{file}");
    }
    let inspection = rspv::inspect(&input).unwrap();
    assert_eq!(
        read_json(&tmp.join("inspect.json")),
        rspv::json::inspection(&inspection, tables, None).unwrap()
    );
    let gfx942 = tables.target("gfx942").unwrap();
    let got = read_json(&tmp.join("inspect_gfx942.json"));
    assert_eq!(
        got,
        rspv::json::inspection(&inspection, tables, Some(&gfx942)).unwrap()
    );
    let ids: Vec<u64> = got["predicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["spec_id"].as_u64().unwrap())
        .collect();
    assert!(ids.is_sorted() && ids.len() == 3, "SpecId order: {ids:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The shared library names itself `librspv_specialize.so.<ABI version>`
/// (`0.<minor>` before 1.0), so programs linked against it find a
/// compatible release; the pkg-config template names the library and the
/// libraries a static link needs.
#[cfg(target_os = "linux")]
#[test]
fn shared_library_soname_and_pkg_config_template() {
    let so = built_lib("librspv_specialize.so");
    let bytes = std::fs::read(&so).unwrap_or_else(|e| panic!("{}: {e}", so.display()));
    let soname = format!(
        "librspv_specialize.so.0.{}\0",
        env!("CARGO_PKG_VERSION_MINOR")
    );
    assert_eq!(
        env!("CARGO_PKG_VERSION_MAJOR"),
        "0",
        "update the SONAME rule"
    );
    assert!(
        bytes.windows(soname.len()).any(|w| w == soname.as_bytes()),
        "{} has no SONAME {soname:?}",
        so.display()
    );
    let pc = std::fs::read_to_string(manifest_dir().join("rspv_specialize.pc.in")).unwrap();
    for line in [
        "Name: rspv_specialize",
        "Version: @VERSION@",
        "Libs: -L${libdir} -lrspv_specialize",
        "Libs.private: -lpthread -ldl -lm",
        "Cflags: -I${includedir}",
    ] {
        assert!(pc.lines().any(|l| l == line), "pc template lacks {line:?}");
    }
    let header = std::fs::read_to_string(manifest_dir().join("include/rspv_specialize.h")).unwrap();
    let version = format!("#define RSPV_SPECIALIZE_VERSION \"{}\"", rspv::VERSION);
    assert!(header.contains(&version), "the header lacks {version}");
}
