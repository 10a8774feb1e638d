package cli

import (
	"strings"
	"testing"
	"time"
)

// TestProgressBar: a run past half a second shows done/total and ends its
// line when done; a quick one shows nothing; an unknown total counts; long
// labels are cut by characters, not bytes.
func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := progressBar(&b, time.Now().Add(-time.Second))
	p(50, 100, "simulating runs")
	p(100, 100, "simulating runs")
	want := "\r\033[Ksimulating runs 50/100 [===============               ]\r\033[Ksimulating runs 100/100 [==============================]\n"
	if b.String() != want {
		t.Errorf("bar %q, want %q", b.String(), want)
	}
	b.Reset()
	p = progressBar(&b, time.Now())
	p(50, 100, "simulating runs")
	p(100, 100, "simulating runs")
	if b.String() != "" {
		t.Errorf("quick run drew %q", b.String())
	}
	for _, tc := range []struct{ what, want string }{
		{"page 4", "\r\033[Kpage 4: 4"},
		{strings.Repeat("华", 61), "\r\033[K" + strings.Repeat("华", 57) + "...: 4"},
	} {
		b.Reset()
		progressBar(&b, time.Now().Add(-time.Second))(4, 0, tc.what)
		if b.String() != tc.want {
			t.Errorf("unknown total: %q, want %q", b.String(), tc.want)
		}
	}
}
