package cli

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkVersion is the cost of a call that needs nothing: the command
// tree, flags and dispatch (the process start and package init aside).
func BenchmarkVersion(b *testing.B) {
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), []string{"version"}, &out, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}
