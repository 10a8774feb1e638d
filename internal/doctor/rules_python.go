package doctor

import (
	"fmt"
	"path/filepath"
	"strings"
)

// pythonCheck: is there a python3, and did it answer the probe?
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

// pyEnvCheck names the active environment and warns when PyTorch is in one
// that is not active.
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
		switch env.Kind {
		case "conda":
			label = fmt.Sprintf("conda %q (%s)", env.Name, env.Path)
		case "pyenv":
			label = fmt.Sprintf("pyenv %q (%s)", env.Name, env.Path)
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

// wheelIndex suggests PyTorch's wheel index for a driver's CUDA version:
// 13.0 → cu130.
func wheelIndex(driverCUDA string) string {
	v := parseVersion(driverCUDA)
	if len(v) < 2 {
		return ""
	}
	return fmt.Sprintf("cu%d%d", v[0], v[1])
}

// torchCheck: does python3 import torch, and which build is it?
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
