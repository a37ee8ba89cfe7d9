//! The `ndsimd` tool's argument parser: any argument vector (arguments split at NUL
//! bytes, not necessarily UTF-8) parses to a command or to a clap error, never a
//! panic; an error renders its message (help and version included) and has the
//! tool's usage statuses, 0 for help and version, 2 for anything else.
//!
//! The tool's own source is included as a module (`src/bin/ndsimd/main.rs`, its
//! `main` never called), so this is the very parser the binary runs, value parsers
//! (sizes, counts) included. Its modules name a few items by `crate::`, which the
//! imports below provide at this crate's root.
#![no_main]

#[path = "../../src/bin/ndsimd/main.rs"]
#[allow(dead_code, unused_imports, unused_macros)]
mod tool;

#[allow(unused_imports)]
use tool::{args, emit, stdout_closed_at_start, target, warn};

use clap::{CommandFactory, Parser};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::sync::Once;

/// More arguments than any command takes: longer vectors only slow the search.
const MAX_ARGS: usize = 24;

fuzz_target!(|data: &[u8]| {
    static CHECKED: Once = Once::new();
    // clap's own consistency checks of the definition (conflicting names, bad
    // defaults), which it otherwise runs only in debug builds.
    CHECKED.call_once(|| tool::Cli::command().debug_assert());

    let argv: Vec<OsString> = std::iter::once(OsString::from("ndsimd"))
        .chain(
            data.split(|&b| b == 0)
                .take(MAX_ARGS)
                .map(|a| OsString::from_vec(a.to_vec())),
        )
        .collect();
    match tool::Cli::try_parse_from(&argv) {
        Ok(_) => {}
        Err(e) => {
            // Help and version go to stdout with status 0; every other outcome
            // (`arg_required_else_help`'s help included) is a usage error, 2.
            use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
            let want = if matches!(e.kind(), DisplayHelp | DisplayVersion) {
                0
            } else {
                2
            };
            assert_eq!(e.exit_code(), want, "{:?} for {argv:?}", e.kind());
            // The binary prints `e.render()` (styled on a terminal): both forms.
            let text = e.render();
            let _ = (text.to_string(), text.ansi().to_string());
        }
    }
});
