//! Gives the shared library its SONAME on ELF platforms, as cargo-c does:
//! `librspv_specialize.so.<ABI version>`, where the ABI version is the
//! major version, or `0.<minor>` before 1.0 (a 0.x minor release may break
//! the ABI). Programs linked against it then load a compatible release.

use std::env;

fn main() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = matches!(
        os.as_str(),
        "linux"
            | "android"
            | "freebsd"
            | "netbsd"
            | "openbsd"
            | "dragonfly"
            | "solaris"
            | "illumos"
    );
    if elf {
        let major = env!("CARGO_PKG_VERSION_MAJOR");
        let abi = if major == "0" {
            format!("0.{}", env!("CARGO_PKG_VERSION_MINOR"))
        } else {
            major.to_string()
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librspv_specialize.so.{abi}");
    }
}
