//! Extended instruction sets by their `OpExtInstImport` name.
//!
//! The sets SPIRV-Tools knows by name, with rspirv's grammar for each; any
//! other `NonSemantic.*` set is known to take only id operands (its
//! instructions print as numbers), and any other set is unknown.

use rspirv::grammar::{self as g, ExtInstOp, InstructionTable};

/// What an `OpExtInstImport` imports.
#[derive(Clone, Copy)]
pub(super) enum ExtSet {
    /// A set whose grammar is known.
    Known(&'static InstructionTable<ExtInstOp>),
    /// A `NonSemantic.*` set without a grammar: numbered instructions whose
    /// operands are all ids.
    NonSemantic,
    /// Any other set: its operands cannot be told apart.
    Unknown,
}

impl ExtSet {
    /// The set imported under `name`.
    pub(super) fn named(name: &str) -> ExtSet {
        let table = match name {
            "GLSL.std.450" => &g::GLSL_STD_450_INSTRUCTION_TABLE,
            "OpenCL.std" => &g::OPENCL_STD_100_INSTRUCTION_TABLE,
            "SPV_AMD_shader_explicit_vertex_parameter" => {
                &g::SPV_AMD_SHADER_EXPLICIT_VERTEX_PARAMETER_INSTRUCTION_TABLE
            }
            "SPV_AMD_shader_trinary_minmax" => &g::SPV_AMD_SHADER_TRINARY_MINMAX_INSTRUCTION_TABLE,
            "SPV_AMD_gcn_shader" => &g::SPV_AMD_GCN_SHADER_INSTRUCTION_TABLE,
            "SPV_AMD_shader_ballot" => &g::SPV_AMD_SHADER_BALLOT_INSTRUCTION_TABLE,
            "DebugInfo" => &g::DEBUGINFO_INSTRUCTION_TABLE,
            "OpenCL.DebugInfo.100" => &g::OPENCL_DEBUGINFO_100_INSTRUCTION_TABLE,
            "NonSemantic.Shader.DebugInfo.100" => {
                &g::NONSEMANTIC_SHADER_DEBUGINFO_100_INSTRUCTION_TABLE
            }
            "TOSA.001000.1" => &g::TOSA_001000_1_INSTRUCTION_TABLE,
            "Arm.MotionEngine.100" => &g::ARM_MOTION_ENGINE_100_INSTRUCTION_TABLE,
            n if n.starts_with("NonSemantic.ClspvReflection.") => {
                &g::NONSEMANTIC_CLSPVREFLECTION_INSTRUCTION_TABLE
            }
            n if n.starts_with("NonSemantic.VkspReflection.") => {
                &g::NONSEMANTIC_VKSPREFLECTION_INSTRUCTION_TABLE
            }
            n if n.starts_with("NonSemantic.") => return ExtSet::NonSemantic,
            _ => return ExtSet::Unknown,
        };
        ExtSet::Known(table)
    }
}
