package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// The probe process in tests. The test binary is os.Executable there, so
// `bench` would re-execute it: by default the probe fails at once instead,
// and a test that wants the real one sets ncclChoiceProbe to
// execNCCLChoice, GPUSCOUT_CLI_TEST_MAIN=1 (cli_test.go's TestMain then
// runs the command itself) and the variables below, which make the child
// open the same fakes (read here, in init, which runs before TestMain).
const (
	envTestFakes    = "GPUSCOUT_CLI_TEST_FAKES"     // the fakes' folders, ':'-separated
	envTestFakeGPUs = "GPUSCOUT_CLI_TEST_FAKE_GPUS" // how many GPUs the fakes have
)

func init() {
	ncclChoiceProbe = func(context.Context, []int, []int64) (map[int64]gpu.Choice, error) {
		return nil, fmt.Errorf("no probe process in this test")
	}
	dirs := os.Getenv(envTestFakes)
	if os.Getenv("GPUSCOUT_CLI_TEST_MAIN") != "1" || dirs == "" {
		return
	}
	env := dltest.Env(strings.Split(dirs, ":")...)
	gpus, _ := strconv.ParseInt(os.Getenv(envTestFakeGPUs), 10, 64)
	for _, lib := range []struct {
		which    dl.Lib
		set      string
		settings [][2]any
	}{{dl.CUDA, "fake_cuda_set", [][2]any{{"reset", int64(0)}, {"gpus", gpus}, {"vclock", int64(1)}}},
		{dl.NVML, "fake_nvml_set", [][2]any{{"reset", int64(0)}, {"gpus", gpus}, {"nvlink", int64(4)}}}} {
		l, err := dl.OpenEnv(lib.which, env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "the fakes:", err)
			os.Exit(3)
		}
		var set func(key string, v int64) int32
		if _, err := l.Bind([]dl.Symbol{dl.Sym(&set, lib.set)}); err != nil {
			fmt.Fprintln(os.Stderr, "the fakes:", err)
			os.Exit(3)
		}
		for _, kv := range lib.settings {
			set(kv[0].(string), kv[1].(int64))
		}
	}
	openGPUs = func() ([]gpu.Device, error) { return openCUDA(cuda.Options{Env: &env}) }
}

// cliNCCLCopies numbers the copies of the fake libnccl these tests build.
var cliNCCLCopies atomic.Int64

// fakeNCCLCopy is the flag that builds a copy of the fake libnccl of the
// test's own: NCCL (and the fake) set the log up once a process.
func fakeNCCLCopy() string {
	return fmt.Sprintf("-DFAKE_COPY_cli_%d", cliNCCLCopies.Add(1))
}

func clearNCCLDebug(t *testing.T) {
	for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_ALGO", "NCCL_PROTO"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
}

// seenNCCLDebug is what the fake NCCL read when it set its log up.
func (n fakeNode) seenNCCLDebug() string {
	buf := make([]byte, 1024)
	n.ncclDebug(&buf[0], int32(len(buf)))
	s, _, _ := strings.Cut(string(buf), "\x00")
	return s
}

// The probe process's command, run in this process against the fakes:
// `gpuscout bench nccl-choice` opens the GPUs and a communicator with
// NCCL's TUNING log on, runs one all-reduce per size and prints what NCCL
// chose, as one line of JSON; the environment is as it was afterwards.
func TestBenchNCCLChoiceCommand(t *testing.T) {
	clearNCCLDebug(t)
	n := fakeGPUs(t, 3, fakeNCCLCopy())
	stdout, errOut, code := run(t, "bench", "nccl-choice", "--sizes", "8,32768,65536,1048576", "--devices", "0,2")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, stdout)
	}
	if !strings.HasPrefix(stdout, "{") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("output %q, want one line of JSON", stdout)
	}
	got, err := bench.ReadNCCLChoices([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size        int64
		algo, proto string
	}{{8, "RING", "LL"}, {32768, "RING", "LL"}, {65536, "NVLS", "SIMPLE"}, {1 << 20, "NVLS", "SIMPLE"}} {
		if c := got[tc.size]; c.Algorithm != tc.algo || c.Protocol != tc.proto {
			t.Errorf("%d B: %+v, want %s/%s", tc.size, c, tc.algo, tc.proto)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d sizes in %v", len(got), got)
	}
	if seen := n.seenNCCLDebug(); !strings.HasPrefix(seen, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=") {
		t.Errorf("the probe's NCCL read %q; want its TUNING log on", seen)
	}
	for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"} {
		if v, ok := os.LookupEnv(name); ok {
			t.Errorf("%s = %q after the probe; want it unset again", name, v)
		}
	}
	if _, errOut, code := run(t, "bench", "nccl-choice", "--sizes", "8", "--devices", "5"); code == 0 || !strings.Contains(errOut, "no GPU 5") {
		t.Errorf("a GPU that is not there: exit %d, %s", code, errOut)
	}
}

// `gpuscout bench` learns NCCL's choice from its probe process, re-executing
// the test binary as gpuscout with the same environment (the child opens
// the same fakes): the sweep's sizes record the fake's choice (RING with LL
// below 64 KiB, NVLS with SIMPLE from there), the detail says it came from
// a separate probe process, and the communicator that timed the
// all-reduces in this process was opened with no NCCL_DEBUG set by bench.
// A probe that does not finish in time leaves every size unknown, with
// why, and the figures measured.
func TestBenchNCCLChoiceFromProbeProcess(t *testing.T) {
	clearNCCLDebug(t)
	n := fakeGPUs(t, 3, fakeNCCLCopy())
	oldTune, oldProbe, oldTimeout := benchTune, ncclChoiceProbe, ncclChoiceTimeout
	t.Cleanup(func() { benchTune, ncclChoiceProbe, ncclChoiceTimeout = oldTune, oldProbe, oldTimeout })
	benchTune = func(p *bench.Plan) { p.SampleTarget, p.NCCLMaxBytes, p.NCCLStep = 0, 1<<20, 4 }
	ncclChoiceProbe = execNCCLChoice
	t.Setenv("GPUSCOUT_CLI_TEST_MAIN", "1")
	t.Setenv(envTestFakes, strings.Join(n.env.Dirs, ":"))
	t.Setenv(envTestFakeGPUs, "3")
	ncclChoiceTimeout = 2 * time.Minute

	out := filepath.Join(t.TempDir(), "r.json")
	stdout, errOut, code := run(t, "bench", "--quick", "--only", "nccl", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, stdout)
	}
	bus := readReport(t, out).Find("nccl_allreduce_busbw", benchreport.DeviceNode)
	if bus == nil || !bus.OK() || len(bus.Sweep) != 10 {
		t.Fatalf("busbw %+v", bus)
	}
	for _, p := range bus.Sweep {
		want := [2]string{"RING", "LL"}
		if p.Bytes >= 64<<10 {
			want = [2]string{"NVLS", "SIMPLE"}
		}
		if got := [2]string{p.Algorithm, p.Protocol}; got != want {
			t.Errorf("%d B: %v, want %v", p.Bytes, got, want)
		}
	}
	if bus.Settings["NCCL_ALGO_CHOSEN"] != "NVLS" || bus.Settings["NCCL_PROTO_CHOSEN"] != "SIMPLE" ||
		!strings.Contains(bus.Detail, "NVLS with SIMPLE (NCCL's log in a separate probe process with the same environment, not the timed one)") {
		t.Errorf("busbw settings %v, detail %q", bus.Settings, bus.Detail)
	}
	if seen := n.seenNCCLDebug(); seen != "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)" {
		t.Errorf("the timed communicator's NCCL read %q at its set-up; want no NCCL_DEBUG set by bench", seen)
	}

	// The probe times out: unknown, with why; the all-reduce still measured.
	ncclChoiceTimeout = time.Nanosecond
	stdout, errOut, code = run(t, "bench", "--quick", "--only", "nccl", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, stdout)
	}
	bus = readReport(t, out).Find("nccl_allreduce_busbw", benchreport.DeviceNode)
	if bus == nil || !bus.OK() || len(bus.Sweep) != 10 {
		t.Fatalf("busbw with the probe timed out: %+v", bus)
	}
	for _, p := range bus.Sweep {
		if p.Algorithm != "unknown" || p.Protocol != "unknown" {
			t.Errorf("%d B: %s/%s with the probe timed out, want unknown", p.Bytes, p.Algorithm, p.Protocol)
		}
	}
	if want := "what NCCL chose is not known: the probe process that reads NCCL's choice failed: gpuscout bench nccl-choice did not finish within 1ns"; !strings.Contains(bus.Detail, want) {
		t.Errorf("detail %q, want %q", bus.Detail, want)
	}
}

// The probe's output is read from the last JSON line (NCCL writes its log
// to standard output where the user set NCCL_DEBUG without a file), and a
// probe that fails says how, with its last line of errors.
func TestExecNCCLChoiceOutput(t *testing.T) {
	got, err := bench.ReadNCCLChoices([]byte("host:1:2 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n" +
		`{"8":{"algorithm":"RING","protocol":"LL"},"16":{"algorithm":"unknown","protocol":"unknown","reason":"NCCL 2.19.4 does not log its choice"}}` + "\n"))
	if err != nil || got[8] != (gpu.Choice{Algorithm: "RING", Protocol: "LL"}) || got[16] != gpu.UnknownChoice("NCCL 2.19.4 does not log its choice") {
		t.Errorf("read %v, %v", got, err)
	}
	if _, err := bench.ReadNCCLChoices([]byte("gpuscout: no NVIDIA GPU found\n")); err == nil {
		t.Error("no JSON line read without an error")
	}
	if a := ncclChoiceArgs([]int{0, 3}, []int64{8, 32}); strings.Join(a, " ") != "bench nccl-choice --sizes 8,32 --devices 0,3" {
		t.Errorf("args %q", a)
	}
}
