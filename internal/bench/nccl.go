package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// NCCLSizes is the all-reduce's message-size sweep: lo, lo·step, lo·step², …
// while below hi, then hi, each rounded down to whole fp32 elements (at
// least one). nccl-tests' -b 8 -e 1G -f 4 gives 8 B, 32 B, … 512 MiB, and
// here 1 GiB last.
func NCCLSizes(lo, hi, step int64) []int64 {
	lo, hi = max(lo&^3, 4), max(hi&^3, 4)
	if hi < lo {
		hi = lo
	}
	var out []int64
	for s := lo; s < hi; s *= max(step, 2) {
		out = append(out, s)
		if s > hi/max(step, 2) { // the next step would pass hi (or overflow)
			break
		}
	}
	return append(out, hi)
}

// ncclIters is how many all-reduces of one sample time, from a probe's
// time of one: enough for the sample to last about target (small messages
// take microseconds, so the few the plan starts with are mostly the
// GPUs' start and end), within lo..hi.
func ncclIters(probe, target time.Duration, lo, hi int) int {
	lo, hi = max(lo, 1), max(hi, lo, 1)
	if probe <= 0 || target <= 0 {
		return lo
	}
	n := int(math.Ceil(float64(target) / float64(probe)))
	return min(max(n, lo), hi)
}

// nccl measures an fp32 sum all-reduce over every GPU through the
// communicator open gives, over the plan's size sweep. At each size a
// probe (the plan's warm-up, then NCCLIters all-reduces) sizes the
// samples: each is a short warm-up then enough back-to-back all-reduces to
// last about SampleTarget (at least NCCLIters, at most NCCLMaxIters),
// timed on the GPUs from behind the warm-up (gpu.Comm), the slowest GPU's
// time counting. nccl_allreduce_busbw is the bus bandwidth at the largest
// size, with the whole sweep; nccl_allreduce_latency the time of one
// all-reduce at the smallest. Both record the NCCL settings that choose
// its algorithm and protocol (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE...),
// and what NCCL's log says it chose: at every size in the sweep, and at the
// figure's size in settings (NCCL_ALGO_CHOSEN, NCCL_PROTO_CHOSEN), "unknown"
// where the log did not say, with why in the detail. NCCL's log costs host
// time as each all-reduce is queued, and NCCL reads its logging settings
// once a process, so the choice is learnt before the communicator is
// opened, by probe (NCCLChoiceProbe: a separate process with the same
// environment), and the timed communicator leaves NCCL's log as the user
// set it; where the user had it write TUNING lines to a file, what the
// timed process's own log says comes first.
func nccl(runs []*run, open gpu.CommOpener, probe NCCLChoiceProbe) []benchreport.Measurement {
	n := len(runs)
	if n < 2 {
		return []benchreport.Measurement{commEntry(GroupNCCL, n, "")}
	}
	if open == nil {
		return []benchreport.Measurement{commEntry(GroupNCCL, n, "needs a collective library, and this build of bench was given none")}
	}
	devs := make([]gpu.Device, n)
	for i, r := range runs {
		devs[i] = r.dev
	}
	node := *runs[0]
	node.name = benchreport.DeviceNode
	plan := node.plan
	fail := func(err error) []benchreport.Measurement {
		return []benchreport.Measurement{node.failure("nccl_allreduce_busbw", UnitGBs, err), node.failure("nccl_allreduce_latency", UnitUS, err)}
	}
	sizes := NCCLSizes(plan.NCCLMinBytes, plan.NCCLMaxBytes, plan.NCCLStep)
	probed := probeChoices(node.ctx, runs, sizes, probe)
	comm, err := open(devs)
	if err != nil {
		switch {
		case errors.Is(err, gpu.ErrNoCollective):
			return []benchreport.Measurement{commEntry(GroupNCCL, n, fmt.Sprintf("needs NCCL (libnccl.so.2: the toolkit's libnccl2 package or pip's nvidia-nccl wheel): %v", err))}
		case errors.Is(err, gpu.ErrUnsupported):
			return []benchreport.Measurement{commEntry(GroupNCCL, n, fmt.Sprintf("cannot run on these devices: %v", err))}
		}
		return fail(fmt.Errorf("opening the communicator: %w", err))
	}
	defer comm.Close()
	samples := max(plan.NCCLSamples, 1)
	var sweep []benchreport.SweepPoint
	var choices []chosen
	var first, last Stats
	var firstIters, lastIters int
	for i, size := range sizes {
		if err := node.ctx.Err(); err != nil {
			return fail(err)
		}
		probe, err := comm.AllReduce(gpu.FP32, size, max(plan.NCCLWarmup, 0), max(plan.NCCLIters, 1))
		if err != nil {
			return fail(fmt.Errorf("all-reduce of %s: %w", byteSize(size), err))
		}
		iters := ncclIters(probe, plan.SampleTarget, plan.NCCLIters, plan.NCCLMaxIters)
		var times []time.Duration
		for range samples {
			t, err := comm.AllReduce(gpu.FP32, size, max(plan.NCCLSampleWarmup, 0), iters)
			if err != nil {
				return fail(fmt.Errorf("all-reduce of %s: %w", byteSize(size), err))
			}
			times = append(times, t)
		}
		st := Summarize(times)
		if st.P50 <= 0 {
			return fail(fmt.Errorf("the GPUs timed the all-reduce of %s at 0 s", byteSize(size)))
		}
		alg := AlgBW(size, st.P50)
		ch := probed.at(size, comm.Choice(size))
		choices = append(choices, ch)
		sweep = append(sweep, benchreport.SweepPoint{Bytes: size, TimeUS: st.P50 * 1e6, AlgBWGBs: alg, BusBWGBs: BusBW(alg, n),
			Algorithm: ch.Algorithm, Protocol: ch.Protocol})
		if i == 0 {
			first, firstIters = st, iters
		}
		last, lastIters = st, iters
	}
	top := sweep[len(sweep)-1]
	settings := comm.Settings()
	what := fmt.Sprintf("fp32 sum over %d GPUs (%s)", n, comm.Describe())
	how := func(iters int, ch chosen) string {
		return fmt.Sprintf("%s; median of %d samples, each %d all-reduces back to back timed on the GPUs behind %d untimed",
			algorithmNote(settings, ch), samples, iters, max(plan.NCCLSampleWarmup, 0))
	}
	bus := benchreport.Measurement{Name: "nccl_allreduce_busbw", Device: benchreport.DeviceNode, Unit: UnitGBs, Samples: last.N,
		Status: benchreport.StatusOK, Value: benchreport.F(top.BusBWGBs), Sweep: sweep,
		Detail: fmt.Sprintf("%s of %s: algbw %s GB/s, busbw = algbw × 2(n−1)/n; %s; the sweep has %d sizes from %s%s",
			what, byteSize(top.Bytes), fmtG(top.AlgBWGBs), how(lastIters, choices[len(choices)-1]), len(sweep), byteSize(sweep[0].Bytes),
			sweepChoices(sweep, choices))}
	timing(&bus, last)
	bus.Efficiency = efficiency(node.spec, bus)
	lat := benchreport.Measurement{Name: "nccl_allreduce_latency", Device: benchreport.DeviceNode, Unit: UnitUS, Samples: first.N,
		Status: benchreport.StatusOK, Value: benchreport.F(first.P50 * 1e6),
		Detail: fmt.Sprintf("%s of %s: the time of one all-reduce; %s", what, byteSize(sweep[0].Bytes), how(firstIters, choices[0]))}
	timing(&lat, first)
	bus.Settings, lat.Settings = withChoice(settings, choices[len(choices)-1].Choice), withChoice(settings, choices[0].Choice)
	return []benchreport.Measurement{bus, lat}
}

// NCCLChoiceProbe learns which algorithm and protocol NCCL chooses for an
// fp32 sum all-reduce of each of sizes (bytes) over the GPUs of devices
// (gpu.Info.Index, the CUDA ordinals of this process), in a process of its
// own with the same environment: NCCL's log is turned on there, and not in
// the process that times the all-reduces. The CLI runs `gpuscout bench
// nccl-choice`; an error (the process failed, timed out, or could not open
// the GPUs: another process holds one in EXCLUSIVE_PROCESS mode) makes
// every size unknown, with the error as why. It must return by ctx's end.
type NCCLChoiceProbe func(ctx context.Context, devices []int, sizes []int64) (map[int64]gpu.Choice, error)

// ProbeNote is how a choice read by the probe process is described.
const ProbeNote = "NCCL's log in a separate probe process with the same environment"

// chosen is what NCCL chose at a size, and whether the probe process said.
type chosen struct {
	gpu.Choice
	probe bool
}

// probed is what the probe said, or why it said nothing.
type probed struct {
	choices map[int64]gpu.Choice
	why     string // for every size, when the probe said nothing
}

// probeChoices runs probe for the sizes over runs' GPUs.
func probeChoices(ctx context.Context, runs []*run, sizes []int64, probe NCCLChoiceProbe) probed {
	if probe == nil {
		return probed{why: "bench was given no probe process to read NCCL's choice in (NCCL's log is not turned on where the all-reduces are timed)"}
	}
	devices := make([]int, len(runs))
	for i, r := range runs {
		devices[i] = r.info.Index
	}
	choices, err := probe(ctx, devices, slices.Clone(sizes))
	if err != nil {
		return probed{why: "the probe process that reads NCCL's choice failed: " + err.Error()}
	}
	return probed{choices: choices}
}

// at is the choice at size: what the timed process's own log says (own),
// where the user had NCCL write it; else the probe's.
func (p probed) at(size int64, own gpu.Choice) chosen {
	if own = choiceOf(own); own.Known() {
		return chosen{Choice: own}
	}
	if p.why != "" {
		return chosen{Choice: gpu.UnknownChoice(p.why), probe: true}
	}
	c, ok := p.choices[size]
	if !ok {
		return chosen{Choice: gpu.UnknownChoice("the probe process said nothing about this size"), probe: true}
	}
	c = choiceOf(c)
	if !c.Known() {
		c.Why = "in the probe process: " + c.Why
	}
	return chosen{Choice: c, probe: true}
}

// choiceOf is c with an empty algorithm or protocol made unknown.
func choiceOf(c gpu.Choice) gpu.Choice {
	if c.Algorithm == "" || c.Protocol == "" {
		why := c.Why
		if why == "" {
			why = "the collective library did not say"
		}
		return gpu.UnknownChoice(why)
	}
	return c
}

// withChoice is a copy of settings with what NCCL chose at the figure's
// size (benchreport.SettingNCCLAlgoChosen, SettingNCCLProtoChosen).
func withChoice(settings map[string]string, c gpu.Choice) map[string]string {
	out := maps.Clone(settings)
	if out == nil {
		out = map[string]string{}
	}
	out[benchreport.SettingNCCLAlgoChosen], out[benchreport.SettingNCCLProtoChosen] = c.Algorithm, c.Protocol
	return out
}

// sweepChoices sums up what NCCL chose across the sweep, one run of sizes
// with the same choice at a time: "; NCCL's log: RING/LL at 8 B–32 KiB,
// NVLS/SIMPLE at 128 KiB–1 GiB" ("NCCL's log in a separate probe process
// …:" where the probe said any of them); "" when it said nothing at any
// size.
func sweepChoices(sweep []benchreport.SweepPoint, choices []chosen) string {
	var parts []string
	known := false
	for i := 0; i < len(sweep); {
		j := i
		for j+1 < len(sweep) && sweep[j+1].Algorithm == sweep[i].Algorithm && sweep[j+1].Protocol == sweep[i].Protocol {
			j++
		}
		what := sweep[i].Algorithm + "/" + sweep[i].Protocol
		if sweep[i].Algorithm == gpu.ChoiceUnknown || sweep[i].Protocol == gpu.ChoiceUnknown {
			what = "unknown"
		} else {
			known = true
		}
		at := byteSize(sweep[i].Bytes)
		if j > i {
			at += "–" + byteSize(sweep[j].Bytes)
		}
		parts = append(parts, what+" at "+at)
		i = j + 1
	}
	if !known {
		return ""
	}
	label := "NCCL's log"
	if slices.ContainsFunc(choices, func(c chosen) bool { return c.probe && c.Known() }) {
		label = ProbeNote
	}
	return "; " + label + ": " + strings.Join(parts, ", ")
}

// algorithmNote says which algorithm and protocol the figure used: what
// NCCL_ALGO and NCCL_PROTO force, and what NCCL's debug log says it chose
// at the figure's size (c), or that it is not known and why. NCCL's own
// choice differs between machines (NVLS on NVSwitch systems with NVLink
// SHARP, ring or tree elsewhere), so that two reports are compared
// knowingly. A choice the probe process read says so.
func algorithmNote(settings map[string]string, c chosen) string {
	algo, proto := settings["NCCL_ALGO"], settings["NCCL_PROTO"]
	var note string
	switch {
	case algo != "" && proto != "":
		note = "algorithm " + algo + ", protocol " + proto + ", as forced"
	case algo != "":
		note = "algorithm " + algo + " as forced, NCCL's choice of protocol"
	case proto != "":
		note = "protocol " + proto + " as forced, NCCL's choice of algorithm"
	default:
		note = "NCCL's choice of algorithm and protocol (NCCL_ALGO and NCCL_PROTO unset)"
		if v, ok := settings["NCCL_NVLS_ENABLE"]; ok && v == "0" {
			note = "NCCL's choice of algorithm and protocol (NCCL_ALGO unset), NVLS off"
		}
	}
	if c.Known() {
		src := "NCCL's log"
		if c.probe {
			src = ProbeNote + ", not the timed one"
		}
		return note + ": " + c.Algorithm + " with " + c.Protocol + " (" + src + ")"
	}
	why := c.Why
	if why == "" {
		why = "the collective library did not say"
	}
	return note + "; what NCCL chose is not known: " + why
}

// byteSize writes a message size in B, KiB, MiB or GiB (whole units where
// it divides).
func byteSize(b int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", b>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", b)
}

// fmtG writes a figure to four significant digits.
func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }
