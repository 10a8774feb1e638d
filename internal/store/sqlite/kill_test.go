package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// TestKill9KeepsAcknowledgedPuts runs puts in a child process (this test
// binary again), which prints each document's ID once PutDocument has
// returned; the parent kills it with SIGKILL mid-stream, reopens the file
// and finds every acknowledged document, whole, and the database intact.
func TestKill9KeepsAcknowledgedPuts(t *testing.T) {
	if path := os.Getenv("GPUSCOUT_SQLITE_CHILD"); path != "" {
		child(path)
		return
	}
	path := filepath.Join(t.TempDir(), "g.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9KeepsAcknowledgedPuts$")
	cmd.Env = append(os.Environ(), "GPUSCOUT_SQLITE_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := sc.Text(); len(line) == 64 {
			acked = append(acked, line)
		}
		if len(acked) == 150 {
			cmd.Process.Kill() // SIGKILL while 8 goroutines are still putting
			break
		}
	}
	for sc.Scan() { // acknowledgements written before the kill landed
		if line := sc.Text(); len(line) == 64 {
			acked = append(acked, line)
		}
	}
	cmd.Wait()
	if len(acked) < 150 {
		t.Fatalf("the child acknowledged only %d puts", len(acked))
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	var check string
	if err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	for _, id := range acked {
		d, err := s.GetDocument(ctx, id)
		if err != nil {
			t.Errorf("acknowledged document %s lost: %v", id[:8], err)
			continue
		}
		if store.DocumentID(d.Body) != id {
			t.Errorf("document %s came back with a body hashing to %s", id[:8], store.DocumentID(d.Body)[:8])
		}
	}
	all, _ := s.ListDocuments(ctx, store.Filter{Limit: store.MaxLimit}, true)
	for _, d := range all {
		if store.DocumentID(d.Body) != d.ID {
			t.Errorf("stored document %s is half-written", d.ID[:8])
		}
	}
	t.Logf("%d acknowledged before the kill, %d stored", len(acked), len(all))
}

// child puts documents from 8 goroutines until it is killed.
func child(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				body := fmt.Appendf(nil, `{"g":%d,"i":%d,"pad":"%0512d"}`, g, i, i)
				d := &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body, ReceivedAt: time.Now()}
				if _, err := s.PutDocument(context.Background(), d); err != nil {
					continue
				}
				mu.Lock()
				fmt.Fprintln(w, d.ID)
				w.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
