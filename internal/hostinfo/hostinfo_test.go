package hostinfo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want Host
	}{
		// Copied from a 2-vCPU Firecracker VM: MemTotal 24683656 kB
		// = 23.54 GiB (24683656 / 1048576 = 23.5401).
		{"vm-2cpu", Host{Hostname: "vm", CPUModel: "AMD EPYC", LogicalCores: 2, PhysicalCores: 2, Sockets: 1, Hypervisor: true,
			MemoryGiB: 23.54, NUMANodes: 1, Kernel: "6.18.44-fc-v782", OS: "Debian GNU/Linux 12 (bookworm)"}},
		// 2 sockets × 2 cores × 2 threads; MemTotal 2113464320 kB
		// = 2015.56 GiB (2113464320 / 1048576 = 2015.5566); os-release
		// only under /usr/lib, PRETTY_NAME in single quotes.
		{"two-socket", Host{Hostname: "gpu-node-07", CPUModel: "Intel(R) Xeon(R) Platinum 8480+", LogicalCores: 8, PhysicalCores: 4, Sockets: 2,
			MemoryGiB: 2015.56, NUMANodes: 2, Kernel: "5.15.0-105-generic", OS: "Ubuntu 22.04.4 LTS"}},
		// arm64: no model name, no core ids; MemTotal 502972416 kB
		// = 479.67 GiB; no hostname file, no NUMA directory.
		{"arm64-grace", Host{CPUModel: "Arm Neoverse V2", LogicalCores: 4, MemoryGiB: 479.67, Kernel: "6.8.0-1013-nvidia-64k", OS: "Ubuntu 24.04.1 LTS",
			Missing: []string{"numa nodes: /sys/devices/system/node not found", "hostname: /proc/sys/kernel/hostname not found"}}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			got := Read(os.DirFS(filepath.Join("testdata", tc.dir)))
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("Read() =\n%+v\nwant\n%+v", *got, tc.want)
			}
		})
	}
}

// TestReadNothing: an empty root gives zero values and names every fact.
func TestReadNothing(t *testing.T) {
	h := Read(fstest.MapFS{})
	if h.LogicalCores != 0 || h.MemoryGiB != 0 || h.OS != "" {
		t.Errorf("Read(empty) = %+v, want zero facts", h)
	}
	var names []string
	for _, m := range h.Missing {
		names = append(names, strings.SplitN(m, ":", 2)[0])
	}
	if want := []string{"cpu", "memory", "numa nodes", "kernel", "hostname", "os"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Missing names %v, want %v", names, want)
	}
}

func TestBadFiles(t *testing.T) {
	h := Read(fstest.MapFS{
		"proc/cpuinfo":              {Data: []byte("processor\t: 0\nvendor_id\t: GenuineIntel\n")},
		"proc/meminfo":              {Data: []byte("MemTotal:       16 MB\n")},
		"proc/sys/kernel/osrelease": {Data: []byte("\n")},
		"etc/os-release":            {Data: []byte("# nothing\nID=weird\n")},
		"sys/devices/system/node/x": {Data: []byte("")},
		"proc/sys/kernel/hostname":  {Data: []byte("h\n")},
	})
	if h.LogicalCores != 1 || h.MemoryGiB != 0 || h.Kernel != "" || h.OS != "" || h.NUMANodes != 0 {
		t.Errorf("Read = %+v", h)
	}
	want := []string{"cpu model: /proc/cpuinfo names no model", "memory: /proc/meminfo has no MemTotal line in kB",
		"numa nodes: no nodeN directory in /sys/devices/system/node", "kernel: /proc/sys/kernel/osrelease is empty",
		"os: os-release has neither PRETTY_NAME nor NAME"}
	if !reflect.DeepEqual(h.Missing, want) {
		t.Errorf("Missing =\n%q\nwant\n%q", h.Missing, want)
	}
}

func TestLocal(t *testing.T) {
	h := Local()
	if h.Arch == "" || h.Hostname == "" {
		t.Errorf("Local() = %+v: want an arch and a hostname", h)
	}
}
