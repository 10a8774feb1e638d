package rules

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
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent/notify"
)

// An alert fires and is delivered; the agent restarts (a new engine and
// dispatcher over the same state directory) while the condition holds; the
// condition clears. The webhook gets one firing and one resolved notice,
// both with the first start: nothing fired again, nothing forgotten.
func TestRestartNeitherRefiresNorForgets(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			Status string `json:"status"`
			Alerts []struct {
				StartsAt time.Time `json:"startsAt"`
			} `json:"alerts"`
		}
		json.Unmarshal(b, &m)
		mu.Lock()
		got = append(got, m.Status+" "+m.Alerts[0].StartsAt.Sub(t0).String())
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	r := Rule{Name: "GPUMemoryHigh", Metric: "m", Op: GT, Threshold: 0.9, For: 5 * time.Minute}
	start := func() (*Engine, *notify.Dispatcher) {
		e, err := New([]Rule{r}, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Persist(filepath.Join(dir, "rules-state.json")); err != nil {
			t.Fatal(err)
		}
		d, err := notify.New([]notify.Receiver{{Name: "ops", Kind: notify.KindWebhook, URL: srv.URL}}, nil, notify.Options{Dir: filepath.Join(dir, "queue")})
		if err != nil {
			t.Fatal(err)
		}
		return e, d
	}
	series := func(v float64) []Series {
		return []Series{{Metric: "m", Labels: map[string]string{"gpu": "0"}, Value: v}}
	}
	ctx := context.Background()
	e, d := start()
	for i := 0; i <= 6; i++ {
		d.Send(ctx, e.Eval(t0.Add(time.Duration(i)*time.Minute), series(0.95)))
	}
	e, d = start() // restart at 7 min, still above 90%
	for i := 7; i <= 9; i++ {
		alerts := e.Eval(t0.Add(time.Duration(i)*time.Minute), series(0.95))
		if len(alerts) != 1 || !alerts[0].StartsAt.Equal(t0.Add(5*time.Minute)) {
			t.Fatalf("after the restart, at %d min: %+v; want the alert still firing since 5 min", i, alerts)
		}
		d.Send(ctx, alerts)
	}
	d.Send(ctx, e.Eval(t0.Add(10*time.Minute), series(0.5)))
	if want := "firing 5m0s,resolved 5m0s"; strings.Join(got, ",") != want {
		t.Errorf("webhook got %v; want %s", got, want)
	}
	if err := e.StateError(); err != nil {
		t.Error(err)
	}
}

func TestRestoredAlertResolves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	r := Rule{Name: "Hot", Metric: "m", Op: GT, Threshold: 80, For: 0}
	e, _ := New([]Rule{r, {Name: "Old", Metric: "m", Op: GT, Threshold: 90}}, time.Minute, nil)
	e.Persist(path)
	e.Eval(t0, []Series{{Metric: "m", Value: 95}})

	// Restart with the condition gone and rule Old removed: both resolve
	// at the first evaluation, with their first start.
	e2, _ := New([]Rule{r}, time.Minute, nil)
	if err := e2.Persist(path); err != nil {
		t.Fatal(err)
	}
	got := e2.Eval(t0.Add(time.Minute), []Series{{Metric: "m", Value: 50}})
	if len(got) != 2 || got[0].Name() != "Hot" || got[1].Name() != "Old" {
		t.Fatalf("%+v; want Hot and Old resolved", got)
	}
	for _, a := range got {
		if a.Status() != notify.StatusResolved || !a.StartsAt.Equal(t0) || !a.EndsAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("%s: status %s, %s to %s; want resolved, %s to %s", a.Name(), a.Status(), a.StartsAt, a.EndsAt, t0, t0.Add(time.Minute))
		}
	}
	// A damaged state file: the engine starts afresh and says so.
	os.WriteFile(path, []byte("{"), 0o600)
	e3, _ := New([]Rule{r}, time.Minute, nil)
	if err := e3.Persist(path); err != nil || e3.StateError() == nil {
		t.Errorf("damaged state: Persist %v, StateError %v; want nil and an error", err, e3.StateError())
	}
}
