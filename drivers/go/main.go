// forklab runtime driver for Go: starts the target with os/exec and times each start to its reaping, inside
// Go. Speaks the probe protocol (docs/protocol.md) on stdout/stdin. Built once by forklab into its cache
// (go build, the package's version set with -ldflags -X main.driverVersion=...).
//   forklab-driver CASE target=PATH [heap-mb=N] [heap-kind=slices]
// Cases: exec (exec.Command(target).Run()).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var driverVersion = "unset"

const mib = 1024 * 1024

// The heap, referenced from a package variable so that it lives as long as the driver.
var heap [][]byte

func init() {
	// main runs on the process's main thread, so /proc/thread-self is the thread that spawns.
	runtime.LockOSThread()
}

var stdout = bufio.NewWriter(os.Stdout)

func out(v map[string]any) {
	b, _ := json.Marshal(v)
	stdout.Write(b)
	stdout.WriteByte('\n')
	stdout.Flush()
}

func fail(call, message string, errno int) {
	out(map[string]any{"type": "error", "call": call, "errno": errno, "message": message})
	os.Exit(2)
}

func statusField(file, key string) int64 {
	b, err := os.ReadFile("/proc/thread-self/" + file)
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*:\s*(\d+)`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

func rssKb() int64 { return statusFieldOf("/proc/self/status", "VmRSS") }

func statusFieldOf(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`(?m)^` + key + `:\s*(\d+)`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

type counters struct{ nivcsw, nvcsw, childNivcsw, migrations int64 }

func read() counters {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return counters{self.Nivcsw, self.Nvcsw, kids.Nivcsw, statusField("sched", "se.nr_migrations")}
}

func main() {
	if len(os.Args) < 2 {
		out(map[string]any{"type": "hello", "protocol": 1, "probe": driverVersion, "case": nil, "pid": os.Getpid(), "cases": []string{"exec"}})
		out(map[string]any{"type": "info", "runtime": "go", "runtimeVersion": strings.TrimPrefix(runtime.Version(), "go")})
		out(map[string]any{"type": "done"})
		return
	}
	caseName := os.Args[1]
	out(map[string]any{"type": "hello", "protocol": 1, "probe": driverVersion, "case": caseName, "pid": os.Getpid()})
	if caseName != "exec" {
		fail("usage", "unknown case: "+caseName, 0)
	}
	args := map[string]string{}
	for _, a := range os.Args[2:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			fail("usage", "expected key=value: "+a, 0)
		}
		if k != "target" && k != "heap-mb" && k != "heap-kind" {
			fail("usage", "unknown argument: "+k, 0)
		}
		if _, dup := args[k]; dup {
			fail("usage", "repeated argument: "+k, 0)
		}
		args[k] = v
	}
	target := args["target"]
	if target == "" {
		fail("usage", "missing argument: target", 0)
	}
	heapMb := 0
	if s, ok := args["heap-mb"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			fail("usage", "not a whole number: heap-mb", 0)
		}
		heapMb = n
	}
	if k, ok := args["heap-kind"]; ok && k != "slices" {
		fail("usage", "unknown value: heap-kind", 0)
	}
	// The heap: byte slices of 64 MB, every byte written.
	for left := heapMb; left > 0; left -= 64 {
		n := left
		if n > 64 {
			n = 64
		}
		b := make([]byte, n*mib)
		for i := range b {
			b[i] = 1
		}
		heap = append(heap, b)
	}
	out(map[string]any{"type": "info", "runtime": "go", "runtimeVersion": strings.TrimPrefix(runtime.Version(), "go"), "heapKind": "slices", "heapMb": heapMb, "rssKb": rssKb()})
	out(map[string]any{"type": "ready"})
	atReady := read()

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		if strings.HasPrefix(line, "stop") {
			break
		}
		parts := strings.Fields(line)
		if len(parts) != 2 || (parts[0] != "warmup" && parts[0] != "run") {
			fail("usage", "unknown command: "+line, 0)
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 1 || n > 10_000_000 {
			fail("usage", "iteration count out of range: "+line, 0)
		}
		ns := make([]int64, 0, n)
		for i := 0; i < n; i++ {
			t0 := time.Now()
			err := exec.Command(target).Run()
			ns = append(ns, time.Since(t0).Nanoseconds())
			if err != nil {
				var errno syscall.Errno
				var exit *exec.ExitError
				switch {
				case errors.As(err, &exit):
					fail("wait", fmt.Sprintf("target exited with %v", exit.ProcessState), 0)
				case errors.As(err, &errno):
					fail("spawn", err.Error(), int(errno))
				default:
					fail("spawn", err.Error(), 0)
				}
			}
		}
		warmup := parts[0] == "warmup"
		out(map[string]any{"type": "samples", "series": caseName, "warmup": warmup, "ns": ns})
		out(map[string]any{"type": "end", "warmup": warmup})
	}
	now := read()
	var migrations any
	if now.migrations >= 0 && atReady.migrations >= 0 {
		migrations = now.migrations - atReady.migrations
	}
	out(map[string]any{"type": "usage", "nivcsw": now.nivcsw - atReady.nivcsw, "nvcsw": now.nvcsw - atReady.nvcsw, "childNivcsw": now.childNivcsw - atReady.childNivcsw, "migrations": migrations})
	out(map[string]any{"type": "done"})
}
