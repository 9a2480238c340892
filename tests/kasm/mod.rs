//! A raw-word SPIR-V assembler and reader for the integration tests: Kernel
//! modules (unstructured control flow, as llc writes them) with a predicate
//! table, predicate call sites, imported function declarations and any
//! function bodies, including forward references, cycles and sizes that
//! `rspirv::dr::Builder` makes slow or impossible.
//!
//! Also reads modules back: instructions, literal strings, and which
//! imports the output calls and declares.
#![allow(dead_code)] // each test target uses a subset

use std::collections::{BTreeMap, BTreeSet};

use spirv::Op;

/// The name of the predicate table.
pub const TABLE: &str = "llvm.amdgcn.feature.predicate.ids";

/// Appends one instruction.
pub fn inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    assert!(operands.len() < 0xffff, "instruction too long");
    out.push((((operands.len() + 1) as u32) << 16) | op as u32);
    out.extend_from_slice(operands);
}

/// A literal string as words (NUL-terminated, zero-padded).
pub fn string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn cat(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().chain(b).copied().collect()
}

/// A Kernel module under construction. Sections are emitted in SPIR-V's
/// logical layout order by [`Kernel::finish`].
pub struct Kernel {
    next: u32,
    /// `OpEntryPoint` / `OpExecutionMode`.
    pub entries: Vec<u32>,
    /// `OpName`.
    pub names: Vec<u32>,
    /// `OpDecorate`.
    pub decorations: Vec<u32>,
    /// Types, constants, module-scope variables and spec constants.
    pub globals: Vec<u32>,
    /// Imported function declarations.
    pub declarations: Vec<u32>,
    /// Function definitions.
    pub functions: Vec<u32>,
    /// `OpTypeVoid`.
    pub void: u32,
    /// `OpTypeBool`.
    pub boolean: u32,
    /// `OpTypeInt 8 0`.
    pub uchar: u32,
    /// `OpTypeInt 32 0`.
    pub uint: u32,
    /// `OpConstantTrue`.
    pub t: u32,
    /// `OpConstantFalse`.
    pub f: u32,
    /// `void()`.
    pub void_fn: u32,
    /// `void(uint)`.
    pub void_fn_uint: u32,
    /// The predicate call sites, in the order of `sites` given to [`Kernel::new`].
    pub sites: Vec<u32>,
    /// The table variable.
    pub table: u32,
    /// Imports by name.
    pub imports: BTreeMap<String, u32>,
    uint_consts: BTreeMap<u32, u32>,
}

impl Kernel {
    /// A module whose table holds `entries` (`name`, SpecId) in that order,
    /// with one `OpSpecConstantFalse` call site per element of `sites` (each
    /// a SpecId), declared after `OpConstantTrue/False`.
    pub fn new(entries: &[(&str, u32)], sites: &[u32]) -> Kernel {
        let mut bytes = Vec::new();
        for (name, id) in entries {
            bytes.extend_from_slice(format!("{name} {id}").as_bytes());
            bytes.push(0);
        }
        Kernel::with_table_bytes(&bytes, sites)
    }

    /// Like [`Kernel::new`] with the table given as raw bytes (zero bytes
    /// become `OpConstantNull %uchar`).
    pub fn with_table_bytes(bytes: &[u8], sites: &[u32]) -> Kernel {
        let mut k = Kernel {
            next: 1,
            entries: Vec::new(),
            names: Vec::new(),
            decorations: Vec::new(),
            globals: Vec::new(),
            declarations: Vec::new(),
            functions: Vec::new(),
            void: 0,
            boolean: 0,
            uchar: 0,
            uint: 0,
            t: 0,
            f: 0,
            void_fn: 0,
            void_fn_uint: 0,
            sites: Vec::new(),
            table: 0,
            imports: BTreeMap::new(),
            uint_consts: BTreeMap::new(),
        };
        k.void = k.global(Op::TypeVoid, &[]);
        k.boolean = k.global(Op::TypeBool, &[]);
        k.uchar = k.global(Op::TypeInt, &[8, 0]);
        k.uint = k.global(Op::TypeInt, &[32, 0]);
        k.void_fn = k.global(Op::TypeFunction, &[k.void]);
        k.void_fn_uint = k.global(Op::TypeFunction, &[k.void, k.uint]);
        k.t = k.global(Op::ConstantTrue, &[k.boolean]);
        k.f = k.global(Op::ConstantFalse, &[k.boolean]);
        for &spec_id in sites {
            let s = k.global(Op::SpecConstantFalse, &[k.boolean]);
            inst(
                &mut k.decorations,
                Op::Decorate,
                &[s, spirv::Decoration::SpecId as u32, spec_id],
            );
            k.sites.push(s);
        }
        if !bytes.is_empty() {
            let len = k.uint_const(bytes.len() as u32);
            let arr = k.global(Op::TypeArray, &[k.uchar, len]);
            let ptr = k.global(
                Op::TypePointer,
                &[spirv::StorageClass::CrossWorkgroup as u32, arr],
            );
            let mut consts: BTreeMap<u8, u32> = BTreeMap::new();
            let mut elems = Vec::with_capacity(bytes.len());
            for &b in bytes {
                let id = match consts.get(&b) {
                    Some(&id) => id,
                    None => {
                        let id = if b == 0 {
                            k.global(Op::ConstantNull, &[k.uchar])
                        } else {
                            k.global(Op::Constant, &[k.uchar, b as u32])
                        };
                        consts.insert(b, id);
                        id
                    }
                };
                elems.push(id);
            }
            let init = k.global(Op::ConstantComposite, &cat(&[arr], &elems));
            k.table = k.global(
                Op::Variable,
                &[ptr, spirv::StorageClass::CrossWorkgroup as u32, init],
            );
            inst(&mut k.names, Op::Name, &cat(&[k.table], &string(TABLE)));
            inst(
                &mut k.decorations,
                Op::Decorate,
                &[k.table, spirv::Decoration::Constant as u32],
            );
            let mut link = vec![k.table, spirv::Decoration::LinkageAttributes as u32];
            link.extend(string(TABLE));
            link.push(spirv::LinkageType::Export as u32);
            inst(&mut k.decorations, Op::Decorate, &link);
        }
        k
    }

    /// A fresh id.
    pub fn id(&mut self) -> u32 {
        let id = self.next;
        self.next += 1;
        id
    }

    /// The id bound so far.
    pub fn bound(&self) -> u32 {
        self.next
    }

    /// A module-scope instruction with a fresh result id. For types the
    /// result is word 1; otherwise `operands[0]` is the result type and the
    /// result id goes second.
    pub fn global(&mut self, op: Op, operands: &[u32]) -> u32 {
        let id = self.id();
        let is_type = matches!(
            op,
            Op::TypeVoid
                | Op::TypeBool
                | Op::TypeInt
                | Op::TypeArray
                | Op::TypePointer
                | Op::TypeFunction
        );
        let words = if is_type {
            cat(&[id], operands)
        } else {
            cat(&[operands[0], id], &operands[1..])
        };
        inst(&mut self.globals, op, &words);
        id
    }

    /// `OpConstant %uint v`, once per value.
    pub fn uint_const(&mut self, v: u32) -> u32 {
        if let Some(&id) = self.uint_consts.get(&v) {
            return id;
        }
        let id = self.global(Op::Constant, &[self.uint, v]);
        self.uint_consts.insert(v, id);
        id
    }

    /// Declares an imported `void()` function named `name` (OpName and
    /// `LinkageAttributes name Import`).
    pub fn import(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.imports.get(name) {
            return id;
        }
        let id = self.id();
        inst(&mut self.names, Op::Name, &cat(&[id], &string(name)));
        let mut link = vec![id, spirv::Decoration::LinkageAttributes as u32];
        link.extend(string(name));
        link.push(spirv::LinkageType::Import as u32);
        inst(&mut self.decorations, Op::Decorate, &link);
        inst(
            &mut self.declarations,
            Op::Function,
            &[self.void, id, 0, self.void_fn],
        );
        inst(&mut self.declarations, Op::FunctionEnd, &[]);
        self.imports.insert(name.to_string(), id);
        id
    }

    /// Declares `func` a Kernel entry point named `name`, with the table in
    /// its interface (as llc-22 writes SPIR-V 1.6).
    pub fn entry_point(&mut self, func: u32, name: &str) {
        let mut w = vec![spirv::ExecutionModel::Kernel as u32, func];
        w.extend(string(name));
        if self.table != 0 {
            w.push(self.table);
        }
        inst(&mut self.entries, Op::EntryPoint, &w);
    }

    /// Ends a function under construction in `out`: for each `(label,
    /// callee)` a block `label` that calls `callee` (a `void()` function)
    /// and returns, then `OpFunctionEnd`.
    pub fn end_with_calls(&mut self, out: &mut Vec<u32>, blocks: &[(u32, u32)]) {
        for &(label, callee) in blocks {
            inst(out, Op::Label, &[label]);
            let r = self.id();
            inst(out, Op::FunctionCall, &[self.void, r, callee]);
            inst(out, Op::Return, &[]);
        }
        inst(out, Op::FunctionEnd, &[]);
    }

    /// The module's words (host order), header bound = ids used so far.
    pub fn finish(&self) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0600, 0x0000_ffff, self.next, 0];
        for c in [
            spirv::Capability::Addresses,
            spirv::Capability::Linkage,
            spirv::Capability::Kernel,
            spirv::Capability::Int8,
        ] {
            inst(&mut w, Op::Capability, &[c as u32]);
        }
        inst(
            &mut w,
            Op::MemoryModel,
            &[
                spirv::AddressingModel::Physical64 as u32,
                spirv::MemoryModel::OpenCL as u32,
            ],
        );
        for s in [
            &self.entries,
            &self.names,
            &self.decorations,
            &self.globals,
            &self.declarations,
            &self.functions,
        ] {
            w.extend_from_slice(s);
        }
        w
    }

    /// [`Kernel::finish`] as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        le(&self.finish())
    }
}

/// Little-endian bytes of words.
pub fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Host-order words of a module in either byte order.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    rspv_specialize::module::words_from_bytes(bytes)
        .expect("a SPIR-V module")
        .0
}

/// `(word index, opcode, words)` of every instruction after the header.
pub fn instructions(words: &[u32]) -> Vec<(usize, u32, &[u32])> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        assert!(
            len > 0 && at + len <= words.len(),
            "bad word count at word {at}"
        );
        out.push((at, words[at] & 0xffff, &words[at..at + len]));
        at += len;
    }
    out
}

/// The bytes of a literal string, up to its NUL (or the end of `words`).
pub fn literal_bytes(words: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::new();
    'outer: for w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    bytes
}

/// Decodes a literal string (invalid UTF-8 replaced).
pub fn literal(words: &[u32]) -> String {
    String::from_utf8_lossy(&literal_bytes(words)).into_owned()
}

/// What a module calls and declares, by `OpName`.
#[derive(Debug, Default)]
pub struct CallFacts {
    /// Names of the callees of every `OpFunctionCall`.
    pub called: BTreeSet<String>,
    /// Names of function declarations (no blocks).
    pub declared: BTreeSet<String>,
    /// Number of `OpFunctionCall` instructions.
    pub calls: usize,
    /// Number of `OpLabel`s.
    pub blocks: usize,
    /// Number of `OpBranchConditional`s.
    pub conditional_branches: usize,
    /// `OpDecorate … SpecId` decorations left.
    pub spec_ids: usize,
}

/// Reads [`CallFacts`] from module bytes.
pub fn call_facts(bytes: &[u8]) -> CallFacts {
    let w = words(bytes);
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut called_ids = BTreeSet::new();
    let mut facts = CallFacts::default();
    let mut open: Option<(u32, bool)> = None;
    let mut declared_ids = Vec::new();
    for (_, op, iw) in instructions(&w) {
        match op {
            x if x == Op::Name as u32 => {
                names.insert(iw[1], literal(&iw[2..]));
            }
            x if x == Op::Decorate as u32 && iw[2] == spirv::Decoration::SpecId as u32 => {
                facts.spec_ids += 1;
            }
            x if x == Op::FunctionCall as u32 => {
                called_ids.insert(iw[3]);
                facts.calls += 1;
            }
            x if x == Op::Function as u32 => open = Some((iw[2], true)),
            x if x == Op::Label as u32 => {
                facts.blocks += 1;
                if let Some(o) = open.as_mut() {
                    o.1 = false;
                }
            }
            x if x == Op::BranchConditional as u32 => facts.conditional_branches += 1,
            x if x == Op::FunctionEnd as u32 => {
                if let Some((id, true)) = open.take() {
                    declared_ids.push(id);
                }
            }
            _ => {}
        }
    }
    let name = |id: &u32| names.get(id).cloned().unwrap_or_else(|| format!("%{id}"));
    facts.called = called_ids.iter().map(name).collect();
    facts.declared = declared_ids.iter().map(name).collect();
    facts
}
