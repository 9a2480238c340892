//! Unresolved uses as people read them: the function, block and
//! instruction, and the predicates (name and SpecId) behind the value, found
//! by walking its definitions back to the predicate call sites.

use crate::error::UnresolvedUse;
use crate::fastmap::{Map as HashMap, Set as HashSet};
use crate::globals::Globals;
use crate::module::Module;
use crate::table::PredicateTable;

use super::context::Context;

/// Turns a bad use into the message parts people need.
#[allow(clippy::too_many_arguments)]
pub(super) fn describe(
    m: &Module<'_>,
    g: &Globals,
    table: &PredicateTable,
    ctx: &Context<'_>,
    function: Option<u32>,
    block: Option<u32>,
    inst: crate::module::Inst,
    value: u32,
    local_defs: &HashMap<u32, crate::module::Inst>,
) -> UnresolvedUse {
    // Walk back from the value to the predicate sites behind it.
    let mut sites: Vec<u32> = Vec::new();
    let mut seen: HashSet<u32> = HashSet::default();
    let mut stack = vec![value];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if ctx.site_value.contains(id) {
            sites.push(id);
            continue;
        }
        let def = local_defs.get(&id).copied().or_else(|| g.defs.get(id));
        if let Some(d) = def {
            let w = m.inst_words(d);
            let _ = crate::operands::for_each_id(w, d.byte_offset(), &|_| 1, &mut |pos, role| {
                if role == crate::operands::Role::Use {
                    stack.push(w[pos]);
                }
            });
        }
    }
    let mut predicates: Vec<(String, u32)> = table
        .predicates
        .iter()
        .filter(|p| p.sites.iter().any(|s| sites.contains(s)))
        .map(|p| (p.name.clone(), p.spec_id))
        .collect();
    predicates.sort_by_key(|p| p.1);
    UnresolvedUse {
        function: match function {
            Some(f) => g.function_name(f),
            None => "module scope".to_string(),
        },
        block: block.map(|b| g.display_id(b)),
        instruction: crate::disasm::text(m.inst_words(inst), g),
        offset: inst.byte_offset(),
        predicates,
    }
}
