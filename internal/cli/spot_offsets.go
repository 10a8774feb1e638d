package cli

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strings"
)

// maxOffsets bounds --offsets: one run per start time, per trace and policy.
const maxOffsets = 100_000

// parseOffsets reads --offsets: start times into each trace as a
// comma-separated list ("0h,12.5h,3d") or, with a leading @, a file holding
// one start time per line (blank lines and lines starting with # are
// skipped). Errors name the entry or the file's line.
func parseOffsets(spec string) ([]float64, []string, error) {
	var out []float64
	var where []string
	add := func(loc, s string) error {
		h, err := parseHoursOrZero("offsets", s)
		if err != nil {
			return usagef("--offsets %s: %q is not a start time; want a duration such as 0h, 12.5h or 3d", loc, s)
		}
		if len(out) == maxOffsets {
			return usagef("--offsets %s: more than %d start times; want at most %d", loc, maxOffsets, maxOffsets)
		}
		out = append(out, h)
		where = append(where, loc)
		return nil
	}
	if path, ok := strings.CutPrefix(spec, "@"); ok {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(fmt.Sprintf("@%s line %d", path, n), line); err != nil {
				return nil, nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		if len(out) == 0 {
			return nil, nil, usagef("--offsets @%s: no start times in the file; want one per line, e.g. 12.5h", path)
		}
		return out, where, nil
	}
	for i, s := range strings.Split(spec, ",") {
		if err := add(fmt.Sprintf("entry %d", i+1), strings.TrimSpace(s)); err != nil {
			return nil, nil, err
		}
	}
	return out, where, nil
}

// checkOffsets tells which start time lies beyond the end of a trace.
func checkOffsets(offsets []float64, where []string, trace string, hours float64) error {
	for i, o := range offsets {
		if !(o < hours) || math.IsInf(o, 0) {
			return usagef("--offsets %s: %.4g h is beyond the end of %s (%.4g h); want a start time from 0 to below the trace's length", where[i], o, trace, hours)
		}
	}
	return nil
}
