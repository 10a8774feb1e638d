package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// driverFloor is the oldest Linux driver that runs programs built with a
// CUDA major release, through CUDA minor version compatibility.
type driverFloor struct {
	major  int    // CUDA major version
	driver string // minimum Linux x86_64 driver
	source string
}

// compatGuide is NVIDIA's CUDA Compatibility guide, "Minor Version
// Compatibility", Table 1 (CUDA 13.x ≥ 580, 12.x ≥ 525, 11.x ≥ 450, with the
// note that CUDA 11 needs 450.80.02 on Linux) and Table 2 (CUDA 10.x).
const compatGuide = "NVIDIA CUDA Compatibility guide, https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"

// releaseNotes12 is the CUDA 12 toolkit release notes' table "CUDA Toolkit
// and Minimum Required Driver Version for CUDA Minor Version Compatibility"
// (CUDA 12.x: ≥ 525.60.13 on Linux).
const releaseNotes12 = "NVIDIA CUDA 12 Toolkit Release Notes, https://docs.nvidia.com/cuda/archive/12.1.0/cuda-toolkit-release-notes/"

// driverFloors: NVIDIA's published minimum drivers, newest CUDA first.
// Before CUDA 11 each minor release had its own minimum (10.0 ≥ 410.48,
// 10.1 ≥ 418.39, 10.2 ≥ 440.33); doctor checks 10.x against 10.0's and says
// so, since PyTorch builds for CUDA 10 are long gone.
var driverFloors = []driverFloor{
	{13, "580", compatGuide},
	{12, "525.60.13", releaseNotes12},
	{11, "450.80.02", compatGuide},
	{10, "410.48", compatGuide},
}

// minDriver returns the minimum Linux driver for programs built with CUDA
// version cuda ("12.8"), and its source; ok is false for a version doctor
// has no floor for.
func minDriver(cuda string) (driverFloor, bool) {
	v := parseVersion(cuda)
	if len(v) == 0 {
		return driverFloor{}, false
	}
	for _, f := range driverFloors {
		if f.major == v[0] {
			return f, true
		}
	}
	return driverFloor{}, false
}

// parseVersion reads "580.159.04" → [580 159 4]; "12.8" → [12 8]; nil when
// a part is not a number. A local suffix ("2.11.0+cu130") is dropped.
func parseVersion(s string) []int {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "+")
	if s == "" {
		return nil
	}
	var v []int
	for p := range strings.SplitSeq(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1_000_000 {
			return nil
		}
		v = append(v, n)
	}
	return v
}

// versionAtLeast compares dotted versions numerically; missing parts count
// as 0 (580 ≥ 580.0.0).
func versionAtLeast(have, want []int) bool {
	n := max(len(have), len(want))
	a, b := slices.Clone(have), slices.Clone(want)
	for len(a) < n {
		a = append(a, 0)
	}
	for len(b) < n {
		b = append(b, 0)
	}
	return slices.Compare(a, b) >= 0
}

// cudaFits says whether a driver runs programs built with CUDA version
// built. It returns the check's status and what to say.
//   - fail: the driver is older than NVIDIA's minimum for that CUDA major
//     release (the program will not start its CUDA context);
//   - warn: the driver meets the minimum but its own CUDA version is older
//     than the build's (minor version compatibility: it runs, but PTX code
//     built for the newer release cannot be JIT-compiled and some newer API
//     calls fail);
//   - ok otherwise.
func cudaFits(driver, driverCUDA, built string) (Status, string) {
	floor, ok := minDriver(built)
	dv := parseVersion(driver)
	if !ok || dv == nil {
		return StatusWarn, fmt.Sprintf("cannot compare driver %q with CUDA %q: no published minimum known to doctor", driver, built)
	}
	if !versionAtLeast(dv, parseVersion(floor.driver)) {
		return StatusFail, fmt.Sprintf("built for CUDA %s, which needs driver ≥ %s on Linux; this driver is %s (source: %s)", built, floor.driver, driver, floor.source)
	}
	if dc := parseVersion(driverCUDA); dc != nil && !versionAtLeast(dc, parseVersion(built)) {
		return StatusWarn, fmt.Sprintf("built for CUDA %s; driver %s supports CUDA %s: it runs through minor version compatibility (driver ≥ %s), but PTX JIT and features newer than CUDA %s do not (source: %s)", built, driver, driverCUDA, floor.driver, driverCUDA, compatGuide)
	}
	return StatusOK, fmt.Sprintf("built for CUDA %s; driver %s supports CUDA %s (needs ≥ %s)", built, driver, orUnknown(driverCUDA), floor.driver)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
