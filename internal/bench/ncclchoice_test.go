package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// ncclCopies numbers the copies of the fake libnccl built in this process.
var ncclCopies atomic.Int64

// fakeChoice is what the fake libnccl chooses: RING with LL below 64 KiB,
// NVLS with SIMPLE from there.
func fakeChoice(b int64) gpu.Choice {
	if b >= 64<<10 {
		return gpu.Choice{Algorithm: "NVLS", Protocol: "SIMPLE"}
	}
	return gpu.Choice{Algorithm: "RING", Protocol: "LL"}
}

// bench over the CUDA binding and the fake libnccl, which logs its choice
// as NCCL does. The communicator that times the all-reduces is opened with
// no NCCL_DEBUG set by bench (the fake says what it read when it set its
// log up: with the log on, rank 0 would write a line as it queues each
// timed all-reduce); what NCCL chose is the probe's (NCCLChoiceProbe, here
// a function standing in for the probe process), asked before the
// communicator is opened, for the GPUs measured and the sweep's sizes, and
// recorded at each size of the sweep and in each figure's settings, the
// detail saying it came from a separate probe process. A probe that fails
// (or none) makes every size "unknown", with why, and leaves the figures
// as they are. Where the user had NCCL log TUNING lines to a file, the
// timed process's own log says. The environment is as it was afterwards.
func TestNCCLChoiceRecorded(t *testing.T) {
	probeErr := errors.New("gpuscout bench nccl-choice: exit status 1: CUDA_ERROR_DEVICE_UNAVAILABLE")
	for _, tc := range []struct {
		name, version string
		env           map[string]string // "DIR": a temporary folder
		probe         func(b int64) gpu.Choice
		fail          error
		noProbe       bool
		seen          string    // what the timed process's NCCL read at its set-up
		bus, lat      [2]string // the figures' choices
		log           string    // the busbw detail's summary
		why           string    // in both details, when unknown
	}{
		{name: "probe", version: "22403", probe: fakeChoice, seen: "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)",
			bus: [2]string{"NVLS", "SIMPLE"}, lat: [2]string{"RING", "LL"},
			log: "; NCCL's log in a separate probe process with the same environment: RING/LL at 8 B–32 KiB, NVLS/SIMPLE at 128 KiB–1 MiB",
			why: "(NCCL_ALGO and NCCL_PROTO unset): NVLS with SIMPLE (NCCL's log in a separate probe process with the same environment, not the timed one); median of"},
		{name: "probe says unknown", version: "22005", probe: func(int64) gpu.Choice { return gpu.UnknownChoice("NCCL_DEBUG=WARN is set, which logs no tuning lines") },
			seen: "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)", bus: [2]string{"unknown", "unknown"}, lat: [2]string{"unknown", "unknown"},
			why: "what NCCL chose is not known: in the probe process: NCCL_DEBUG=WARN is set, which logs no tuning lines; median of"},
		{name: "probe failed", version: "22403", fail: probeErr, seen: "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)",
			bus: [2]string{"unknown", "unknown"}, lat: [2]string{"unknown", "unknown"},
			why: "what NCCL chose is not known: the probe process that reads NCCL's choice failed: " + probeErr.Error() + "; median of"},
		{name: "no probe", version: "22403", noProbe: true, seen: "NCCL_DEBUG=(unset) NCCL_DEBUG_SUBSYS=(unset) NCCL_DEBUG_FILE=(unset)",
			bus: [2]string{"unknown", "unknown"}, lat: [2]string{"unknown", "unknown"},
			why: "what NCCL chose is not known: bench was given no probe process to read NCCL's choice in"},
		{name: "the user's log", version: "22005", env: map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "TUNING", "NCCL_DEBUG_FILE": "DIR/user.log"},
			probe: func(int64) gpu.Choice { return gpu.Choice{Algorithm: "TREE", Protocol: "LL128"} },
			seen:  "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=DIR/user.log", bus: [2]string{"NVLS", "SIMPLE"}, lat: [2]string{"RING", "LL"},
			log: "; NCCL's log: RING/LL at 8 B–32 KiB, NVLS/SIMPLE at 128 KiB–1 MiB",
			why: "(NCCL_ALGO and NCCL_PROTO unset): NVLS with SIMPLE (NCCL's log); median of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
			for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"} {
				t.Setenv(name, "")
				os.Unsetenv(name)
			}
			for k, v := range tc.env {
				t.Setenv(k, fill(v))
			}
			// A copy of the fake of its own: NCCL sets its log up once a process
			// (numbered: a new copy on every run, -count=2 too).
			nccl := dltest.Build(t, "../gpu/cuda/testdata/fakenccl.c", "libnccl.so.2", "-DNCCL_VERSION_CODE="+tc.version, fmt.Sprintf("-DFAKE_COPY_bench_%d", ncclCopies.Add(1)))
			n := newDriverNodeLibs(t, 2, map[string]int64{"vclock": 1}, false, nccl)
			lib, err := dl.OpenEnv(dl.NCCL, n.env)
			if err != nil {
				t.Fatal(err)
			}
			var debug func(buf *byte, n int32) int32
			if _, err := lib.Bind([]dl.Symbol{dl.Sym(&debug, "fake_nccl_debug")}); err != nil {
				t.Fatal(err)
			}
			seen := func() string {
				buf := make([]byte, 1024)
				debug(&buf[0], int32(len(buf)))
				s, _, _ := strings.Cut(string(buf), "\x00")
				return s
			}
			var probeDevs []int
			var probeSizes []int64
			opened := false
			rn := &Runner{Tune: func(p *Plan) { multiPlan(p); p.NCCLMaxIters = 8 },
				OpenComm: func(devs []gpu.Device) (gpu.Comm, error) { opened = true; return cuda.OpenCollective(devs) }}
			if !tc.noProbe {
				rn.NCCLChoice = func(ctx context.Context, devs []int, sizes []int64) (map[int64]gpu.Choice, error) {
					if opened || seen() != "" {
						t.Error("the probe ran after the timed communicator was opened")
					}
					probeDevs, probeSizes = devs, sizes
					if tc.fail != nil {
						return nil, tc.fail
					}
					out := map[int64]gpu.Choice{}
					for _, s := range sizes {
						out[s] = tc.probe(s)
					}
					return out, nil
				}
			}
			doc, err := rn.Run(context.Background(), n.devs, Request{Device: DeviceGPU, Only: []string{GroupNCCL}})
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := seen(); got != fill(tc.seen) {
				t.Errorf("the timed communicator's NCCL read %q at its set-up, want %q", got, fill(tc.seen))
			}
			bus, lat := find(t, doc, "nccl_allreduce_busbw", "node"), find(t, doc, "nccl_allreduce_latency", "node")
			if !bus.OK() || len(bus.Sweep) != 10 || !lat.OK() {
				t.Fatalf("busbw %+v\nlatency %+v", bus, lat)
			}
			if !tc.noProbe {
				var sweep []int64
				for _, p := range bus.Sweep {
					sweep = append(sweep, p.Bytes)
				}
				if !slices.Equal(probeDevs, []int{0, 1}) || !slices.Equal(probeSizes, sweep) {
					t.Errorf("the probe was asked for GPUs %v, sizes %v; want [0 1], %v", probeDevs, probeSizes, sweep)
				}
			}
			for _, p := range bus.Sweep {
				want := fakeChoice(p.Bytes)
				if tc.bus[0] == "unknown" {
					want = gpu.UnknownChoice("")
				}
				if got := [2]string{p.Algorithm, p.Protocol}; got != [2]string{want.Algorithm, want.Protocol} {
					t.Errorf("%d B: chose %v, want %s/%s", p.Bytes, got, want.Algorithm, want.Protocol)
				}
			}
			for _, m := range []struct {
				name     string
				settings map[string]string
				want     [2]string
			}{{"busbw", bus.Settings, tc.bus}, {"latency", lat.Settings, tc.lat}} {
				want := map[string]string{"NCCL_ALGO_CHOSEN": m.want[0], "NCCL_PROTO_CHOSEN": m.want[1]}
				if !maps.Equal(m.settings, want) {
					t.Errorf("%s settings %v, want %v", m.name, m.settings, want)
				}
			}
			if !strings.Contains(bus.Detail, tc.why) || (tc.bus[0] == "unknown") != strings.Contains(lat.Detail, tc.why) ||
				!strings.HasSuffix(bus.Detail, "from 8 B"+tc.log) {
				t.Errorf("details:\n%s\n%s\nwant %q and the summary %q", bus.Detail, lat.Detail, tc.why, tc.log)
			}
			for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"} {
				if v, ok := os.LookupEnv(name); ok != (tc.env[name] != "") || v != fill(tc.env[name]) {
					t.Errorf("%s = %q, %v after bench; want %q", name, v, ok, fill(tc.env[name]))
				}
			}
			if tc.env != nil {
				if _, err := os.Stat(filepath.Join(dir, "user.log")); err != nil {
					t.Errorf("the user's log: %v", err)
				}
			}
		})
	}
}
