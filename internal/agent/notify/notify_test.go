package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func firing(gpu string) Alert {
	return Alert{
		Labels:      map[string]string{"alertname": "GPUIdle", "gpu": gpu, "severity": "warning"},
		Annotations: map[string]string{"summary": "GPU " + gpu + " idle"},
		StartsAt:    t0, GeneratorURL: "http://node:9464/",
	}
}

func resolved(gpu string, at time.Time) Alert {
	a := firing(gpu)
	a.EndsAt = at
	return a
}

func TestFingerprint(t *testing.T) {
	// FNV-1a 64 of "alertname\xffGPUIdle\xffgpu\xff0\xff" (computed apart,
	// and checked against a real Alertmanager in the integration test).
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"gpu": "0", "alertname": "GPUIdle"}, "c1c45abbf14ee474"},
		{map[string]string{}, "cbf29ce484222325"},
	} {
		if got := Fingerprint(c.labels); got != c.want {
			t.Errorf("Fingerprint(%v) = %s; want %s", c.labels, got, c.want)
		}
	}
}

// receiver is a fake HTTP receiver that records bodies and can be down.
type receiver struct {
	mu     sync.Mutex
	down   atomic.Bool
	bodies []string
	keys   []string
	paths  []string
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, string(b))
		r.keys = append(r.keys, req.Header.Get("Idempotency-Key"))
		r.paths = append(r.paths, req.URL.Path)
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...), append([]string(nil), r.keys...)
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestWebhookV4Shape(t *testing.T) {
	rcv := newReceiver(t)
	c := &clock{t0}
	d, err := New([]Receiver{{Name: "ops", Kind: KindWebhook, URL: rcv.srv.URL + "/hook"}}, nil, Options{Dir: t.TempDir(), Now: c.now, ExternalURL: "http://node:9464"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Send(context.Background(), []Alert{firing("0")}); err != nil {
		t.Fatal(err)
	}
	c.t = t0.Add(time.Hour)
	if err := d.Send(context.Background(), []Alert{resolved("0", c.t)}); err != nil {
		t.Fatal(err)
	}
	bodies, _ := rcv.got()
	if len(bodies) != 2 {
		t.Fatalf("%d posts; want 2 (firing, resolved)", len(bodies))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(bodies[0]), &m); err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint(firing("0").Labels)
	for k, want := range map[string]any{
		"version": "4", "status": "firing", "receiver": "ops", "externalURL": "http://node:9464",
		"groupKey": `{}:{alertname="GPUIdle"}/` + fp, "truncatedAlerts": 0.0,
	} {
		if m[k] != want {
			t.Errorf("%s = %v; want %v", k, m[k], want)
		}
	}
	al := m["alerts"].([]any)[0].(map[string]any)
	for k, want := range map[string]any{
		"status": "firing", "startsAt": "2026-12-01T00:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
		"fingerprint": fp, "generatorURL": "http://node:9464/",
	} {
		if al[k] != want {
			t.Errorf("alerts[0].%s = %v; want %v", k, al[k], want)
		}
	}
	if g := m["groupLabels"].(map[string]any); len(g) != 1 || g["alertname"] != "GPUIdle" {
		t.Errorf("groupLabels %v; want {alertname: GPUIdle}", g)
	}
	if !strings.Contains(bodies[1], `"status":"resolved"`) || !strings.Contains(bodies[1], `"endsAt":"2026-12-01T01:00:00Z"`) {
		t.Errorf("resolved body %s; want status resolved and endsAt 2026-12-01T01:00:00Z", bodies[1])
	}
}

func TestAlertmanagerBodyAndKeepalive(t *testing.T) {
	rcv := newReceiver(t)
	c := &clock{t0}
	d, err := New([]Receiver{{Name: "am", Kind: KindAlertmanager, URL: rcv.srv.URL + "/"}}, nil, Options{Dir: t.TempDir(), Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, at := range []time.Duration{0, 30 * time.Second, 61 * time.Second} {
		c.t = t0.Add(at)
		if err := d.Send(ctx, []Alert{firing("0")}); err != nil {
			t.Fatal(err)
		}
	}
	c.t = t0.Add(2 * time.Minute)
	if err := d.Send(ctx, []Alert{resolved("0", c.t)}); err != nil {
		t.Fatal(err)
	}
	bodies, _ := rcv.got()
	// The notice at 0s, a keep-alive at 61s (not at 30s: resend is 1m), the resolved notice.
	if len(bodies) != 3 {
		t.Fatalf("%d posts %v; want 3", len(bodies), bodies)
	}
	var p []postableAlert
	if err := json.Unmarshal([]byte(bodies[0]), &p); err != nil || len(p) != 1 {
		t.Fatalf("body %s: %v; want a list of one postable alert", bodies[0], err)
	}
	if want := t0.Add(4 * time.Minute); !p[0].EndsAt.Equal(want) {
		t.Errorf("firing endsAt %s; want %s (4 × resend after the send)", p[0].EndsAt, want)
	}
	json.Unmarshal([]byte(bodies[1]), &p)
	if want := t0.Add(61*time.Second + 4*time.Minute); !p[0].EndsAt.Equal(want) {
		t.Errorf("keep-alive endsAt %s; want %s", p[0].EndsAt, want)
	}
	json.Unmarshal([]byte(bodies[2]), &p)
	if want := t0.Add(2 * time.Minute); !p[0].EndsAt.Equal(want) {
		t.Errorf("resolved endsAt %s; want %s (in the past)", p[0].EndsAt, want)
	}
	for _, path := range rcv.paths {
		if path != "/api/v2/alerts" {
			t.Errorf("posted to %s; want /api/v2/alerts", path)
		}
	}
}

// The receiver is down while an alert fires and resolves; the agent
// restarts (a new Dispatcher over the same directory); the receiver comes
// back: each notice arrives once, in order, and re-sending the same alerts
// queues nothing.
func TestReceiverDownThenUpAcrossRestart(t *testing.T) {
	rcv := newReceiver(t)
	rcv.down.Store(true)
	dir := t.TempDir()
	c := &clock{t0}
	rs := []Receiver{{Name: "ops", Kind: KindWebhook, URL: rcv.srv.URL}}
	o := Options{Dir: dir, Now: c.now, MinBackoff: time.Second, MaxBackoff: 4 * time.Second}
	d1, err := New(rs, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := d1.Send(ctx, []Alert{firing("0"), firing("1")}); err == nil {
		t.Fatal("Send to a receiver that is down: no error; want one")
	}
	c.t = t0.Add(time.Minute)
	d1.Send(ctx, []Alert{resolved("0", c.t), firing("1")})
	if n := d1.Queued(); n != 3 {
		t.Fatalf("%d queued; want 3 (two firing, one resolved)", n)
	}
	// The backoff doubles from 1s to at most 4s.
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		if got := d1.backoff(i + 1); got != want {
			t.Errorf("backoff(%d) = %s; want %s", i+1, got, want)
		}
	}

	// Restart: the new dispatcher finds the queue; the receiver is back.
	d2, err := New(rs, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	rcv.down.Store(false)
	if err := d2.Retry(ctx); err != nil {
		t.Fatal(err)
	}
	// The old process's in-flight retry and a re-evaluation after the
	// restart send nothing more.
	d1.Retry(ctx)
	d2.Send(ctx, []Alert{firing("1"), resolved("0", t0.Add(time.Minute))})
	bodies, keys := rcv.got()
	var got []string
	for _, b := range bodies {
		var m webhookMessage
		json.Unmarshal([]byte(b), &m)
		got = append(got, m.Alerts[0].Labels["gpu"]+" "+m.Status)
	}
	if want := "0 firing,1 firing,0 resolved"; strings.Join(got, ",") != want {
		t.Errorf("delivered %v; want %s, each once", got, want)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("key %s delivered twice", k)
		}
		seen[k] = true
	}
	if n := d2.Queued(); n != 0 {
		t.Errorf("%d still queued; want 0", n)
	}
}

func TestBackoffWaitsAndQueueIsBounded(t *testing.T) {
	rcv := newReceiver(t)
	rcv.down.Store(true)
	c := &clock{t0}
	d, err := New([]Receiver{{Name: "ops", Kind: KindWebhook, URL: rcv.srv.URL}}, nil, Options{Dir: t.TempDir(), Now: c.now, MaxQueue: 3, MinBackoff: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, gpu := range []string{"0", "1", "2", "3", "4"} {
		d.Send(ctx, []Alert{firing(gpu)})
	}
	if n, s := d.Queued(), d.Stats(); n != 3 || s.Dropped != 2 {
		t.Errorf("queued %d, dropped %d; want 3 and 2 (max 3)", n, s.Dropped)
	}
	rcv.down.Store(false)
	c.t = t0.Add(5 * time.Second) // before the backoff
	d.Retry(ctx)
	if b, _ := rcv.got(); len(b) != 0 {
		t.Errorf("%d posts before the backoff passed; want 0", len(b))
	}
	c.t = t0.Add(10 * time.Second)
	d.Retry(ctx)
	b, _ := rcv.got()
	var gpus []string
	for _, x := range b {
		var m webhookMessage
		json.Unmarshal([]byte(x), &m)
		gpus = append(gpus, m.Alerts[0].Labels["gpu"])
	}
	if strings.Join(gpus, ",") != "2,3,4" {
		t.Errorf("delivered gpus %v; want the newest three [2 3 4]", gpus)
	}
}

func TestRefusedNotificationIsDropped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad alert", http.StatusBadRequest)
	}))
	defer srv.Close()
	d, err := New([]Receiver{{Name: "am", Kind: KindAlertmanager, URL: srv.URL}}, nil, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d.Send(context.Background(), []Alert{firing("0")})
	if n, s := d.Queued(), d.Stats(); n != 0 || s.Failed != 1 {
		t.Errorf("after a 400: queued %d, failed %d; want 0 and 1", n, s.Failed)
	}
}

func TestExecEnvNoShell(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	a := firing("0")
	a.Labels["job"] = "$(touch " + filepath.Join(dir, "pwned") + ")"
	a.Labels["model-name"] = "H200; rm -rf /"
	a.Action = "exec:scale"
	rcv := newReceiver(t)
	d, err := New([]Receiver{{Name: "ops", Kind: KindWebhook, URL: rcv.srv.URL}},
		[]Exec{{Name: "scale", Argv: []string{"/bin/sh", "-c", `env | grep ^GPUSCOUT_ | sort > "$1"; cat > "$1.json"`, "sh", out}}}, Options{Dir: filepath.Join(dir, "q")})
	if err != nil {
		t.Fatal(err)
	}
	d.Send(context.Background(), []Alert{a})
	d.Send(context.Background(), []Alert{a})           // the same notice: not run again
	d.Send(context.Background(), []Alert{firing("7")}) // action notify: the receiver, not the command
	d.Wait()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var stdin Alert
	if js, err := os.ReadFile(out + ".json"); err != nil || json.Unmarshal(js, &stdin) != nil || stdin.Labels["job"] != a.Labels["job"] {
		t.Errorf("standard input %s (%v); want the alert as JSON", js, err)
	}
	if bodies, _ := rcv.got(); len(bodies) != 1 || !strings.Contains(bodies[0], `"gpu":"7"`) {
		t.Errorf("receiver got %v; want only gpu 7's notice", bodies)
	}
	for _, want := range []string{
		"GPUSCOUT_ALERT_NAME=GPUIdle", "GPUSCOUT_ALERT_STATUS=firing", "GPUSCOUT_LABEL_GPU=0",
		"GPUSCOUT_LABEL_JOB=$(touch " + filepath.Join(dir, "pwned") + ")", "GPUSCOUT_LABEL_MODEL_NAME=H200; rm -rf /",
		"GPUSCOUT_ALERT_FINGERPRINT=" + a.Fingerprint(),
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("environment lacks %q:\n%s", want, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a label value was run by a shell")
	}
	if s := d.Stats(); s.ExecRuns != 1 {
		t.Errorf("exec ran %d times; want 1", s.ExecRuns)
	}
}

func TestHangingExecKilledAtTimeout(t *testing.T) {
	// The command starts a child that would outlive it, then hangs. Waiting
	// for it would take 120 s; the kill at the timeout takes little more, so
	// 30 s tells them apart however busy the machine is. A run killed before
	// it wrote the child's pid proves nothing (a busy machine): it is tried
	// again with four times the timeout.
	var pidFile string
	for timeout := 300 * time.Millisecond; ; timeout *= 4 {
		pidFile = filepath.Join(t.TempDir(), "child")
		x := Exec{Name: "hang", Timeout: timeout, Argv: []string{"/bin/sh", "-c", `sleep 120 & echo $! > "$1"; wait`, "sh", pidFile}}
		start := time.Now()
		err := runExec(context.Background(), x, firing("0"))
		if took := time.Since(start); err != errExecTimeout || took > 30*time.Second {
			t.Fatalf("runExec = %v after %s; want %v well before the 120 s hang ends", err, took, errExecTimeout)
		}
		if _, err := os.Stat(pidFile); err == nil || timeout > 4*time.Second {
			break
		}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	// The child was in the killed process group: it is gone (or a zombie
	// about to be reaped by init).
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %s of the timed-out action still runs: %s", pid, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, c := range []struct {
		rs   []Receiver
		xs   []Exec
		want string
	}{
		{[]Receiver{{Name: "a", Kind: "slack", URL: "http://x"}}, nil, `kind "slack"`},
		{[]Receiver{{Name: "a", Kind: KindWebhook, URL: "ftp://x"}}, nil, `url "ftp://x"`},
		{[]Receiver{{Name: "a", Kind: KindWebhook, URL: "http://x"}, {Name: "a", Kind: KindWebhook, URL: "http://y"}}, nil, `name "a"`},
		{nil, []Exec{{Name: "x"}}, "argv is empty"},
	} {
		_, err := New(c.rs, c.xs, Options{Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v; want one containing %q", err, c.want)
		}
	}
}

// Deliver, called every tick, posts only when something is due.
func TestDeliverOnlyWhenDue(t *testing.T) {
	var posts atomic.Int32
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		if down.Load() {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	c := &clock{t0}
	d, err := New([]Receiver{{Name: "ops", Kind: KindWebhook, URL: srv.URL}}, nil, Options{Dir: t.TempDir(), Now: c.now, MinBackoff: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d.Deliver(ctx) // first round: looks at the queue once
	d.Deliver(ctx)
	if n := posts.Load(); n != 0 {
		t.Fatalf("%d posts with nothing queued; want 0", n)
	}
	down.Store(true)
	d.Enqueue(ctx, []Alert{firing("0")})
	d.Deliver(ctx) // fails: retry in 10 s
	for i := 1; i < 10; i++ {
		c.t = t0.Add(time.Duration(i) * time.Second)
		d.Deliver(ctx)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("%d posts within the 10 s backoff; want 1", n)
	}
	down.Store(false)
	c.t = t0.Add(10 * time.Second)
	d.Deliver(ctx)
	d.Deliver(ctx)
	if n, q := posts.Load(), d.Queued(); n != 2 || q != 0 {
		t.Errorf("after the backoff: %d posts, %d queued; want 2 and 0", n, q)
	}
}

func TestExecFailureCarriesStderr(t *testing.T) {
	x := Exec{Name: "fail", Timeout: 5 * time.Second, Argv: []string{"/bin/sh", "-c", `echo "no capacity in $GPUSCOUT_LABEL_GPU" >&2; exit 3`}}
	err := runExec(context.Background(), x, firing("2"))
	if err == nil || !strings.Contains(err.Error(), "exit status 3: no capacity in 2") {
		t.Errorf("runExec = %v; want exit status 3 with the stderr line", err)
	}
}
