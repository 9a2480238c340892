//! Numeric literals as spirv-dis prints them.
//!
//! Integers print in decimal, signed or not as their type says, from one
//! word or two (low word first). 32- and 64-bit floats that are zero or
//! normal print like C++'s `ostream << value` at `max_digits10` precision
//! (the `%g` style: `0.100000001`, `1e+10`, `-0`); subnormals, infinities
//! and NaNs print as hex floats (`0x1p+128`), and so does every value of the
//! narrower float types (half, bfloat16, fp8), as SPIRV-Tools' `FloatProxy`
//! does.

/// The layout of a floating-point type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FloatFormat {
    /// Exponent bits.
    exponent: u32,
    /// Fraction (mantissa) bits, the implicit bit not counted.
    fraction: u32,
}

impl FloatFormat {
    /// IEEE 754 binary16.
    pub(super) const HALF: Self = Self::new(5, 10);
    /// IEEE 754 binary32.
    pub(super) const SINGLE: Self = Self::new(8, 23);
    /// IEEE 754 binary64.
    pub(super) const DOUBLE: Self = Self::new(11, 52);
    /// bfloat16 (`BFloat16KHR`).
    pub(super) const BFLOAT16: Self = Self::new(8, 7);
    /// 8-bit E4M3 (`Float8E4M3EXT`).
    pub(super) const E4M3: Self = Self::new(4, 3);
    /// 8-bit E5M2 (`Float8E5M2EXT`).
    pub(super) const E5M2: Self = Self::new(5, 2);

    const fn new(exponent: u32, fraction: u32) -> Self {
        Self { exponent, fraction }
    }
}

/// An integer literal of one word.
pub(super) fn int32(word: u32, signed: bool) -> String {
    if signed {
        (word as i32).to_string()
    } else {
        word.to_string()
    }
}

/// An integer literal of two words (`value` assembled low word first).
pub(super) fn int64(value: u64, signed: bool) -> String {
    if signed {
        (value as i64).to_string()
    } else {
        value.to_string()
    }
}

/// A float literal whose encoding is `bits` (in the low bits) in `format`.
pub(super) fn float(bits: u64, format: FloatFormat) -> String {
    match format {
        FloatFormat::SINGLE => {
            let v = f32::from_bits(bits as u32);
            if v == 0.0 || v.is_normal() {
                return general(f64::from(v), 9);
            }
        }
        FloatFormat::DOUBLE => {
            let v = f64::from_bits(bits);
            if v == 0.0 || v.is_normal() {
                return general(v, 17);
            }
        }
        _ => {}
    }
    hex(bits, format)
}

/// `v` as C's `%.{precision}g`: the shorter of fixed and scientific
/// notation at `precision` significant digits, trailing zeros removed.
fn general(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let scientific = format!("{:.*e}", precision - 1, v);
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` formatting has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponents are integers");
    if exponent < -4 || exponent >= precision as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            strip_fraction_zeros(mantissa),
            exponent.unsigned_abs()
        )
    } else {
        let decimals = (precision as i32 - 1 - exponent) as usize;
        strip_fraction_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

/// Removes trailing zeros after a decimal point, and the point if nothing
/// follows it.
fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `bits` as a hex float (`-0x1.8p+1`), as SPIRV-Tools' `HexFloat` prints
/// it: the fraction in whole nibbles with trailing zero nibbles dropped,
/// subnormals normalized, and the biased exponent field taken at face value
/// for infinities and NaNs (`0x1p+128`, `0x1.8p+128`).
fn hex(bits: u64, format: FloatFormat) -> String {
    let FloatFormat { exponent, fraction } = format;
    let negative = (bits >> (exponent + fraction)) & 1 == 1;
    let biased = ((bits >> fraction) & ((1 << exponent) - 1)) as i64;
    let bias = (1i64 << (exponent - 1)) - 1;
    let mut nibbles = fraction.div_ceil(4);
    let field_bits = nibbles * 4;
    let mut frac = (bits & ((1 << fraction) - 1)) << (field_bits - fraction);
    let is_zero = biased == 0 && frac == 0;
    let mut e = if is_zero { 0 } else { biased - bias };
    if biased == 0 && !is_zero {
        // Subnormal: shift until the leading one is the top bit of the
        // field, then drop it (it becomes the implicit `1.`).
        let top = 1u64 << (field_bits - 1);
        while frac & top == 0 {
            frac <<= 1;
            e -= 1;
        }
        frac = (frac << 1) & ((1u64 << field_bits) - 1);
    }
    while nibbles > 0 && frac & 0xf == 0 {
        frac >>= 4;
        nibbles -= 1;
    }
    let sign = if negative { "-" } else { "" };
    let lead = if is_zero { '0' } else { '1' };
    let dot = if nibbles > 0 {
        format!(".{frac:0width$x}", width = nibbles as usize)
    } else {
        String::new()
    };
    format!("{sign}0x{lead}{dot}p{e:+}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: f32) -> String {
        float(u64::from(v.to_bits()), FloatFormat::SINGLE)
    }

    fn f64s(v: f64) -> String {
        float(v.to_bits(), FloatFormat::DOUBLE)
    }

    #[test]
    fn single_precision_prints_like_spirv_dis() {
        assert_eq!(f32s(0.1), "0.100000001");
        assert_eq!(f32s(1e10), "1e+10");
        assert_eq!(f32s(-0.0), "-0");
        assert_eq!(f32s(100.0), "100");
        assert_eq!(f32s(123456789.0), "123456792");
        assert_eq!(f32s(1e-5), "9.99999975e-06");
        assert_eq!(f32s(1e-4), "9.99999975e-05");
        assert_eq!(f32s(1e16), "1.00000003e+16");
        assert_eq!(f32s(f32::MAX), "3.40282347e+38");
        assert_eq!(f32s(f32::INFINITY), "0x1p+128");
        assert_eq!(f32s(f32::from_bits(0xffc0_0000)), "-0x1.8p+128");
        assert_eq!(f32s(f32::from_bits(1 << 9)), "0x1p-140");
    }

    #[test]
    fn double_precision_prints_like_spirv_dis() {
        assert_eq!(f64s(0.1), "0.10000000000000001");
        assert_eq!(f64s(1e300), "1.0000000000000001e+300");
        assert_eq!(f64s(123456.789), "123456.789");
        assert_eq!(f64s(1e17), "1e+17");
        assert_eq!(f64s(2.2250738585072014e-308), "2.2250738585072014e-308");
        assert_eq!(f64s(-f64::from_bits(1)), "-0x1p-1074");
        assert_eq!(
            f64s(f64::from_bits(0x7ff0_0000_0000_0001)),
            "0x1.0000000000001p+1024"
        );
    }

    #[test]
    fn narrow_floats_print_as_hex() {
        assert_eq!(float(0x3e00, FloatFormat::HALF), "0x1.8p+0");
        assert_eq!(float(0x8010, FloatFormat::HALF), "-0x1p-20");
        assert_eq!(float(0x3fc0, FloatFormat::BFLOAT16), "0x1.8p+0");
        assert_eq!(float(0x3c, FloatFormat::E4M3), "0x1.8p+0");
        assert_eq!(float(0xc0, FloatFormat::E5M2), "-0x1p+1");
        assert_eq!(float(0, FloatFormat::HALF), "0x0p+0");
    }

    #[test]
    fn integers_by_width_and_signedness() {
        assert_eq!(int32(0xffff_fffb, true), "-5");
        assert_eq!(int32(0xffff_fffb, false), "4294967291");
        assert_eq!(int64(1 << 63, true), "-9223372036854775808");
        assert_eq!(int64(u64::MAX, false), "18446744073709551615");
    }
}
