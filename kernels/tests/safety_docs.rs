//! Every `unsafe fn` in `kernels/src` says what its caller must guarantee: a doc
//! block with a `# Safety` section right above it (attributes may sit between).
//!
//! `clippy::missing_safety_doc` checks only public functions; most of this crate's
//! `unsafe fn`s are private or `pub(crate)`, so this scan covers them all. Exempt:
//! methods inside a trait impl (`impl Trait for Type { .. }`), whose contract is the
//! trait declaration's `# Safety` (which this scan does check), and function pointer
//! types (`unsafe fn(..)`), which have no body.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read kernels/src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The line with its `//` comment and string literals blanked, so braces and
/// `unsafe fn` inside them do not count.
fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_str = false,
                _ => {}
            }
            out.push(' ');
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(' ');
            }
            '/' if chars.peek() == Some(&'/') => break,
            // A brace as a char literal ('{', '}') is not a block.
            '\'' if matches!(chars.peek(), Some('{' | '}')) => {
                chars.next();
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The name declared by `unsafe fn NAME` on this code line, if any (a pointer
/// type `unsafe fn(` declares nothing).
fn declared_unsafe_fn(code: &str) -> Option<String> {
    let at = code.find("unsafe fn ")?;
    let rest = &code[at + "unsafe fn ".len()..];
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The `unsafe fn`s of one file's text lacking a `# Safety` doc, as `line: name`.
fn undocumented(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut missing = Vec::new();
    // One entry per open brace: whether it opened a trait impl's body.
    let mut blocks: Vec<bool> = Vec::new();
    // The code since the last `{`, `}` or `;`: the header of the next block.
    let mut header = String::new();
    for (i, line) in lines.iter().enumerate() {
        let code = code_of(line);
        if let Some(name) = declared_unsafe_fn(&code) {
            let in_trait_impl = blocks.last().copied().unwrap_or(false);
            if !in_trait_impl && !has_safety_doc(&lines[..i]) {
                missing.push(format!("{}: {name}", i + 1));
            }
        }
        for c in code.chars() {
            match c {
                '{' => {
                    blocks.push(is_trait_impl(&header));
                    header.clear();
                }
                '}' => {
                    blocks.pop();
                    header.clear();
                }
                ';' => header.clear(),
                _ => header.push(c),
            }
        }
        header.push(' ');
    }
    missing
}

/// Whether a block header is `impl<..> Trait for Type` (not `impl Type`).
fn is_trait_impl(header: &str) -> bool {
    let words: Vec<&str> = header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    match words.iter().position(|w| *w == "impl") {
        Some(at) => words[at + 1..].contains(&"for"),
        None => false,
    }
}

/// Whether the lines above a declaration (attributes skipped) end in a doc block
/// holding a `# Safety` heading.
fn has_safety_doc(above: &[&str]) -> bool {
    let mut i = above.len();
    // Attributes, possibly spread over lines (`#[allow(..)]`, `#[target_feature(..)]`).
    while i > 0 {
        let t = above[i - 1].trim();
        let is_attr = !t.starts_with("///")
            && (t.starts_with("#[") || t.starts_with(')') || t.ends_with(")]"));
        if is_attr {
            i -= 1;
        } else {
            break;
        }
    }
    let mut found = false;
    while i > 0 {
        let t = above[i - 1].trim();
        if let Some(doc) = t.strip_prefix("///") {
            found |= doc.trim() == "# Safety";
            i -= 1;
        } else if t.starts_with("#[doc") || t.starts_with("$(#[$") {
            i -= 1;
        } else {
            break;
        }
    }
    found
}

#[test]
fn every_unsafe_fn_has_a_safety_section() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut report = Vec::new();
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read source");
        checked += text
            .lines()
            .filter(|l| declared_unsafe_fn(&code_of(l)).is_some())
            .count();
        for m in undocumented(&text) {
            report.push(format!(
                "{}:{m}",
                path.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(checked > 100, "the scan found only {checked} unsafe fns");
    assert!(
        report.is_empty(),
        "{} unsafe fn(s) without a `# Safety` doc section:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_scan_sees_what_it_must() {
    let text = "\
/// Does a thing.
///
/// # Safety
/// `p` valid for reads.
#[inline]
unsafe fn ok(p: *const u8) {}

/// No section.
unsafe fn bad() {}

pub type F = unsafe fn(usize);

impl Tr for S {
    unsafe fn from_trait() {}
}

impl S {
    pub(crate) unsafe fn inherent() {}
}

trait Tr {
    /// # Safety
    /// The caller's.
    unsafe fn from_trait();
    fn s(&self) { let c = '{'; }
    unsafe fn undocumented_decl();
}
";
    assert_eq!(
        undocumented(text),
        ["9: bad", "18: inherent", "26: undocumented_decl"]
    );
}
