package server

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// MinKeyBytes is the shortest node key accepted (128 bits).
const MinKeyBytes = 16

// ParseKeys reads node HMAC keys, one a line: "KEY-ID HEX-KEY"; blank lines
// and lines starting with # are skipped. name labels errors.
func ParseKeys(name string, r io.Reader) (map[string][]byte, error) {
	keys := map[string][]byte{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want KEY-ID HEX-KEY", name, n)
		}
		if !tokenName().MatchString(f[0]) {
			return nil, fmt.Errorf("%s:%d: key id %q: want letters, digits, '.', '_' or '-'", name, n, f[0])
		}
		k, err := ParseKey(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: key %s: %v", name, n, f[0], err)
		}
		if _, dup := keys[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: key id %s given twice", name, n, f[0])
		}
		keys[f[0]] = k
	}
	return keys, sc.Err()
}

// ParseKey reads a hex key of at least MinKeyBytes bytes.
func ParseKey(s string) ([]byte, error) {
	k, err := hex.DecodeString(s)
	if err != nil || len(k) < MinKeyBytes {
		return nil, fmt.Errorf("want at least %d bytes in hex (openssl rand -hex 32)", MinKeyBytes)
	}
	return k, nil
}
