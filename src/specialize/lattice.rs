//! The folding lattice: what a boolean (or selected) value is known to be
//! while the pass folds predicates, how boolean logic meets over it, and
//! how the module-scope chain's `OpSpecConstantOp`s fold over it. Module
//! scope (`context`) and function scope (`function::sccp`) fold over the
//! same values with the same rules, defined here once.

use crate::operands::op;

/// A value in the folding lattice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Val {
    /// Not known yet.
    Top,
    /// A known boolean.
    Const(bool),
    /// Equal to this existing id.
    Same(u32),
    /// Not known at specialization time.
    Varying,
}

/// True for the boolean logic ops the lattice folds.
pub(super) fn is_logic(opcode: u16) -> bool {
    matches!(
        opcode,
        op::LogicalNot | op::LogicalAnd | op::LogicalOr | op::LogicalEqual | op::LogicalNotEqual
    )
}

/// The value of a binary `OpLogical*` over two lattice values.
#[inline(always)]
pub(super) fn meet_logic(opcode: u16, a: Val, b: Val) -> Val {
    use Val::*;
    match opcode {
        op::LogicalAnd => match (a, b) {
            (Const(false), _) | (_, Const(false)) => Const(false),
            (Top, _) | (_, Top) => Top,
            (Const(true), x) | (x, Const(true)) => x,
            (Same(x), Same(y)) if x == y => Same(x),
            _ => Varying,
        },
        op::LogicalOr => match (a, b) {
            (Const(true), _) | (_, Const(true)) => Const(true),
            (Top, _) | (_, Top) => Top,
            (Const(false), x) | (x, Const(false)) => x,
            (Same(x), Same(y)) if x == y => Same(x),
            _ => Varying,
        },
        op::LogicalEqual => match (a, b) {
            (Top, _) | (_, Top) => Top,
            (Const(x), Const(y)) => Const(x == y),
            (Const(true), x) | (x, Const(true)) => x,
            (Same(x), Same(y)) if x == y => Const(true),
            _ => Varying,
        },
        op::LogicalNotEqual => match (a, b) {
            (Top, _) | (_, Top) => Top,
            (Const(x), Const(y)) => Const(x != y),
            (Const(false), x) | (x, Const(false)) => x,
            (Same(x), Same(y)) if x == y => Const(false),
            _ => Varying,
        },
        _ => Varying,
    }
}

/// The value of a module-scope `OpSpecConstantOp` `w` (its words) whose
/// operation `o` is a select or boolean logic, with `v` the value of each
/// operand id. Module scope has no `Top`: an operand not known to be a
/// constant makes `OpLogicalNot` and the select's condition varying.
pub(super) fn fold_spec_constant_op(o: u16, w: &[u32], v: impl Fn(u32) -> Val) -> Val {
    match o {
        op::LogicalNot => match v(w[4]) {
            Val::Const(b) => Val::Const(!b),
            _ => Val::Varying,
        },
        op::Select if w.len() >= 7 => match v(w[4]) {
            Val::Const(true) => v(w[5]),
            Val::Const(false) => v(w[6]),
            _ => Val::Varying,
        },
        o if w.len() >= 6 => meet_logic(o, v(w[4]), v(w[5])),
        _ => Val::Varying,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of `OpSpecConstantOp %bool %r <o> operands...`.
    fn spec_op(o: u16, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![0, 1, 2, o as u32];
        w.extend_from_slice(operands);
        w
    }

    #[test]
    fn module_scope_chain_folds() {
        // %10 true, %11 false, %12 varying, %13 unknown (equal to itself).
        let v = |id: u32| match id {
            10 => Val::Const(true),
            11 => Val::Const(false),
            12 => Val::Varying,
            x => Val::Same(x),
        };
        let fold = |o: u16, ops: &[u32]| fold_spec_constant_op(o, &spec_op(o, ops), v);
        assert_eq!(fold(op::LogicalNot, &[10]), Val::Const(false));
        assert_eq!(fold(op::LogicalNot, &[13]), Val::Varying);
        assert_eq!(fold(op::Select, &[10, 13, 12]), Val::Same(13));
        assert_eq!(fold(op::Select, &[11, 13, 12]), Val::Varying);
        assert_eq!(fold(op::Select, &[13, 10, 10]), Val::Varying);
        assert_eq!(fold(op::Select, &[10, 13]), Val::Varying, "too short");
        assert_eq!(fold(op::LogicalAnd, &[11, 12]), Val::Const(false));
        assert_eq!(fold(op::LogicalOr, &[11, 13]), Val::Same(13));
        assert_eq!(fold(op::LogicalEqual, &[13, 13]), Val::Const(true));
        assert_eq!(fold(op::LogicalAnd, &[10]), Val::Varying, "too short");
    }
}
