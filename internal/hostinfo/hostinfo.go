// Package hostinfo reads the facts of the Linux host a benchmark ran on:
// hostname, CPU model, logical and physical cores, sockets, memory, NUMA
// nodes, kernel and OS release, from /proc, /sys and /etc/os-release under
// a root that tests replace. A fact that cannot be read is left at its zero
// value and named in Missing, never guessed.
package hostinfo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Host is what Read found.
type Host struct {
	Hostname string `json:"hostname"`
	CPUModel string `json:"cpu_model"`
	// LogicalCores counts the processors Linux lists (hardware threads).
	LogicalCores int `json:"logical_cores"`
	// PhysicalCores and Sockets come from the physical and core ids in
	// /proc/cpuinfo; 0 where the kernel does not list them (arm64).
	PhysicalCores int `json:"physical_cores"`
	Sockets       int `json:"sockets"`
	// Hypervisor is true when the CPU says it runs under one (the x86
	// "hypervisor" flag): a virtual machine.
	Hypervisor bool `json:"hypervisor"`
	// MemoryGiB is MemTotal in GiB (2^30 bytes), to two decimals.
	MemoryGiB float64 `json:"memory_gib"`
	// NUMANodes counts /sys/devices/system/node/nodeN; 0 when unknown.
	NUMANodes int    `json:"numa_nodes"`
	Kernel    string `json:"kernel"`
	OS        string `json:"os"`
	// Arch is the architecture gpuscout was built for (GOARCH); set by Local.
	Arch string `json:"arch,omitempty"`
	// Missing names each fact that could not be read, with why.
	Missing []string `json:"missing,omitempty"`
}

// Local reads the host gpuscout runs on.
func Local() *Host {
	h := Read(os.DirFS("/"))
	h.Arch = runtime.GOARCH
	if h.Hostname == "" {
		if name, err := os.Hostname(); err == nil {
			h.Hostname = name
			h.Missing = dropPrefix(h.Missing, "hostname:")
		}
	}
	return h
}

// Read reads the host whose root directory is fsys (paths without the
// leading slash: proc/cpuinfo, etc/os-release, ...).
func Read(fsys fs.FS) *Host {
	h := &Host{}
	miss := func(what string, err error) {
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("/%s not found", pe.Path)
		}
		h.Missing = append(h.Missing, fmt.Sprintf("%s: %v", what, err))
	}
	if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err != nil {
		miss("cpu", err)
	} else {
		readCPUInfo(h, b)
		if h.CPUModel == "" {
			miss("cpu model", fmt.Errorf("/proc/cpuinfo names no model"))
		}
	}
	if b, err := fs.ReadFile(fsys, "proc/meminfo"); err != nil {
		miss("memory", err)
	} else if kb, ok := memTotalKB(b); !ok {
		miss("memory", fmt.Errorf("/proc/meminfo has no MemTotal line in kB"))
	} else {
		h.MemoryGiB = math.Round(float64(kb)/(1<<20)*100) / 100
	}
	if n, err := numaNodes(fsys); err != nil {
		miss("numa nodes", err)
	} else {
		h.NUMANodes = n
	}
	h.Kernel = firstLine(fsys, "proc/sys/kernel/osrelease", "kernel", miss)
	h.Hostname = firstLine(fsys, "proc/sys/kernel/hostname", "hostname", miss)
	// os-release(5): /etc/os-release, else /usr/lib/os-release.
	b, err := fs.ReadFile(fsys, "etc/os-release")
	if err != nil {
		b, err = fs.ReadFile(fsys, "usr/lib/os-release")
	}
	if err != nil {
		miss("os", err)
	} else if h.OS = osName(b); h.OS == "" {
		miss("os", fmt.Errorf("os-release has neither PRETTY_NAME nor NAME"))
	}
	return h
}

// readCPUInfo counts processors, cores and sockets and takes the model.
func readCPUInfo(h *Host, b []byte) {
	cores := map[[2]string]bool{}
	sockets := map[string]bool{}
	var phys, implementer, part string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20) // flags lines are long
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			h.LogicalCores++
		case "model name", "cpu model":
			if h.CPUModel == "" {
				h.CPUModel = v
			}
		case "physical id":
			phys = v
			sockets[v] = true
		case "core id":
			cores[[2]string{phys, v}] = true
		case "flags":
			h.Hypervisor = h.Hypervisor || strings.Contains(" "+v+" ", " hypervisor ")
		case "CPU implementer":
			implementer = v
		case "CPU part":
			part = v
		}
	}
	h.PhysicalCores, h.Sockets = len(cores), len(sockets)
	if h.CPUModel == "" && implementer != "" {
		h.CPUModel = armCore(implementer, part)
	}
}

// armCores names Arm Ltd's (implementer 0x41) server cores by part number,
// as Linux's arch/arm64/include/asm/cputype.h lists them.
var armCores = map[string]string{
	"0xd08": "Arm Cortex-A72",
	"0xd0c": "Arm Neoverse N1",
	"0xd40": "Arm Neoverse V1",
	"0xd49": "Arm Neoverse N2",
	"0xd4f": "Arm Neoverse V2",
	"0xd84": "Arm Neoverse V3",
}

func armCore(implementer, part string) string {
	if name, ok := armCores[strings.ToLower(part)]; ok && strings.EqualFold(implementer, "0x41") {
		return name
	}
	return fmt.Sprintf("arm64 implementer %s part %s", implementer, part)
}

func memTotalKB(b []byte) (int64, bool) {
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		return kb, err == nil && kb > 0
	}
	return 0, false
}

var nodeDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^node[0-9]+$`) })

func numaNodes(fsys fs.FS) (int, error) {
	entries, err := fs.ReadDir(fsys, "sys/devices/system/node")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && nodeDir().MatchString(e.Name()) {
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("no nodeN directory in /sys/devices/system/node")
	}
	return n, nil
}

func firstLine(fsys fs.FS, path, what string, miss func(string, error)) string {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		miss(what, err)
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		miss(what, fmt.Errorf("/%s is empty", path))
	}
	return line
}

// osName returns os-release's PRETTY_NAME, else NAME VERSION. Values may be
// quoted in double or single quotes, with backslash escapes (os-release(5)).
func osName(b []byte) string {
	vars := map[string]string{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		vars[k] = unquote(v)
	}
	if p := vars["PRETTY_NAME"]; p != "" {
		return p
	}
	return strings.TrimSpace(vars["NAME"] + " " + vars["VERSION"])
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
		var sb strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) {
				i++
			}
			sb.WriteByte(v[i])
		}
		return sb.String()
	}
	return v
}

func dropPrefix(list []string, prefix string) []string {
	out := list[:0]
	for _, s := range list {
		if !strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
