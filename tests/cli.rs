//! The `ndsimd` binary's file-scan subcommands: exit codes as grep's (0 found,
//! 1 not found, 2 error), messages that name the file, and answers equal to the
//! library's reference.

mod common;

use common::TempDir;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ndsimd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndsimd"))
        .args(args)
        .output()
        .expect("the ndsimd binary runs")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn scan_found_and_not_found() {
    let dir = TempDir::new("cli", "scan");
    let mut data = vec![0u8; 100_003];
    data[77_777] = 1;
    let found = dir.file("found", &data);
    let none = dir.file("none", &[0u8; 4099]);
    for extra in [
        &[][..],
        &["--strategy", "mmap"],
        &["--threads", "1"],
        &["--strategy=pread", "--threads=3", "--buffer", "4K"],
    ] {
        let mut args = vec!["scan", p(&found)];
        args.extend_from_slice(extra);
        let o = ndsimd(&args);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "found at offset 77776\n");
        assert!(stderr(&o).contains("GB/s"), "{}", stderr(&o));

        let mut args = vec!["scan", p(&none)];
        args.extend_from_slice(extra);
        let o = ndsimd(&args);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "not found\n");
    }
}

/// `len` bytes of lines of `width - 1` letters and a newline.
fn lines_of(len: usize, width: usize) -> Vec<u8> {
    (0..len)
        .map(|i| if i % width == width - 1 { b'\n' } else { b'y' })
        .collect()
}

/// The default strategy, `auto`: mapped when the file is cached, `pread` when not;
/// the JSON names the one used.
#[cfg(target_os = "linux")]
#[test]
fn auto_reports_the_strategy_it_used() {
    let dir = TempDir::new("cli", "auto");
    let f = dir.file("log", &lines_of(3 << 20, 50));
    let file = fs::File::open(&f).unwrap();
    for args in [
        &["lines", "--json", p(&f)][..],
        &["lines", "--json", "--strategy=auto", p(&f)],
    ] {
        if !common::evicted(&file) {
            return;
        }
        let o = ndsimd(args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains("\"lines\":62914,"), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("\"strategy\":\"pread\""),
            "cold: {}",
            stdout(&o)
        );
        let o = ndsimd(args);
        assert!(stdout(&o).contains("\"lines\":62914,"), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("\"strategy\":\"mmap\""),
            "cached: {}",
            stdout(&o)
        );
    }
    let o = ndsimd(&["scan", p(&f)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("(mmap, "), "{}", stderr(&o));
}

/// A file truncated while `lines` reads it mapped: an error exit that says so, never
/// a death by SIGBUS. The file is truncated as soon as the child has it mapped (seen
/// in /proc/PID/maps), while the index (every line, which does not ask for its pages
/// ahead) reads it: the read past the new end faults, and the handler the tool
/// installed turns that into the message and exit 2.
#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_under_the_map_is_an_error_exit() {
    use std::os::unix::process::ExitStatusExt;
    let dir = TempDir::new("cli", "truncated");
    let src = dir.file("src", &lines_of(64 << 20, 31));
    let mut signalled = 0;
    for attempt in 0..6 {
        let f = dir.0.join(format!("log{attempt}"));
        fs::copy(&src, &f).unwrap();
        let idx = dir.0.join("idx");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ndsimd"))
            .args([
                "lines",
                p(&f),
                "--strategy",
                "mmap",
                "--threads",
                "1",
                "--index",
                "1",
            ])
            .arg("--index-out")
            .arg(&idx)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let maps = format!("/proc/{}/maps", child.id());
        let started = std::time::Instant::now();
        while !fs::read_to_string(&maps).is_ok_and(|m| m.contains(p(&f))) {
            assert!(
                started.elapsed().as_secs() < 30,
                "the file was never mapped"
            );
            if child.try_wait().unwrap().is_some() {
                break;
            }
        }
        fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(4096)
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.signal(), None, "killed: {:?} {err}", o.status);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("changed size"), "{err}");
        assert!(!idx.exists(), "a partial index was left");
        signalled += usize::from(err.contains("truncated under its memory map"));
        fs::remove_file(&f).unwrap();
    }
    // The point of the test: the fault itself was met (and handled) at least once.
    assert!(
        signalled > 0,
        "no attempt faulted; the timing did not catch the read"
    );
}

#[test]
fn scan_json_is_one_object_line() {
    let dir = TempDir::new("cli", "json");
    let mut data = vec![0u8; 64];
    data[40] = 1;
    let f = dir.file("with \"quotes\"", &data);
    let o = ndsimd(&["scan", "--json", p(&f)]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let want_file = p(&f).replace('"', "\\\"");
    assert!(
        out.starts_with(&format!(
            "{{\"file\":\"{want_file}\",\"found\":true,\"offset\":40,\"bytes\":48,"
        )),
        "{out}"
    );
    assert!(out.ends_with("}\n") && out.lines().count() == 1, "{out}");
    assert!(
        out.contains("\"gbps\":") && out.contains("\"seconds\":"),
        "{out}"
    );

    let none = dir.file("none", &[0u8; 64]);
    let o = ndsimd(&["scan", p(&none), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("\"found\":false,\"offset\":null,\"bytes\":64,"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn scan_errors_exit_2_with_the_path() {
    let dir = TempDir::new("cli", "errors");
    let missing = dir.0.join("missing.bin");
    for cmd in ["scan", "lines"] {
        let o = ndsimd(&[cmd, p(&missing)]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(stderr(&o).contains(p(&missing)), "{cmd}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());

        let o = ndsimd(&[cmd, p(&dir.0)]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = stderr(&o);
        assert!(
            err.contains(p(&dir.0)) && err.contains("is a directory"),
            "{err}"
        );
    }
}

#[test]
fn bad_options_exit_2_with_a_message() {
    let dir = TempDir::new("cli", "opts");
    let f = dir.file("f", &[0u8; 8]);
    // clap's messages: the offending argument and what was expected.
    let cases: &[(&[&str], &str)] = &[
        (&["scan", p(&f), "--bogus"], "unexpected argument '--bogus'"),
        (
            &["scan", p(&f), "--strategy", "bogus"],
            "[possible values: auto, pread, mmap, direct]",
        ),
        (&["lines", p(&f), "--index", "0"], "needs an integer >= 1"),
        (&["lines", p(&f), "--index", "x"], "needs an integer >= 1"),
        (&["lines", p(&f), "--index-out", "o"], "--index <EVERY>"),
        (
            &["scan", p(&f), "--index", "2"],
            "unexpected argument '--index'",
        ),
        (&["scan", p(&f), "--threads", "0"], "--threads"),
        (
            &["scan", p(&f), "--threads"],
            "a value is required for '--threads",
        ),
        (&["scan", p(&f), "--buffer", "3"], "--buffer"),
        (&["scan"], "required arguments were not provided"),
        (&["scan", p(&f), p(&f)], "unexpected argument"),
        (
            &["scan", p(&f), "--json=yes"],
            "unexpected value 'yes' for '--json'",
        ),
        (&["lines", p(&f), "-x"], "unexpected argument '-x'"),
        (
            &["lines", p(&f), "--size", "8"],
            "unexpected argument '--size'",
        ),
        (
            &["haystack", p(&f), "--threads", "2"],
            "unexpected argument",
        ),
        (
            &["no-such-command"],
            "unrecognized subcommand 'no-such-command'",
        ),
        // Once the top-level help: a bench flag is the bench's error.
        (&["bench", "--bogus"], "unexpected argument '--bogus'"),
        (&["bench", "--filter"], "a value is required for '--filter"),
        (&["bench", "--threads", "0"], "needs an integer >= 1"),
        (&["completions", "tcsh"], "invalid value 'tcsh'"),
    ];
    for (args, msg) in cases {
        let o = ndsimd(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        // clap's pointer to the help, not the top-level help itself.
        assert!(
            stderr(&o).contains("For more information, try '--help'")
                && !stderr(&o).contains("Commands:"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn help_for_each_subcommand() {
    for (cmd, needle) in [
        ("scan", "[possible values: auto, pread, mmap, direct]"),
        ("lines", "wc -l"),
        ("haystack", "--size <SIZE>"),
        // Help, not a minute of timing.
        ("bench", "--compare"),
        ("info", "--json"),
        (
            "completions",
            "[possible values: bash, elvish, fish, powershell, zsh]",
        ),
    ] {
        for flag in ["--help", "-h"] {
            let o = ndsimd(&[cmd, flag]);
            assert_eq!(o.status.code(), Some(0), "{cmd} {flag}");
            assert!(stdout(&o).contains(needle), "{cmd} {flag}: {}", stdout(&o));
            assert!(stdout(&o).contains(&format!("Usage: ndsimd {cmd}")));
        }
    }
    for args in [&["--help"][..], &["help"]] {
        let o = ndsimd(args);
        assert_eq!(o.status.code(), Some(0));
        for word in [
            "scan",
            "lines",
            "haystack",
            "bench",
            "info",
            "completions",
            "Exit status",
        ] {
            assert!(stdout(&o).contains(word), "{word}");
        }
    }
    // No command: the help, on stderr, and status 2.
    let o = ndsimd(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Usage: ndsimd <COMMAND>"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn version_flag() {
    for flag in ["--version", "-V"] {
        let o = ndsimd(&[flag]);
        assert_eq!(o.status.code(), Some(0), "{flag}");
        assert_eq!(
            stdout(&o),
            format!("ndsimd {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn completions_for_each_shell() {
    for (shell, needle) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef ndsimd"),
        ("fish", "complete -c ndsimd"),
    ] {
        let o = ndsimd(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let out = stdout(&o);
        assert!(out.contains(needle), "{shell}: {out}");
        // The subcommands and their flags are in the script.
        assert!(
            out.contains("haystack") && out.contains("strategy"),
            "{shell}"
        );
    }
}

#[test]
fn info_json_fields() {
    let o = ndsimd(&["info", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    for key in ["detected_tier", "active_tier"] {
        assert!(v[key].is_string(), "{key}: {v}");
    }
    for key in ["threads", "l1d_bytes", "l2_bytes", "l3_bytes"] {
        assert!(v[key].as_u64().is_some_and(|n| n >= 1), "{key}: {v}");
    }
}

#[test]
fn lines_counts_like_wc() {
    let dir = TempDir::new("cli", "lines");
    let cases: [(&[u8], u64); 5] = [
        (b"", 0),
        (b"one\ntwo\n", 2),
        (b"no final newline\nx", 1),
        (b"crlf\r\n\r\n\r\nend", 3),
        (b"\n\n\n", 3),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = dir.file(&format!("t{i}"), text);
        for extra in [&[][..], &["--strategy", "mmap", "--threads", "2"]] {
            let mut args = vec!["lines", p(&f)];
            args.extend_from_slice(extra);
            let o = ndsimd(&args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stdout(&o), format!("{want} {}\n", p(&f)));
        }
        let o = ndsimd(&["lines", "--json", p(&f)]);
        assert!(
            stdout(&o).contains(&format!("\"lines\":{want},\"bytes\":{},", text.len())),
            "{}",
            stdout(&o)
        );
    }
    // A bigger text across many 4 KiB buffers.
    let text: Vec<u8> = (0..100_000u32)
        .map(|i| if i % 37 == 0 { b'\n' } else { b'x' })
        .collect();
    let want = text.iter().filter(|&&b| b == b'\n').count();
    let f = dir.file("big", &text);
    let o = ndsimd(&["lines", p(&f), "--buffer", "4K", "--threads", "3"]);
    assert_eq!(stdout(&o), format!("{want} {}\n", p(&f)));
}

#[test]
fn haystack_then_scan_finds_size_minus_8() {
    let dir = TempDir::new("cli", "haystack");
    for (size, bytes) in [("8", 8u64), ("4K", 4096), ("3M", 3 << 20), ("1040", 1040)] {
        let f = dir.0.join(format!("hay-{size}"));
        let o = ndsimd(&["haystack", "--size", size, p(&f)]);
        assert_eq!(o.status.code(), Some(0), "{size}: {}", stderr(&o));
        let data = fs::read(&f).unwrap();
        assert_eq!(data.len() as u64, bytes);
        assert!(data[..data.len() - 8].iter().all(|&b| b == 0));
        assert!(data[data.len() - 8..].iter().all(|&b| b != 0));
        let o = ndsimd(&["scan", p(&f), "--buffer", "64K"]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(stdout(&o), format!("found at offset {}\n", bytes - 8));
    }
    // An existing file is kept unless --force.
    let f = dir.file("existing", b"keep me");
    let o = ndsimd(&["haystack", "--size", "16", p(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(p(&f)) && stderr(&o).contains("--force"));
    assert_eq!(fs::read(&f).unwrap(), b"keep me");
    let o = ndsimd(&["haystack", "--force", "--size", "16", p(&f)]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(fs::read(&f).unwrap(), b"\0\0\0\0\0\0\0\0NEEDLE!!");
}

#[test]
fn haystack_bad_sizes_exit_2() {
    let dir = TempDir::new("cli", "badsize");
    let f = dir.0.join("never");
    for size in ["0", "4", "12", "1001", "x", "4Q", "-8", "", "99999999999T"] {
        let o = ndsimd(&["haystack", "--size", size, p(&f)]);
        assert_eq!(o.status.code(), Some(2), "size {size:?}");
        assert!(stderr(&o).contains("--size"), "{size:?}: {}", stderr(&o));
        assert!(!f.exists(), "size {size:?} left a file");
    }
    let o = ndsimd(&["haystack", p(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("required arguments were not provided")
            && stderr(&o).contains("--size <SIZE>"),
        "{}",
        stderr(&o)
    );
    // A directory that does not exist: the message names the path.
    let bad = dir.0.join("no-dir").join("hay");
    let o = ndsimd(&["haystack", "--size", "8", p(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(p(&bad)), "{}", stderr(&o));
}

#[test]
fn lines_index_writes_the_offsets_in_the_same_run() {
    let dir = TempDir::new("cli", "index");
    let text = b"zero\none\r\ntwo\n\nfour\nfive";
    let f = dir.file("log", text);
    let o = ndsimd(&["lines", p(&f), "--index", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("5 {}\n", p(&f)));
    let idx = fs::read_to_string(dir.0.join("log.idx")).unwrap();
    assert_eq!(
        idx,
        "# ndsimd line index: every=2 lines=5 bytes=24\n0\n10\n15\n"
    );
    // --index-out, --json, every strategy, several threads and small buffers.
    let out = dir.0.join("custom index");
    for extra in [
        &[][..],
        &["--strategy", "mmap"],
        &["--strategy", "direct"],
        &["--threads", "3", "--buffer", "8"],
    ] {
        let _ = fs::remove_file(&out);
        let mut args = vec![
            "lines",
            p(&f),
            "--index=1",
            "--index-out",
            p(&out),
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = ndsimd(&args);
        if extra.contains(&"direct") && o.status.code() == Some(2) {
            assert!(
                stderr(&o).contains("O_DIRECT is not supported"),
                "{}",
                stderr(&o)
            );
            eprintln!("note: O_DIRECT refused here: {}", stderr(&o));
            continue;
        }
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
        let want_out = p(&out);
        assert!(
            stdout(&o).contains(&format!(
                "\"lines\":5,\"index\":\"{want_out}\",\"every\":1,\"indexed\":6,\"bytes\":24,"
            )),
            "{}",
            stdout(&o)
        );
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            "# ndsimd line index: every=1 lines=5 bytes=24\n0\n5\n10\n14\n15\n20\n",
            "{extra:?}"
        );
    }
    // An index that cannot be written: exit 2, the index path named.
    let bad = dir.0.join("no-dir").join("x.idx");
    let o = ndsimd(&["lines", p(&f), "--index", "2", "--index-out", p(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(p(&bad)), "{}", stderr(&o));
    // A missing FILE: exit 2, and no index left behind.
    let missing = dir.0.join("missing");
    let o = ndsimd(&["lines", p(&missing), "--index", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(p(&missing)));
    assert!(!dir.0.join("missing.idx").exists());
}

#[test]
fn scan_and_lines_with_direct_reads() {
    let dir = TempDir::new("cli", "direct");
    let mut data = vec![0u8; 3 * 4096 + 10];
    data[3 * 4096 + 2] = b'\n'; // in the unaligned tail
    let f = dir.file("f", &data);
    let o = ndsimd(&["scan", p(&f), "--strategy", "direct"]);
    if o.status.code() == Some(2) {
        assert!(
            stderr(&o).contains("O_DIRECT is not supported"),
            "{}",
            stderr(&o)
        );
        eprintln!("note: O_DIRECT refused here: not tested");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("found at offset {}\n", 3 * 4096));
    assert!(stderr(&o).contains("(direct, "), "{}", stderr(&o));
    let o = ndsimd(&["lines", p(&f), "--strategy=direct", "--buffer", "5000"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("1 {}\n", p(&f)));
}

/// A pipe whose reader has gone away (the read end closed before the tool starts,
/// so its first write fails with EPIPE).
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// The files and the argument lists of the pipe tests: each with the status it
/// exits with when its output is read to the end (grep's: 0 found or done, 1 not
/// found, 2 error).
struct Cases {
    dir: TempDir,
    runs: Vec<(Vec<String>, i32)>,
}

fn pipe_cases() -> Cases {
    let dir = TempDir::new("cli", "pipes");
    let mut hay = vec![0u8; 4096];
    hay[1000] = 7;
    let found = dir.file("found", &hay);
    let none = dir.file("none", &[0u8; 4096]);
    let text = dir.file("text", b"a\nb\n");
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let runs = vec![
        (s(&["scan", p(&found)]), 0),
        (s(&["scan", p(&none)]), 1),
        (s(&["scan", "--json", p(&none)]), 1),
        (s(&["lines", p(&text)]), 0),
        (s(&["lines", p(&text), "--index", "1"]), 0),
        (s(&["info"]), 0),
        (s(&["help"]), 0),
        (s(&["scan", "--help"]), 0),
        (s(&["haystack", "--size", "64", p(&dir.0.join("hay"))]), 0),
        (s(&["scan", p(&dir.0.join("missing"))]), 2),
        (s(&["scan", p(&found), "--bogus"]), 2),
        (s(&["no-such-command"]), 2),
        (s(&[]), 2),
    ];
    Cases { dir, runs }
}

fn run_with(args: &[String], out: impl Into<Stdio>, err: impl Into<Stdio>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndsimd"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .output()
        .expect("the ndsimd binary runs")
}

/// Standard error a pipe nobody reads (`ndsimd ... 2>&1 | true`, a closed log):
/// the timing line and messages are lost, the status is the same as with stderr
/// read (writing them once panicked: status 101).
#[test]
fn a_closed_stderr_pipe_keeps_the_exit_status() {
    let cases = pipe_cases();
    for (args, want) in &cases.runs {
        let _ = fs::remove_file(cases.dir.0.join("hay"));
        let o = run_with(args, Stdio::piped(), closed_pipe());
        assert_eq!(o.status.code(), Some(*want), "{args:?}");
        if *want < 2 {
            assert!(!o.stdout.is_empty(), "{args:?}: no answer on stdout");
        }
    }
    // Both closed: an error still reads as an error.
    let o = run_with(&cases.runs[9].0, closed_pipe(), closed_pipe());
    assert_eq!(o.status.code(), Some(2));
}

/// Standard output a pipe whose reader has gone (`ndsimd ... | head` after `head`
/// has left): the tool stops quietly with 141, the status a shell gives grep
/// killed by SIGPIPE, whatever it found, since its answer was not delivered. Usage
/// errors, which write nothing to stdout, keep their 2.
#[test]
fn a_closed_stdout_pipe_ends_quietly_with_141() {
    let cases = pipe_cases();
    for (args, want) in &cases.runs {
        let _ = fs::remove_file(cases.dir.0.join("hay"));
        let o = run_with(args, closed_pipe(), Stdio::piped());
        let err = stderr(&o);
        if *want == 2 {
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            // Ours start with the tool's name, clap's usage errors with "error:" (the
            // help for no command with its first line).
            assert!(
                err.starts_with("ndsimd") || err.starts_with("error:"),
                "{args:?}: {err}"
            );
        } else {
            assert_eq!(o.status.code(), Some(141), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(!err.contains("standard output"), "{args:?}: {err}");
        }
    }
}

/// A write to stdout that fails for another reason than a gone reader (a full
/// disk: /dev/full) is an error: exit 2 and a message, also when stderr is itself
/// a closed pipe (the message is lost then, the status is not).
#[cfg(target_os = "linux")]
#[test]
fn a_failing_stdout_is_an_error_exit() {
    let cases = pipe_cases();
    for (args, want) in &cases.runs {
        let _ = fs::remove_file(cases.dir.0.join("hay"));
        let full = || {
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap()
        };
        let o = run_with(args, full(), Stdio::piped());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        if *want < 2 {
            let err = stderr(&o);
            assert!(
                err.contains("ndsimd: cannot write to standard output: No space left"),
                "{args:?}: {err}"
            );
        }
        let _ = fs::remove_file(cases.dir.0.join("hay"));
        let o = run_with(args, full(), closed_pipe());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

/// `sh -c SCRIPT` with `$B` the binary and `$D` a file system directory.
fn sh(script: &str, dir: &Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("B", env!("CARGO_BIN_EXE_ndsimd"))
        .env("D", dir)
        .output()
        .unwrap()
}

/// Closed descriptors (`2>&-`, `>&-`), as grep: output that cannot be written is an
/// error (2, "Bad file descriptor"); a scan that finds nothing has nothing to write
/// and answers 1. (Rust's runtime puts /dev/null on a closed standard descriptor
/// before `main`; the tool must still see that it was closed.)
#[test]
fn closed_descriptors_keep_the_answer_status() {
    let dir = TempDir::new("cli", "closed-fds");
    let mut hay = vec![0u8; 64];
    hay[9] = 1;
    dir.file("found", &hay);
    dir.file("none", &[0u8; 64]);
    dir.file("text", b"x\n");
    for (script, want) in [
        ("exec \"$B\" scan \"$D/found\" 2>&-", 0),
        ("exec \"$B\" scan \"$D/none\" 2>&-", 1),
        ("exec \"$B\" lines \"$D/text\" 2>&-", 0),
        ("exec \"$B\" scan \"$D/missing\" 2>&-", 2),
        ("exec \"$B\" scan \"$D/found\" >&-", 2),
        ("exec \"$B\" scan \"$D/none\" >&-", 1),
        ("exec \"$B\" scan \"$D/missing\" >&- 2>&-", 2),
        ("exec \"$B\" lines \"$D/text\" >&-", 2),
        ("exec \"$B\" info >&-", 2),
        ("exec \"$B\" lines \"$D/text\" >&- 2>&-", 2),
    ] {
        let o = sh(script, &dir.0);
        assert_eq!(o.status.code(), Some(want), "{script}: {}", stderr(&o));
        if want == 2 && !script.contains("2>&-") && !script.contains("missing") {
            assert!(
                stderr(&o).contains("Bad file descriptor"),
                "{script}: {}",
                stderr(&o)
            );
        }
    }
}
