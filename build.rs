//! Embeds every `arch-tables/*.yaml` file into the library, so the binary
//! carries the processor tables; `ArchTables::from_dir` can load others at
//! run time.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("arch-tables");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("arch-tables/ is missing")
        .map(|e| e.expect("reading arch-tables/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut out = String::from("/// `(file name, contents)` of every embedded arch-table file.\n");
    out.push_str("pub(crate) const EMBEDDED: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("embedded_tables.rs");
    fs::write(dest, out).expect("writing embedded_tables.rs");
}
