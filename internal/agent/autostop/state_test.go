package autostop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPersistedIdleClock runs one watcher idle for ten minutes, stops it,
// and starts another on the same state directory: the idle clock carries
// over only under the same boot and options, from a recent idle save.
func TestPersistedIdleClock(t *testing.T) {
	noSync(t)
	const maxGap = 10 * time.Minute
	restart := t0.Add(10*time.Minute + 30*time.Second) // the first watcher's last tick is at 10m
	tests := []struct {
		name    string
		boot    string         // the boot id the second watcher sees
		change  func(*Options) // the second watcher's options
		busyEnd bool           // the first watcher's last tick was active
		at      time.Time      // the second watcher's first tick
		want    time.Time      // its LastActive
	}{
		{"agent restart, same boot", bootA, nil, false, restart, t0},
		{"reboot", bootB, nil, false, restart, restart},
		{"options changed", bootA, func(o *Options) { o.IdleUtilization = 0.1 }, false, restart, restart},
		{"hook changed (not an idleness option)", bootA, func(o *Options) { o.Hook = []string{"x"} }, false, restart, t0},
		{"active at the last save", bootA, nil, true, restart, restart},
		{"agent down longer than max gap", bootA, nil, false, t0.Add(10*time.Minute + maxGap + time.Second), t0.Add(10*time.Minute + maxGap + time.Second)},
		{"clock before the save", bootA, nil, false, t0.Add(9 * time.Minute), t0.Add(9 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(t)
			o.MaxGap = maxGap                                // saves every 5 minutes: fewer file writes
			o.StateDir = filepath.Join(t.TempDir(), "state") // created on the first save
			w1, _ := New(o, Deps{Run: (&fakeRun{}).run})
			for m := 0; m <= 10; m++ {
				snap := idleGPUs
				if tt.busyEnd && m == 10 {
					snap = busyGPUs
				}
				if _, err := w1.Tick(t0.Add(time.Duration(m)*time.Minute), snap); err != nil {
					t.Fatal(err)
				}
			}
			o2 := o
			o2.ProcRoot = procRoot(t, tt.boot)
			if tt.change != nil {
				tt.change(&o2)
			}
			run := &fakeRun{}
			w2, _ := New(o2, Deps{Run: run.run})
			d, err := w2.Tick(tt.at, idleGPUs)
			if err != nil {
				t.Fatal(err)
			}
			if !d.LastActive.Equal(tt.want) {
				t.Errorf("after restart at %s: LastActive = %s; want %s", tt.at.Sub(t0), d.LastActive.Sub(t0), tt.want.Sub(t0))
			}
			// The restored clock stops the machine 30 minutes after the
			// restored last-active time, not 30 minutes after the restart.
			stopAt := tt.want.Add(o.IdleFor)
			for at := tt.at.Add(time.Minute); at.Before(stopAt.Add(time.Minute)); at = at.Add(time.Minute) {
				if at.After(stopAt) {
					at = stopAt
				}
				d, _ = w2.Tick(at, idleGPUs)
				w2.Wait()
				if d.Action == StartedStop && !at.Equal(tt.want.Add(o.IdleFor)) {
					t.Fatalf("stopped at %s; want at %s", at.Sub(t0), tt.want.Add(o.IdleFor).Sub(t0))
				}
			}
			if d.Action != StartedStop {
				t.Errorf("at %s: action %s; want started-stop", d.At.Sub(t0), d.Action)
			}
		})
	}
}

func TestStateFile(t *testing.T) {
	o := testOptions(t)
	o.StateDir = t.TempDir()
	w, _ := New(o, Deps{})
	for m := 0; m <= 3; m++ {
		if _, err := w.Tick(t0.Add(time.Duration(m)*time.Minute), idleGPUs); err != nil {
			t.Fatal(err)
		}
	}
	// Atomic writes leave the state file alone, no temporary file.
	ents, _ := os.ReadDir(o.StateDir)
	if len(ents) != 1 || ents[0].Name() != StateFile {
		t.Fatalf("state dir holds %v; want only %s", ents, StateFile)
	}
	b, _ := os.ReadFile(filepath.Join(o.StateDir, StateFile))
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	// Saved at the first tick, then every MaxGap/2 (1m): the last at 3m.
	if st.BootID != bootA || !st.LastActive.Equal(t0) || !st.SavedAt.Equal(t0.Add(3*time.Minute)) || st.Active {
		t.Errorf("state %s; want boot %s, last active %s, saved at +3m, idle", b, bootA, t0)
	}
}

func TestStateFaults(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, o *Options)
		wantErr string
	}{
		{"corrupt state file", func(t *testing.T, o *Options) {
			os.WriteFile(filepath.Join(o.StateDir, StateFile), []byte(`{"boot_id": 3`), 0o600)
		}, StateFile},
		{"unknown field in the state", func(t *testing.T, o *Options) {
			os.WriteFile(filepath.Join(o.StateDir, StateFile), []byte(`{"boot_id":"x","idle":true}`), 0o600)
		}, "unknown field"},
		{"state dir is a file", func(t *testing.T, o *Options) {
			o.StateDir = filepath.Join(o.StateDir, "file")
			os.WriteFile(o.StateDir, nil, 0o600)
		}, "saving the idle clock"},
		{"boot id unreadable: nothing persisted", func(t *testing.T, o *Options) {
			o.ProcRoot = procRoot(t, "")
		}, ""},
		{"boot id not a uuid: nothing persisted", func(t *testing.T, o *Options) {
			o.ProcRoot = procRoot(t, "garbage")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noSync(t)
			o := testOptions(t)
			o.StateDir = t.TempDir()
			tt.setup(t, &o)
			w, _ := New(o, Deps{})
			now := t0.Add(time.Hour)
			d, err := w.Tick(now, idleGPUs)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Tick error = %v; want %q", err, tt.wantErr)
			}
			if !d.LastActive.Equal(now) || !d.Idle {
				t.Errorf("LastActive %s, idle %v; want the clock to start now, idle", d.LastActive, d.Idle)
			}
			if tt.wantErr == "" {
				if ents, _ := os.ReadDir(o.StateDir); len(ents) != 0 {
					t.Errorf("state dir holds %v; want nothing without a boot id", ents)
				}
			}
		})
	}
}

// noSync turns off fsync for the test: it costs tens of milliseconds per
// save on a busy disk and changes nothing a test can see (TestStateFile
// keeps it on).
func noSync(t *testing.T) {
	syncWrites = false
	t.Cleanup(func() { syncWrites = true })
}
