package agent

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type countRunner struct{ ran, stopped atomic.Int32 }

func (r *countRunner) Run(ctx context.Context) {
	r.ran.Add(1)
	<-ctx.Done()
	r.stopped.Add(1)
}

// Serve answers scrapes while it runs, and stops every part and returns nil
// when its context ends.
func TestServeStopsCleanly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var store Store
	loop := NewLoop(time.Hour, &store)
	ep := NewEndpoint(&store, false, time.Hour, "test")
	loop.Handlers = []TickHandler{ep}
	r := &countRunner{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, ep, loop, r) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "# TYPE") {
		t.Fatalf("scrape: %d %q", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel = %v, want nil", err)
	}
	if r.ran.Load() != 1 || r.stopped.Load() != 1 {
		t.Fatalf("runner ran %d, stopped %d, want 1 and 1", r.ran.Load(), r.stopped.Load())
	}
}

// A listener that fails ends Serve with its error, and the parts stop too.
func TestServeReturnsEndpointError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	var store Store
	r := &countRunner{}
	err = Serve(context.Background(), ln, http.NotFoundHandler(), NewLoop(time.Hour, &store), r)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Serve on a closed listener = %v, want its accept error", err)
	}
	if r.stopped.Load() != 1 {
		t.Fatalf("runner stopped %d times, want 1", r.stopped.Load())
	}
}
