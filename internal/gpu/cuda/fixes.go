package cuda

import (
	"fmt"
	"strings"
)

// Codes with a cause a user can act on (cuda.h's CUresult values).
const (
	resultOutOfMemory       Result = 2
	resultStubLibrary       Result = 34
	resultDeviceUnavailable Result = 46
	resultNoDevice          Result = 100
	resultInvalidDevice     Result = 101
	resultECCUncorrectable  Result = 214
	resultIllegalAddress    Result = 700
	resultLaunchFailed      Result = 719
	resultSystemNotReady    Result = 802
	resultDriverMismatch    Result = 803
	resultCompatNotOnDevice Result = 804
	resultUnknown           Result = 999
)

// resultFixes say what to do about a code. A fix that depends on which GPU
// failed (compute mode, a reset) is completed by openFix.
var resultFixes = map[Result]string{
	resultOutOfMemory: "the GPU has less free memory than asked for: nvidia-smi lists the programs holding it",
	resultStubLibrary: "a link-time stub libcuda.so (a CUDA toolkit's stubs/ folder) was loaded instead of the driver's libcuda.so.1: remove the stubs folder from LD_LIBRARY_PATH",
	resultDeviceUnavailable: "another process holds the GPU in EXCLUSIVE_PROCESS compute mode, or its mode is PROHIBITED: " +
		"wait for that process, leave the GPU out with CUDA_VISIBLE_DEVICES, or set the default mode (sudo nvidia-smi -i <gpu> -c DEFAULT)",
	resultNoDevice:      "check CUDA_VISIBLE_DEVICES (an empty or wrong value hides every GPU) and that nvidia-smi lists the GPUs",
	resultInvalidDevice: "check CUDA_VISIBLE_DEVICES: it names a GPU this machine does not have",
	resultECCUncorrectable: "an uncorrectable memory error: reset the GPU (sudo nvidia-smi -r -i <gpu>) or reboot; if it comes back, the GPU is failing " +
		"(on a cloud instance, report it and take another)",
	resultIllegalAddress: "the GPU's context is corrupt after a faulting kernel: run again; if it recurs, look for Xid errors (sudo dmesg | grep -i xid)",
	resultLaunchFailed:   "the GPU's context is corrupt after a failed kernel: run again; if it recurs, look for Xid errors (sudo dmesg | grep -i xid)",
	resultSystemNotReady: "start nvidia-fabricmanager (HGX/NVSwitch systems): sudo systemctl enable --now nvidia-fabricmanager, " +
		"with the package of the driver's exact version (nvidia-fabricmanager-<branch>); systemctl status nvidia-fabricmanager says why it stopped",
	resultDriverMismatch: "the libcuda.so.1 loaded does not match the kernel driver: remove the stale one (an old driver's files, or a cuda-compat folder on LD_LIBRARY_PATH), " +
		"or reboot after a driver update",
	resultCompatNotOnDevice: "CUDA forward compatibility (cuda-compat) runs on datacenter GPUs only: remove the cuda-compat folder from LD_LIBRARY_PATH so the driver's own libcuda loads",
	resultUnknown: "the driver failed without saying why: look for Xid errors (sudo dmesg | grep -i xid); a GPU an Xid left broken needs a reset " +
		"(sudo nvidia-smi -r -i <gpu>) or a reboot",
}

// Fix says what to do about the code, "" when gpuscout knows no fix.
func (r Result) Fix() string { return resultFixes[r] }

// openFix is the fix for a GPU that could not be opened: the code's, with
// the GPU named as nvidia-smi -i takes it (smiID), and, for a GPU held
// exclusively, its compute mode and the processes that hold it.
func openFix(r Result, smiID, mode, holders string) string {
	if smiID == "" {
		smiID = "<gpu>"
	}
	if r == resultDeviceUnavailable {
		who := "another process"
		if holders != "" {
			who = "process " + holders
		}
		switch mode {
		case "Exclusive_Process":
			return fmt.Sprintf("the GPU is in Exclusive_Process compute mode and %s holds it: wait for it to finish, "+
				"leave this GPU out (CUDA_VISIBLE_DEVICES), or, if no job needs it exclusively, sudo nvidia-smi -i %s -c DEFAULT", who, smiID)
		case "Prohibited":
			return fmt.Sprintf("the GPU's compute mode is Prohibited: no program may use it; sudo nvidia-smi -i %s -c DEFAULT", smiID)
		}
	}
	return strings.ReplaceAll(r.Fix(), "<gpu>", smiID)
}
