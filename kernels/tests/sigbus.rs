//! `io::exit_on_mapped_sigbus`: a fault in a truncated mapping ends the process with
//! the program's message and exit code; any other `SIGBUS` keeps its default action.
//! Each case runs in a child process (this test binary run again, on one test, with
//! `NDSIMD_SIGBUS_CASE` set), since the cases end the process.
#![cfg(target_os = "linux")]

use ndsimd_kernels::io::{exit_on_mapped_sigbus, Mapping};
use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

const CASE: &str = "NDSIMD_SIGBUS_CASE";
const MESSAGE: &str = "sigbus-test: the mapped file shrank\n";

/// Maps a file of three pages, truncates it to one, and reads the third page.
fn touch_past_a_truncation() {
    let path = std::env::temp_dir().join(format!("ndsimd-sigbus-{}", std::process::id()));
    std::fs::write(&path, vec![1u8; 3 << 12]).unwrap();
    let map = Mapping::new(&File::open(&path).unwrap()).unwrap();
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1 << 12)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let byte = std::hint::black_box(&map[..])[(2 << 12) + 5];
    panic!("read {byte} past the end of a truncated file without a fault");
}

/// Under qemu-user (`NDSIMD_EMULATED`, the CI's emulated lanes) a child process of
/// another architecture cannot be started without the emulator: the cases are for
/// the native lanes.
fn emulated() -> bool {
    let yes = std::env::var_os("NDSIMD_EMULATED").is_some();
    if yes {
        eprintln!("note: under emulation; the SIGBUS cases run natively only");
    }
    yes
}

/// Runs `test` of this binary in a child process with `NDSIMD_SIGBUS_CASE=case`.
fn child(test: &str, case: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CASE, case)
        .output()
        .unwrap()
}

#[test]
fn a_fault_in_a_truncated_mapping_exits_with_the_message() {
    if let Some(case) = std::env::var_os(CASE) {
        match case.to_str() {
            Some("guarded") => exit_on_mapped_sigbus(MESSAGE, 3).unwrap(),
            Some("unguarded") => {}
            _ => panic!("unknown case {case:?}"),
        }
        touch_past_a_truncation();
        return;
    }
    if emulated() {
        return;
    }
    let name = "a_fault_in_a_truncated_mapping_exits_with_the_message";
    let out = child(name, "guarded");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{:?}: {stderr}", out.status);
    assert!(stderr.contains(MESSAGE), "{stderr}");
    // The same reads without the handler: killed by the signal (so the case above
    // really faulted).
    let out = child(name, "unguarded");
    assert_eq!(out.status.signal(), Some(libc::SIGBUS), "{:?}", out.status);
}

#[test]
fn another_sigbus_keeps_its_default_action() {
    if std::env::var_os(CASE).is_some() {
        exit_on_mapped_sigbus(MESSAGE, 3).unwrap();
        // A live mapping, so the handler has one to look at.
        let _map = Mapping::new(&File::open(std::env::current_exe().unwrap()).unwrap()).unwrap();
        // SAFETY (test): raising a signal in this child process, which it ends.
        unsafe { libc::raise(libc::SIGBUS) };
        panic!("survived a SIGBUS");
    }
    if emulated() {
        return;
    }
    let out = child("another_sigbus_keeps_its_default_action", "raise");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGBUS),
        "{:?}: {stderr}",
        out.status
    );
    assert!(!stderr.contains(MESSAGE), "{stderr}");
}
