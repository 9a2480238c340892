//! The command line's file safety: the input is never overwritten unless
//! `--in-place`; outputs are written atomically (no temporary file left
//! after a success or a failure, a pre-existing OUT untouched after a
//! failure); stdin works through a real pipe, also past a pipe buffer;
//! non-UTF-8 paths work for input, output and `--out-dir`; missing and
//! unreadable inputs are clear errors naming the path; exit codes are 0
//! (done), 1 (bad input, I/O) and 2 (usage).
#![cfg(feature = "cli")]

mod common;
#[path = "../benches/common/gen.rs"]
#[allow(unreachable_pub)]
mod generator;
mod kasm;

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{golden_input, run_cli};

/// Runs with `input` written to stdin through a pipe; a write cut short by
/// the binary exiting is not an error.
fn run_piped(args: &[&str], input: Vec<u8>) -> Output {
    common::run_cli_piped(args, input).0
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_exit(o: &Output, code: i32, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{what}: exit {:?}, stderr: {}",
        o.status.code(),
        stderr(o)
    );
}

/// A scratch directory, removed when the test ends.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    Scratch(common::fresh_dir("clisafe", name))
}

/// File names in `dir`, sorted.
fn names(dir: &Path) -> Vec<OsString> {
    let mut v: Vec<OsString> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    v.sort();
    v
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

/// The library's output for `target`.
fn expected(input: &[u8], target: &str) -> Vec<u8> {
    let tables = rspv_specialize::ArchTables::embedded();
    rspv_specialize::specialize(
        input,
        &tables.target(target).unwrap(),
        &rspv_specialize::Options::default(),
    )
    .unwrap()
    .bytes()
}

/// Validates `output`, made from `input`, when the validator in use
/// accepts `input`.
fn valid(input: &[u8], output: &[u8], tag: &str) {
    common::assert_outputs_valid(&[common::Made {
        input,
        output,
        what: tag.to_string(),
    }]);
}

#[test]
fn the_input_is_never_overwritten_without_in_place() {
    let dir = scratch("input");
    let original = std::fs::read(golden_input("dispatch-chain")).unwrap();
    let input = dir.join("in.spv");
    std::fs::write(&input, &original).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&input, dir.join("link.spv")).unwrap();
    let spellings: Vec<PathBuf> = vec![
        input.clone(),
        dir.join("sub/../in.spv"),
        dir.join("./in.spv"),
        #[cfg(unix)]
        dir.join("link.spv"),
    ];
    let before = names(&dir);
    for out in &spellings {
        let o = run_cli(&[
            os("--target"),
            os("gfx942"),
            input.clone().into(),
            os("-o"),
            out.clone().into(),
        ]);
        let what = format!("-o {}", out.display());
        // A usage error, like every other.
        assert_exit(&o, 2, &what);
        let e = stderr(&o);
        let named = out.file_name().unwrap().to_string_lossy();
        assert!(
            e.contains("--in-place") && e.contains(&*named),
            "{what}: {e}"
        );
        assert_eq!(std::fs::read(&input).unwrap(), original, "{what}");
        assert_eq!(names(&dir), before, "{what}: no file added or removed");
    }
    #[cfg(unix)]
    assert!(
        std::fs::symlink_metadata(dir.join("link.spv"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A hard link is another name for the same file: writing OUT may
    // replace the link's directory entry, never the input's content.
    let hard = dir.join("hard.spv");
    std::fs::hard_link(&input, &hard).unwrap();
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("-o"),
        hard.clone().into(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input).unwrap(), original);
    std::fs::remove_file(&hard).unwrap();

    // A failing --in-place run leaves the input as it was.
    let bad = dir.join("bad.spv");
    let bad_bytes = std::fs::read(golden_input("unresolved-store")).unwrap();
    std::fs::write(&bad, &bad_bytes).unwrap();
    let before = names(&dir);
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        bad.clone().into(),
        os("--in-place"),
    ]);
    assert_exit(&o, 1, "--in-place on an unresolved module");
    assert!(stderr(&o).contains("bad.spv"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&bad).unwrap(), bad_bytes);
    assert_eq!(names(&dir), before, "no temporary file left");

    // --in-place replaces it, atomically, with the specialized module.
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("--in-place"),
        os("--report"),
        os("none"),
    ]);
    assert_exit(&o, 0, "--in-place");
    let now = std::fs::read(&input).unwrap();
    assert_eq!(now, expected(&original, "gfx942"));
    valid(&original, &now, "inplace");
    assert_eq!(names(&dir), before, "no temporary file left");
}

#[test]
fn outputs_are_atomic() {
    let dir = scratch("atomic");
    let input = golden_input("dispatch-chain");
    let out = dir.join("out.spv");
    let sentinel = b"pre-existing output".to_vec();

    // Success: exactly the output appears.
    let o = run_cli(&[
        os("--target"),
        os("gfx950"),
        input.clone().into(),
        os("-o"),
        out.clone().into(),
    ]);
    assert_exit(&o, 0, "success");
    assert_eq!(names(&dir), vec![os("out.spv")]);
    valid(
        &std::fs::read(&input).unwrap(),
        &std::fs::read(&out).unwrap(),
        "atomic",
    );

    // Failures of every kind leave a pre-existing OUT as it was and no
    // temporary file.
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"not a SPIR-V module at all").unwrap();
    let truncated = dir.join("truncated.spv");
    let full = std::fs::read(&input).unwrap();
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    let cases: Vec<(&str, Vec<OsString>)> = vec![
        (
            "unresolved use",
            vec![
                os("--target"),
                os("gfx950"),
                golden_input("unresolved-store").into(),
            ],
        ),
        (
            "unknown target",
            vec![os("--target"), os("gfx9999"), input.clone().into()],
        ),
        (
            "not a module",
            vec![os("--target"), os("gfx950"), garbage.clone().into()],
        ),
        (
            "truncated module",
            vec![os("--target"), os("gfx950"), truncated.clone().into()],
        ),
        (
            "missing input",
            vec![os("--target"), os("gfx950"), dir.join("nope.spv").into()],
        ),
    ];
    for (what, mut args) in cases {
        std::fs::write(&out, &sentinel).unwrap();
        let mtime = std::fs::metadata(&out).unwrap().modified().unwrap();
        let before = names(&dir);
        args.extend([os("-o"), out.clone().into()]);
        let o = run_cli(&args);
        assert_exit(&o, 1, what);
        assert!(stderr(&o).starts_with("error: "), "{what}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{what}: stdout written");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            sentinel,
            "{what}: OUT changed"
        );
        assert_eq!(
            std::fs::metadata(&out).unwrap().modified().unwrap(),
            mtime,
            "{what}: OUT touched"
        );
        assert_eq!(names(&dir), before, "{what}: files added");
        // The same failure to stdout writes nothing there.
        let n = args.len();
        args[n - 1] = os("-");
        let o = run_cli(&args);
        assert_exit(&o, 1, what);
        assert!(o.stdout.is_empty(), "{what}: stdout written");
    }

    // A failure after the temporary file is written: OUT is a directory,
    // so the final rename fails. The temporary file goes too.
    let out_dir = dir.join("adir");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("keep"), b"x").unwrap();
    let before = names(&dir);
    let o = run_cli(&[
        os("--target"),
        os("gfx950"),
        input.clone().into(),
        os("-o"),
        out_dir.clone().into(),
    ]);
    assert_exit(&o, 1, "OUT is a directory");
    assert!(stderr(&o).contains("adir"), "{}", stderr(&o));
    assert_eq!(names(&dir), before, "a temporary file was left");
    assert_eq!(names(&out_dir), vec![os("keep")]);

    // OUT in a directory that does not exist: an error naming it.
    let o = run_cli(&[
        os("--target"),
        os("gfx950"),
        input.clone().into(),
        os("-o"),
        dir.join("no/such/dir/out.spv").into(),
    ]);
    assert_exit(&o, 1, "OUT's directory missing");
    assert!(stderr(&o).contains("no/such/dir/out.spv"), "{}", stderr(&o));
    assert!(!dir.join("no").exists());
}

#[test]
fn a_failed_batch_writes_nothing() {
    let dir = scratch("batch");
    let out_dir = dir.join("outs");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("gfx942.spv"), b"old").unwrap();
    for (what, input, targets) in [
        (
            "unknown target",
            golden_input("dispatch-chain"),
            "gfx942,gfx9999",
        ),
        (
            "unresolved use",
            golden_input("unresolved-store"),
            "gfx942,gfx950",
        ),
    ] {
        let o = run_cli(&[
            os("--targets"),
            os(targets),
            input.into(),
            os("--out-dir"),
            out_dir.clone().into(),
        ]);
        assert_exit(&o, 1, what);
        assert_eq!(names(&out_dir), vec![os("gfx942.spv")], "{what}");
        assert_eq!(std::fs::read(out_dir.join("gfx942.spv")).unwrap(), b"old");
    }
    // A batch into a directory that does not exist yet creates it.
    let fresh = dir.join("fresh");
    let o = run_cli(&[
        os("--targets"),
        os("gfx942,gfx1100"),
        golden_input("dispatch-chain").into(),
        os("--out-dir"),
        fresh.clone().into(),
    ]);
    assert_exit(&o, 0, "batch");
    assert_eq!(
        names(&fresh),
        vec![os("gfx1100.spv"), os("gfx942.spv"), os("manifest.json")]
    );
}

/// A module larger than a pipe buffer: a kernel with a 256 KiB `OpName`
/// and a predicate branch.
fn big_module() -> Vec<u8> {
    use kasm::{Kernel, inst};
    use spirv::Op;
    let mut k = Kernel::new(&[("is.gfx942", 0)], &[0]);
    let p = k.sites[0];
    let (fa, fb) = (k.import("a"), k.import("b"));
    let kern = k.id();
    let [entry, la, lb] = [(); 3].map(|_| k.id());
    let mut w = Vec::new();
    inst(&mut w, Op::Function, &[k.void, kern, 0, k.void_fn]);
    inst(&mut w, Op::Label, &[entry]);
    inst(&mut w, Op::BranchConditional, &[p, la, lb]);
    k.end_with_calls(&mut w, &[(la, fa), (lb, fb)]);
    k.functions.extend(w);
    k.entry_point(kern, "k");
    let name = "x".repeat(65_000 * 4);
    let mut op = vec![kern];
    op.extend(kasm::string(&name));
    inst(&mut k.names, Op::Name, &op);
    k.bytes()
}

#[test]
fn reading_from_a_pipe() {
    let dir = scratch("pipe");
    for (what, input) in [
        (
            "golden",
            std::fs::read(golden_input("dispatch-chain")).unwrap(),
        ),
        ("256 KiB", big_module()),
    ] {
        let want = expected(&input, "gfx942");
        // stdin to stdout.
        let o = run_piped(
            &["--target", "gfx942", "-", "-o", "-", "--report", "none"],
            input.clone(),
        );
        assert_exit(&o, 0, what);
        assert_eq!(o.stdout, want, "{what}: stdout");
        // stdin to a file.
        let out = dir.join("out.spv");
        let o = run_piped(
            &["--target", "gfx942", "-", "-o", out.to_str().unwrap()],
            input.clone(),
        );
        assert_exit(&o, 0, what);
        assert_eq!(std::fs::read(&out).unwrap(), want, "{what}: file");
        assert_eq!(names(&dir), vec![os("out.spv")]);
        // inspect from stdin.
        let o = run_piped(&["inspect", "-", "--format", "json"], input.clone());
        assert_exit(&o, 0, what);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(
            v.to_string().contains("is.gfx942") || what == "golden",
            "{v}"
        );
    }
    // Empty stdin is bad input, named as stdin.
    let o = run_piped(&["--target", "gfx942", "-", "-o", "-"], Vec::new());
    assert_exit(&o, 1, "empty stdin");
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("<stdin>"), "{}", stderr(&o));
    // --in-place cannot write to stdin.
    let o = run_piped(&["--target", "gfx942", "-", "--in-place"], Vec::new());
    assert_ne!(o.status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("nonutf8");
    let input = dir.join(OsStr::from_bytes(b"mod\xff.spv"));
    let output = dir.join(OsStr::from_bytes(b"out\xfe.spv"));
    let out_dir = dir.join(OsStr::from_bytes(b"dir\xfd"));
    let original = std::fs::read(golden_input("dispatch-chain")).unwrap();
    std::fs::write(&input, &original).unwrap();

    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("-o"),
        output.clone().into(),
    ]);
    assert_exit(&o, 0, "non-UTF-8 IN and OUT");
    assert_eq!(
        std::fs::read(&output).unwrap(),
        expected(&original, "gfx942")
    );

    let o = run_cli(&[
        os("--targets"),
        os("gfx942,gfx950"),
        input.clone().into(),
        os("--out-dir"),
        out_dir.clone().into(),
    ]);
    assert_exit(&o, 0, "non-UTF-8 --out-dir");
    assert_eq!(
        names(&out_dir),
        vec![os("gfx942.spv"), os("gfx950.spv"), os("manifest.json")]
    );

    let o = run_cli(&[os("inspect"), input.clone().into()]);
    assert_exit(&o, 0, "inspect of a non-UTF-8 path");

    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("--in-place"),
    ]);
    assert_exit(&o, 0, "--in-place on a non-UTF-8 path");
    assert_eq!(
        std::fs::read(&input).unwrap(),
        expected(&original, "gfx942")
    );
    let mut want = vec![
        input.file_name().unwrap().to_owned(),
        output.file_name().unwrap().to_owned(),
        out_dir.file_name().unwrap().to_owned(),
    ];
    want.sort();
    assert_eq!(names(&dir), want, "no temporary file left");

    // A missing non-UTF-8 path is named (lossily) in the error.
    let missing = dir.join(OsStr::from_bytes(b"missing\xff.spv"));
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        missing.clone().into(),
        os("-o"),
        output.clone().into(),
    ]);
    assert_exit(&o, 1, "missing non-UTF-8 input");
    assert!(stderr(&o).contains("missing"), "{}", stderr(&o));
}

#[test]
fn missing_and_unreadable_inputs_are_clear_errors() {
    let dir = scratch("unreadable");
    let out = dir.join("out.spv");
    let missing = dir.join("missing.spv");
    let check = |args: Vec<OsString>, path: &Path, what: &str| {
        let o = run_cli(&args);
        assert_exit(&o, 1, what);
        let e = stderr(&o);
        assert!(e.starts_with("error: "), "{what}: {e}");
        assert!(
            e.contains(&path.display().to_string()),
            "{what}: the path is not named: {e}"
        );
        assert!(!out.exists(), "{what}: OUT written");
    };
    check(
        vec![
            os("--target"),
            os("gfx942"),
            missing.clone().into(),
            os("-o"),
            out.clone().into(),
        ],
        &missing,
        "missing input",
    );
    check(
        vec![os("inspect"), missing.clone().into()],
        &missing,
        "inspect of a missing input",
    );
    check(
        vec![
            os("--target"),
            os("gfx942"),
            dir.to_path_buf().into(),
            os("-o"),
            out.clone().into(),
        ],
        &dir,
        "a directory as input",
    );
    check(
        vec![
            os("--target"),
            os("gfx942"),
            golden_input("dispatch-chain").into(),
            os("-o"),
            out.clone().into(),
            os("--arch-tables"),
            missing.clone().into(),
        ],
        &missing,
        "missing --arch-tables",
    );

    // Mode 000: unreadable, except to root (the tests may run as root).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = dir.join("locked.spv");
        std::fs::write(
            &locked,
            std::fs::read(golden_input("dispatch-chain")).unwrap(),
        )
        .unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable = std::fs::File::open(&locked)
            .and_then(|mut f| f.read(&mut [0u8; 4]))
            .is_ok();
        let args = vec![
            os("--target"),
            os("gfx942"),
            locked.clone().into(),
            os("-o"),
            out.clone().into(),
        ];
        if readable {
            let o = run_cli(&args);
            assert_exit(&o, 0, "mode 000 input, readable to this user (root)");
            std::fs::remove_file(&out).unwrap();
        } else {
            check(args, &locked, "mode 000 input");
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

#[test]
fn exit_codes() {
    let dir = scratch("exit");
    let out = dir.join("out.spv");
    let input = golden_input("dispatch-chain");
    let ok = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("-o"),
        out.clone().into(),
    ]);
    assert_exit(&ok, 0, "success");
    assert_exit(&run_cli(&[os("targets")]), 0, "targets");
    assert_exit(
        &run_cli(&[os("inspect"), input.clone().into()]),
        0,
        "inspect",
    );

    // 1: bad input of every kind.
    for (what, args) in [
        (
            "unresolved",
            vec![
                os("--target"),
                os("gfx950"),
                golden_input("unresolved-call-arg").into(),
            ],
        ),
        (
            "unknown target",
            vec![os("--target"), os("gfx9999"), input.clone().into()],
        ),
        (
            "bad target feature",
            vec![os("--target"), os("gfx942:bogus+"), input.clone().into()],
        ),
        (
            "not a module",
            vec![os("--target"), os("gfx942"), os(file!())],
        ),
    ] {
        let mut args = args;
        args.extend([os("-o"), out.clone().into()]);
        assert_exit(&run_cli(&args), 1, what);
    }

    // 2: usage errors.
    for (what, args) in [
        ("no arguments", vec![]),
        (
            "unknown flag",
            vec!["--target", "gfx942", "in.spv", "-o", "o.spv", "--bogus"],
        ),
        ("no target", vec!["in.spv", "-o", "o.spv"]),
        ("no output", vec!["--target", "gfx942", "in.spv"]),
        (
            "-o with --in-place",
            vec!["--target", "gfx942", "in.spv", "-o", "o.spv", "--in-place"],
        ),
        (
            "bad --emit",
            vec![
                "--target", "gfx942", "in.spv", "-o", "o.spv", "--emit", "elf",
            ],
        ),
        (
            "bad --report",
            vec![
                "--target", "gfx942", "in.spv", "-o", "o.spv", "--report", "xml",
            ],
        ),
        (
            "--targets without --out-dir",
            vec!["--targets", "gfx942", "in.spv"],
        ),
        (
            "--out-dir with -o",
            vec!["--all-targets", "in.spv", "--out-dir", "d", "-o", "o.spv"],
        ),
        (
            "--all-targets without --out-dir",
            vec!["--all-targets", "in.spv"],
        ),
        (
            "--target with --out-dir",
            vec!["--target", "gfx942", "in.spv", "--out-dir", "d"],
        ),
        (
            "--targets naming one target twice",
            vec!["--targets", "gfx942,gfx942", "in.spv", "--out-dir", "d"],
        ),
        (
            "-q with --report",
            vec![
                "--target", "gfx942", "in.spv", "-o", "o.spv", "-q", "--report", "json",
            ],
        ),
        ("inspect without IN", vec!["inspect"]),
        (
            "inspect --target and --all-targets",
            vec!["inspect", "in.spv", "--target", "gfx942", "--all-targets"],
        ),
        (
            "inspect bad --format",
            vec!["inspect", "in.spv", "--format", "yaml"],
        ),
        ("unknown subcommand flag", vec!["targets", "--bogus"]),
    ] {
        let o = run_cli(&args);
        assert_exit(&o, 2, what);
        assert!(o.stdout.is_empty(), "{what}: stdout written");
    }
    assert!(!Path::new("o.spv").exists());
    assert!(!Path::new("d").exists());
}

#[cfg(unix)]
#[test]
fn a_special_file_as_out_is_written_into_not_replaced() {
    // `-o /dev/null` or `-o /dev/stdout` must not replace the device (as
    // root that would clobber /dev/null for the whole machine). Shown
    // safely with a FIFO of our own: the output must arrive through it.
    use std::os::unix::fs::FileTypeExt;
    use std::process::{Command, Stdio};
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !matches!(made, Ok(s) if s.success()) {
        eprintln!("mkfifo unavailable: skipped");
        return;
    }
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = golden_input("dispatch-chain");
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        input.clone().into(),
        os("-o"),
        fifo.clone().into(),
        os("--report"),
        os("none"),
    ]);
    let still_fifo = std::fs::symlink_metadata(&fifo)
        .map(|m| m.file_type().is_fifo())
        .unwrap_or(false);
    if !still_fifo {
        let _ = reader.kill();
        let _ = reader.wait();
        panic!(
            "-o FIFO (exit {:?}): the FIFO was replaced by a regular file instead of written into; \
             -o /dev/null would replace /dev/null the same way",
            o.status.code()
        );
    }
    assert_exit(&o, 0, "-o FIFO");
    let mut got = Vec::new();
    reader.stdout.take().unwrap().read_to_end(&mut got).unwrap();
    reader.wait().unwrap();
    assert_eq!(
        got,
        expected(&std::fs::read(&input).unwrap(), "gfx942"),
        "the output arrives through the FIFO"
    );
    assert_eq!(names(&dir), vec![os("pipe")], "no temporary file left");
}

/// The output is streamed in pieces: a write that fails part-way (a full
/// device) is an error naming OUT, not a silent short output.
#[test]
fn a_write_that_fails_is_an_error() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("/dev/full unavailable: skipped");
        return;
    }
    let input = golden_input("dispatch-chain");
    for emit in ["spv", "spvasm"] {
        let o = run_cli(&[
            os("--target"),
            os("gfx950"),
            input.clone().into(),
            os("-o"),
            full.into(),
            os("--emit"),
            os(emit),
            os("--report"),
            os("none"),
        ]);
        assert_exit(&o, 1, "-o /dev/full");
        let err = stderr(&o);
        assert!(
            err.starts_with("error: ") && err.contains("/dev/full") && err.contains("cannot write"),
            "{emit}: {err}"
        );
    }
}

/// Runs `--target target` on `module` cut `by` bytes (1 to 3) short, written
/// to `dir/cut.spv`: it fails (exit 1), the error names the offset of the
/// last word and the length, and nothing goes to stdout.
fn assert_cut_module_is_named(dir: &Path, module: &[u8], by: usize, target: &str) {
    let cut = dir.join("cut.spv");
    std::fs::write(&cut, &module[..module.len() - by]).unwrap();
    let o = run_cli(&[os("--target"), os(target), cut.into(), os("-o"), os("-")]);
    assert_exit(&o, 1, "cut");
    let want = format!(
        "byte {}: module length {} bytes is not a multiple of 4",
        module.len() - 4,
        module.len() - by
    );
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// The input is read straight into words: a big-endian module is read and
/// written in its own byte order, a length that is not whole words is named
/// at its byte offset, a FIFO given as IN is read to its end, and
/// `--fsync` writes the same bytes.
#[test]
fn inputs_of_either_byte_order_and_any_kind_of_file() {
    let dir = scratch("order");
    let little = std::fs::read(golden_input("dispatch-chain")).unwrap();
    let big = common::swap_words(&little);
    let want_little = expected(&little, "gfx942");
    let want_big = expected(&big, "gfx942");
    assert_eq!(want_big, common::swap_words(&want_little));
    for (what, input, want) in [
        ("little-endian", &little, &want_little),
        ("big-endian", &big, &want_big),
    ] {
        let inp = dir.join("in.spv");
        std::fs::write(&inp, input).unwrap();
        for fsync in [false, true] {
            let out = dir.join("out.spv");
            let mut args = vec![
                os("--target"),
                os("gfx942"),
                inp.clone().into(),
                os("-o"),
                out.clone().into(),
                os("-q"),
            ];
            if fsync {
                args.push(os("--fsync"));
            }
            let o = run_cli(&args);
            assert_exit(&o, 0, what);
            let got = std::fs::read(&out).unwrap();
            assert_eq!(&got, want, "{what}, fsync {fsync}");
            // spirv-val misreads the strings of big-endian modules: it
            // checks the same module in little-endian order.
            let as_little = if input == &big {
                common::swap_words(&got)
            } else {
                got
            };
            valid(&little, &as_little, "order");
            assert_eq!(names(&dir), vec![os("in.spv"), os("out.spv")]);
        }
    }
    // A module cut inside a word: the error names the byte offset.
    assert_cut_module_is_named(&dir, &little, 2, "gfx942");
    #[cfg(unix)]
    {
        use std::process::Command;
        let fifo = dir.join("in.fifo");
        let made = Command::new("mkfifo").arg(&fifo).status();
        if !matches!(made, Ok(s) if s.success()) {
            eprintln!("mkfifo unavailable: FIFO input skipped");
            return;
        }
        let writer = {
            let (fifo, big) = (fifo.clone(), big.clone());
            std::thread::spawn(move || std::fs::write(fifo, big))
        };
        let o = run_cli(&[
            os("--target"),
            os("gfx942"),
            fifo.clone().into(),
            os("-o"),
            os("-"),
            os("-q"),
        ]);
        writer.join().unwrap().unwrap();
        assert_exit(&o, 0, "FIFO input");
        assert_eq!(o.stdout, want_big, "FIFO input");
    }
}

/// An input larger than memory (a sparse file) is a clear error naming it,
/// not an abort.
#[test]
fn an_input_larger_than_memory_is_an_error() {
    // With overcommit always on (mode 1) the allocation could succeed and
    // the run would then read 64 TiB of zeros.
    let overcommit = std::fs::read_to_string("/proc/sys/vm/overcommit_memory");
    if overcommit.is_ok_and(|m| m.trim() == "1") {
        eprintln!("vm.overcommit_memory = 1: skipped");
        return;
    }
    let dir = scratch("huge");
    let huge = dir.join("huge.spv");
    let size: u64 = 1 << 46; // 64 TiB, sparse
    let made = std::fs::File::create(&huge).and_then(|f| f.set_len(size));
    if made.is_err() {
        eprintln!("no sparse 64 TiB file here: skipped");
        return;
    }
    let o = run_cli(&[
        os("--target"),
        os("gfx942"),
        huge.clone().into(),
        os("-o"),
        os("-"),
    ]);
    assert_exit(&o, 1, "huge input");
    let want = format!(
        "{}: cannot read: {size} bytes do not fit in memory",
        huge.display()
    );
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// A regular file of 64 KiB or more is mapped, not read: a large module
/// of either byte order gives from a file what it gives through a pipe
/// (read) and in-process; cut inside a word, it is named at its byte
/// offset; `--in-place` replaces it; and a container padded past 64 KiB
/// gives the modules the unpadded one gives.
#[test]
fn large_inputs_are_mapped_and_give_what_read_ones_give() {
    let dir = scratch("mapped");
    let little = generator::to_bytes(&generator::generate(400, 10, true));
    assert!(little.len() >= 1 << 16, "{} bytes", little.len());
    let big = common::swap_words(&little);
    for (what, input) in [("little-endian", &little), ("big-endian", &big)] {
        let want = expected(input, "gfx1201");
        let inp = dir.join("in.spv");
        std::fs::write(&inp, input).unwrap();
        let args = |src: OsString| {
            vec![
                os("--target"),
                os("gfx1201"),
                src,
                os("-o"),
                os("-"),
                os("-q"),
            ]
        };
        let mapped = run_cli(&args(inp.clone().into()));
        assert_exit(&mapped, 0, what);
        assert_eq!(mapped.stdout, want, "{what}: mapped");
        let piped = common::run_cli_piped(&args(os("-")), input.clone()).0;
        assert_exit(&piped, 0, what);
        assert_eq!(piped.stdout, want, "{what}: read from a pipe");

        let o = run_cli(&[
            os("--target"),
            os("gfx1201"),
            inp.clone().into(),
            os("--in-place"),
            os("-q"),
        ]);
        assert_exit(&o, 0, what);
        assert_eq!(std::fs::read(&inp).unwrap(), want, "{what}: in place");
    }
    valid(&little, &expected(&little, "gfx1201"), "mapped");

    assert_cut_module_is_named(&dir, &little, 1, "gfx1201");

    // An ELF file read past its last section is the same ELF file.
    let app = common::repo().join("tests/data/containers/app");
    let mut padded = std::fs::read(&app).unwrap();
    padded.resize(padded.len().max(1 << 16) + 4096, 0);
    let padded_path = dir.join("app-padded");
    std::fs::write(&padded_path, &padded).unwrap();
    for (what, input) in [("unpadded", app), ("padded", padded_path)] {
        let out = dir.join(what);
        let o = run_cli(&[
            os("extract"),
            input.into(),
            os("--out-dir"),
            out.clone().into(),
        ]);
        assert_exit(&o, 0, what);
    }
    let files = |d: &str| -> Vec<(OsString, Vec<u8>)> {
        names(&dir.join(d))
            .into_iter()
            .map(|n| {
                let bytes = std::fs::read(dir.join(d).join(&n)).unwrap();
                (n, bytes)
            })
            .collect()
    };
    let unpadded = files("unpadded");
    assert!(!unpadded.is_empty());
    assert_eq!(files("padded"), unpadded);
}
