package cuda

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// ncclDebugVars are the variables that set NCCL's logging up.
var ncclDebugVars = []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"}

// fakeNCCL is a fake libnccl of its own (copy names it: the fake, like
// NCCL, sets its log up once per loaded library) with its controls bound.
type fakeNCCL struct {
	f      *fakes
	devs   []gpu.Device
	getenv func(name string) unsafe.Pointer
	debug  func(buf *byte, n int32) int32
	set    func(key string, v int64) int32
	live   func() int32
}

// fakeNCCLCopies numbers the copies of the fake NCCL built in this process.
var fakeNCCLCopies atomic.Int64

// newFakeNCCL builds the fake NCCL as copy (flags: -DNCCL_VERSION_CODE=…)
// beside the fake libcuda of two GPUs, and clears NCCL's logging variables
// for the test (t.Setenv puts them back).
func newFakeNCCL(t *testing.T, copy string, flags ...string) *fakeNCCL {
	t.Helper()
	for _, name := range ncclDebugVars {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	f := newFakes(t, false, false)
	// A new copy on every run, -count=2 too.
	copy += "_" + strconv.FormatInt(fakeNCCLCopies.Add(1), 10)
	dir := dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2", append([]string{"-DFAKE_COPY_" + copy}, flags...)...)
	f.env.Dirs = append(f.env.Dirs, dir)
	f.set("gpus", 2)
	f.set("vclock", 1)
	lib, err := dl.OpenEnv(dl.NCCL, f.env)
	if err != nil {
		t.Fatal(err)
	}
	n := &fakeNCCL{f: f}
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&n.getenv, "fake_nccl_getenv"), dl.Sym(&n.debug, "fake_nccl_debug"),
		dl.Sym(&n.set, "fake_nccl_set"), dl.Sym(&n.live, "fake_nccl_live")}); err != nil {
		t.Fatal(err)
	}
	n.set("reset", 0)
	for _, d := range f.open(t, Options{NoNVML: true}) {
		n.devs = append(n.devs, d)
	}
	return n
}

// cEnv is name's value as the C library's getenv sees it; ok false: unset.
func (n *fakeNCCL) cEnv(name string) (string, bool) {
	p := n.getenv(name)
	if p == nil {
		return "", false
	}
	return cStringAt(p, 4096), true
}

// seen is the logging environment the fake read when it set its log up,
// "" before its first ncclCommInitAll.
func (n *fakeNCCL) seen() string {
	buf := make([]byte, 1024)
	n.debug(&buf[0], int32(len(buf)))
	return cString(buf)
}

// open opens the collective over both GPUs with NCCL's log turned on, as
// the probe process does (NCCLChoices).
func (n *fakeNCCL) open(t *testing.T) gpu.Comm {
	t.Helper()
	c, err := openCollective(n.devs, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run all-reduces each size (a warm-up of 2, then 3 timed).
func run(t *testing.T, c gpu.Comm, sizes ...int64) {
	t.Helper()
	for _, b := range sizes {
		if _, err := c.AllReduce(gpu.FP32, b, 2, 3); err != nil {
			t.Fatalf("all-reduce of %d bytes: %v", b, err)
		}
	}
}

func wantChoice(t *testing.T, what string, got gpu.Choice, algo, proto string) {
	t.Helper()
	if got.Algorithm != algo || got.Protocol != proto {
		t.Errorf("%s: chose %s/%s (%s), want %s/%s", what, got.Algorithm, got.Protocol, got.Why, algo, proto)
	}
}

func wantUnknown(t *testing.T, what string, got gpu.Choice, why string) {
	t.Helper()
	if got.Algorithm != gpu.ChoiceUnknown || got.Protocol != gpu.ChoiceUnknown || !strings.Contains(got.Why, why) {
		t.Errorf("%s: chose %s/%s (%q), want unknown because %q", what, got.Algorithm, got.Protocol, got.Why, why)
	}
}

// Go's os.Setenv reaches the environment of the C library, where a
// library's getenv reads it, and os.Unsetenv takes it out of it: the
// premise of setting NCCL's logging up from Go. It holds as the release is
// built (CGO_ENABLED=0: purego's fakecgo hooks runtime's _cgo_setenv) and
// with cgo.
func TestNCCLSeesGoEnvironment(t *testing.T) {
	n := newFakeNCCL(t, "env")
	const name = "GPUSCOUT_TEST_NCCL_ENV"
	t.Setenv(name, "from Go")
	if v, ok := n.cEnv(name); !ok || v != "from Go" {
		t.Fatalf("C getenv(%s) = %q, %v after os.Setenv; want \"from Go\"", name, v, ok)
	}
	os.Unsetenv(name)
	if v, ok := n.cEnv(name); ok {
		t.Errorf("C getenv(%s) = %q after os.Unsetenv; want NULL", name, v)
	}
}

// The communicators that time the all-reduces (OpenCollective, which bench
// is given) leave NCCL's log as the user set it: with no NCCL_DEBUG set,
// NCCL sees none at its set-up, so it writes no line while the all-reduces
// are queued, and the choice is unknown there, saying it is read in the
// probe process; where the user had NCCL write TUNING lines to a file, it
// is read.
func TestTimedCommLeavesNCCLLogOff(t *testing.T) {
	t.Run("unset", func(t *testing.T) {
		n := newFakeNCCL(t, "timed")
		c, err := OpenCollective(n.devs)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := n.seen(); got != "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)" {
			t.Errorf("the timed communicator's NCCL read %q; want no logging set by bench", got)
		}
		for _, name := range ncclDebugVars {
			if v, ok := os.LookupEnv(name); ok {
				t.Errorf("%s = %q while the timed communicator is open; want it unset", name, v)
			}
		}
		run(t, c, 8, 1<<20)
		wantUnknown(t, "8 B", c.Choice(8), "read in a separate probe process")
	})
	t.Run("the user's", func(t *testing.T) {
		n := newFakeNCCL(t, "timeduser")
		dir := t.TempDir()
		t.Setenv("NCCL_DEBUG", "INFO")
		t.Setenv("NCCL_DEBUG_SUBSYS", "TUNING")
		t.Setenv("NCCL_DEBUG_FILE", filepath.Join(dir, "user.log"))
		c, err := OpenCollective(n.devs)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		run(t, c, 8, 1<<20)
		wantChoice(t, "8 B", c.Choice(8), "RING", "LL")
		wantChoice(t, "1 MiB", c.Choice(1<<20), "NVLS", "SIMPLE")
	})
}

// NCCLChoices, the probe process's work, turns the log on, runs one
// all-reduce per size (a size twice: once), says what NCCL chose at each,
// and closes the communicators, the environment back as it was.
func TestNCCLChoices(t *testing.T) {
	n := newFakeNCCL(t, "probe", "-DNCCL_VERSION_CODE=22403")
	got, err := NCCLChoices(n.devs, []int64{8, 32 << 10, 64 << 10, 1 << 20, 8})
	if err != nil {
		t.Fatal(err)
	}
	if seen := n.seen(); !strings.HasPrefix(seen, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=") {
		t.Errorf("the probe's NCCL read %q; want the log turned on", seen)
	}
	if len(got) != 4 {
		t.Errorf("%d sizes in %v, want 4", len(got), got)
	}
	wantChoice(t, "8 B", got[8], "RING", "LL")
	wantChoice(t, "32 KiB", got[32<<10], "RING", "LL")
	wantChoice(t, "64 KiB", got[64<<10], "NVLS", "SIMPLE")
	wantChoice(t, "1 MiB", got[1<<20], "NVLS", "SIMPLE")
	for _, name := range ncclDebugVars {
		if v, ok := os.LookupEnv(name); ok {
			t.Errorf("%s = %q after NCCLChoices; want it unset again", name, v)
		}
	}
	if live := n.live(); live != 0 {
		t.Errorf("%d communicators left open", live)
	}
}

// Where nobody set NCCL's logging up, the Comm has NCCL log INFO lines of
// TUNING to a file of its own, in the format of each NCCL release line
// (2.20-2.22 numbers, 2.23 the collective's name and numbers, 2.24 on
// names), reads what it chose at each size (RING with LL below 64 KiB,
// NVLS with SIMPLE from there, in the fake), and at Close removes the file
// and puts the environment back, in Go and in C.
func TestNCCLChoicePerSize(t *testing.T) {
	for _, tc := range []struct{ version, code string }{{"2.20.5", "22005"}, {"2.22.3", "22203"}, {"2.23.4", "22304"}, {"2.24.3", "22403"}, {"2.27.3", "22703"}} {
		t.Run(tc.version, func(t *testing.T) {
			n := newFakeNCCL(t, "v"+tc.code, "-DNCCL_VERSION_CODE="+tc.code)
			c := n.open(t)
			if !strings.Contains(c.Describe(), tc.version) {
				t.Errorf("Describe %q, want NCCL %s", c.Describe(), tc.version)
			}
			seen := n.seen()
			if !strings.HasPrefix(seen, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=") || !strings.HasSuffix(seen, "/nccl.%p.log") {
				t.Fatalf("the fake NCCL read %q; want INFO, TUNING and a file of bench's with %%p", seen)
			}
			file := strings.TrimPrefix(seen, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=")
			file = strings.Replace(file, "%p", strconv.Itoa(os.Getpid()), 1)
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("bench's copy of NCCL's log %s is still there once read from: %v", file, err)
			}
			run(t, c, 8, 32<<10, 64<<10, 1<<20)
			wantChoice(t, "8 B", c.Choice(8), "RING", "LL")
			wantChoice(t, "32 KiB", c.Choice(32<<10), "RING", "LL")
			wantChoice(t, "64 KiB", c.Choice(64<<10), "NVLS", "SIMPLE")
			wantChoice(t, "1 MiB", c.Choice(1<<20), "NVLS", "SIMPLE")
			wantUnknown(t, "a size not run", c.Choice(4096), "no all-reduce of that size")
			// Again at a size: the same choice, from the new lines.
			run(t, c, 8)
			wantChoice(t, "8 B again", c.Choice(8), "RING", "LL")
			if v, ok := os.LookupEnv("NCCL_DEBUG"); !ok || v != "INFO" {
				t.Errorf("NCCL_DEBUG = %q, %v while the Comm is open", v, ok)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			for _, name := range ncclDebugVars {
				if v, ok := os.LookupEnv(name); ok {
					t.Errorf("%s = %q after Close; want it unset again", name, v)
				}
				if v, ok := n.cEnv(name); ok {
					t.Errorf("C getenv(%s) = %q after Close; want NULL", name, v)
				}
			}
			if _, err := os.Stat(filepath.Dir(file)); !os.IsNotExist(err) {
				t.Errorf("bench's log folder %s is left after Close: %v", filepath.Dir(file), err)
			}
		})
	}
}

// NCCL_DEBUG_SUBSYS the user set gets TUNING added (to a list; out of an
// inverted one) while the Comm is open, and back as it was after.
func TestNCCLDebugSubsysAppended(t *testing.T) {
	for i, tc := range []struct{ user, seen string }{{"INIT,NET", "INIT,NET,TUNING"}, {"^INIT,TUNING", "^INIT"}, {"ALL", "ALL"}} {
		t.Run(tc.user, func(t *testing.T) {
			n := newFakeNCCL(t, "subsys"+strconv.Itoa(i))
			t.Setenv("NCCL_DEBUG_SUBSYS", tc.user)
			c := n.open(t)
			if got := n.seen(); !strings.HasPrefix(got, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS="+tc.seen+" NCCL_DEBUG_FILE=") {
				t.Errorf("the fake NCCL read %q; want NCCL_DEBUG_SUBSYS=%s", got, tc.seen)
			}
			run(t, c, 1<<20)
			wantChoice(t, "1 MiB", c.Choice(1<<20), "NVLS", "SIMPLE")
			c.Close()
			if v, _ := n.cEnv("NCCL_DEBUG_SUBSYS"); v != tc.user || os.Getenv("NCCL_DEBUG_SUBSYS") != tc.user {
				t.Errorf("NCCL_DEBUG_SUBSYS = %q (C) %q (Go) after Close; want the user's %q", v, os.Getenv("NCCL_DEBUG_SUBSYS"), tc.user)
			}
		})
	}
}

// Logging the user set up is left as it is: read where it goes to a file
// with TUNING lines, else every size is unknown, with why; nothing else is
// set, and the user's file stays.
func TestNCCLUserDebugRespected(t *testing.T) {
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	pid := strconv.Itoa(os.Getpid())
	devNull := "/dev/null"
	for i, tc := range []struct {
		name string
		env  map[string]string // "DIR" in a value is a temporary folder
		seen string            // what the fake reads; "" the same as env
		file string            // the user's file, expanded, that must stay
		algo string            // at 1 MiB, or
		why  string            // why it is unknown
	}{
		{"INFO with TUNING to a file", map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,TUNING", "NCCL_DEBUG_FILE": "DIR/user.%h.%p.log"},
			"", "DIR/user." + host + "." + pid + ".log", "NVLS", ""},
		{"TRACE with ALL", map[string]string{"NCCL_DEBUG": "trace", "NCCL_DEBUG_SUBSYS": "ALL", "NCCL_DEBUG_FILE": "DIR/all.log"}, "", "DIR/all.log", "NVLS", ""},
		{"WARN", map[string]string{"NCCL_DEBUG": "WARN", "NCCL_DEBUG_FILE": "DIR/warn.log"}, "", "", "", "NCCL_DEBUG=WARN is set, which logs no tuning lines"},
		{"INFO to standard output", map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "ENV"}, "", "", "",
			"without NCCL_DEBUG_FILE: NCCL logs to standard output"},
		{"INFO without TUNING", map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_FILE": "DIR/init.log"}, "", "", "", "which leaves out TUNING"},
		{"a file without a level", map[string]string{"NCCL_DEBUG_FILE": "DIR/only-file.%p"},
			"NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=DIR/only-file.%p", "DIR/only-file." + pid, "NVLS", ""},
		{"a device without a level", map[string]string{"NCCL_DEBUG_FILE": devNull}, "", "", "", "set to something other than a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newFakeNCCL(t, "user"+strconv.Itoa(i))
			dir := t.TempDir()
			fill := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
			want := []string{}
			for _, name := range ncclDebugVars {
				v, ok := tc.env[name]
				if ok {
					t.Setenv(name, fill(v))
				} else {
					v = "(unset)"
				}
				want = append(want, name+"="+fill(v))
			}
			c := n.open(t)
			seen := strings.Join(want, " ")
			if tc.seen != "" {
				seen = fill(tc.seen)
			}
			if got := n.seen(); got != seen {
				t.Errorf("the fake NCCL read %q, want %q", got, seen)
			}
			run(t, c, 8, 1<<20)
			if tc.algo != "" {
				wantChoice(t, "1 MiB", c.Choice(1<<20), tc.algo, "SIMPLE")
				wantChoice(t, "8 B", c.Choice(8), "RING", "LL")
			} else {
				wantUnknown(t, "1 MiB", c.Choice(1<<20), tc.why)
			}
			c.Close()
			for _, name := range ncclDebugVars {
				v, ok := tc.env[name]
				got, gotOK := os.LookupEnv(name)
				cgot, cOK := n.cEnv(name)
				if ok != gotOK || fill(v) != got || ok != cOK || fill(v) != cgot {
					t.Errorf("after Close %s = %q, %v (C %q, %v); want the user's %q, %v", name, got, gotOK, cgot, cOK, fill(v), ok)
				}
			}
			if tc.file != "" {
				if _, err := os.Stat(fill(tc.file)); err != nil {
					t.Errorf("the user's log: %v", err)
				}
			}
		})
	}
}

// Lines NCCL does not write, or writes in a form bench does not read, are
// unknown, never a guess: NCCL 2.18 and 2.19 (the line is commented out;
// bench then sets nothing), 2.20 and 2.21 when a tuner plugin chose (no line),
// a symmetric-kernel line (no algorithm), and a second Comm in a process
// whose NCCL set its log up before.
func TestNCCLChoiceUnknown(t *testing.T) {
	t.Run("2.19", func(t *testing.T) {
		n := newFakeNCCL(t, "v21904", "-DNCCL_VERSION_CODE=21904")
		c := n.open(t)
		defer c.Close()
		if got := n.seen(); got != "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)" {
			t.Errorf("the fake NCCL 2.19 read %q; want nothing set for a release that logs no choice", got)
		}
		run(t, c, 8)
		wantUnknown(t, "8 B", c.Choice(8), "NCCL 2.19.4 does not log its choice")
	})
	t.Run("no line", func(t *testing.T) {
		n := newFakeNCCL(t, "quiet", "-DNCCL_VERSION_CODE=22005")
		n.set("quiet", 1)
		c := n.open(t)
		defer c.Close()
		run(t, c, 8)
		wantUnknown(t, "8 B", c.Choice(8), "NCCL logged no choice for the all-reduces of 8 bytes")
		// Lines again: a size with and one without lines stays unknown.
		n.set("quiet", 0)
		run(t, c, 8, 16)
		wantUnknown(t, "8 B", c.Choice(8), "NCCL logged no choice")
		wantChoice(t, "16 B", c.Choice(16), "RING", "LL")
	})
	t.Run("symmetric", func(t *testing.T) {
		n := newFakeNCCL(t, "symmetric")
		n.set("symmetric", 1)
		c := n.open(t)
		defer c.Close()
		run(t, c, 1<<20)
		wantUnknown(t, "1 MiB", c.Choice(1<<20), `NCCL logged a tuning line bench does not read: "AllReduce [Symmetric]: 1048576 Bytes -> Kernel`)
	})
	t.Run("log set up before", func(t *testing.T) {
		n := newFakeNCCL(t, "twice")
		c := n.open(t)
		run(t, c, 8)
		wantChoice(t, "first Comm, 8 B", c.Choice(8), "RING", "LL")
		c.Close()
		c2 := n.open(t)
		defer c2.Close()
		run(t, c2, 8)
		wantUnknown(t, "second Comm, 8 B", c2.Choice(8), "it sets its log up once a process, and had done so before")
	})
}

// The tuning messages as each NCCL release prints them (src/enqueue.cc),
// and what is not one of them.
func TestParseTuning(t *testing.T) {
	for _, tc := range []struct {
		msg         string
		bytes       int64
		algo, proto string
	}{
		{"1048576 Bytes -> Algo 1 proto 2 time 36.824001", 1 << 20, "RING", "SIMPLE"},                                // 2.20-2.22
		{"8 Bytes -> Algo 0 proto 0 time 8.300000", 8, "TREE", "LL"},                                                 // 2.20-2.22
		{"AllReduce: 4194304 Bytes -> Algo 4 proto 2 time 29.543999", 4 << 20, "NVLS", "SIMPLE"},                     // 2.23
		{"AllReduce: 65536 Bytes -> Algo 6 proto 1 time 12.000000", 65536, "PAT", "LL128"},                           // 2.23
		{"AllReduce: 1073741824 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}", 1 << 30, "NVLS", "SIMPLE"}, // 2.24 on
		{"AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}", 8, "RING", "LL"},
		{"AllReduce: 2048 Bytes -> Algo NVLS_TREE proto LL128 channel{Lo..Hi}={0..3}", 2048, "NVLS_TREE", "LL128"},
		{"AllReduce: 2048 Bytes -> Algo COLLNET_DIRECT proto SIMPLE channel{Lo..Hi}={0..3}", 2048, "COLLNET_DIRECT", "SIMPLE"},
		{"AllReduce: 2048 Bytes -> Algo COLLNET_CHAIN proto SIMPLE channel{Lo..Hi}={0..3}", 2048, "COLLNET_CHAIN", "SIMPLE"},
	} {
		n, a, p, ok := parseTuning(tc.msg)
		if !ok || n != tc.bytes || a != tc.algo || p != tc.proto {
			t.Errorf("parseTuning(%q) = %d %s %s %v; want %d %s %s", tc.msg, n, a, p, ok, tc.bytes, tc.algo, tc.proto)
		}
	}
	for _, msg := range []string{
		"AllReduce: 8 Bytes -> Algo Unknown proto LL channel{Lo..Hi}={0..0}", // ncclAlgoToString's default
		"AllReduce: 8 Bytes -> Algo RING proto Unknown channel{Lo..Hi}={0..0}",
		"8 Bytes -> Algo 7 proto 0 time 1.000000", // no such algorithm
		"8 Bytes -> Algo -1 proto 0 time 1.000000",
		"8 Bytes -> Algo 1 proto 3 time 1.000000",
		"AllGather: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}", // not an all-reduce
		"AllReduce [Symmetric]: 8 Bytes -> Kernel AllReduce_AGxLL_R nchannels 1 nthreads 512 nWorks 1",
		"AllReduce [Copy Engine]: 8 Bytes -> cudaMemcpy",
		"AllReduce: 8 Bytes -> Algo RING proto LL",
		"",
	} {
		if n, a, p, ok := parseTuning(msg); ok {
			t.Errorf("parseTuning(%q) = %d %s %s, want no match", msg, n, a, p)
		}
	}
	// Every name bench can record is one the report format takes.
	for _, a := range ncclAlgorithms {
		if !slices.Contains(benchreport.NCCLAlgorithms, a) {
			t.Errorf("algorithm %s is not in benchreport.NCCLAlgorithms", a)
		}
	}
	for _, p := range ncclProtocols {
		if !slices.Contains(benchreport.NCCLProtocols, p) {
			t.Errorf("protocol %s is not in benchreport.NCCLProtocols", p)
		}
	}
	if gpu.ChoiceUnknown != benchreport.ChoiceUnknown {
		t.Errorf("gpu.ChoiceUnknown %q, benchreport.ChoiceUnknown %q", gpu.ChoiceUnknown, benchreport.ChoiceUnknown)
	}
}

// An INFO line of this process, with or without a timestamp before it
// (NCCL_DEBUG_TIMESTAMP_LEVELS, 2.26 on); another process's, a WARN or a
// TRACE line is none.
func TestInfoMessage(t *testing.T) {
	const msg = "AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}"
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"node-1:4242:4250 [0] NCCL INFO " + msg, true},
		{"[2026-01-02 03:04:05] node-1:4242:4250 [3] NCCL INFO " + msg, true},
		{"node-1:4243:4250 [0] NCCL INFO " + msg, false},
		{"node-1:4242:4250 [0] enqueue.cc:1 NCCL WARN " + msg, false},
		{"node-1:4242:4250 [0] 12.5 enqueue.cc:1 NCCL TRACE " + msg, false},
		{"", false},
	} {
		got, ok := infoMessage(tc.line, 4242)
		if ok != tc.ok || ok && got != msg {
			t.Errorf("infoMessage(%q) = %q, %v; want %v", tc.line, got, ok, tc.ok)
		}
	}
}

func TestNCCLDebugEnvHelpers(t *testing.T) {
	for _, tc := range []struct{ v, host, want string }{
		{"/tmp/nccl.%h.%p.log", "node-1.cluster.local", "/tmp/nccl.node-1.42.log"},
		{"a%%b%q%", "h", "a%b%q%"},
		{"plain", "h", "plain"},
	} {
		if got := expandDebugFile(tc.v, tc.host, 42); got != tc.want {
			t.Errorf("expandDebugFile(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v, with string
		has     bool
	}{
		{"", "TUNING", false},
		{"INIT", "INIT,TUNING", false},
		{"INIT,tuning", "INIT,tuning", true},
		{"all", "all", true},
		{"^INIT", "^INIT", true},
		{"^INIT,TUNING", "^INIT", false},
		{"^ALL", "TUNING", false},
		{"^TUNING", "TUNING", false},
	} {
		if got := withTuning(tc.v); got != tc.with || subsysHasTuning(tc.v) != tc.has {
			t.Errorf("withTuning(%q) = %q, has %v; want %q, %v", tc.v, got, subsysHasTuning(tc.v), tc.with, tc.has)
		}
		if !subsysHasTuning(withTuning(tc.v)) {
			t.Errorf("withTuning(%q) = %q leaves TUNING out", tc.v, withTuning(tc.v))
		}
	}
	for _, tc := range []struct {
		v      string
		before bool
	}{{"2.19.4", true}, {"2.18.1", true}, {"2.20.3", false}, {"2.27.3", false}, {"3.0.0", false}, {"1.3.4", true}, {"", false}, {"x.y", false}} {
		if got := ncclVersionBefore(tc.v, 2, 20); got != tc.before {
			t.Errorf("ncclVersionBefore(%q, 2.20) = %v", tc.v, got)
		}
	}
}
