//! `rspv-specialize targets`: the processors of the arch tables.

use rspv_specialize::ArchTables;
use rspv_specialize::arch::Processor;
use serde_json::json;

use super::io::{emit, emit_json, load_tables};
use crate::{Failure, Format, TargetsArgs};

pub(crate) fn run_targets(args: &TargetsArgs) -> Result<(), Failure> {
    let tables = load_tables(args.arch_tables.as_deref())?;
    let procs = display_order(&tables);
    match args.format {
        Format::Json => emit_json(&json!({
            "processors": procs.iter().map(|p| json!({
                "name": p.name,
                "aliases": p.aliases,
                "generation": p.generation,
                "generic": p.generic,
                "covers": p.covers,
                "wavefront_sizes": p.wavefront_sizes,
                "default_wavefront_size": p.default_wavefront_size,
                "target_id_features": p.target_id_features,
                "features": p.features,
            })).collect::<Vec<_>>(),
        })),
        Format::Text => emit(&text_targets(&tables, &procs)),
    }
    .map_err(Failure::from)
}

pub(crate) fn text_targets(tables: &ArchTables, procs: &[&Processor]) -> String {
    let none = |v: String| if v.is_empty() { "-".to_string() } else { v };
    let cells: Vec<[String; 6]> = procs
        .iter()
        .map(|p| {
            let waves = p
                .wavefront_sizes
                .iter()
                .map(|w| {
                    if p.wavefront_sizes.len() > 1 && *w == p.default_wavefront_size {
                        format!("{w}*")
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",");
            let generic = if p.generic {
                format!("covers {}", p.covers.join(","))
            } else {
                "-".to_string()
            };
            [
                p.name.clone(),
                none(p.aliases.join(",")),
                p.generation.clone(),
                waves,
                none(p.target_id_features.join(",")),
                generic,
            ]
        })
        .collect();
    let heads = ["name", "aliases", "gen", "wave", "target-ID", "generic"];
    let mut widths = heads.map(str::len);
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c.iter()) {
            *w = (*w).max(s.len());
        }
    }
    let line = |c: &[&str]| {
        let mut s = String::new();
        for (i, cell) in c.iter().enumerate() {
            if i + 1 == c.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = format!(
        "{} processors, {} builtins (wave: * = default)\n",
        procs.len(),
        tables.builtins().len()
    );
    out.push_str(&line(&heads));
    let mut last_gen: Option<&str> = None;
    for c in &cells {
        if last_gen.is_some_and(|g| g != c[2]) {
            out.push('\n');
        }
        last_gen = Some(&c[2]);
        out.push_str(&line(&c.each_ref().map(String::as_str)));
    }
    out
}

/// Processors in ISA order: by generation, specific processors before
/// generic ones, then by version (`gfx90a` after `gfx909`).
pub(crate) fn display_order(tables: &ArchTables) -> Vec<&Processor> {
    let mut v: Vec<&Processor> = tables.processors().iter().collect();
    v.sort_by_key(|p| {
        (
            number_after_gfx(&p.generation),
            p.generic,
            version_key(&p.name),
            p.name.clone(),
        )
    });
    v
}

/// `gfx12` → 12; anything else sorts last.
pub(crate) fn number_after_gfx(s: &str) -> u32 {
    s.strip_prefix("gfx")
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX)
}

/// `gfx90a` → (9, 0, 10): major, minor, hex stepping; others sort last.
pub(crate) fn version_key(name: &str) -> (u32, u32, u32) {
    let last = (u32::MAX, u32::MAX, u32::MAX);
    let Some(v) = name.strip_prefix("gfx") else {
        return last;
    };
    if v.len() < 3 || !v.is_ascii() {
        return last;
    }
    let (major, rest) = v.split_at(v.len() - 2);
    let mut chars = rest.chars();
    let minor = chars.next().and_then(|c| c.to_digit(10));
    let step = chars.next().and_then(|c| c.to_digit(16));
    match (major.parse(), minor, step) {
        (Ok(ma), Some(mi), Some(st)) => (ma, mi, st),
        _ => last,
    }
}
