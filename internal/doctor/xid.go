package doctor

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// KernelLog is what the kernel log says about the GPUs: the Xid errors the
// driver reported since boot (NVRM: Xid (PCI:0000:3b:00): 79, ...).
type KernelLog struct {
	Source string // the command that read it: "dmesg"
	// Err says why the log could not be read (dmesg needs root where
	// kernel.dmesg_restrict is set); empty when it was read.
	Err  string
	Xids []XidEvent
}

// XidEvent is one Xid code on one GPU, however many times it was logged.
type XidEvent struct {
	Bus   string // the PCI address the driver names: "0000:3b:00"
	Code  int
	Count int
	Last  string // the last line's text after the code
}

var xidLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`NVRM: Xid \(PCI:([0-9A-Fa-f:.]+)\): (\d+),\s*(.*)`) })

// ParseXids reads Xid lines from a kernel log, in order of first sight.
func ParseXids(log []byte) []XidEvent {
	var out []XidEvent
	for _, line := range strings.Split(string(log), "\n") {
		m := xidLine().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		code, err := strconv.Atoi(m[2])
		if err != nil || code <= 0 || code > 100000 {
			continue
		}
		bus := strings.ToLower(m[1])
		text := excerpt(strings.TrimSpace(m[3]))
		i := slices.IndexFunc(out, func(x XidEvent) bool { return x.Bus == bus && x.Code == code })
		if i < 0 {
			out = append(out, XidEvent{Bus: bus, Code: code})
			i = len(out) - 1
		}
		out[i].Count++
		out[i].Last = text
	}
	return out
}

// kernelLogReader says whether a program that reads the kernel log is
// installed.
func kernelLogReader(e Env) bool {
	for _, p := range []string{"dmesg", "journalctl"} {
		if _, err := e.LookPath(p); err == nil {
			return true
		}
	}
	return false
}

// readKernelLog runs dmesg (then journalctl -k, where dmesg is refused) for
// the Xid errors; nil when neither is installed.
func readKernelLog(ctx context.Context, e Env) *KernelLog {
	var k *KernelLog
	for _, cmd := range [][]string{{"dmesg"}, {"journalctl", "-k", "-b", "--no-pager", "-q"}} {
		if _, err := e.LookPath(cmd[0]); err != nil {
			continue
		}
		out, errOut, err := e.Run(ctx, dmesgTimeout, cmd[0], cmd[1:]...)
		if err == nil {
			return &KernelLog{Source: strings.Join(cmd, " "), Xids: ParseXids(out)}
		}
		if k == nil {
			k = &KernelLog{Source: strings.Join(cmd, " "), Err: runFailure(strings.Join(cmd, " "), out, errOut, err)}
		}
	}
	return k
}

// xidInfo is what an Xid code means, how bad it is, and what to do
// (NVIDIA's Xid catalog, https://docs.nvidia.com/deploy/xid-errors/).
type xidInfo struct {
	meaning string
	status  Status
	fix     string
}

const (
	xidReset   = "reset the GPU (sudo nvidia-smi -r -i <gpu>, with no programs on it) or reboot"
	xidReplace = "if it comes back after a reset, the GPU is failing: on a cloud instance report it and take another"
	xidApp     = "usually a fault in the program that ran (a bad memory access or kernel); if it recurs with known-good code, run NVIDIA's diagnostics (dcgmi diag -r 3)"
)

var xidCatalog = map[int]xidInfo{
	13:  {"graphics engine exception", StatusWarn, xidApp},
	31:  {"GPU memory page fault", StatusWarn, xidApp},
	43:  {"GPU stopped processing", StatusWarn, xidApp},
	45:  {"preemptive cleanup after an earlier error", StatusWarn, "look at the Xid errors before it"},
	48:  {"double-bit ECC error", StatusFail, xidReset + "; " + xidReplace},
	61:  {"internal micro-controller breakpoint", StatusFail, xidReset},
	62:  {"internal micro-controller halt", StatusFail, xidReset},
	63:  {"ECC page retirement or row remapping recorded", StatusWarn, xidReset + " to apply the remapping"},
	64:  {"ECC page retirement or row remapping failed", StatusFail, xidReset + "; " + xidReplace},
	74:  {"NVLink error", StatusFail, xidReset + "; then check the links (nvidia-smi nvlink -s); " + xidReplace},
	79:  {"GPU has fallen off the bus", StatusFail, "reboot; " + xidReplace},
	92:  {"high single-bit ECC error rate", StatusWarn, "watch it (nvidia-smi -q -d ECC); " + xidReplace},
	94:  {"contained ECC error", StatusWarn, "restart the program that was hit; the GPU needs no reset"},
	95:  {"uncontained ECC error", StatusFail, xidReset + "; " + xidReplace},
	119: {"GSP RPC timeout", StatusFail, xidReset + "; if it recurs, update the driver"},
	120: {"GSP error", StatusFail, xidReset + "; if it recurs, update the driver"},
	140: {"unrecovered ECC error", StatusFail, xidReset + "; " + xidReplace},
}

// xidCheck reports the Xid errors of the kernel log, worst first.
func xidCheck(f Facts) (Check, bool) {
	const name = "xid"
	k := f.Kernel
	if k == nil || !f.hasGPU() {
		return Check{}, false
	}
	if k.Err != "" {
		return checkf(name, StatusMissing, "run sudo gpuscout doctor to read the kernel log",
			"Xid errors not checked: the kernel log could not be read (%s)", k.Err), true
	}
	if len(k.Xids) == 0 {
		return checkf(name, StatusOK, "", "no Xid errors in the kernel log (%s)", k.Source), true
	}
	status := StatusOK
	var parts, fixes []string
	for _, x := range k.Xids {
		info, ok := xidCatalog[x.Code]
		if !ok {
			info = xidInfo{"see NVIDIA's Xid catalog", StatusWarn, "look the code up in NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/)"}
		}
		status = worse(status, info.status)
		gpuName, smiID := f.gpuAtBus(x.Bus)
		times := ""
		if x.Count > 1 {
			times = fmt.Sprintf(", %d times", x.Count)
		}
		parts = append(parts, fmt.Sprintf("Xid %d on %s (%s%s): %s", x.Code, gpuName, info.meaning, times, x.Last))
		fix := fmt.Sprintf("Xid %d: %s", x.Code, strings.ReplaceAll(info.fix, "<gpu>", smiID))
		if !slices.Contains(fixes, fix) {
			fixes = append(fixes, fix)
		}
	}
	return checkf(name, status, strings.Join(fixes, "; "), "%s since boot: %s", plural(len(k.Xids), "kind of Xid error", "kinds of Xid errors"), strings.Join(parts, "; ")), true
}

// gpuAtBus names the GPU at an Xid's PCI address ("GPU 0 (0000:3b:00)")
// and how nvidia-smi -i takes it.
func (f Facts) gpuAtBus(bus string) (name, smiID string) {
	if f.SMI != nil {
		for _, g := range f.SMI.GPUs {
			if sameBus(g.BusID, bus) {
				return fmt.Sprintf("GPU %d (%s)", g.Index, bus), strconv.Itoa(g.Index)
			}
		}
	}
	return "the GPU at " + bus, bus
}

// sameBus compares a full bus id (00000000:3B:00.0) with the kernel's short
// one (0000:3b:00).
func sameBus(full, short string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		s, _, _ = strings.Cut(s, ".")
		if dom, rest, ok := strings.Cut(s, ":"); ok && strings.Count(rest, ":") == 1 {
			s = strings.TrimLeft(dom, "0") + ":" + rest
		}
		return s
	}
	return full != "" && norm(full) == norm(short)
}

// worse is the more severe of two statuses.
func worse(a, b Status) Status {
	rank := map[Status]int{StatusOK: 0, StatusMissing: 1, StatusWarn: 2, StatusFail: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
