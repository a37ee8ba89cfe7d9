//! The value parsers clap calls for the tool's options: one size parser for every
//! size (`--buffer`, `--size`), and the counts.

/// `4096`, `16K`, `1M`, `4G`, `1T` (binary multiples: 4G = 4 * 2^30), optionally
/// followed by `iB` or `B`; `None` for anything else or an overflow.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_suffix("iB")
        .or_else(|| s.strip_suffix("ib"))
        .or_else(|| {
            s.strip_suffix('B')
                .filter(|r| r.ends_with(|c: char| c.is_alphabetic()))
        })
        .unwrap_or(s);
    let (digits, shift) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 10),
        'M' => (&s[..s.len() - 1], 20),
        'G' => (&s[..s.len() - 1], 30),
        'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// A size for clap (see [`parse_size`]).
pub fn size(s: &str) -> Result<u64, String> {
    parse_size(s).ok_or_else(|| "not a size (examples: 4096, 16K, 1M, 4G)".to_string())
}

/// `--buffer`: a size from 8 bytes to 1G.
pub fn buffer(s: &str) -> Result<usize, String> {
    match parse_size(s) {
        Some(n) if (8..=1 << 30).contains(&n) => Ok(n as usize),
        _ => Err("needs a size from 8 to 1G (examples: 64K, 1M)".to_string()),
    }
}

/// `--size` of `haystack`: a multiple of 8, at least 8.
pub fn haystack_size(s: &str) -> Result<u64, String> {
    let n = size(s)?;
    if n < 8 || n % 8 != 0 {
        return Err(format!("must be a multiple of 8 and at least 8, not {n}"));
    }
    Ok(n)
}

/// A count of at least 1 (`--threads`, `--index`).
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("needs an integer >= 1".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        for (s, want) in [
            ("4096", Some(4096)),
            ("16K", Some(16 << 10)),
            ("16k", Some(16 << 10)),
            ("1M", Some(1 << 20)),
            ("1MiB", Some(1 << 20)),
            ("1MB", Some(1 << 20)),
            ("4G", Some(4 << 30)),
            ("2T", Some(2 << 40)),
            ("", None),
            ("K", None),
            ("-8", None),
            ("1.5M", None),
            ("4Q", None),
            ("99999999999T", None),
        ] {
            assert_eq!(parse_size(s), want, "{s:?}");
        }
        assert_eq!(haystack_size("16"), Ok(16));
        assert!(haystack_size("12").unwrap_err().contains("multiple of 8"));
        assert!(buffer("2G").is_err() && buffer("4").is_err());
        assert_eq!(at_least_one("3"), Ok(3));
        assert!(at_least_one("0").is_err());
    }
}
