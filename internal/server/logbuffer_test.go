package server

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogBuffer: lines gather, reach the writer whole at the next flush,
// and Close writes out the rest.
func TestLogBuffer(t *testing.T) {
	var out lockedBuffer
	b := NewLogBuffer(&out, 20*time.Millisecond)
	b.Write([]byte("line 1\n"))
	if out.String() != "" {
		t.Fatalf("written at once: %q, want nothing before a flush", out.String())
	}
	for deadline := time.Now().Add(30 * time.Second); out.String() == "" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the 20 ms flush; longer only on a busy machine
	}
	if out.String() != "line 1\n" {
		t.Fatalf("after the interval: %q, want line 1", out.String())
	}
	b.Write([]byte("line 2\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != 2 || !strings.HasSuffix(out.String(), "line 2\n") {
		t.Errorf("after Close: %q, want both lines", out.String())
	}
}
