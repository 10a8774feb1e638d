package server

import (
	"strings"
	"testing"
)

func TestParseKeys(t *testing.T) {
	good := "# node keys\nnode-1 " + strings.Repeat("ab", 16) + "\n\nnode-2 " + strings.Repeat("01", 32) + "\n"
	keys, err := ParseKeys("keys", strings.NewReader(good))
	if err != nil || len(keys) != 2 || len(keys["node-1"]) != 16 || keys["node-2"][0] != 1 {
		t.Fatalf("got %v %v", keys, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"node-1", "keys:1: want KEY-ID HEX-KEY"},
		{"node-1 zz", "keys:1: key node-1: want at least 16 bytes"},
		{"node-1 abcd", "keys:1: key node-1: want at least 16 bytes"},
		{"a b c", "keys:1: want KEY-ID"},
		{"n " + strings.Repeat("ab", 16) + "\nn " + strings.Repeat("ab", 16), "keys:2: key id n given twice"},
		{"<x> " + strings.Repeat("ab", 16), `keys:1: key id "<x>"`},
	} {
		if _, err := ParseKeys("keys", strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
}
