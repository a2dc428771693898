// forklab runtime driver for Rust: starts the target with std::process::Command and times each start to its
// reaping, inside Rust. Speaks the probe protocol (docs/protocol.md) on stdout/stdin. Built once by forklab
// into its cache (rustc -O, the package's version from FORKLAB_DRIVER_VERSION at compile time); std only.
//   forklab-driver CASE target=PATH [heap-mb=N] [heap-kind=vec]
// Cases: command (Command::new(target).status()).
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::process::{exit, Command};
use std::time::Instant;

const DRIVER: &str = env!("FORKLAB_DRIVER_VERSION");
const MIB: usize = 1024 * 1024;

/// struct rusage of Linux (x86_64 and aarch64: two timevals, then fourteen longs).
#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    longs: [i64; 14],
}
extern "C" {
    fn getrusage(who: i32, usage: *mut Rusage) -> i32;
}
const RUSAGE_SELF: i32 = 0;
const RUSAGE_CHILDREN: i32 = -1;

/// (nivcsw, nvcsw) of `who`; nvcsw and nivcsw are the last two longs.
fn switches(who: i32) -> (i64, i64) {
    let mut r = Rusage { utime: [0; 2], stime: [0; 2], longs: [0; 14] };
    if unsafe { getrusage(who, &mut r) } != 0 {
        return (-1, -1);
    }
    (r.longs[13], r.longs[12])
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn out(line: &str) {
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(line.as_bytes());
    let _ = so.write_all(b"\n");
    let _ = so.flush();
}

fn fail(call: &str, message: &str, errno: i32) -> ! {
    out(&format!("{{\"type\":\"error\",\"call\":{},\"errno\":{},\"message\":{}}}", json_str(call), errno, json_str(message)));
    exit(2);
}

fn proc_field(path: &str, key: &str) -> Option<i64> {
    let text = std::fs::read_to_string(path).ok()?;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix(key) {
            let rest = rest.trim_start();
            if let Some(v) = rest.strip_prefix(':') {
                return v.trim().split_whitespace().next()?.parse().ok();
            }
        }
    }
    None
}

fn version() -> String {
    // rustc records its version in the binary only through the build: forklab passes it in.
    option_env!("FORKLAB_RUSTC_VERSION").unwrap_or("unknown").to_string()
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.len() < 2 {
        out(&format!("{{\"type\":\"hello\",\"protocol\":1,\"probe\":{},\"case\":null,\"pid\":{},\"cases\":[\"command\"]}}", json_str(DRIVER), std::process::id()));
        out(&format!("{{\"type\":\"info\",\"runtime\":\"rust\",\"runtimeVersion\":{}}}", json_str(&version())));
        out("{\"type\":\"done\"}");
        return;
    }
    let case = &argv[1];
    out(&format!("{{\"type\":\"hello\",\"protocol\":1,\"probe\":{},\"case\":{},\"pid\":{}}}", json_str(DRIVER), json_str(case), std::process::id()));
    if case != "command" {
        fail("usage", &format!("unknown case: {}", case), 0);
    }
    let mut args: HashMap<String, String> = HashMap::new();
    for a in &argv[2..] {
        let (k, v) = match a.split_once('=') {
            Some((k, v)) if !k.is_empty() => (k, v),
            _ => fail("usage", &format!("expected key=value: {}", a), 0),
        };
        if !["target", "heap-mb", "heap-kind"].contains(&k) {
            fail("usage", &format!("unknown argument: {}", k), 0);
        }
        if args.insert(k.to_string(), v.to_string()).is_some() {
            fail("usage", &format!("repeated argument: {}", k), 0);
        }
    }
    let target = match args.get("target") {
        Some(t) if !t.is_empty() => t.clone(),
        _ => fail("usage", "missing argument: target", 0),
    };
    let heap_mb: usize = match args.get("heap-mb").map(|s| s.parse::<usize>()) {
        None => 0,
        Some(Ok(n)) => n,
        Some(Err(_)) => fail("usage", "not a whole number: heap-mb", 0),
    };
    if args.get("heap-kind").map_or(false, |k| k != "vec") {
        fail("usage", "unknown value: heap-kind", 0);
    }
    // The heap: vectors of 64 MB, every byte written.
    let mut heap: Vec<Vec<u8>> = Vec::new();
    let mut left = heap_mb;
    while left > 0 {
        let n = left.min(64);
        heap.push(vec![1u8; n * MIB]);
        left -= n;
    }
    let rss = proc_field("/proc/self/status", "VmRSS").unwrap_or(-1);
    out(&format!("{{\"type\":\"info\",\"runtime\":\"rust\",\"runtimeVersion\":{},\"heapKind\":\"vec\",\"heapMb\":{},\"heapParts\":{},\"rssKb\":{}}}", json_str(&version()), heap_mb, heap.len(), rss));
    out("{\"type\":\"ready\"}");
    let at_self = switches(RUSAGE_SELF);
    let at_kids = switches(RUSAGE_CHILDREN);
    let at_moved = proc_field("/proc/thread-self/sched", "se.nr_migrations");

    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_default();
        if line.starts_with("stop") {
            break;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() != 2 || (parts[0] != "warmup" && parts[0] != "run") {
            fail("usage", &format!("unknown command: {}", line), 0);
        }
        let n: usize = match parts[1].parse() {
            Ok(n) if n >= 1 && n <= 10_000_000 => n,
            _ => fail("usage", &format!("iteration count out of range: {}", line), 0),
        };
        let mut ns = Vec::with_capacity(n);
        for _ in 0..n {
            let t0 = Instant::now();
            let status = Command::new(&target).status();
            ns.push(t0.elapsed().as_nanos().to_string());
            match status {
                Err(e) => fail("spawn", &e.to_string(), e.raw_os_error().unwrap_or(0)),
                Ok(s) if !s.success() => fail("wait", &format!("target exited with {}", s), 0),
                Ok(_) => {}
            }
        }
        let warmup = parts[0] == "warmup";
        out(&format!("{{\"type\":\"samples\",\"series\":{},\"warmup\":{},\"ns\":[{}]}}", json_str(case), warmup, ns.join(",")));
        out(&format!("{{\"type\":\"end\",\"warmup\":{}}}", warmup));
    }
    let now_self = switches(RUSAGE_SELF);
    let now_kids = switches(RUSAGE_CHILDREN);
    let moved = match (proc_field("/proc/thread-self/sched", "se.nr_migrations"), at_moved) {
        (Some(a), Some(b)) => (a - b).to_string(),
        _ => "null".to_string(),
    };
    if at_self.0 >= 0 && now_self.0 >= 0 {
        out(&format!(
            "{{\"type\":\"usage\",\"nivcsw\":{},\"nvcsw\":{},\"childNivcsw\":{},\"migrations\":{}}}",
            now_self.0 - at_self.0,
            now_self.1 - at_self.1,
            now_kids.0 - at_kids.0,
            moved
        ));
    }
    out("{\"type\":\"done\"}");
    drop(heap);
}
