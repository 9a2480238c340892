//! One instruction as text, for error messages: `%5 = OpStore %3 %4 ...`.
//! Ids print as `%N` (or `%name` when the module names them); other operand
//! words print as numbers.

use crate::globals::Globals;
use crate::operands::{Role, for_each_id, opname};

/// Renders the instruction `words` (first word included).
pub fn text(words: &[u32], g: &Globals) -> String {
    let opcode = (words[0] & 0xffff) as u16;
    let mut roles = vec![None; words.len()];
    let _ = for_each_id(words, 0, &|_| 1, &mut |pos, role| roles[pos] = Some(role));
    let id = |x: u32| match g.names.get(&x) {
        Some(n) if !n.is_empty() => format!("%{n}"),
        _ => format!("%{x}"),
    };
    let mut out = String::new();
    if let Some(pos) = roles.iter().position(|r| *r == Some(Role::Result)) {
        out.push_str(&format!("{} = ", id(words[pos])));
    }
    out.push_str(&opname(opcode));
    for (pos, &w) in words.iter().enumerate().skip(1) {
        match roles[pos] {
            Some(Role::Result) => {}
            Some(_) => out.push_str(&format!(" {}", id(w))),
            None => out.push_str(&format!(" {w}")),
        }
    }
    out
}
