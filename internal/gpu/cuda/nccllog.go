package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// NCCL's choice of algorithm and protocol, read from its debug log.
//
// NCCL says which algorithm and protocol it chose for a collective in one
// INFO line of its TUNING subsystem, written by rank 0 as the collective
// is queued. What follows is taken from NCCL's source
// (github.com/NVIDIA/nccl), release tags as named:
//
//   - The log is set up once per process, at NCCL's first log call (at the
//     latest the "Init COMPLETE" INFO line that ends each communicator's
//     set-up, src/init.cc), from NCCL_DEBUG (VERSION, WARN, INFO, ABORT,
//     TRACE), NCCL_DEBUG_SUBSYS (a comma-separated list, "^" inverting it;
//     INIT,ENV by default, INIT,BOOTSTRAP,ENV from v2.23; ALL is every
//     subsystem) and NCCL_DEBUG_FILE: src/debug.cc
//     ncclDebugInit, v2.18.1-1 through v2.30.7-1 (from v2.30 through the
//     ncclParam table of the same file, read with getenv unless an
//     environment plugin is loaded). NCCL_DEBUG_FILE is opened with
//     fopen(…, "w") only when the level is above VERSION; "%h" becomes the
//     host name up to its first dot ('%' and '/' in it become '-' from
//     v2.29, getHostNameForLog), "%p" the process id, "%%" a '%';
//     anything else after '%' is kept as it is. Without a file NCCL writes to
//     standard output.
//   - Settings in ~/.nccl.conf (or NCCL_CONF_FILE from v2.23) and
//     /etc/nccl.conf are put in the environment with setenv(…, 0): the
//     environment wins (src/misc/param.cc setEnvFile, v2.18–v2.30).
//   - An INFO line is "<host>:<pid>:<tid> [<cuda device>] NCCL INFO <message>"
//     (src/debug.cc ncclDebugLog, v2.18.1-1 through v2.30.7-1); from v2.26
//     NCCL_DEBUG_TIMESTAMP_LEVELS can put a timestamp before it.
//   - The message for a collective's choice:
//     v2.18.x, v2.19.x: none (the INFO call is commented out: src/enqueue.cc
//     getAlgoInfo in v2.18.6-1, topoGetAlgoInfo in v2.19.4-1);
//     v2.20.x–v2.22.x: "%ld Bytes -> Algo %d proto %d time %f" (src/enqueue.cc
//     topoGetAlgoInfo; v2.20.5-1, v2.21.5-1, v2.22.3-1); in v2.20 and v2.21
//     only when NCCL's cost model chose (a tuner plugin that set the
//     algorithm and protocol leaves it out);
//     v2.23.x: "%s: %ld Bytes -> Algo %d proto %d time %f", the first %s the
//     collective ("AllReduce", src/collectives.cc ncclFuncToString)
//     (src/enqueue.cc topoGetAlgoInfo, v2.23.4-1);
//     v2.24.3-1 through v2.30.7-1: "%s: %ld Bytes -> Algo %s proto %s
//     channel{Lo..Hi}={%d..%d}" (src/enqueue.cc scheduleCollTasksToPlan),
//     the names from src/collectives.cc ncclAlgoToString and
//     ncclProtoToString.
//     The numbers are NCCL_ALGO_TREE 0, RING 1, COLLNET_DIRECT 2,
//     COLLNET_CHAIN 3, NVLS 4, NVLS_TREE 5, PAT 6 (from v2.23) and
//     NCCL_PROTO_LL 0, LL128 1, SIMPLE 2 (src/include/devcomm.h v2.18,
//     src/include/nccl_common.h v2.19–v2.27, src/include/plugin/nccl_tuner.h
//     v2.28–v2.30), named as those macros are without NCCL_ALGO_ and
//     NCCL_PROTO_ (the names ncclAlgoToString and ncclProtoToString give).
//     From v2.27 an all-reduce on buffers registered as symmetric windows
//     logs "AllReduce [Symmetric]: … Bytes -> Kernel …", and from v2.29 a
//     copy-engine collective "… [Copy Engine]: … Bytes -> cudaMemcpy…":
//     neither names an algorithm, so neither is read as one.
//
// So NCCL's log is set up before the communicators are created
// (setupNCCLLog); after each size's all-reduces the new lines are read; a
// size whose lines are absent, unreadable or disagree is unknown. With the
// log on, rank 0 writes a line as it queues each all-reduce: host time
// inside a timed loop. So bench turns it on only in a probe process of its
// own (NCCLChoices, run as `gpuscout bench nccl-choice`), which asks NCCL
// for INFO lines of TUNING into a file of its own unless the user chose
// NCCL's logging, runs one untimed all-reduce per size and exits; the
// process that times the all-reduces (OpenComm, OpenCollective) leaves
// NCCL's logging as the user set it, and reads it only where the user had
// it write TUNING lines to a file.

// ncclAlgorithms and ncclProtocols are NCCL's numbers' names.
var (
	ncclAlgorithms = []string{"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"}
	ncclProtocols  = []string{"LL", "LL128", "SIMPLE"}
)

// tuningRE are the per-collective tuning messages, as above, compiled on
// first use (not at start-up: every gpuscout call would pay for them).
type tuningRE struct {
	numbered      *regexp.Regexp // v2.20.x–v2.22.x
	namedNumbered *regexp.Regexp // v2.23.x
	named         *regexp.Regexp // v2.24.x on
	info          *regexp.Regexp // an INFO line, with what may stand before it; groups: pid, message
}

var tuningREs = sync.OnceValue(func() tuningRE {
	return tuningRE{
		numbered:      regexp.MustCompile(`^(\d+) Bytes -> Algo (-?\d+) proto (-?\d+) time \S+$`),
		namedNumbered: regexp.MustCompile(`^AllReduce: (\d+) Bytes -> Algo (-?\d+) proto (-?\d+) time \S+$`),
		named:         regexp.MustCompile(`^AllReduce: (\d+) Bytes -> Algo (\S+) proto (\S+) channel\{Lo\.\.Hi\}=\{\d+\.\.\d+\}$`),
		info:          regexp.MustCompile(`[^\s:]*:(\d+):\d+ \[-?\d+\] NCCL INFO (.*)$`),
	}
})

// tuningMarker is in every per-collective tuning message, and in no other
// message of NCCL's.
const tuningMarker = " Bytes -> "

// parseTuning reads one tuning message: the bytes of the all-reduce and the
// algorithm and protocol chosen, by NCCL's names. ok is false for a message
// in none of the formats, or with a number or name NCCL's tables do not
// have.
func parseTuning(msg string) (bytes int64, algo, proto string, ok bool) {
	name := func(list []string, s string) (string, bool) {
		if slices.Contains(list, s) {
			return s, true
		}
		return "", false
	}
	number := func(list []string, s string) (string, bool) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= len(list) {
			return "", false
		}
		return list[i], true
	}
	var m []string
	pick := number
	if m = tuningREs().numbered.FindStringSubmatch(msg); m == nil {
		if m = tuningREs().namedNumbered.FindStringSubmatch(msg); m == nil {
			if m = tuningREs().named.FindStringSubmatch(msg); m == nil {
				return 0, "", "", false
			}
			pick = name
		}
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, "", "", false
	}
	a, aok := pick(ncclAlgorithms, m[2])
	p, pok := pick(ncclProtocols, m[3])
	if !aok || !pok {
		return 0, "", "", false
	}
	return n, a, p, true
}

// infoMessage is the message of an NCCL INFO line written by process pid,
// false for any other line.
func infoMessage(line string, pid int) (string, bool) {
	m := tuningREs().info.FindStringSubmatch(line)
	if m == nil || m[1] != strconv.Itoa(pid) {
		return "", false
	}
	return m[2], true
}

// ncclVersionBefore reports whether NCCL version v ("2.19.4") is known and
// older than major.minor.
func ncclVersionBefore(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

// expandDebugFile is the path NCCL makes of NCCL_DEBUG_FILE for process pid
// on host (src/debug.cc ncclDebugInit, as above).
func expandDebugFile(v, host string, pid int) string {
	if i := strings.IndexByte(host, '.'); i >= 0 {
		host = host[:i]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		i++
		if i == len(v) {
			b.WriteByte('%')
			break
		}
		switch v[i] {
		case '%':
			b.WriteByte('%')
		case 'h':
			b.WriteString(host)
		case 'p':
			b.WriteString(strconv.Itoa(pid))
		default:
			b.WriteByte('%')
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// subsysTokens splits an NCCL_DEBUG_SUBSYS value: whether it is inverted
// ("^"), and its names.
func subsysTokens(v string) (invert bool, names []string) {
	invert = strings.HasPrefix(v, "^")
	for _, s := range strings.Split(strings.TrimPrefix(v, "^"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			names = append(names, s)
		}
	}
	return invert, names
}

// isTuning reports whether a subsystem name turns TUNING on or off.
func isTuning(name string) bool {
	return strings.EqualFold(name, "TUNING") || strings.EqualFold(name, "ALL")
}

// subsysHasTuning reports whether NCCL_DEBUG_SUBSYS=v logs TUNING (unset:
// NCCL's default, which leaves it out).
func subsysHasTuning(v string) bool {
	invert, names := subsysTokens(v)
	return slices.ContainsFunc(names, isTuning) != invert
}

// withTuning is NCCL_DEBUG_SUBSYS=v with TUNING added: appended to a list,
// taken out of an inverted one.
func withTuning(v string) string {
	if v == "" {
		return "TUNING"
	}
	if subsysHasTuning(v) {
		return v
	}
	invert, names := subsysTokens(v)
	if !invert {
		return v + ",TUNING"
	}
	names = slices.DeleteFunc(names, isTuning)
	if len(names) == 0 {
		return "TUNING"
	}
	return "^" + strings.Join(names, ",")
}

// ncclLog is NCCL's debug log as one Comm reads it.
type ncclLog struct {
	path    string // the file NCCL is to write, "" when none can be read
	tempDir string // bench's own folder for it, removed by close
	restore []func()
	f       *os.File
	rest    []byte // an incomplete last line
	pid     int
	why     string // why the choice cannot be read, when f is nil
}

// setupNCCLLog prepares NCCL's log before the communicators of an NCCL of
// version (ncclGetVersion's, "" when unknown) are created: where the user
// set NCCL_DEBUG, it is left as set and read when it writes INFO lines of
// TUNING to a file; else, when turnOn (the probe process), NCCL_DEBUG=INFO,
// TUNING is added to
// NCCL_DEBUG_SUBSYS, and NCCL_DEBUG_FILE is the user's file if set, else one
// in a new temporary folder of bench's ("nccl.%p.log"). Go's os.Setenv
// reaches the C library's environment, where NCCL's getenv reads it (through
// runtime/cgo or purego's fakecgo: TestNCCLSeesGoEnvironment). close puts
// the environment back. Without turnOn (the process that times the
// all-reduces) nothing is set: where the user did not turn NCCL's log on,
// the choice is not read there.
func setupNCCLLog(version string, turnOn bool) *ncclLog {
	l := &ncclLog{pid: os.Getpid()}
	host, _ := os.Hostname()
	if ncclVersionBefore(version, 2, 20) {
		l.why = "NCCL " + version + " does not log its choice (before 2.20 the line is commented out of its src/enqueue.cc)"
		return l
	}
	level, file, subsys := os.Getenv("NCCL_DEBUG"), os.Getenv("NCCL_DEBUG_FILE"), os.Getenv("NCCL_DEBUG_SUBSYS")
	if level != "" {
		switch {
		case !strings.EqualFold(level, "INFO") && !strings.EqualFold(level, "TRACE"):
			l.why = "NCCL_DEBUG=" + level + " is set, which logs no tuning lines"
		case file == "":
			l.why = "NCCL_DEBUG=" + level + " is set without NCCL_DEBUG_FILE: NCCL logs to standard output, which bench does not read"
		case !subsysHasTuning(subsys):
			l.why = fmt.Sprintf("NCCL_DEBUG=%s is set with NCCL_DEBUG_SUBSYS=%q, which leaves out TUNING", level, subsys)
		default:
			l.path = expandDebugFile(file, host, l.pid)
		}
		return l
	}
	if !turnOn {
		l.why = "bench leaves NCCL's log off in the process that times the all-reduces (NCCL_DEBUG unset); its choice is read in a separate probe process"
		return l
	}
	if file != "" {
		p := expandDebugFile(file, host, l.pid)
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			// /dev/stderr, /dev/null: NCCL's lines would go there.
			l.why = "NCCL_DEBUG_FILE=" + file + " is set to something other than a file"
			return l
		}
		l.path = p
	} else {
		dir, err := os.MkdirTemp("", "gpuscout-nccl-")
		if err != nil {
			l.why = "no temporary folder for NCCL's log: " + err.Error()
			return l
		}
		l.tempDir = dir
		file = filepath.Join(dir, "nccl.%p.log")
		l.path = expandDebugFile(file, host, l.pid)
		l.set("NCCL_DEBUG_FILE", file)
	}
	l.set("NCCL_DEBUG", "INFO")
	l.set("NCCL_DEBUG_SUBSYS", withTuning(subsys))
	return l
}

// set sets an environment variable until close.
func (l *ncclLog) set(name, value string) {
	old, had := os.LookupEnv(name)
	l.restore = append(l.restore, func() {
		if had {
			os.Setenv(name, old)
		} else {
			os.Unsetenv(name)
		}
	})
	os.Setenv(name, value)
}

// opened is called once the communicators exist: NCCL has opened its log
// by then (its first log line, in ncclCommInitAll). The log is read from
// its end on, and bench's own file removed at once (NCCL writes on to it,
// and the Comm reads it, through their open files).
func (l *ncclLog) opened() {
	if l.path == "" {
		return
	}
	f, err := os.Open(l.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.why = "NCCL wrote no log to " + l.path + " (it sets its log up once a process, and had done so before)"
		} else {
			l.why = "NCCL's log cannot be read: " + err.Error()
		}
		l.path = ""
		return
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		l.why = "NCCL's log " + l.path + " is not a file bench can read"
		l.path = ""
		return
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		l.why = "NCCL's log cannot be read: " + err.Error()
		l.path = ""
		return
	}
	l.f = f
	if l.tempDir != "" {
		os.RemoveAll(l.tempDir)
		l.tempDir = ""
	}
}

// lines reads the complete lines NCCL wrote since the last call.
func (l *ncclLog) lines() []string {
	if l.f == nil {
		return nil
	}
	b, err := io.ReadAll(l.f)
	if err != nil {
		l.why = "NCCL's log cannot be read: " + err.Error()
		l.f.Close()
		l.f = nil
		return nil
	}
	b = append(l.rest, b...)
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		l.rest = b
		return nil
	}
	l.rest = slices.Clone(b[end+1:])
	return strings.Split(string(b[:end]), "\n")
}

// close stops reading, removes bench's file and puts the environment back
// (after the communicators are destroyed, so that no thread of NCCL's reads
// the environment while it changes).
func (l *ncclLog) close() {
	if l == nil {
		return
	}
	if l.f != nil {
		l.f.Close()
		l.f = nil
		if l.why == "" {
			l.why = "NCCL's log is closed"
		}
	}
	if l.tempDir != "" {
		os.RemoveAll(l.tempDir)
		l.tempDir = ""
	}
	for i := len(l.restore) - 1; i >= 0; i-- {
		l.restore[i]()
	}
	l.restore = nil
}

// tally is what NCCL logged for the all-reduces of one size.
type tally struct {
	seen    map[[2]string]int // (algorithm, protocol) → lines
	order   [][2]string
	unknown string // why the choice is unknown, when it is
}

// note reads the lines NCCL wrote for the all-reduces of bytes just run
// and adds them to the size's tally.
func (l *ncclLog) note(tallies map[int64]*tally, bytes int64) {
	t := tallies[bytes]
	if t == nil {
		t = &tally{seen: map[[2]string]int{}}
		tallies[bytes] = t
	}
	if l.f == nil {
		if t.unknown == "" {
			t.unknown = l.why
		}
		return
	}
	found := 0
	for _, line := range l.lines() {
		msg, ok := infoMessage(line, l.pid)
		if !ok || !strings.Contains(msg, tuningMarker) {
			continue
		}
		n, algo, proto, ok := parseTuning(msg)
		if !ok {
			if t.unknown == "" {
				t.unknown = fmt.Sprintf("NCCL logged a tuning line bench does not read: %q", msg)
			}
			continue
		}
		if n != bytes {
			continue
		}
		found++
		k := [2]string{algo, proto}
		if t.seen[k] == 0 {
			t.order = append(t.order, k)
		}
		t.seen[k]++
	}
	if found == 0 && t.unknown == "" {
		if l.f == nil {
			t.unknown = l.why
		} else {
			t.unknown = fmt.Sprintf("NCCL logged no choice for the all-reduces of %d bytes", bytes)
		}
	}
}

// choice is the tally's verdict.
func (t *tally) choice() gpu.Choice {
	if t == nil {
		return gpu.UnknownChoice("no all-reduce of that size was run")
	}
	if t.unknown != "" {
		return gpu.UnknownChoice(t.unknown)
	}
	if len(t.order) != 1 {
		var parts []string
		for _, k := range t.order {
			parts = append(parts, fmt.Sprintf("%s/%s ×%d", k[0], k[1], t.seen[k]))
		}
		return gpu.UnknownChoice("NCCL chose differently across the all-reduces of this size: " + strings.Join(parts, ", "))
	}
	return gpu.Choice{Algorithm: t.order[0][0], Protocol: t.order[0][1]}
}
