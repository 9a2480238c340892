//! The README names only paths that exist in the repository: every link
//! target, and every path written in `code` (inline or in a code block),
//! so a user's clone has what the README points to.
//!
//! A path here is a word without spaces, quotes or placeholders (`<…>`,
//! `$…`, `…`) that holds a `/` or ends in a file extension, is not a
//! command-line option, a URL or an absolute path (system tools such as
//! `/usr/bin/spirv-val`), and is not a file the README's commands write
//! (a word after `-o`, `>` or `--out-dir`, or one listed in
//! [`MADE_BY_COMMANDS`]), a placeholder (`DIR/…`: a first component in
//! capitals) or SPIR-V instructions (`OpConstantTrue/False`). A `*`
//! matches any entry of one directory. A bare file or directory name
//! (`PROVENANCE.md`, `function/`) must be the name of one somewhere in the
//! repository.

mod common;

use std::path::Path;

/// Files the README's commands produce (build products, example outputs)
/// that it also names outside a command.
const MADE_BY_COMMANDS: &[&str] = &[
    "out.spv",
    "manifest.json",
    "librspv_specialize.so",
    "librspv_specialize.a",
    "rspv_specialize.pc",
];

/// File extensions that make a word without `/` a file name.
const EXTENSIONS: &[&str] = &[
    "md", "rs", "py", "sh", "h", "c", "toml", "yaml", "spv", "spvasm", "ll", "txt", "json",
];

/// True when `word` is written as a repository path.
fn is_path(word: &str) -> bool {
    let word = word.trim_end_matches([',', '.', ':', ';', ')']);
    if word.is_empty()
        || word.starts_with(['-', '/', '~', '*'])
        || (word.starts_with('.') && !word.contains('/'))
        || word.contains("://")
        || word.contains([
            '<', '>', '$', '{', '}', '=', '"', '\'', '…', '(', ')', '|', '@', '%',
        ])
        || MADE_BY_COMMANDS.contains(&word)
    {
        return false;
    }
    let first = word.split('/').next().unwrap_or("");
    let placeholder = first.len() > 1 && first.chars().all(|c| c.is_ascii_uppercase());
    let instruction =
        first.starts_with("Op") && first[2..].starts_with(|c: char| c.is_ascii_uppercase());
    if placeholder || instruction {
        return false;
    }
    let ext = word.rsplit_once('.').map(|(_, e)| e);
    word.contains('/') || ext.is_some_and(|e| EXTENSIONS.contains(&e))
}

/// True when some file (or, for a `name` ending in `/`, directory) under
/// `dir`, outside `target/` and `.git/`, is called `name`.
fn file_named(dir: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let (base, want_dir) = match name.strip_suffix('/') {
        Some(n) => (n, true),
        None => (name, false),
    };
    entries.filter_map(Result::ok).any(|e| {
        let n = e.file_name();
        let is_dir = e.path().is_dir();
        (n == base && is_dir == want_dir)
            || (is_dir && n != "target" && n != ".git" && file_named(&e.path(), name))
    })
}

/// True when `path` names something that exists: relative to the
/// repository (`*` matching one directory entry), or, for a bare file or
/// directory name, anywhere in it.
fn named_exists(root: &Path, path: &str) -> bool {
    match path.strip_suffix('/') {
        Some(dir) if !dir.contains('/') => file_named(root, path),
        _ if path.contains('/') => exists(root, path),
        _ => file_named(root, path),
    }
}

/// True when `path` (relative to `root`, `*` matching one directory
/// entry) names something that exists. A path out of the repository
/// (`../shared/…`) does not: users' clones have nothing beside them.
fn exists(root: &Path, path: &str) -> bool {
    if path.split('/').any(|c| c == "..") {
        return false;
    }
    let Some((before, after)) = path.split_once('*') else {
        return root.join(path).exists();
    };
    let (dir, prefix) = before.rsplit_once('/').unwrap_or(("", before));
    let (suffix, rest) = after.split_once('/').unwrap_or((after, ""));
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with(prefix)
            && name.ends_with(suffix)
            && (rest.is_empty() || exists(&e.path(), rest))
    })
}

/// The [`is_path`] words of a piece of code, except what a command
/// writes (the word after `-o`, `>` or `--out-dir`).
fn paths_in_code(code: &str) -> Vec<String> {
    let words: Vec<&str> = code.split_whitespace().collect();
    (0..words.len())
        .filter(|&i| i == 0 || !matches!(words[i - 1], "-o" | ">" | "--out-dir"))
        .map(|i| words[i])
        .filter(|w| is_path(w))
        .map(String::from)
        .collect()
}

/// Every path the README text names: link targets, and [`is_path`] words
/// in inline code and code blocks.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    // The text outside code blocks (inline code may span lines).
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
        } else if in_block {
            out.extend(paths_in_code(line));
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    // Inline code: the odd pieces between backticks.
    for code in prose.split('`').skip(1).step_by(2) {
        out.extend(paths_in_code(code));
    }
    // Links: `](target)`.
    for piece in prose.split("](").skip(1) {
        let target = piece.split(')').next().unwrap_or("");
        let target = target.split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target.to_string());
        }
    }
    out.iter_mut()
        .for_each(|p| *p = p.trim_end_matches([',', '.', ':', ';', ')']).to_string());
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_path_the_readme_names_exists() {
    let root = common::repo();
    let text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let named = named_paths(&text);
    assert!(
        named.len() >= 20,
        "found only {} paths in README.md: {named:?}",
        named.len()
    );
    eprintln!("README.md names {} paths: {named:?}", named.len());
    let missing: Vec<&String> = named.iter().filter(|p| !named_exists(&root, p)).collect();
    assert!(
        missing.is_empty(),
        "README.md names paths that are not in the repository: {missing:?}"
    );
}

#[test]
fn the_path_finder_sees_paths_and_skips_the_rest() {
    let text = "See `docs/predicates.md` and [the notes](docs/design.md#tests);\n\
                run `bash benches/run.sh` or `predicates.md`, see `.ci/run`, `../shared/x.md`,\n\
                `bash\n\
                tools/gen_bench.py` (split).\n\
                ```\n\
                cargo run -- --target gfx942 tests/golden/x/input.spv -o out.spv\n\
                python3 shared/tools/gen_bench.py 10 > big.spvasm\n\
                /usr/bin/spirv-val --target-env=spv1.6 $(dirname x)/y.spv\n\
                ```\n\
                `DIR/<target>.spv`, `DIR/manifest.json`, `OpLogicalNot/And`, `function/`,\n\
                `gfx950:sramecc+:xnack-`, `has.a|b`, `https://x.org/a.md`.";
    assert_eq!(
        named_paths(text),
        [
            "../shared/x.md",
            ".ci/run",
            "benches/run.sh",
            "docs/design.md",
            "docs/predicates.md",
            "function/",
            "predicates.md",
            "shared/tools/gen_bench.py",
            "tests/golden/x/input.spv",
            "tools/gen_bench.py",
        ]
    );
    let root = common::repo();
    assert!(exists(&root, "tests/golden/*/expected/"));
    assert!(exists(&root, "tests/golden/dispatch-chain/input.spv"));
    assert!(!exists(&root, "tests/golden/*/no-such-file"));
    assert!(!exists(&root, "shared/tools/gen_bench.py"));
    assert!(!exists(&root, "../tests/Cargo.toml"));
    assert!(named_exists(&root, "PROVENANCE.md"));
    assert!(!named_exists(&root, "no-such-file.md"));
    assert!(named_exists(&root, "function/"));
    assert!(!named_exists(&root, "PROVENANCE.md/"));
}
