//! JSON numbers written the way JavaScript's `JSON.stringify` writes them: the CLI's
//! `--json` outputs and the send gate's canonical digest both need this one layout.

use std::fmt::Write;

/// `JSON.stringify(x)` for a number: shortest round-trip digits laid out as
/// ECMAScript's Number::toString does; non-finite numbers become `null`.
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "null".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    // `{:e}` gives the shortest round-trip digits: "d.ddde-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let e: i64 = exp.parse().unwrap_or(0);
    let k = i64::try_from(digits.len()).unwrap_or(1);
    let n = e.saturating_add(1);
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        for _ in 0..n.saturating_sub(k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0).min(digits.len()));
        let _ = write!(out, "{int}.{frac}");
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..n.unsigned_abs() {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            let _ = write!(out, ".{rest}");
        }
        let e = n.saturating_sub(1);
        let _ = write!(
            out,
            "e{}{}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_javascript() {
        for (x, js) in [
            (0.8, "0.8"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (100.0, "100"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::INFINITY, "null"),
        ] {
            assert_eq!(number(x), js, "{x}");
        }
    }
}
