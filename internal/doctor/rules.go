package doctor

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Rules turns facts into checks, in report order: the driver, each GPU and
// its modes, the libraries, then Python and PyTorch. Checks that only make
// sense with a GPU are left out on a machine without one.
func Rules(f Facts) []Check {
	var cs []Check
	cs = append(cs, driverCheck(f))
	if f.SMI != nil {
		for _, g := range f.SMI.GPUs {
			cs = append(cs, gpuCheck(g))
		}
		if len(f.SMI.GPUs) > 0 {
			cs = append(cs, migCheck(f.SMI.GPUs), virtualizationCheck(f.SMI.GPUs), eccCheck(f.SMI.GPUs), persistenceCheck(f.SMI.GPUs))
		}
	}
	cs = append(cs, libraryChecks(f)...)
	cs = append(cs, pythonCheck(f))
	if c, ok := pyEnvCheck(f); ok {
		cs = append(cs, c)
	}
	cs = append(cs, torchCheck(f))
	if c, ok := torchCUDACheck(f); ok {
		cs = append(cs, c)
	}
	if c, ok := torchGPUsCheck(f); ok {
		cs = append(cs, c)
	}
	return cs
}

// gpuCount is the number of GPUs nvidia-smi lists, or else the number of
// /dev/nvidiaN device files.
func (f Facts) gpuCount() int {
	if f.SMI != nil {
		return len(f.SMI.GPUs)
	}
	return len(f.DevNodes)
}

// driverVersions are the driver version and the CUDA version it supports:
// nvidia-smi's, or else those of the libcuda that loaded (its file name
// carries the driver version, libcuda.so.580.159.04, and it reports its
// driver API version).
func (f Facts) driverVersions() (driver, cuda string) {
	if f.SMI != nil {
		return f.SMI.Driver, f.SMI.CUDA
	}
	if l := f.library("libcuda"); l.Loaded && len(parseVersion(l.Version)) >= 2 {
		return l.Version, l.APIVersion
	}
	return "", ""
}

// hasGPU says whether the machine has an NVIDIA GPU as far as doctor can tell.
func (f Facts) hasGPU() bool { return f.gpuCount() > 0 }

func (f Facts) library(key string) Library {
	for _, l := range f.Libraries {
		if l.Key == key {
			return l
		}
	}
	return Library{Key: key}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

const installDriverFix = "nothing to do on a CPU machine; on a GPU instance, install the NVIDIA driver (the cloud's GPU driver guide, or an image that has it, such as a Deep Learning AMI)"

func driverCheck(f Facts) Check {
	const name = "driver"
	switch {
	case f.SMI != nil && len(f.SMI.GPUs) == 0:
		return checkf(name, StatusWarn, "check that the instance has GPUs attached (lspci | grep -i nvidia)",
			"NVIDIA driver %s (CUDA %s) is loaded but nvidia-smi lists no GPU", f.SMI.Driver, orUnknown(f.SMI.CUDA))
	case f.SMI != nil:
		return checkf(name, StatusOK, "", "NVIDIA driver %s, CUDA driver API %s, %s", f.SMI.Driver, orUnknown(f.SMI.CUDA), plural(len(f.SMI.GPUs), "GPU", "GPUs"))
	case f.SMIError != "" && strings.Contains(f.SMIError, ErrTimeout.Error()):
		return checkf(name, StatusFail, "a GPU or the driver is in a bad state: look for Xid errors (sudo dmesg | grep -i xid), reset the GPU (sudo nvidia-smi -r) or reboot",
			"nvidia-smi hung: %s", f.SMIError)
	case f.SMIError != "" && len(f.DevNodes) == 0:
		return checkf(name, StatusMissing, installDriverFix,
			"no NVIDIA GPU found: NVIDIA driver tools are installed but no /dev/nvidia* device exists (%s)", f.SMIError)
	case f.SMIError != "":
		return checkf(name, StatusFail, smiFailureFix(f.SMIError), "nvidia-smi failed: %s", f.SMIError)
	case f.SMIPath == "" && len(f.DevNodes) > 0:
		fix := "install the NVIDIA utilities that match the driver (Ubuntu: nvidia-utils-<branch>); in a container, run it with the NVIDIA Container Toolkit (docker run --gpus all), which mounts nvidia-smi"
		if !f.library("libcuda").Found() {
			return checkf(name, StatusFail, fix+"; the driver's libcuda.so.1 must be present too",
				"%s present, but nvidia-smi is not on PATH and libcuda.so.1 is not found: CUDA programs cannot start", strings.Join(f.DevNodes, ", "))
		}
		return checkf(name, StatusWarn, fix,
			"%s present and libcuda found, but nvidia-smi is not on PATH: driver version, MIG, ECC and virtualization mode cannot be read", strings.Join(f.DevNodes, ", "))
	default:
		return checkf(name, StatusMissing, installDriverFix, "no NVIDIA driver found (no nvidia-smi on PATH, no /dev/nvidia* device): GPU checks skipped")
	}
}

// smiFailureFix matches nvidia-smi's own failure messages.
func smiFailureFix(msg string) string {
	switch {
	case strings.Contains(msg, "version mismatch"):
		return "the loaded kernel module and the driver libraries differ (a driver update without reboot): reboot, or unload and reload the nvidia kernel modules"
	case strings.Contains(msg, "couldn't communicate"), strings.Contains(msg, "could not communicate"):
		return "the nvidia kernel module is not loaded: check lsmod | grep nvidia and sudo dmesg | grep -i nvrm; reinstall the driver for the running kernel (after a kernel update) and reboot"
	case strings.Contains(msg, "No devices were found"):
		return "the driver finds no GPU: check lspci | grep -i nvidia and sudo dmesg | grep -i nvrm; a GPU that fell off the bus needs a reboot or a new instance"
	}
	return "run nvidia-smi yourself to see the error; look for Xid errors in sudo dmesg"
}

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

// libraryFix says how to get a library that is missing.
var libraryFix = map[string]string{
	"libcuda": "libcuda.so.1 comes with the NVIDIA driver: install the driver's user-space libraries (Ubuntu: libnvidia-compute-<branch>), or in a container use the NVIDIA Container Toolkit (docker run --gpus all)",
	"cudart":  "install the CUDA runtime (a CUDA toolkit, or a pip wheel such as nvidia-cuda-runtime-cu12); a CUDA build of PyTorch brings its own in site-packages/nvidia",
	"cublas":  "bench's matrix products need cuBLAS: install the CUDA toolkit's cuBLAS (Ubuntu: libcublas-<version> from NVIDIA's repository), or a CUDA build of PyTorch, whose wheels bring it",
	"cudnn":   "only PyTorch workloads need cuDNN: a CUDA build of PyTorch brings it (pip wheels such as nvidia-cudnn-cu12); or install cuDNN from NVIDIA's repository",
	"nccl":    "bench's all-reduce needs NCCL (libnccl.so.2): a CUDA build of PyTorch brings it (pip wheels such as nvidia-nccl-cu12), or install libnccl2 from NVIDIA's repository",
}

// libraryChecks reports each library; on a machine without a GPU where none
// is present, one line says so instead of five.
func libraryChecks(f Facts) []Check {
	var names []string
	for _, l := range f.Libraries {
		if l.Found() || len(l.Stubs) > 0 || f.hasGPU() {
			var cs []Check
			for _, l := range f.Libraries {
				cs = append(cs, libraryCheck(f, l))
			}
			return cs
		}
		names = append(names, l.Name)
	}
	if len(names) == 0 {
		return nil
	}
	return []Check{checkf("cuda-libraries", StatusMissing, "only needed on a GPU node",
		"no CUDA libraries found (%s)", strings.Join(names, ", "))}
}

func libraryCheck(f Facts, l Library) Check {
	name := l.Key
	gpu := f.hasGPU()
	fix := libraryFix[l.Key]
	switch {
	case l.Found() && l.LoadError != "":
		st := StatusWarn
		if l.Key == "libcuda" && gpu {
			st = StatusFail
		}
		return checkf(name, st, "a library that is present but does not load usually misses a companion library or is for another architecture: "+fix,
			"%s found at %s, but it does not load: %s", l.Name, l.Path, l.LoadError)
	case l.Found():
		what := l.Name
		if v := l.ShownVersion(); v != "" {
			what += " " + v
		}
		if l.Key == "libcuda" && l.APIVersion != "" {
			what += " (driver API " + l.APIVersion + ")"
		}
		c := checkf(name, StatusOK, "", "%s at %s", what, l.Path)
		if l.Key == "cudart" && f.SMI != nil && len(parseVersion(l.ShownVersion())) >= 2 {
			if s, d := cudaFits(f.SMI.Driver, f.SMI.CUDA, majorMinor(l.ShownVersion())); s != StatusOK {
				c.Status, c.Detail = s, fmt.Sprintf("%s at %s is %s", what, l.Path, d)
				c.Fix = fmt.Sprintf("programs that use this runtime need a newer driver: upgrade the NVIDIA driver, or use a CUDA %s runtime (e.g. the one a matching PyTorch wheel brings)", orUnknown(f.SMI.CUDA))
			}
		}
		return c
	case len(l.Stubs) > 0:
		st := StatusWarn
		if l.Key == "libcuda" && gpu {
			st = StatusFail
		}
		return checkf(name, st, fix+"; never put a stubs/ folder on LD_LIBRARY_PATH",
			"%s: only the link-time stub %s, which fails at run time", l.Name, l.Stubs[0])
	case l.Key == "libcuda" && gpu:
		return checkf(name, StatusFail, fix, "%s not found in the loader's folders: CUDA programs cannot start", l.Name)
	}
	where := "in the loader's folders, CUDA toolkits or PyTorch/NVIDIA wheel folders"
	if l.Key == "libcuda" {
		where = "in the loader's folders"
	}
	if !gpu {
		fix = "only needed on a GPU node"
	}
	return checkf(name, StatusMissing, fix, "%s not found %s", l.Name, where)
}

func pythonCheck(f Facts) Check {
	const name = "python"
	p := f.Python
	switch {
	case p.Path == "":
		return checkf(name, StatusMissing, "install Python 3 (Ubuntu: sudo apt install python3) or activate your environment; only PyTorch workloads need it",
			"python3 not found on PATH: PyTorch checks skipped")
	case p.ProbeError != "":
		return checkf(name, StatusFail, "run the same python3 yourself (python3 -c 'import torch') to see what hangs or fails",
			"%s did not answer doctor's probe: %s", p.Path, p.ProbeError)
	}
	d := fmt.Sprintf("Python %s at %s", p.Version, p.Path)
	if p.Executable != "" && p.Executable != p.Path {
		d += " (" + p.Executable + ")"
	}
	return checkf(name, StatusOK, "", "%s", d)
}

func pyEnvCheck(f Facts) (Check, bool) {
	const name = "python-env"
	e := f.PyEnv
	active := ""
	switch {
	case e.CondaPrefix != "":
		n := e.CondaEnv
		if n == "" {
			n = filepath.Base(e.CondaPrefix)
		}
		active = fmt.Sprintf("conda environment %q active (%s)", n, e.CondaPrefix)
	case e.VirtualEnv != "":
		active = "virtualenv " + e.VirtualEnv + " active"
	}
	var withTorch, others []string
	var fix string
	for _, env := range e.Installed {
		if env.Path == e.CondaPrefix || env.Path == e.VirtualEnv {
			continue
		}
		label := "venv " + env.Path
		if env.Kind == "conda" {
			label = fmt.Sprintf("conda %q (%s)", env.Name, env.Path)
		}
		if env.HasTorch {
			withTorch = append(withTorch, label)
			if fix == "" {
				fix = env.Activate
			}
		} else {
			others = append(others, label)
		}
	}
	// The AWS Deep Learning AMI case: PyTorch sits in an environment that
	// is not the one python3 runs in (conda's base may be active instead).
	if len(withTorch) > 0 && f.Python.Path != "" && f.Python.ProbeError == "" && f.Python.Torch == nil && f.Python.TorchMissing {
		d := fmt.Sprintf("PyTorch is installed in %s, which is not activated; python3 on PATH (%s) has no PyTorch", strings.Join(withTorch, ", "), f.Python.Path)
		if active != "" {
			d += " (" + active + ")"
		}
		return checkf(name, StatusWarn, fix+", then run gpuscout doctor again (add it to ~/.bashrc to make it the default)", "%s", d), true
	}
	switch {
	case active != "":
		return checkf(name, StatusOK, "", "%s", active), true
	case len(withTorch)+len(others) > 0:
		return checkf(name, StatusOK, "", "no environment active; installed but not activated: %s", strings.Join(append(withTorch, others...), ", ")), true
	case f.Python.Path == "":
		return Check{}, false
	}
	return checkf(name, StatusOK, "", "no virtualenv or conda environment active; using the system Python"), true
}

// majorMinor keeps the first two parts of a version: 12.4.127 → 12.4.
func majorMinor(v string) string {
	p := strings.Split(v, ".")
	return strings.Join(p[:min(2, len(p))], ".")
}

// wheelIndex suggests PyTorch's wheel index for a driver's CUDA version:
// 13.0 → cu130.
func wheelIndex(driverCUDA string) string {
	v := parseVersion(driverCUDA)
	if len(v) < 2 {
		return ""
	}
	return fmt.Sprintf("cu%d%d", v[0], v[1])
}

func torchCheck(f Facts) Check {
	const name = "pytorch"
	p := f.Python
	if p.Path == "" || p.ProbeError != "" {
		return checkf(name, StatusMissing, "", "not checked: no working python3 (see the python check)")
	}
	if p.Torch == nil && p.TorchMissing {
		fix := "only `gpuscout bench workload` needs it: pip install torch --index-url https://download.pytorch.org/whl/cpu"
		if f.hasGPU() {
			fix = "pip install torch (https://pytorch.org/get-started/locally/ lists the builds"
			if _, cuda := f.driverVersions(); wheelIndex(cuda) != "" {
				fix += fmt.Sprintf("; this driver supports CUDA %s, so take %s or an older CUDA build", cuda, wheelIndex(cuda))
			}
			fix += ")"
		}
		return checkf(name, StatusMissing, fix, "PyTorch is not installed for %s", p.Path)
	}
	if p.Torch == nil {
		return checkf(name, StatusFail, "reinstall PyTorch in this environment (pip install --force-reinstall torch); a missing libcudnn, libcublas or libnccl means the nvidia-* wheels do not match torch",
			"import torch failed in %s: %s", p.Path, p.TorchError)
	}
	t := p.Torch
	var parts []string
	switch {
	case t.CUDA != "":
		parts = append(parts, "CUDA "+t.CUDA)
	case t.HIP != "":
		parts = append(parts, "ROCm "+t.HIP)
	default:
		parts = append(parts, "CPU-only build")
	}
	if t.CuDNN != "" {
		parts = append(parts, "cuDNN "+t.CuDNN)
	}
	if t.NCCL != "" {
		parts = append(parts, "NCCL "+t.NCCL)
	}
	d := fmt.Sprintf("PyTorch %s (%s)", t.Version, strings.Join(parts, ", "))
	if t.Path != "" {
		d += " at " + filepath.Dir(t.Path)
	}
	return checkf(name, StatusOK, "", "%s", d)
}

// torchCUDACheck: is this PyTorch a build that can use this node's GPUs?
// CPU-only and ROCm builds on an NVIDIA node fail; a CUDA build is checked
// against NVIDIA's minimum driver for its CUDA release.
func torchCUDACheck(f Facts) (Check, bool) {
	const name = "pytorch-cuda"
	t := f.Python.Torch
	if t == nil {
		return Check{}, false
	}
	gpus := f.gpuCount()
	driver, driverCUDA := f.driverVersions()
	idx := wheelIndex(driverCUDA)
	reinstall := "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/" + idx
	if idx == "" {
		reinstall = "reinstall PyTorch from a CUDA index (https://pytorch.org/get-started/locally/)"
	} else {
		reinstall += fmt.Sprintf(" (or an older cuXYZ index listed at https://pytorch.org/get-started/locally/; this driver supports CUDA %s)", driverCUDA)
	}
	switch {
	case gpus == 0 && t.CUDA == "" && t.HIP != "":
		return checkf(name, StatusOK, "", "PyTorch %s is a ROCm build; no NVIDIA GPU here", t.Version), true
	case gpus == 0 && t.CUDA == "":
		return checkf(name, StatusOK, "", "CPU-only PyTorch %s on a machine without an NVIDIA GPU", t.Version), true
	case gpus == 0:
		return checkf(name, StatusOK, "", "PyTorch built for CUDA %s; no NVIDIA GPU here to use it", t.CUDA), true
	case t.CUDA == "" && t.HIP != "":
		return checkf(name, StatusFail, reinstall, "PyTorch %s is a ROCm (AMD) build; this node has %s", t.Version, plural(gpus, "NVIDIA GPU", "NVIDIA GPUs")), true
	case t.CUDA == "":
		return checkf(name, StatusFail, reinstall, "PyTorch %s is a CPU-only build; this node has %s that it cannot use", t.Version, plural(gpus, "NVIDIA GPU", "NVIDIA GPUs")), true
	case driver == "":
		return checkf(name, StatusWarn, "install nvidia-smi (see the driver check) so the driver version can be compared",
			"PyTorch built for CUDA %s; the driver version is unknown, so compatibility cannot be checked", t.CUDA), true
	}
	s, d := cudaFits(driver, driverCUDA, t.CUDA)
	c := checkf(name, s, "", "PyTorch %s: %s", t.Version, d)
	if len(t.CUDAWarnings) > 0 && s != StatusOK {
		c.Detail += "; PyTorch says: " + excerpt(t.CUDAWarnings[0])
	}
	switch s {
	case StatusFail:
		floor, _ := minDriver(t.CUDA)
		c.Fix = fmt.Sprintf("upgrade the NVIDIA driver to %s or newer, or install a PyTorch built for CUDA %s or older: %s", floor.driver, orUnknown(driverCUDA), reinstall)
	case StatusWarn:
		c.Fix = "install a PyTorch built for the driver's CUDA version or older: " + reinstall + "; or upgrade the driver"
	}
	return c, true
}

// torchGPUsCheck: does PyTorch see the GPUs nvidia-smi sees?
func torchGPUsCheck(f Facts) (Check, bool) {
	const name = "pytorch-gpus"
	t := f.Python.Torch
	if t == nil || t.CUDA == "" || f.SMI == nil || len(f.SMI.GPUs) == 0 {
		return Check{}, false
	}
	n := len(f.SMI.GPUs)
	seen := t.DeviceCount
	if !t.CUDAAvailable {
		seen = 0
	}
	cvd := ""
	if f.CUDAVisibleDevicesSet {
		cvd = fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q", f.CUDAVisibleDevices)
	}
	mig := false
	for _, g := range f.SMI.GPUs {
		mig = mig || g.MIGCurrent == "Enabled"
	}
	switch {
	case seen == 0:
		d := fmt.Sprintf("PyTorch sees no GPU, nvidia-smi sees %d", n)
		var why []string
		if cvd != "" {
			why = append(why, cvd+" hides them")
		}
		if t.CUDAError != "" {
			why = append(why, t.CUDAError)
		}
		if len(t.CUDAWarnings) > 0 {
			why = append(why, excerpt(t.CUDAWarnings[0]))
		}
		if len(why) > 0 {
			d += ": " + strings.Join(why, "; ")
		}
		fix := "see the pytorch-cuda check; in a container pass the GPUs in (docker run --gpus all); check that this user may open /dev/nvidia* (ls -l /dev/nvidia*)"
		if cvd != "" {
			fix = "unset CUDA_VISIBLE_DEVICES or list the GPUs to use (CUDA_VISIBLE_DEVICES=0,1)"
		}
		return checkf(name, StatusFail, fix, "%s", d), true
	case seen < n && cvd == "" && !mig:
		return checkf(name, StatusWarn, "check nvidia-smi for GPUs in a bad state and the container's --gpus setting",
			"PyTorch sees %d of the %d GPUs nvidia-smi lists", seen, n), true
	case seen != n:
		d := fmt.Sprintf("PyTorch sees %d GPUs, nvidia-smi lists %d", seen, n)
		if cvd != "" {
			d += " (" + cvd + ")"
		}
		if mig {
			d += " (MIG instances count as devices)"
		}
		return checkf(name, StatusOK, "", "%s", d), true
	}
	d := fmt.Sprintf("PyTorch sees all %d GPUs", n)
	if n == 1 {
		d = "PyTorch sees the GPU"
	}
	if len(t.Devices) > 0 {
		d += ": " + strings.Join(uniq(t.Devices), ", ")
	}
	return checkf(name, StatusOK, "", "%s", d), true
}

// uniq writes repeated names once with a count: [H200 H200] → "2× H200".
func uniq(names []string) []string {
	var out []string
	count := map[string]int{}
	for _, n := range names {
		if count[n] == 0 {
			out = append(out, n)
		}
		count[n]++
	}
	for i, n := range out {
		if count[n] > 1 {
			out[i] = fmt.Sprintf("%d× %s", count[n], n)
		}
	}
	return out
}
