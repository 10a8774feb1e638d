package doctor

import (
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
	cs = append(cs, runtimeChecks(f)...)
	if c, ok := xidCheck(f); ok {
		cs = append(cs, c)
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
//
// A loaded libcuda newer than the kernel driver is CUDA forward
// compatibility (the cuda-compat package): programs load that libcuda, so
// its versions are the ones that count.
func (f Facts) driverVersions() (driver, cuda string) {
	l := f.library("libcuda")
	lib := l.Loaded && len(parseVersion(l.Version)) >= 2 && l.APIVersion != ""
	switch {
	case f.SMI != nil && lib && !versionAtLeast(parseVersion(f.SMI.Driver), parseVersion(l.Version)):
		return l.Version, l.APIVersion
	case f.SMI != nil:
		return f.SMI.Driver, f.SMI.CUDA
	case lib:
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

// driverCheck: is there a driver, and does nvidia-smi answer? No GPU at all
// is "missing", not a failure.
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
