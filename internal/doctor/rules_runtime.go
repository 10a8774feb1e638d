package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// runtimeChecks are the checks of the GPUs opened as bench opens them: the
// driver starting (cuInit), each GPU opening, compute modes, other
// programs on the GPUs, active slowdowns and memory row remapping. None
// without a runtime probe.
func runtimeChecks(f Facts) []Check {
	r := f.Runtime
	if r == nil {
		return nil
	}
	if r.Hung != "" {
		return []Check{checkf("cuda-init", StatusFail, "a GPU or the driver is in a bad state: look for Xid errors (sudo dmesg | grep -i xid), reset the GPU (sudo nvidia-smi -r) or reboot",
			"%s", r.Hung)}
	}
	if r.Init != nil {
		return []Check{initCheck(r)}
	}
	cs := []Check{initCheck(r), openCheck(r)}
	for _, c := range []func(*Runtime) (Check, bool){computeModeCheck, processesCheck, clocksCheck, remappedRowsCheck} {
		if c, ok := c(r); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

// initCheck: does the driver start (cuInit)? 802 is an HGX node whose
// fabric manager is not running.
func initCheck(r *Runtime) Check {
	const name = "cuda-init"
	if e := r.Init; e != nil {
		fix := e.Fix
		if fix == "" {
			fix = "run nvidia-smi and look for Xid errors (sudo dmesg | grep -i xid); reinstall the driver if it does not load"
		}
		return checkf(name, StatusFail, fix, "the CUDA driver does not start, so no CUDA program can run: %s", e.Detail)
	}
	return checkf(name, StatusOK, "", "the CUDA driver starts (driver API %s) and sees %s", orUnknown(r.DriverCUDA), plural(len(r.GPUs), "GPU", "GPUs"))
}

// openCheck: can each GPU be opened (a context created on it)?
func openCheck(r *Runtime) Check {
	const name = "gpu-open"
	var bad, fixes, ok []string
	for _, g := range r.GPUs {
		if g.Open == nil {
			ok = append(ok, fmt.Sprint(g.Index))
			continue
		}
		bad = append(bad, g.Open.Detail)
		if g.Open.Fix != "" {
			fixes = append(fixes, fmt.Sprintf("GPU %d: %s", g.Index, g.Open.Fix))
		}
	}
	if len(bad) == 0 {
		return checkf(name, StatusOK, "", "every GPU opens (a CUDA context on GPU %s)", strings.Join(ok, ", "))
	}
	d := strings.Join(bad, "; ")
	if len(ok) > 0 {
		d += fmt.Sprintf("; GPU %s open and bench measures them", strings.Join(ok, ", "))
	}
	return checkf(name, StatusFail, strings.Join(fixes, "; "), "%s", d)
}

// computeModeCheck: Exclusive_Process lets one program at a time use the
// GPU (bench beside a job fails with CUDA_ERROR_DEVICE_UNAVAILABLE);
// Prohibited lets none.
func computeModeCheck(r *Runtime) (Check, bool) {
	const name = "compute-mode"
	var excl, prohib, fixes []string
	known := 0
	for _, g := range r.GPUs {
		switch g.ComputeMode {
		case "":
			continue
		case "Exclusive_Process", "Exclusive_Thread":
			excl = append(excl, fmt.Sprint(g.Index))
			fixes = append(fixes, fmt.Sprintf("sudo nvidia-smi -i %s -c DEFAULT", smiID(g)))
		case "Prohibited":
			prohib = append(prohib, fmt.Sprint(g.Index))
			fixes = append(fixes, fmt.Sprintf("sudo nvidia-smi -i %s -c DEFAULT", smiID(g)))
		}
		known++
	}
	switch {
	case known == 0:
		return Check{}, false
	case len(prohib) > 0:
		d := fmt.Sprintf("GPU %s in Prohibited compute mode: no program may use them", strings.Join(prohib, ", "))
		if len(excl) > 0 {
			d += fmt.Sprintf("; GPU %s in Exclusive_Process mode", strings.Join(excl, ", "))
		}
		return checkf(name, StatusFail, strings.Join(fixes, "; "), "%s", d), true
	case len(excl) > 0:
		return checkf(name, StatusWarn, "if no job needs the GPU to itself: "+strings.Join(fixes, "; ")+" (lost at reboot)",
			"GPU %s in Exclusive_Process compute mode: one program at a time, so bench (or a second job) fails with CUDA_ERROR_DEVICE_UNAVAILABLE while another uses it",
			strings.Join(excl, ", ")), true
	}
	return checkf(name, StatusOK, "", "Default compute mode on every GPU: several programs may share one"), true
}

// processesCheck: other programs computing on the GPUs share what is
// measured; bench refuses such a GPU unless --allow-busy.
func processesCheck(r *Runtime) (Check, bool) {
	const name = "gpu-processes"
	var busy, pids []string
	for _, g := range r.GPUs {
		if len(g.Processes) == 0 {
			continue
		}
		busy = append(busy, fmt.Sprintf("GPU %d: %s", g.Index, describeProcs(g.Processes)))
		for _, p := range g.Processes {
			pids = append(pids, fmt.Sprint(p.PID))
		}
	}
	if len(busy) == 0 {
		return checkf(name, StatusOK, "", "no other program computes on the GPUs"), true
	}
	return checkf(name, StatusWarn, fmt.Sprintf("wait for them to finish or stop them (ps -o pid,user,cmd -p %s), or measure anyway with gpuscout bench --allow-busy", strings.Join(pids, ",")),
		"other programs compute on the GPUs (%s): bench does not measure a busy GPU unless --allow-busy, and figures measured beside them are shared with them",
		strings.Join(busy, "; ")), true
}

func describeProcs(ps []gpu.Process) string { return "PID " + gpu.DescribeProcesses(ps) }

// slowdowns are the clock-event reasons that hold a GPU's clocks down for a
// reason worth acting on; gpu_idle, sync_boost and the clock settings are
// not (an idle GPU lowers its clocks on purpose).
var slowdowns = map[string]string{
	"sw_power_cap":            "power capped (the board is at its power limit, or the limit was lowered: nvidia-smi -q -d POWER)",
	"hw_slowdown":             "hardware slowdown (too hot, or the power supply signalled a brake)",
	"sw_thermal_slowdown":     "thermal slowdown (the driver holds clocks down: too hot)",
	"hw_thermal_slowdown":     "hardware thermal slowdown (too hot)",
	"hw_power_brake_slowdown": "hardware power brake (the power supply asked for less)",
}

// clocksCheck: is any GPU slowed down now?
func clocksCheck(r *Runtime) (Check, bool) {
	const name = "clocks"
	var slow []string
	known := 0
	for _, g := range r.GPUs {
		if g.ClockReasons == nil {
			continue
		}
		known++
		var why []string
		for _, reason := range g.ClockReasons {
			if s, ok := slowdowns[reason]; ok {
				why = append(why, reason+": "+s)
			}
		}
		if len(why) > 0 {
			slow = append(slow, fmt.Sprintf("GPU %d: %s", g.Index, strings.Join(why, ", ")))
		}
	}
	switch {
	case known == 0:
		return Check{}, false
	case len(slow) > 0:
		return checkf(name, StatusWarn, "check cooling and airflow and the power limit (nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE); on a cloud instance a hardware slowdown is the provider's to fix: report it, or take another instance",
			"clocks held down now, so measurements read low: %s", strings.Join(slow, "; ")), true
	}
	return checkf(name, StatusOK, "", "no slowdown active (clock-event reasons: %s)", reasonsSummary(r)), true
}

func reasonsSummary(r *Runtime) string {
	var all []string
	for _, g := range r.GPUs {
		for _, x := range g.ClockReasons {
			if !slices.Contains(all, x) {
				all = append(all, x)
			}
		}
	}
	if len(all) == 0 {
		return "none"
	}
	return strings.Join(all, ", ")
}

// remappedRowsCheck: memory rows replaced by spares (Ampere and newer). A
// failed remapping means no spare was left; a pending one waits for a
// reset; uncorrectable errors already remapped are a warning sign.
func remappedRowsCheck(r *Runtime) (Check, bool) {
	const name = "remapped-rows"
	var failed, pending, unc, corr, fixes []string
	known := 0
	for _, g := range r.GPUs {
		rr := g.Remapped
		if rr == nil {
			continue
		}
		known++
		id := fmt.Sprintf("GPU %d", g.Index)
		switch {
		case rr.Failure:
			failed = append(failed, id)
			fixes = append(fixes, id+": the memory is failing (no spare row was left): replace the GPU (on a cloud instance, report it and take another)")
		case rr.Pending:
			pending = append(pending, id)
			fixes = append(fixes, fmt.Sprintf("%s: reset it to apply the remapping (sudo nvidia-smi -r -i %s, with no programs on it) or reboot", id, smiID(g)))
		}
		if rr.Uncorrectable > 0 {
			unc = append(unc, fmt.Sprintf("%s: %d", id, rr.Uncorrectable))
		}
		if rr.Correctable > 0 {
			corr = append(corr, fmt.Sprintf("%s: %d", id, rr.Correctable))
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, "a row remapping failed on "+strings.Join(failed, ", "))
	}
	if len(pending) > 0 {
		parts = append(parts, "a remapping waits for a GPU reset on "+strings.Join(pending, ", "))
	}
	if len(unc) > 0 {
		parts = append(parts, "rows remapped after uncorrectable errors ("+strings.Join(unc, ", ")+")")
	}
	if len(corr) > 0 {
		parts = append(parts, "rows remapped after correctable errors ("+strings.Join(corr, ", ")+")")
	}
	switch {
	case known == 0:
		return Check{}, false
	case len(failed) > 0:
		return checkf(name, StatusFail, strings.Join(fixes, "; "), "%s", strings.Join(parts, "; ")), true
	case len(pending) > 0:
		return checkf(name, StatusWarn, strings.Join(fixes, "; "), "%s", strings.Join(parts, "; ")), true
	case len(unc) > 0:
		return checkf(name, StatusWarn, "watch it: if more rows are remapped, the GPU is failing (on a cloud instance, report it)", "%s", strings.Join(parts, "; ")), true
	case len(corr) > 0:
		return checkf(name, StatusOK, "", "%s: spares in use, nothing to do", strings.Join(parts, "; ")), true
	}
	return checkf(name, StatusOK, "", "no memory rows remapped, none pending (%s)", plural(known, "GPU", "GPUs")), true
}

// smiID is how nvidia-smi -i takes the GPU: its UUID (CUDA's numbering may
// differ from nvidia-smi's).
func smiID(g RuntimeGPU) string {
	if g.UUID != "" {
		return g.UUID
	}
	return fmt.Sprint(g.Index)
}
