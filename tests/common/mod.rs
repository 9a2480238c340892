//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs `spirv-val` on `bytes`. `Ok` when valid, or when spirv-val is not
/// installed and `CI` is unset (CI installs it and requires it). Shader
/// modules are validated for Vulkan 1.2, others in spirv-val's default
/// environment.
pub fn spirv_val(bytes: &[u8], dir: &Path) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!(
        "rspv-val-{}-{}.spv",
        std::process::id(),
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).unwrap();
    let shader = is_shader(bytes);
    let mut cmd = Command::new("spirv-val");
    if shader {
        cmd.args(["--target-env", "vulkan1.2"]);
    }
    let out = cmd.arg(&tmp).output();
    let _ = std::fs::remove_file(&tmp);
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            Err(String::from_utf8_lossy(&o.stderr).into_owned()
                + &String::from_utf8_lossy(&o.stdout))
        }
        Err(_) if std::env::var_os("CI").is_none() => Ok(()),
        Err(e) => Err(format!("spirv-val is required in CI: {e}")),
    }
}

/// True when the module declares the Shader capability.
fn is_shader(bytes: &[u8]) -> bool {
    let (words, _) = rspv_specialize::module::words_from_bytes(bytes).unwrap();
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if opcode == spirv::Op::Capability as u32
            && words.get(at + 1) == Some(&(spirv::Capability::Shader as u32))
        {
            return true;
        }
        if len == 0 {
            break;
        }
        at += len;
    }
    false
}

/// rspirv's disassembly of a module: the text golden files hold.
pub fn disassemble(bytes: &[u8]) -> String {
    use rspirv::binary::Disassemble;
    let module = rspirv::dr::load_bytes(bytes).expect("rspirv loads the module");
    module.disassemble() + "\n"
}
