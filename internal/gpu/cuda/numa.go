package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// sysfsRoot is where the kernel's sysfs is (tests point it at a tree of
// their own).
var sysfsRoot = "/sys"

// sysfsBusID writes a PCI bus id as sysfs names the device: "0000:00:06.0"
// from NVML's "00000000:00:06.0" or the driver's "0000:00:06.0".
func sysfsBusID(busID string) (string, bool) {
	var dom, bus, dev, fn uint64
	parts := strings.Split(strings.ToLower(strings.TrimSpace(busID)), ":")
	if len(parts) != 3 {
		return "", false
	}
	devfn := strings.Split(parts[2], ".")
	if len(devfn) != 2 {
		return "", false
	}
	var err error
	for _, p := range []struct {
		s    string
		v    *uint64
		bits int
	}{{parts[0], &dom, 32}, {parts[1], &bus, 8}, {devfn[0], &dev, 5}, {devfn[1], &fn, 3}} {
		if *p.v, err = strconv.ParseUint(p.s, 16, p.bits); err != nil {
			return "", false
		}
	}
	return fmt.Sprintf("%04x:%02x:%02x.%x", dom, bus, dev, fn), true
}

// pciNUMANode is the NUMA node the kernel puts a PCI device on
// (/sys/bus/pci/devices/<bus id>/numa_node); -1 when it says none (one
// node, or firmware that does not tell) or cannot be read.
func pciNUMANode(root, busID string) int {
	id, ok := sysfsBusID(busID)
	if !ok {
		return -1
	}
	b, err := os.ReadFile(filepath.Join(root, "bus", "pci", "devices", id, "numa_node"))
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// parseCPUList reads a kernel CPU list ("0-15,32-47").
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cpu list %q", s)
			}
		}
		if b >= 1<<16 {
			return nil, fmt.Errorf("cpu list %q: CPU %d", s, b)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// cpuList writes CPUs as the kernel does: "0-3,8".
func cpuList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

const mpolPreferred = 1 // MPOL_PREFERRED

// bindToNode places the calling thread (a device's locked thread) on NUMA
// node node: its CPU affinity becomes the node's CPUs (those it may run
// on already: a container's cpuset is kept), and its memory policy prefers
// the node, so that the pinned host buffers it allocates (cuMemAllocHost
// pins the pages it faults in) and the copies it drives stay on the GPU's
// socket. It returns what it did, for the report.
func bindToNode(root string, node int) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "devices", "system", "node", fmt.Sprintf("node%d", node), "cpulist"))
	if err != nil {
		return "", fmt.Errorf("the CPUs of NUMA node %d: %w", node, err)
	}
	cpus, err := parseCPUList(string(b))
	if err != nil {
		return "", err
	}
	var mask [1024 / 64]uint64 // 1024 CPUs, as glibc's cpu_set_t
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0]))); e != 0 {
		return "", fmt.Errorf("sched_getaffinity: %w", e)
	}
	var want [1024 / 64]uint64
	var chosen []int
	for _, c := range cpus {
		if c < 1024 && mask[c/64]&(1<<(c%64)) != 0 {
			want[c/64] |= 1 << (c % 64)
			chosen = append(chosen, c)
		}
	}
	if len(chosen) == 0 {
		return "", fmt.Errorf("NUMA node %d's CPUs (%s) are all outside this process's (a cpuset)", node, cpuList(cpus))
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(want), uintptr(unsafe.Pointer(&want[0]))); e != 0 {
		return "", fmt.Errorf("sched_setaffinity to CPUs %s: %w", cpuList(chosen), e)
	}
	slices.Sort(chosen)
	what := fmt.Sprintf("the GPU's thread bound to NUMA node %d's CPUs %s", node, cpuList(chosen))
	if node >= 1024 {
		return what, nil
	}
	var nodes [1024 / 64]uint64
	nodes[node/64] = 1 << (node % 64)
	if _, _, e := syscall.RawSyscall(syscall.SYS_SET_MEMPOLICY, mpolPreferred, uintptr(unsafe.Pointer(&nodes[0])), uintptr(len(nodes)*64+1)); e != 0 {
		return what + fmt.Sprintf(", its memory not placed (set_mempolicy: %v)", e), nil
	}
	return what + fmt.Sprintf(", its pinned host memory preferred on node %d", node), nil
}

// placeOnNUMA completes Info's NUMA node from sysfs where NVML did not say
// (it does not in many VMs) and binds the device's thread to it
// (bindToNode), saying in Info.NUMABinding what was done or why not.
func (d *Device) placeOnNUMA() {
	if d.info.NUMANode < 0 {
		d.info.NUMANode = pciNUMANode(sysfsRoot, d.info.BusID)
	}
	if d.info.NUMANode < 0 {
		d.info.NUMABinding = "the GPU's NUMA node is unknown (NVML and sysfs name none: one node, or firmware that does not say); host memory placed as the kernel chose"
		return
	}
	var what string
	var err error
	if werr := d.w.do("NUMA binding", func() { what, err = bindToNode(sysfsRoot, d.info.NUMANode) }); werr != nil {
		err = werr
	}
	if err != nil {
		d.info.NUMABinding = fmt.Sprintf("not bound to the GPU's NUMA node %d: %v", d.info.NUMANode, err)
		return
	}
	d.info.NUMABinding = what
}
