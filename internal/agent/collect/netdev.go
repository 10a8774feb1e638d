package collect

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IfaceBytes is one interface's byte counters.
type IfaceBytes struct {
	Name   string
	RX, TX uint64
}

// ReadNetDev reads <root>/net/dev (root is /proc on a host); the format is
// two header lines, then "name: rx_bytes rx_packets ... (8 receive fields)
// tx_bytes ...".
func ReadNetDev(root string) ([]IfaceBytes, error) {
	b, err := os.ReadFile(filepath.Join(root, "net", "dev"))
	if err != nil {
		return nil, err
	}
	return ParseNetDev(b)
}

// ParseNetDev parses the content of /proc/net/dev.
func ParseNetDev(b []byte) ([]IfaceBytes, error) {
	var out []IfaceBytes
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		if line <= 2 {
			if !strings.Contains(sc.Text(), "|") {
				return nil, fmt.Errorf("net/dev line %d: %q is not its header", line, sc.Text())
			}
			continue
		}
		name, rest, ok := strings.Cut(sc.Text(), ":")
		f := strings.Fields(rest)
		if !ok || len(f) < 16 {
			return nil, fmt.Errorf("net/dev line %d: %q: want name: and 16 counters", line, sc.Text())
		}
		rx, err1 := strconv.ParseUint(f[0], 10, 64)
		tx, err2 := strconv.ParseUint(f[8], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("net/dev line %d: byte counters %q and %q are not numbers", line, f[0], f[8])
		}
		out = append(out, IfaceBytes{Name: strings.TrimSpace(name), RX: rx, TX: tx})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("net/dev: no interfaces")
	}
	return out, nil
}
