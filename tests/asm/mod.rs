//! A tiny SPIR-V assembler for the integration tests: modules with a
//! predicate table, built with `rspirv::dr::Builder`.
#![allow(dead_code)] // each test target uses a subset

use std::collections::HashMap;

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use spirv::{
    AddressingModel, Capability, Decoration, ExecutionModel, FunctionControl, LinkageType,
    MemoryModel, StorageClass,
};

/// The name of the predicate table.
pub const TABLE: &str = "llvm.amdgcn.feature.predicate.ids";

/// One element of a table built by [`table_module`].
#[derive(Clone, Copy)]
pub enum Elem {
    /// `OpConstant %uchar b`.
    Byte(u8),
    /// `OpConstantNull %uchar` (a zero byte, as llc-22 writes it).
    Null,
    /// `OpConstant %uchar v` with a value that does not fit 8 bits.
    Wide(u32),
    /// `OpConstant %uint v`: a 32-bit element.
    Int32(u32),
    /// `OpSpecConstant %uchar b`: not a constant.
    Spec(u8),
}

/// Table bytes as elements; zero bytes become `OpConstantNull`.
pub fn text(s: &[u8]) -> Vec<Elem> {
    s.iter()
        .map(|&b| if b == 0 { Elem::Null } else { Elem::Byte(b) })
        .collect()
}

/// A tiny assembler: a Kernel module with a predicate table made of `elems`,
/// one `OpSpecConstantFalse` per entry of `spec_ids`, and one empty kernel.
/// With `spec_on_uchar`, SpecId 0 also decorates an 8-bit `OpSpecConstant`.
pub fn table_module(elems: &[Elem], spec_ids: &[u32], spec_on_uchar: bool) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    for c in [
        Capability::Addresses,
        Capability::Linkage,
        Capability::Kernel,
        Capability::Int8,
    ] {
        b.capability(c);
    }
    b.memory_model(AddressingModel::Physical64, MemoryModel::OpenCL);
    let void = b.type_void();
    let boolean = b.type_bool();
    let uchar = b.type_int(8, 0);
    let uint = b.type_int(32, 0);
    let len = b.constant_bit32(uint, elems.len() as u32);
    let array = b.type_array(uchar, len);
    let ptr = b.type_pointer(None, StorageClass::CrossWorkgroup, array);
    let mut bytes: HashMap<u8, u32> = HashMap::new();
    let mut null = None;
    let ids: Vec<u32> = elems
        .iter()
        .map(|e| match *e {
            Elem::Byte(v) => *bytes
                .entry(v)
                .or_insert_with(|| b.constant_bit32(uchar, v.into())),
            Elem::Null => *null.get_or_insert_with(|| b.constant_null(uchar)),
            Elem::Wide(v) => b.constant_bit32(uchar, v),
            Elem::Int32(v) => b.constant_bit32(uint, v),
            Elem::Spec(v) => b.spec_constant_bit32(uchar, v.into()),
        })
        .collect();
    let init = b.constant_composite(array, ids);
    let var = b.variable(ptr, None, StorageClass::CrossWorkgroup, Some(init));
    b.name(var, TABLE);
    b.decorate(var, Decoration::Constant, []);
    b.decorate(
        var,
        Decoration::LinkageAttributes,
        [
            Operand::LiteralString(TABLE.into()),
            Operand::LinkageType(LinkageType::Export),
        ],
    );
    for &id in spec_ids {
        let s = b.spec_constant_false(boolean);
        b.decorate(s, Decoration::SpecId, [Operand::LiteralBit32(id)]);
    }
    if spec_on_uchar {
        let s = b.spec_constant_bit32(uchar, 1);
        b.decorate(s, Decoration::SpecId, [Operand::LiteralBit32(0)]);
    }
    let fn_type = b.type_function(void, []);
    let f = b
        .begin_function(void, None, FunctionControl::NONE, fn_type)
        .unwrap();
    b.begin_block(None).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::Kernel, f, "k", [var]);
    b.module().assemble()
}
