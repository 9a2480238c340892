//! Benchmark module generator: large AMD-flavoured SPIR-V modules of the
//! shape `tools/gen_bench.py` makes, emitted directly as SPIR-V words
//! (no `spirv-as` needed, so benchmarks can build 100 MB inputs in seconds).
//!
//! Every kernel runs a small loop of loads, multiplies and adds. Every
//! `every`-th kernel (kernel 0, `every`, `2 * every`, ...) also has one
//! branch per feature predicate (9 of them) after its loop, alternating the
//! direct `OpBranchConditional %p` form and the `OpLogicalNotEqual %p %false`
//! form llc emits at -O0. The arms call imported intrinsic declarations, or,
//! with `calls == false`, store a value instead (spirv-opt's dead-branch pass
//! crashes on modules with many imported declarations, so the side-by-side
//! comparison uses that form).
//!
//! The predicate table `llvm.amdgcn.feature.predicate.ids` is encoded as
//! LLVM's SPIR-V backend does: the bytes of `"<name> <spec id>\0"` for each
//! predicate, as an `OpConstantComposite` of `uchar` constants with the zero
//! bytes as `OpConstantNull`. Unlike gen_bench.py, which leaves entry-point
//! interfaces empty, each `OpEntryPoint` lists the table variable as llc
//! does, so the module is SPIR-V 1.4.
//!
//! Used by `benches/specialize.rs` and `examples/gen_module.rs` through
//! `#[path]` modules, so not every item is used by each of them.
#![allow(dead_code)]

use spirv::{
    AddressingModel, Capability, Decoration, ExecutionModel, FunctionControl, LinkageType,
    MemoryAccess, MemoryModel, Op, StorageClass,
};

/// The predicates every predicated kernel branches on, in SpecId order.
pub const PREDICATES: [&str; 9] = [
    "is.gfx950",
    "is.gfx942",
    "is.gfx1201",
    "is.gfx1100",
    "has.gfx12-insts",
    "has.mai-insts",
    "has.gfx950-insts",
    "has.wmma-256b-insts,wavefrontsize32",
    "has.",
];

/// The table's name, also its `OpName` and export linkage name.
const TABLE_NAME: &str = "llvm.amdgcn.feature.predicate.ids";

/// SPIR-V 1.4: entry points list every global variable in their interface.
const VERSION_1_4: u32 = 0x0001_0400;

/// Number of imported intrinsic declarations: one per predicate arm, plus
/// one nothing calls (as in gen_bench.py).
const INTRINSICS: usize = 2 * PREDICATES.len() + 1;

/// The table's bytes: `"<name> <spec id>\0"` for each predicate.
pub fn table_bytes() -> Vec<u8> {
    let mut t = Vec::new();
    for (i, p) in PREDICATES.iter().enumerate() {
        t.extend_from_slice(format!("{p} {i}").as_bytes());
        t.push(0);
    }
    t
}

/// Builds a module with `kernels` kernels, every `every`-th of them
/// predicated, and returns its words (host order, header included).
///
/// # Panics
/// If `every` is 0.
pub fn generate(kernels: usize, every: usize, calls: bool) -> Vec<u32> {
    assert!(every > 0, "`every` must be at least 1");
    let predicated = kernels.div_ceil(every);
    let mut w = Words::with_capacity(64 + kernels * 60 + predicated * 150);
    let mut ids = Ids(1);

    // Module-scope ids, allocated up front so forward references work.
    let ocl = ids.next();
    let table = ids.next();
    let intrinsics: Vec<u32> = (0..INTRINSICS).map(|_| ids.next()).collect();
    let intrinsic_params: Vec<u32> = (0..INTRINSICS).map(|_| ids.next()).collect();
    let kernel_ids: Vec<u32> = (0..kernels).map(|_| ids.next()).collect();
    let sites: Vec<u32> = (0..predicated * PREDICATES.len())
        .map(|_| ids.next())
        .collect();
    let [void, bool_, uint, ulong, uchar, float] = ids.array();
    let [pf, fnk, fni] = ids.array();
    let [false_, u0, u1, u8_, f2] = ids.array();
    let [tlen, tarr, tptr, tval] = ids.array();

    w.op(Op::Capability, &[Capability::Addresses as u32]);
    w.op(Op::Capability, &[Capability::Linkage as u32]);
    w.op(Op::Capability, &[Capability::Kernel as u32]);
    w.op(Op::Capability, &[Capability::Int64 as u32]);
    w.op(Op::Capability, &[Capability::Int8 as u32]);
    w.op_str(Op::ExtInstImport, &[ocl], "OpenCL.std", &[]);
    w.op(
        Op::MemoryModel,
        &[
            AddressingModel::Physical64 as u32,
            MemoryModel::OpenCL as u32,
        ],
    );
    for (k, &id) in kernel_ids.iter().enumerate() {
        w.op_str(
            Op::EntryPoint,
            &[ExecutionModel::Kernel as u32, id],
            &format!("k{k}"),
            &[table],
        );
    }
    w.op_str(Op::Name, &[table], TABLE_NAME, &[]);
    for (i, &id) in intrinsics.iter().enumerate() {
        w.op_str(Op::Name, &[id], &intrinsic_name(i), &[]);
    }
    w.op(Op::Decorate, &[table, Decoration::Constant as u32]);
    w.op_str(
        Op::Decorate,
        &[table, Decoration::LinkageAttributes as u32],
        TABLE_NAME,
        &[LinkageType::Export as u32],
    );
    for (i, &id) in intrinsics.iter().enumerate() {
        w.op_str(
            Op::Decorate,
            &[id, Decoration::LinkageAttributes as u32],
            &intrinsic_name(i),
            &[LinkageType::Import as u32],
        );
    }
    for (s, &site) in sites.iter().enumerate() {
        let spec_id = (s % PREDICATES.len()) as u32;
        w.op(Op::Decorate, &[site, Decoration::SpecId as u32, spec_id]);
    }

    // Types and constants.
    w.op(Op::TypeVoid, &[void]);
    w.op(Op::TypeBool, &[bool_]);
    w.op(Op::TypeInt, &[uint, 32, 0]);
    w.op(Op::TypeInt, &[ulong, 64, 0]);
    w.op(Op::TypeInt, &[uchar, 8, 0]);
    w.op(Op::TypeFloat, &[float, 32]);
    w.op(
        Op::TypePointer,
        &[pf, StorageClass::CrossWorkgroup as u32, float],
    );
    w.op(Op::TypeFunction, &[fnk, void, pf, pf, uint]);
    w.op(Op::TypeFunction, &[fni, void, uint]);
    w.op(Op::ConstantFalse, &[bool_, false_]);
    w.op(Op::Constant, &[uint, u0, 0]);
    w.op(Op::Constant, &[uint, u1, 1]);
    w.op(Op::Constant, &[uint, u8_, 8]);
    w.op(Op::Constant, &[float, f2, 2.0f32.to_bits()]);

    // The predicate table: one constant per distinct byte, zero as null.
    let bytes = table_bytes();
    w.op(Op::Constant, &[uint, tlen, bytes.len() as u32]);
    w.op(Op::TypeArray, &[tarr, uchar, tlen]);
    w.op(
        Op::TypePointer,
        &[tptr, StorageClass::CrossWorkgroup as u32, tarr],
    );
    let mut byte_id = [0u32; 256];
    let mut distinct: Vec<u8> = bytes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    for b in distinct {
        let id = ids.next();
        byte_id[b as usize] = id;
        if b == 0 {
            w.op(Op::ConstantNull, &[uchar, id]);
        } else {
            w.op(Op::Constant, &[uchar, id, u32::from(b)]);
        }
    }
    let mut composite = vec![tarr, tval];
    composite.extend(bytes.iter().map(|&b| byte_id[b as usize]));
    w.op(Op::ConstantComposite, &composite);
    w.op(
        Op::Variable,
        &[tptr, table, StorageClass::CrossWorkgroup as u32, tval],
    );
    for &site in &sites {
        w.op(Op::SpecConstantFalse, &[bool_, site]);
    }

    // Imported intrinsic declarations: `void f(uint)`.
    for (&f, &a) in intrinsics.iter().zip(&intrinsic_params) {
        w.op(Op::Function, &[void, f, FunctionControl::NONE.bits(), fni]);
        w.op(Op::FunctionParameter, &[uint, a]);
        w.op(Op::FunctionEnd, &[]);
    }

    // Kernels.
    let aligned = MemoryAccess::ALIGNED.bits();
    for (k, &kid) in kernel_ids.iter().enumerate() {
        let [input, out, n, entry, hdr, i, acc, c, body] = ids.array();
        let [i64_, pa, v, m, accn, inext, exit] = ids.array();
        w.op(
            Op::Function,
            &[void, kid, FunctionControl::NONE.bits(), fnk],
        );
        w.op(Op::FunctionParameter, &[pf, input]);
        w.op(Op::FunctionParameter, &[pf, out]);
        w.op(Op::FunctionParameter, &[uint, n]);
        w.op(Op::Label, &[entry]);
        w.op(Op::Branch, &[hdr]);
        w.op(Op::Label, &[hdr]);
        w.op(Op::Phi, &[uint, i, u0, entry, inext, body]);
        w.op(Op::Phi, &[float, acc, f2, entry, accn, body]);
        w.op(Op::ULessThan, &[bool_, c, i, n]);
        w.op(Op::BranchConditional, &[c, body, exit]);
        w.op(Op::Label, &[body]);
        w.op(Op::UConvert, &[ulong, i64_, i]);
        w.op(Op::InBoundsPtrAccessChain, &[pf, pa, input, i64_]);
        w.op(Op::Load, &[float, v, pa, aligned, 4]);
        w.op(Op::FMul, &[float, m, v, f2]);
        w.op(Op::FAdd, &[float, accn, acc, m]);
        w.op(Op::IAdd, &[uint, inext, i, u1]);
        w.op(Op::Branch, &[hdr]);
        w.op(Op::Label, &[exit]);
        w.op(Op::Store, &[out, acc, aligned, 4]);
        if k % every == 0 {
            let first = (k / every) * PREDICATES.len();
            for (j, s) in (first..first + PREDICATES.len()).enumerate() {
                let p = sites[s];
                // Alternate the direct use and the -O0 OpLogicalNotEqual form.
                let cond = if s % 2 == 0 {
                    p
                } else {
                    let t = ids.next();
                    w.op(Op::LogicalNotEqual, &[bool_, t, p, false_]);
                    t
                };
                let [y, z, join] = ids.array();
                w.op(Op::BranchConditional, &[cond, y, z]);
                for (label, arm) in [(y, 2 * j), (z, 2 * j + 1)] {
                    w.op(Op::Label, &[label]);
                    let r = ids.next();
                    if calls {
                        w.op(Op::FunctionCall, &[void, r, intrinsics[arm], u8_]);
                    } else {
                        let op = if arm % 2 == 0 { Op::FMul } else { Op::FAdd };
                        w.op(op, &[float, r, acc, f2]);
                        w.op(Op::Store, &[out, r, aligned, 4]);
                    }
                    w.op(Op::Branch, &[join]);
                }
                w.op(Op::Label, &[join]);
            }
        }
        w.op(Op::Return, &[]);
        w.op(Op::FunctionEnd, &[]);
    }

    w.finish(ids.0)
}

/// Builds a module of about `target_bytes` bytes (at least one kernel), with
/// the kernel count estimated from the size of two small modules.
pub fn generate_bytes(target_bytes: usize, every: usize, calls: bool) -> Vec<u8> {
    let kernels = kernels_for_bytes(target_bytes, every, calls);
    to_bytes(&generate(kernels, every, calls))
}

/// The kernel count that gives a module of about `target_bytes` bytes.
pub fn kernels_for_bytes(target_bytes: usize, every: usize, calls: bool) -> usize {
    // Sizes are linear in the kernel count over whole periods of `every`
    // (plus a few bytes per entry-point name digit); sample with 4-digit
    // names, which is what a multi-megabyte module mostly has.
    let (a, b) = (1000 * every, 2000 * every);
    let size = |k| generate(k, every, calls).len() * 4;
    let (sa, sb) = (size(a), size(b));
    let per_kernel = (sb - sa) as f64 / (b - a) as f64;
    let fixed = sa as f64 - per_kernel * a as f64;
    (((target_bytes as f64 - fixed) / per_kernel).round() as usize).max(1)
}

/// Little-endian bytes of a module's words (the byte order SPIR-V files use).
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The name of imported intrinsic `i`.
fn intrinsic_name(i: usize) -> String {
    format!("spirv.llvm_amdgcn_op{i}")
}

/// Sequential result-id allocator.
struct Ids(u32);

impl Ids {
    fn next(&mut self) -> u32 {
        let id = self.0;
        self.0 += 1;
        id
    }

    fn array<const N: usize>(&mut self) -> [u32; N] {
        std::array::from_fn(|_| self.next())
    }
}

/// A module under construction: the header's five words, then instructions.
struct Words(Vec<u32>);

impl Words {
    fn with_capacity(n: usize) -> Words {
        let mut v = Vec::with_capacity(n);
        // Magic, version, generator (0: unregistered), bound (set by
        // `finish`), schema.
        v.extend_from_slice(&[spirv::MAGIC_NUMBER, VERSION_1_4, 0, 0, 0]);
        Words(v)
    }

    /// Appends an instruction whose operands are all words.
    fn op(&mut self, op: Op, operands: &[u32]) {
        let count = 1 + operands.len() as u32;
        self.0.push((count << 16) | op as u32);
        self.0.extend_from_slice(operands);
    }

    /// Appends an instruction: `before` words, a literal string (nul
    /// terminated, padded to a word), then `after` words.
    fn op_str(&mut self, op: Op, before: &[u32], s: &str, after: &[u32]) {
        let string_words = s.len() / 4 + 1;
        let count = 1 + before.len() + string_words + after.len();
        self.0.push(((count as u32) << 16) | op as u32);
        self.0.extend_from_slice(before);
        let mut padded = s.as_bytes().to_vec();
        padded.resize(string_words * 4, 0);
        self.0.extend(
            padded
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        self.0.extend_from_slice(after);
    }

    fn finish(mut self, bound: u32) -> Vec<u32> {
        self.0[3] = bound;
        self.0
    }
}
