package bench

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

// ReadHost describes the host for a report from what Linux says about it:
// cpuinfo and meminfo are /proc/cpuinfo and /proc/meminfo (either may be nil
// when unreadable), cores the logical CPUs. What cannot be read stays empty.
func ReadHost(hostname string, cpuinfo, meminfo io.Reader, cores int) benchreport.Host {
	h := benchreport.Host{Hostname: hostname, Cores: cores}
	h.CPUModel = field(cpuinfo, "model name")
	if kb, ok := strings.CutSuffix(field(meminfo, "MemTotal"), " kB"); ok {
		if v, err := strconv.ParseFloat(strings.TrimSpace(kb), 64); err == nil && v > 0 {
			h.MemoryGiB = math.Round(v*1024/(1<<30)*10) / 10
		}
	}
	return h
}

// field returns the value of the first "key: value" line of r with this key.
func field(r io.Reader, key string) string {
	if r == nil {
		return ""
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
