package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// uploads is how many uploads race the kill, all at once.
const uploads = 200

// noLimit is serve's --rate for the fault test: the per-token rate limit is
// not what it tests (the reads after the restart would pass a token's burst).
const noLimit = "100000"

// TestKill9DuringUploads starts serve on each store, sends 200 distinct
// reports concurrently, kills the server with SIGKILL once a tenth of them
// are answered, restarts it on the same store, and checks that every upload
// acknowledged with a 2xx is there, whole (its body hashes to its id), and
// that every stored document is whole.
func TestKill9DuringUploads(t *testing.T) {
	requireServe(t)
	forEachStore(t, kill9)
}

func kill9(t *testing.T, be backend) {
	db := be.newDB(t)
	// One token per 20 uploads keeps each token inside its rate limit's burst:
	// this test is about crashes, not 429s.
	tokens := createTokens(t, be, db, "uploader", uploads/20)
	reader := tokens[0]
	srv := startServer(t, db, "--rate", noLimit)
	bodies := make([][]byte, uploads)
	for i := range bodies {
		bodies[i] = report(t, fmt.Sprintf("fault-node-%03d", i), i)
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: uploads}}

	type result struct {
		status int
		id     string
		err    error
	}
	results := make([]result, uploads)
	var answered atomic.Int32
	killAt := int32(uploads / 10)
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range uploads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code, b, err := do(t, client, "POST", srv.base+"/api/v1/reports", tokens[i%len(tokens)], bodies[i])
			r := result{status: code, err: err}
			if err == nil && code/100 == 2 {
				var ack struct {
					ID string `json:"id"`
				}
				if jerr := json.Unmarshal(b, &ack); jerr != nil {
					r.err = fmt.Errorf("2xx with an answer that does not decode: %v: %s", jerr, b)
				}
				r.id = ack.ID
			}
			results[i] = r
			if answered.Add(1) == killAt {
				once.Do(func() { srv.kill(); close(killed) })
			}
		}()
	}
	close(start)
	wg.Wait()
	once.Do(func() { srv.kill(); close(killed) }) // all answered before the kill: kill now
	<-killed

	acked, failed := 0, 0
	for i, r := range results {
		switch {
		case r.err == nil && r.status/100 == 2:
			acked++
			if r.id != sha(bodies[i]) {
				t.Errorf("upload %d: acknowledged id %s; want the body's SHA-256 %s", i, r.id, sha(bodies[i]))
			}
		case r.err == nil && r.status != http.StatusTooManyRequests && r.status != http.StatusServiceUnavailable:
			t.Errorf("upload %d: status %d before the kill; want 2xx (or 429/503)", i, r.status)
		default:
			failed++ // cut off by the kill: no promise was made
		}
	}
	t.Logf("%d uploads: %d acknowledged before/around the kill, %d cut off", uploads, acked, failed)
	if acked == 0 || failed == 0 {
		t.Logf("the kill fell outside the uploads (acked %d, cut off %d): the test still checks durability", acked, failed)
	}

	srv2 := startServer(t, db, "--rate", noLimit)
	for i, r := range results {
		if r.err != nil || r.status/100 != 2 {
			continue
		}
		if _, err := getDocument(t, client, srv2.base, reader, r.id, bodies[i]); err != nil {
			t.Errorf("upload %d was acknowledged (%d) but after kill -9 and restart: %v", i, r.status, err)
		}
	}
	// Everything stored, acknowledged or not, is whole.
	code, b, err := do(t, client, "GET", srv2.base+"/api/v1/reports?limit=1000", reader, nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("list after restart: %d %v %s", code, err, b)
	}
	var list struct {
		Reports []struct {
			ID string `json:"id"`
		} `json:"reports"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Reports) < acked || len(list.Reports) > uploads {
		t.Errorf("%d documents stored after restart; want from %d (acknowledged) to %d (sent)", len(list.Reports), acked, uploads)
	}
	t.Logf("after restart: %d documents stored (%d acknowledged, %d sent)", len(list.Reports), acked, uploads)
	sent := map[string][]byte{}
	for i := range bodies {
		sent[sha(bodies[i])] = bodies[i]
	}
	for _, r := range list.Reports {
		body, ok := sent[r.ID]
		if !ok {
			t.Errorf("stored id %s is none of the bodies sent", r.ID)
			continue
		}
		if _, err := getDocument(t, client, srv2.base, reader, r.ID, body); err != nil {
			t.Error(err)
		}
	}
	// The store itself, read directly (not through the API): every
	// document's body hashes to its id.
	checkStore(t, be, db, len(list.Reports))

	// The restarted server still takes uploads (the database is not locked
	// or corrupt), and a re-upload of an acknowledged one is idempotent.
	code, b, err = do(t, client, "POST", srv2.base+"/api/v1/reports", tokens[1], report(t, "after-restart", uploads))
	if err != nil || code != http.StatusCreated {
		t.Errorf("upload after restart: %d %v %s; want 201", code, err, b)
	}
	for i, r := range results {
		if r.err == nil && r.status/100 == 2 {
			code, b, err := do(t, client, "POST", srv2.base+"/api/v1/reports", tokens[1], bodies[i])
			if err != nil || code != http.StatusOK {
				t.Errorf("re-upload of acknowledged %d: %d %v %s; want 200 (already stored)", i, code, err, b)
			}
			break
		}
	}
}

// checkStore opens the store directly, while the server holds it too, and
// checks every stored body against its id.
func checkStore(t *testing.T, b backend, db string, want int) {
	t.Helper()
	st, err := b.open(db)
	if err != nil {
		t.Fatalf("open %s after the crash: %v", db, err)
	}
	defer st.Close()
	docs, err := st.ListDocuments(context.Background(), store.Filter{Limit: store.MaxLimit}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != want {
		t.Errorf("the file holds %d documents; the API lists %d", len(docs), want)
	}
	for _, d := range docs {
		if sha(d.Body) != d.ID {
			t.Errorf("stored document %s: its %d-byte body hashes to %s (half-written)", d.ID, len(d.Body), sha(d.Body))
		}
	}
}
