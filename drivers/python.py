# forklab runtime driver for CPython: starts the target the ways a Python program does and times each
# start to its reaping, inside Python. Speaks the probe protocol (docs/protocol.md) on stdout/stdin.
#   python3 python.py CASE target=PATH [heap-mb=N] [heap-kind=bytearray]
# Cases: run (subprocess.run, defaults), run-keep-fds (close_fds=False), run-preexec (a no-op preexec_fn).
import json
import os
import platform
import resource
import subprocess
import sys
import time

# The driver's version is its package's: the runner refuses a driver from another forklab.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "package.json")) as _f:
    DRIVER = json.load(_f)["version"]
CASES = ("run", "run-keep-fds", "run-preexec")
KEYS = ("target", "heap-mb", "heap-kind")
MIB = 1024 * 1024
PAGE = 4096


def out(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def fail(call, message, errno=0):
    out({"type": "error", "call": call, "errno": errno, "message": message})
    sys.exit(2)


def parse_args(argv):
    args = {}
    for a in argv:
        k, eq, v = a.partition("=")
        if not eq or not k:
            fail("usage", "expected key=value: " + a)
        if k not in KEYS:
            fail("usage", "unknown argument: " + k)
        if k in args:
            fail("usage", "repeated argument: " + k)
        args[k] = v
    if not args.get("target"):
        fail("usage", "missing argument: target")
    try:
        heap_mb = int(args.get("heap-mb", "0"))
    except ValueError:
        heap_mb = -1
    if heap_mb < 0:
        fail("usage", "not a whole number: heap-mb")
    if args.get("heap-kind", "bytearray") != "bytearray":
        fail("usage", "unknown value: heap-kind")
    return args["target"], heap_mb


def bytearray_heap(mb):
    """One bytearray per 64 MB, one byte of every page written (the rest the kernel zeroed)."""
    keep = []
    left = mb
    while left > 0:
        size = min(64, left) * MIB
        b = bytearray(size)
        b[::PAGE] = b"\x01" * len(range(0, size, PAGE))
        keep.append(b)
        left -= 64
    return keep


def no_op():
    pass


def runner(case, target):
    argv = [target]
    if case == "run":
        return lambda: subprocess.run(argv)
    if case == "run-keep-fds":
        return lambda: subprocess.run(argv, close_fds=False)
    return lambda: subprocess.run(argv, preexec_fn=no_op)


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def migrations():
    """se.nr_migrations of the thread that spawns, or None where the kernel does not show it."""
    try:
        with open("/proc/thread-self/sched") as f:
            for line in f:
                if line.startswith("se.nr_migrations"):
                    return int(line.split(":")[1])
    except OSError:
        pass
    return None


def counters():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_nivcsw, me.ru_nvcsw, kids.ru_nivcsw, migrations())


def usage(at_ready):
    """The usage line, as the C probe sends it: getrusage of the driver and of its reaped children since ready."""
    now = counters()
    moved = now[3] - at_ready[3] if now[3] is not None and at_ready[3] is not None else None
    out({"type": "usage", "nivcsw": now[0] - at_ready[0], "nvcsw": now[1] - at_ready[1], "childNivcsw": now[2] - at_ready[2], "migrations": moved})


def batch(once, case, n, warmup):
    ns = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        try:
            r = once()
        except OSError as e:
            fail("spawn", str(e), e.errno or 0)
        ns.append(time.perf_counter_ns() - t0)
        if r.returncode != 0:
            fail("wait", "target exited with status %d" % r.returncode)
    out({"type": "samples", "series": case, "warmup": warmup, "ns": ns})
    out({"type": "end", "warmup": warmup})


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else None
    out({"type": "hello", "protocol": 1, "probe": DRIVER, "case": case, "pid": os.getpid()})
    if case not in CASES:
        fail("usage", "unknown case: %s" % case)
    target, heap_mb = parse_args(sys.argv[2:])
    heap = bytearray_heap(heap_mb)
    out({
        "type": "info",
        "runtime": "python",
        "runtimeVersion": platform.python_version(),
        "implementation": platform.python_implementation(),
        "heapKind": "bytearray",
        "heapMb": heap_mb,
        "rssKb": rss_kb(),
        "subprocessUsePosixSpawn": bool(getattr(subprocess, "_USE_POSIX_SPAWN", False)),
        "subprocessUseVfork": bool(getattr(subprocess, "_USE_VFORK", False)),
    })
    out({"type": "ready"})
    at_ready = counters()
    once = runner(case, target)
    for line in sys.stdin:
        if line.startswith("stop"):
            break
        parts = line.split()
        if len(parts) != 2 or parts[0] not in ("warmup", "run") or not parts[1].isdigit():
            fail("usage", "unknown command: " + line.strip())
        n = int(parts[1])
        if n < 1 or n > 10000000:
            fail("usage", "iteration count out of range: " + line.strip())
        batch(once, case, n, parts[0] == "warmup")
    usage(at_ready)
    out({"type": "done"})
    del heap


if __name__ == "__main__":
    main()
