package bench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// ncclCopies numbers the copies of the fake libnccl built in this process.
var ncclCopies atomic.Int64

// bench over the CUDA binding and the fake libnccl, which logs its choice
// as NCCL does (RING with LL below 64 KiB, NVLS with SIMPLE from there):
// each size of the sweep records what NCCL's log says it chose, in the
// 2.20-2.22 format (numbers) and in 2.24's (names), and each figure its
// size's choice in settings; with NCCL_DEBUG=WARN set by the user, NCCL
// logs no choice and every size is "unknown", with why. The environment
// is as it was afterwards.
func TestNCCLChoiceRecorded(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		env           map[string]string
		bus, lat      [2]string
		log           string // the busbw detail's summary
		why           string
	}{
		{"2.20 numbers", "22005", nil, [2]string{"NVLS", "SIMPLE"}, [2]string{"RING", "LL"},
			"; NCCL's log: RING/LL at 8 B–32 KiB, NVLS/SIMPLE at 128 KiB–1 MiB", ""},
		{"2.24 names", "22403", nil, [2]string{"NVLS", "SIMPLE"}, [2]string{"RING", "LL"},
			"; NCCL's log: RING/LL at 8 B–32 KiB, NVLS/SIMPLE at 128 KiB–1 MiB", ""},
		{"the user's NCCL_DEBUG=WARN", "22403", map[string]string{"NCCL_DEBUG": "WARN"}, [2]string{"unknown", "unknown"}, [2]string{"unknown", "unknown"},
			"", "what NCCL chose is not known: NCCL_DEBUG=WARN is set, which logs no tuning lines; median of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"} {
				t.Setenv(name, "")
				os.Unsetenv(name)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			// A copy of the fake of its own: NCCL sets its log up once a process
			// (numbered: a new copy on every run, -count=2 too).
			nccl := dltest.Build(t, "../gpu/cuda/testdata/fakenccl.c", "libnccl.so.2", "-DNCCL_VERSION_CODE="+tc.version, fmt.Sprintf("-DFAKE_COPY_bench_%d", ncclCopies.Add(1)))
			n := newDriverNodeLibs(t, 2, map[string]int64{"vclock": 1}, false, nccl)
			rn := &Runner{Tune: func(p *Plan) { multiPlan(p); p.NCCLMaxIters = 8 }, OpenComm: cuda.OpenCollective}
			doc, err := rn.Run(context.Background(), n.devs, Request{Device: DeviceGPU, Only: []string{GroupNCCL}})
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(); err != nil {
				t.Fatal(err)
			}
			bus, lat := find(t, doc, "nccl_allreduce_busbw", "node"), find(t, doc, "nccl_allreduce_latency", "node")
			if !bus.OK() || len(bus.Sweep) != 10 {
				t.Fatalf("busbw %+v", bus)
			}
			for _, p := range bus.Sweep {
				want := [2]string{"RING", "LL"}
				if p.Bytes >= 64<<10 {
					want = [2]string{"NVLS", "SIMPLE"}
				}
				if tc.why != "" {
					want = [2]string{"unknown", "unknown"}
				}
				if got := [2]string{p.Algorithm, p.Protocol}; got != want {
					t.Errorf("%d B: chose %v, want %v", p.Bytes, got, want)
				}
			}
			for _, m := range []struct {
				name     string
				settings map[string]string
				want     [2]string
			}{{"busbw", bus.Settings, tc.bus}, {"latency", lat.Settings, tc.lat}} {
				want := maps.Clone(tc.env)
				if want == nil {
					want = map[string]string{}
				}
				delete(want, "NCCL_DEBUG") // not one of the settings that choose the algorithm
				want["NCCL_ALGO_CHOSEN"], want["NCCL_PROTO_CHOSEN"] = m.want[0], m.want[1]
				if !maps.Equal(m.settings, want) {
					t.Errorf("%s settings %v, want %v", m.name, m.settings, want)
				}
			}
			if tc.why == "" {
				if !strings.HasSuffix(bus.Detail, tc.log) || !strings.Contains(bus.Detail, "(NCCL_ALGO and NCCL_PROTO unset): NVLS with SIMPLE (NCCL's log); median of") ||
					!strings.Contains(lat.Detail, "(NCCL_ALGO and NCCL_PROTO unset): RING with LL (NCCL's log); median of") {
					t.Errorf("details:\n%s\n%s", bus.Detail, lat.Detail)
				}
			} else if !strings.Contains(bus.Detail, tc.why) || !strings.Contains(lat.Detail, tc.why) || strings.Contains(bus.Detail, "NCCL's log:") {
				t.Errorf("details:\n%s\n%s\nwant %q", bus.Detail, lat.Detail, tc.why)
			}
			for _, name := range []string{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"} {
				if v, ok := os.LookupEnv(name); ok != (tc.env[name] != "") || v != tc.env[name] {
					t.Errorf("%s = %q, %v after bench; want %q", name, v, ok, tc.env[name])
				}
			}
		})
	}
}
