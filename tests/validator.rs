//! The tests' validation helpers (`tests/common`) themselves: an invalid
//! output of a valid input fails, an invalid output of an input the
//! validator rejects too does not, and each distinct module is validated
//! once. Skipped, with a note, where no validator is installed (outside CI).

mod common;

use common::{Made, check_outputs, validate_all, validator};

/// A golden input (valid for every SPIRV-Tools version the tests use).
fn valid_module() -> Vec<u8> {
    std::fs::read(common::golden_input("dispatch-chain")).unwrap()
}

/// `bytes` without its last instruction (`OpFunctionEnd`): every
/// validator rejects it.
fn without_function_end(bytes: &[u8]) -> Vec<u8> {
    let end = bytes.len() - 4;
    assert_eq!(
        u32::from_le_bytes(bytes[end..].try_into().unwrap()),
        (1 << 16) | spirv::Op::FunctionEnd as u32
    );
    bytes[..end].to_vec()
}

#[test]
fn an_invalid_output_fails_only_where_the_input_is_valid() {
    let Some(v) = validator() else {
        return;
    };
    let valid = valid_module();
    let invalid = without_function_end(&valid);
    let checked = check_outputs(&[
        Made {
            input: &valid,
            output: &valid,
            what: "valid from valid".into(),
        },
        Made {
            input: &valid,
            output: &invalid,
            what: "invalid from valid".into(),
        },
        Made {
            input: &invalid,
            output: &invalid,
            what: "invalid from invalid".into(),
        },
    ]);
    assert_eq!(checked.invalid.len(), 1, "{v}: {:?}", checked.invalid);
    assert!(
        checked.invalid[0].starts_with("invalid from valid: valid input, invalid output: "),
        "{}",
        checked.invalid[0]
    );
    assert!(checked.invalid[0].contains(&v.version));
    assert_eq!(checked.input_rejected, 1);
    assert_eq!(checked.validated.len(), 2, "two distinct outputs");
}

#[test]
fn each_distinct_module_gets_one_verdict_in_order() {
    if validator().is_none() {
        return;
    }
    let valid = valid_module();
    let invalid = without_function_end(&valid);
    let modules: Vec<&[u8]> = vec![&valid, &invalid, &valid, &invalid, &valid];
    let verdicts = validate_all(&modules);
    let ok: Vec<bool> = verdicts.iter().map(Result::is_ok).collect();
    assert_eq!(ok, [true, false, true, false, true]);
    assert_eq!(verdicts[1], verdicts[3], "one run, one message");
}
