//! The `.npy` header: the fixed prefix, and the Python dict literal after it, parsed as
//! `np.load` reads it.

use super::*;

/// The parsed header of a `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) descr: String,
    pub(super) fortran_order: bool,
    pub(super) shape: Vec<usize>,
}

/// Parses the fixed prefix at the start of `bytes` of a file of `len` bytes: where
/// the header starts, its length, and whether it is UTF-8 (else Latin-1). Errors
/// unless the file holds the whole header.
pub(super) fn prefix(bytes: &[u8], len: u64) -> io::Result<(usize, usize, bool)> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(invalid(
            "not a .npy file: it does not start with the magic string \\x93NUMPY",
        ));
    }
    let Some(&[major, minor]) = bytes.get(6..8) else {
        return Err(invalid(
            "truncated .npy file: no format version after the magic string",
        ));
    };
    let (len_bytes, utf8) = match (major, minor) {
        (1, 0) => (2, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => {
            return Err(invalid(format!(
                "unsupported .npy format version {major}.{minor} (supported: 1.0, 2.0, 3.0)"
            )))
        }
    };
    let Some(len_field) = bytes.get(8..8 + len_bytes) else {
        return Err(invalid("truncated .npy file: no header length"));
    };
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let start = 8 + len_bytes;
    let follow = len - start as u64;
    if header_len as u64 > follow {
        return Err(invalid(format!(
            "truncated .npy file: the header is {header_len} bytes long but only {follow} bytes \
             follow the header length"
        )));
    }
    Ok((start, header_len, utf8))
}

/// Splits `bytes` into the parsed header and the data bytes.
pub(super) fn split_header(bytes: &[u8]) -> io::Result<(Header, &[u8])> {
    let (start, header_len, utf8) = prefix(bytes, bytes.len() as u64)?;
    let header_bytes = &bytes[start..start + header_len];
    let header_text: std::borrow::Cow<'_, str> = if utf8 {
        std::str::from_utf8(header_bytes)
            .map_err(|e| invalid(format!("bad .npy header: not valid UTF-8 ({e})")))?
            .into()
    } else {
        // Latin-1: every byte is one char.
        header_bytes
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into()
    };
    let header = parse_header(&header_text)?;
    Ok((header, &bytes[start + header_len..]))
}

/// The descr NumPy reads `descr` as, if it is one of ours ('<f8', '>f8', '<f4',
/// '>f4', '<i4', '>i4', '<i8', '>i8', '|u1', '|b1'): every spelling `np.load` accepts for them (NumPy 2.4, whose
/// `np.dtype` reads a missing, `=` or `|` byte order as the machine's).
pub(super) fn canonical_descr(descr: &str) -> Option<&'static str> {
    let native = |le, be| if cfg!(target_endian = "big") { be } else { le };
    Some(match descr {
        "<f8" | "<d" => "<f8",
        ">f8" | ">d" => ">f8",
        "=f8" | "|f8" | "f8" | "=d" | "|d" | "d" | "float64" | "float" | "double" => {
            native("<f8", ">f8")
        }
        "<f4" | "<f" => "<f4",
        ">f4" | ">f" => ">f4",
        "=f4" | "|f4" | "f4" | "=f" | "|f" | "f" | "float32" | "single" => native("<f4", ">f4"),
        "|b1" | "<b1" | ">b1" | "=b1" | "b1" | "?" | "|?" | "<?" | ">?" | "=?" | "bool"
        | "bool_" => "|b1",
        "<i4" | "<i" => "<i4",
        ">i4" | ">i" => ">i4",
        "=i4" | "|i4" | "i4" | "=i" | "|i" | "i" | "int32" | "intc" => native("<i4", ">i4"),
        "<i8" | "<q" => "<i8",
        ">i8" | ">q" => ">i8",
        "=i8" | "|i8" | "i8" | "=q" | "|q" | "q" | "int64" | "longlong" => native("<i8", ">i8"),
        "|u1" | "<u1" | ">u1" | "=u1" | "u1" | "B" | "|B" | "<B" | ">B" | "=B" | "uint8"
        | "ubyte" => "|u1",
        // C `long` and `intp` (NumPy's default integer): their size is the platform's.
        "<l" | ">l" | "=l" | "|l" | "l" | "long" | "<p" | ">p" | "=p" | "|p" | "p" | "intp"
        | "int" | "int_" => {
            let size = if matches!(descr.trim_start_matches(['<', '>', '=', '|']), "l" | "long") {
                std::mem::size_of::<std::ffi::c_long>()
            } else {
                std::mem::size_of::<usize>()
            };
            let little = match descr.as_bytes()[0] {
                b'<' => true,
                b'>' => false,
                _ => cfg!(target_endian = "little"),
            };
            match (size, little) {
                (8, true) => "<i8",
                (8, false) => ">i8",
                (_, true) => "<i4",
                (_, false) => ">i4",
            }
        }
        _ => return None,
    })
}

/// NumPy's name of a canonical descr.
pub(super) fn descr_name(canonical: &str) -> &'static str {
    match canonical {
        "<f8" | ">f8" => "float64",
        "<f4" | ">f4" => "float32",
        "<i4" | ">i4" => "int32",
        "<i8" | ">i8" => "int64",
        "|u1" => "uint8",
        _ => "bool",
    }
}

/// A value of the Python literal subset used in `.npy` headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PyValue {
    Str(String),
    Bool(bool),
    Int(u64),
    Tuple(Vec<PyValue>),
    /// Anything else that parses (lists, dicts, None, negative ints): rejected by the caller.
    Other(&'static str),
}

pub(super) struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

pub(super) fn header_err(msg: impl std::fmt::Display) -> io::Error {
    invalid(format!("bad .npy header: {msg}"))
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(&c) = self.s.get(self.pos) {
            // Python's whitespace, form feed included.
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> io::Result<()> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(header_err(format!(
                "expected '{}' at byte {} but found '{}'",
                char::from(c),
                self.pos,
                char::from(x).escape_default()
            ))),
            None => Err(header_err(format!(
                "expected '{}' but the header ended",
                char::from(c)
            ))),
        }
    }

    fn value(&mut self, depth: usize) -> io::Result<PyValue> {
        if depth > 32 {
            return Err(header_err("nested too deeply"));
        }
        match self.peek() {
            None => Err(header_err("expected a value but the header ended")),
            Some(q @ (b'\'' | b'"')) => {
                self.pos += 1;
                let start = self.pos;
                while let Some(&c) = self.s.get(self.pos) {
                    if c == q {
                        let text = std::str::from_utf8(&self.s[start..self.pos])
                            .map_err(|_| header_err("a string is not valid text"))?;
                        self.pos += 1;
                        return Ok(PyValue::Str(text.to_owned()));
                    }
                    if c == b'\\' || c == b'\n' {
                        return Err(header_err(
                            "escape sequences and line breaks in strings are not supported",
                        ));
                    }
                    self.pos += 1;
                }
                Err(header_err("unterminated string"))
            }
            Some(open @ (b'(' | b'[' | b'{')) => {
                self.pos += 1;
                let close = match open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    let item = self.value(depth + 1)?;
                    if open == b'{' {
                        self.expect(b':')?;
                        self.value(depth + 1)?;
                    }
                    items.push(item);
                    match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            trailing_comma = true;
                        }
                        Some(c) if c == close => {
                            trailing_comma = false;
                        }
                        _ => {
                            return Err(header_err(format!(
                                "expected ',' or '{}' at byte {}",
                                char::from(close),
                                self.pos
                            )))
                        }
                    }
                }
                Ok(match open {
                    // `(3)` is the int 3 in Python, not a tuple.
                    b'(' if items.len() == 1 && !trailing_comma => {
                        items.pop().unwrap_or(PyValue::Other(""))
                    }
                    b'(' => PyValue::Tuple(items),
                    b'[' => PyValue::Other("a list"),
                    _ => PyValue::Other("a dict"),
                })
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let neg = c == b'-';
                if c == b'-' || c == b'+' {
                    self.pos += 1;
                    self.skip_ws();
                }
                let n = self.int()?;
                Ok(if neg && n != 0 {
                    PyValue::Other("a negative integer")
                } else {
                    PyValue::Int(n)
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while self
                    .s
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(PyValue::Bool(true)),
                    b"False" => Ok(PyValue::Bool(false)),
                    b"None" => Ok(PyValue::Other("None")),
                    other => Err(header_err(format!(
                        "unexpected name '{}'",
                        String::from_utf8_lossy(other)
                    ))),
                }
            }
            Some(c) => Err(header_err(format!(
                "unexpected character '{}' at byte {}",
                char::from(c).escape_default(),
                self.pos
            ))),
        }
    }

    /// An integer literal as Python 3 writes one (what `np.load`'s `literal_eval`
    /// reads): decimal without leading zeros (`0` and `00` are zero, `02` is an
    /// error), `0x`/`0o`/`0b` with their digits, single `_` between digits; then
    /// the Python 2 long suffix `L` NumPy drops from old files (its filter takes it
    /// as a separate token, so `2 L` too, but not `2l`).
    fn int(&mut self) -> io::Result<u64> {
        let start = self.pos;
        let rest = &self.s[start..];
        let radix = match rest {
            [b'0', b'x' | b'X', ..] => 16,
            [b'0', b'o' | b'O', ..] => 8,
            [b'0', b'b' | b'B', ..] => 2,
            _ => 10,
        };
        let mut i = if radix == 10 { 0 } else { 2 };
        let mut digits = String::new();
        // Python allows one `_` after the radix prefix, and between digits.
        let mut after_underscore = radix != 10 && rest.get(i) == Some(&b'_');
        if after_underscore {
            i += 1;
        }
        while let Some(&c) = rest.get(i) {
            if char::from(c).is_digit(radix) {
                digits.push(char::from(c));
                after_underscore = false;
            } else if c == b'_' && !after_underscore && !digits.is_empty() {
                after_underscore = true;
            } else {
                break;
            }
            i += 1;
        }
        let bad = |what: &str| {
            header_err(format!(
                "invalid integer literal '{}' at byte {start} ({what})",
                String::from_utf8_lossy(&rest[..(i + 1).min(rest.len())])
            ))
        };
        if digits.is_empty() {
            return Err(bad("no digits"));
        }
        if after_underscore {
            return Err(bad("a trailing '_'"));
        }
        if radix == 10
            && digits.len() > 1
            && digits.starts_with('0')
            && digits.contains(|c| c != '0')
        {
            return Err(bad("leading zeros, which Python does not allow"));
        }
        if rest
            .get(i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            // Only the `L` suffix may follow, and it is checked below.
            if rest.get(i) != Some(&b'L') {
                return Err(bad("not a Python integer"));
            }
        }
        self.pos += i;
        // Python 2 long suffix, as written by old NumPy versions.
        let save = self.pos;
        self.skip_ws();
        let is_ident = |c: Option<&u8>| c.is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_');
        if self.s.get(self.pos) == Some(&b'L') && !is_ident(self.s.get(self.pos + 1)) {
            self.pos += 1;
        } else {
            self.pos = save;
        }
        u64::from_str_radix(&digits, radix)
            .map_err(|_| header_err(format!("integer {digits} is too large")))
    }

    /// Parses the top-level dict: `{'key': value, ...}` followed only by whitespace.
    fn dict(&mut self) -> io::Result<Vec<(String, PyValue)>> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = match self.value(1)? {
                PyValue::Str(k) => k,
                other => return Err(header_err(format!("dict key {other:?} is not a string"))),
            };
            self.expect(b':')?;
            let value = self.value(1)?;
            entries.push((key, value));
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => {
                    return Err(header_err(format!(
                        "expected ',' or '}}' at byte {}",
                        self.pos
                    )))
                }
            }
        }
        if self.peek().is_some() {
            return Err(header_err(format!(
                "unexpected text after the dict at byte {}",
                self.pos
            )));
        }
        Ok(entries)
    }
}

/// Parses the header dict: exactly the keys `descr`, `fortran_order` and `shape`.
pub(super) fn parse_header(text: &str) -> io::Result<Header> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let entries = p.dict()?;
    // As a Python dict literal: a repeated key keeps its last value.
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, value) in entries {
        match key.as_str() {
            "descr" => descr = Some(value),
            "fortran_order" => fortran_order = Some(value),
            "shape" => shape = Some(value),
            other => return Err(header_err(format!("unexpected key '{other}'"))),
        }
    }
    let (Some(descr), Some(fortran_order), Some(shape)) = (descr, fortran_order, shape) else {
        return Err(header_err(
            "missing key: 'descr', 'fortran_order' and 'shape' are required",
        ));
    };
    let descr = match descr {
        PyValue::Str(s) => s,
        v => {
            return Err(header_err(format!(
                "unsupported 'descr' {v:?} (supported: a string naming float64, float32, int64, int32, uint8 or bool)"
            )))
        }
    };
    let fortran_order = match fortran_order {
        PyValue::Bool(b) => b,
        v => {
            return Err(header_err(format!(
                "'fortran_order' must be True or False, not {v:?}"
            )))
        }
    };
    let PyValue::Tuple(items) = shape else {
        return Err(header_err(format!(
            "'shape' must be a tuple, not {shape:?}"
        )));
    };
    let mut dims = Vec::with_capacity(items.len());
    for item in items {
        match item {
            PyValue::Int(n) => dims.push(
                usize::try_from(n)
                    .map_err(|_| header_err(format!("dimension {n} in 'shape' is too large")))?,
            ),
            other => {
                return Err(header_err(format!(
                    "'shape' must be a tuple of non-negative integers, found {other:?}"
                )))
            }
        }
    }
    Ok(Header {
        descr,
        fortran_order,
        shape: dims,
    })
}
