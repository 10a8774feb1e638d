package doctor

import (
	"fmt"
	"strconv"
	"strings"
)

// gpuCheck describes one GPU and warns when its PCIe link is narrower than
// it can be.
func gpuCheck(g SMIGPU) Check {
	name := "gpu" + strconv.Itoa(g.Index)
	d := g.Name
	if g.Architecture != "" && g.Architecture != "N/A" {
		d += " (" + g.Architecture + ")"
	}
	if g.MemoryMiB > 0 {
		d += fmt.Sprintf(", %d MiB", g.MemoryMiB)
	}
	if g.PCIeGen > 0 && g.PCIeWidth > 0 {
		d += fmt.Sprintf(", PCIe Gen%d x%d", g.PCIeGen, g.PCIeWidth)
		if g.PCIeGenMax > g.PCIeGen || g.PCIeWidthMax > g.PCIeWidth {
			d += fmt.Sprintf(" (max Gen%d x%d)", g.PCIeGenMax, g.PCIeWidthMax)
		}
	}
	if g.BusID != "" {
		d += ", bus " + g.BusID
	}
	if g.PCIeWidthMax > 0 && g.PCIeWidth > 0 && g.PCIeWidth < g.PCIeWidthMax {
		return checkf(name, StatusWarn, "a narrower link is a seating, riser or BIOS problem: on a cloud instance report it to the provider or take another instance",
			"%s: the PCIe link runs %d of %d lanes, so host↔device copies get at most %d%% of their bandwidth", d, g.PCIeWidth, g.PCIeWidthMax, 100*g.PCIeWidth/g.PCIeWidthMax)
	}
	if g.PCIeGenMax > g.PCIeGen && g.PCIeGen > 0 {
		d += "; an idle GPU lowers its PCIe generation to save power"
	}
	return checkf(name, StatusOK, "", "%s", d)
}

// migCheck: MIG changes what a CUDA program sees (instances, not GPUs).
func migCheck(gpus []SMIGPU) Check {
	const name = "mig"
	var on, pending []string
	var fixes []string
	for _, g := range gpus {
		if g.MIGCurrent == "Enabled" {
			on = append(on, fmt.Sprintf("GPU %d (%s)", g.Index, g.Name))
			fixes = append(fixes, fmt.Sprintf("sudo nvidia-smi -i %d -mig 0", g.Index))
		}
		if isMode(g.MIGPending) && isMode(g.MIGCurrent) && g.MIGPending != g.MIGCurrent {
			pending = append(pending, fmt.Sprintf("GPU %d (now %s, %s after a reset)", g.Index, g.MIGCurrent, g.MIGPending))
		}
	}
	switch {
	case len(on) > 0:
		d := "MIG is enabled on " + strings.Join(on, ", ") + ": CUDA programs see MIG instances, not the GPU, so bench measures one instance (its share of SMs and memory bandwidth), NCCL and peer copies between instances are unavailable, and NVML utilisation and power stay per physical GPU"
		if len(pending) > 0 {
			d += "; pending change on " + strings.Join(pending, ", ")
		}
		return checkf(name, StatusWarn, "to measure the whole GPU, stop its programs and run "+strings.Join(fixes, "; ")+" (then reset the GPU if nvidia-smi asks); to measure one instance, select it with CUDA_VISIBLE_DEVICES=MIG-<uuid> (nvidia-smi -L lists them)", "%s", d)
	case len(pending) > 0:
		return checkf(name, StatusWarn, "reset the GPU (sudo nvidia-smi -i N -r, with no programs on it) or reboot",
			"MIG mode change pending on %s", strings.Join(pending, ", "))
	}
	return checkf(name, StatusOK, "", "MIG off on every GPU: programs see whole GPUs")
}

// isMode says whether a mode value is a real setting rather than "N/A".
func isMode(s string) bool { return s == "Enabled" || s == "Disabled" }

// virtualizationCheck says what the virtualization mode means for
// measurements: bare metal and passthrough measure the GPU, vGPU a share.
func virtualizationCheck(gpus []SMIGPU) Check {
	const name = "virtualization"
	modes := map[string][]string{}
	var order []string
	for _, g := range gpus {
		m := g.Virtualization
		if m == "" {
			m = "N/A"
		}
		if _, ok := modes[m]; !ok {
			order = append(order, m)
		}
		modes[m] = append(modes[m], strconv.Itoa(g.Index))
	}
	var parts []string
	status := StatusOK
	fix := ""
	for _, m := range order {
		which := "GPU " + strings.Join(modes[m], ", ")
		switch strings.ToUpper(strings.ReplaceAll(m, "-", "")) {
		case "NONE":
			parts = append(parts, which+": no virtualization (bare metal): measurements describe the GPU itself")
		case "PASSTHROUGH":
			parts = append(parts, which+": passed through whole to this VM (Pass-Through): bench measures the full GPU; the hypervisor can add launch latency and jitter")
		case "VGPU":
			status = StatusWarn
			parts = append(parts, which+": NVIDIA vGPU: this VM gets a vGPU profile, a time slice or a fixed partition of the GPU, so throughput and jitter depend on the profile and on other tenants, and some NVML counters (clocks, power) are not visible in the guest")
			fix = "to measure the whole GPU, use a passthrough or bare-metal instance; otherwise quote the vGPU profile (nvidia-smi vgpu -q) with the figures"
		case "HOSTVGPU", "HOSTVSGA":
			status = StatusWarn
			parts = append(parts, which+": this is a vGPU host ("+m+"): the GPU is shared with guest VMs, whose load changes what is measured here")
			fix = "measure on an idle host or inside a passthrough VM"
		default:
			parts = append(parts, which+": virtualization mode not reported ("+m+")")
		}
	}
	return checkf(name, status, fix, "%s", strings.Join(parts, "; "))
}

// datacenter says whether a GPU is a datacenter part, where ECC is expected
// on: nvidia-smi brands them "NVIDIA" (Hopper, Blackwell, Ampere A100/A10)
// or "Tesla" (older ones); GeForce, Quadro and RTX workstation cards ship
// with ECC off or without it.
func datacenter(g SMIGPU) bool { return g.Brand == "NVIDIA" || g.Brand == "Tesla" }

// eccCheck warns about ECC off on a datacenter GPU and about pending changes.
func eccCheck(gpus []SMIGPU) Check {
	const name = "ecc"
	var off, pending, fixes []string
	checked := 0
	for _, g := range gpus {
		if !isMode(g.ECCCurrent) {
			continue
		}
		checked++
		if g.ECCCurrent == "Disabled" && datacenter(g) {
			off = append(off, fmt.Sprintf("GPU %d (%s)", g.Index, g.Name))
			fixes = append(fixes, fmt.Sprintf("sudo nvidia-smi -i %d -e 1", g.Index))
		}
		if isMode(g.ECCPending) && g.ECCPending != g.ECCCurrent {
			pending = append(pending, fmt.Sprintf("GPU %d (now %s, %s after a reboot)", g.Index, g.ECCCurrent, g.ECCPending))
		}
	}
	switch {
	case len(off) > 0:
		d := "ECC is off on " + strings.Join(off, ", ") + ": memory errors go undetected and silently corrupt results; datacenter GPUs are meant to run with ECC on, and cloud instances normally do"
		if len(pending) > 0 {
			d += "; pending change on " + strings.Join(pending, ", ")
		}
		return checkf(name, StatusWarn, strings.Join(fixes, "; ")+", then reboot (or reset the GPU)", "%s", d)
	case len(pending) > 0:
		return checkf(name, StatusWarn, "reboot (or reset the GPU with sudo nvidia-smi -i N -r) to apply it", "ECC mode change pending on %s", strings.Join(pending, ", "))
	case checked == 0:
		return checkf(name, StatusOK, "", "ECC is not available on these GPUs (N/A)")
	}
	return checkf(name, StatusOK, "", "ECC on for every GPU that has it (%s)", plural(checked, "GPU", "GPUs"))
}

// persistenceCheck warns when the driver may tear GPU state down between
// programs.
func persistenceCheck(gpus []SMIGPU) Check {
	const name = "persistence"
	var off []string
	for _, g := range gpus {
		if g.Persistence == "Disabled" {
			off = append(off, strconv.Itoa(g.Index))
		}
	}
	if len(off) == 0 {
		return checkf(name, StatusOK, "", "persistence mode on: the driver keeps the GPUs initialised between programs")
	}
	return checkf(name, StatusWarn, "sudo nvidia-smi -pm 1 (lost at reboot), or enable the nvidia-persistenced service (sudo systemctl enable --now nvidia-persistenced)",
		"persistence mode off on GPU %s: the driver tears the GPU state down whenever no program uses it, so every new CUDA program waits for initialisation again (seconds on a large GPU) and short runs start slower",
		strings.Join(off, ", "))
}
