//! Clang's required-features expressions, the text after `has.`.
//!
//! Grammar (clang `evaluateRequiredTargetFeatures`, BuiltinTargetFeatures.h):
//! `,` is AND, `|` is OR, `,` binds tighter than `|`, parentheses group, and
//! an empty expression is true. A feature name is looked up in the target's
//! feature set; a name the set lacks (including one we have never heard of)
//! is false. Like clang, empty terms (`a,,b`) are skipped.
//!
//! Parsing is iterative over the text with an explicit nesting limit, so
//! hostile input cannot overflow the stack.

/// How deep parentheses may nest.
pub const MAX_DEPTH: usize = 64;

/// Evaluates `expr` with `has(feature)` telling which features are present.
/// Errors describe malformed expressions (unbalanced parentheses, too deep).
pub fn evaluate(expr: &str, has: &dyn Fn(&str) -> bool) -> Result<bool, String> {
    // One frame per open parenthesis: (value of the OR so far, value of the
    // current AND chain).
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let (mut any, mut all) = (false, true);
    let mut start = 0;
    let bytes = expr.as_bytes();
    let mut after_group = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' => {
                if i != start {
                    return Err(format!("`(` at column {} follows a feature name", i + 1));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("parentheses nest deeper than {MAX_DEPTH}"));
                }
                stack.push((any, all));
                (any, all) = (false, true);
                start = i + 1;
            }
            b')' | b',' | b'|' => {
                let term = &expr[start..i];
                if !term.is_empty() {
                    if after_group {
                        return Err(format!("`{term}` follows `)` without an operator"));
                    }
                    all &= has(term);
                }
                after_group = false;
                start = i + 1;
                match c {
                    b',' => {}
                    b'|' => {
                        any |= all;
                        all = true;
                    }
                    _ => {
                        let Some((outer_any, outer_all)) = stack.pop() else {
                            return Err(format!("unmatched `)` at column {}", i + 1));
                        };
                        let group = any | all;
                        (any, all) = (outer_any, outer_all & group);
                        after_group = true;
                    }
                }
            }
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err("unmatched `(`".to_string());
    }
    let term = &expr[start..];
    if !term.is_empty() {
        if after_group {
            return Err(format!("`{term}` follows `)` without an operator"));
        }
        all &= has(term);
    }
    Ok(any | all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(expr: &str, set: &[&str]) -> bool {
        evaluate(expr, &|f| set.contains(&f)).unwrap()
    }

    #[test]
    fn empty_is_true() {
        assert!(eval("", &[]));
    }

    #[test]
    fn single_and_missing() {
        assert!(eval("mai-insts", &["mai-insts"]));
        assert!(!eval("mai-insts", &["dot1-insts"]));
        assert!(!eval("never-heard-of-it", &["mai-insts"]));
    }

    #[test]
    fn comma_is_and() {
        assert!(eval("a,b", &["a", "b"]));
        assert!(!eval("a,b", &["a"]));
        assert!(!eval("a,b", &["b"]));
    }

    #[test]
    fn bar_is_or() {
        assert!(eval("a|b", &["b"]));
        assert!(eval("a|b", &["a"]));
        assert!(!eval("a|b", &["c"]));
    }

    #[test]
    fn comma_binds_tighter() {
        // (a and b) or c
        assert!(eval("a,b|c", &["c"]));
        assert!(!eval("a,b|c", &["a"]));
        assert!(eval("a,b|c", &["a", "b"]));
        // a or (b and c)
        assert!(eval("a|b,c", &["a"]));
        assert!(!eval("a|b,c", &["b"]));
    }

    #[test]
    fn parentheses_group() {
        assert!(eval("a,(b|c)", &["a", "c"]));
        assert!(!eval("a,(b|c)", &["b", "c"]));
        assert!(eval("(a|b),(c|d)", &["b", "d"]));
        assert!(!eval("(a|b),(c|d)", &["b"]));
        assert!(eval("((a))", &["a"]));
    }

    #[test]
    fn empty_terms_are_skipped_like_clang() {
        assert!(eval("a,,b", &["a", "b"]));
        assert!(eval("a,", &["a"]));
    }

    #[test]
    fn malformed() {
        let has = |_: &str| true;
        assert!(evaluate("(a", &has).unwrap_err().contains("unmatched `(`"));
        assert!(evaluate("a)", &has).unwrap_err().contains("unmatched `)`"));
        assert!(
            evaluate("a(b)", &has)
                .unwrap_err()
                .contains("follows a feature")
        );
        assert!(evaluate("(a)b", &has).unwrap_err().contains("follows `)`"));
        let deep = "(".repeat(100_000) + &")".repeat(100_000);
        assert!(evaluate(&deep, &has).unwrap_err().contains("deeper"));
    }
}
