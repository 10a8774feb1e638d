package cli

import (
	"strings"
	"testing"
)

// TestSpotJob is the table test of the one function that turns spot's job
// flags into a spot.Job.
func TestSpotJob(t *testing.T) {
	for _, tc := range []struct {
		name string
		args map[string]string // flag → value, as typed
		want [5]float64        // work, deadline, restart, startup, checkpoint cost (hours)
		err  string
	}{
		{"defaults", map[string]string{"work": "72h"}, [5]float64{72, 0, 10.0 / 60, 10.0 / 60, 5.0 / 60}, ""},
		{"deadline and zero restart with a unit", map[string]string{"work": "3d", "deadline": "100h", "restart": "0m", "checkpoint-cost": "0s"},
			[5]float64{72, 100, 0, 0, 0}, ""},
		{"no work", map[string]string{"deadline": "10h"}, [5]float64{}, "--work is required"},
		{"deadline below work", map[string]string{"work": "10h", "deadline": "9h"}, [5]float64{}, "even on-demand cannot meet it"},
		{"deadline below work plus the first start-up", map[string]string{"work": "10h", "deadline": "10h", "restart": "6m"}, [5]float64{}, "plus one --restart 6m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSpotFlags()
			vals := map[string]*hoursValue{"work": f.work, "deadline": f.deadline, "restart": f.restart, "checkpoint-cost": f.ckptCost}
			for k, v := range tc.args {
				if err := vals[k].Set(v); err != nil {
					t.Fatalf("--%s %s: %v", k, v, err)
				}
			}
			job, err := spotJob(&f, func(n string) bool { _, ok := tc.args[n]; return ok })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [5]float64{job.Work, job.Deadline, job.Restart, job.Startup, job.CheckpointCost}
			for i := range got {
				if d := got[i] - tc.want[i]; d > 1e-12 || d < -1e-12 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
			if job.Nodes != 1 {
				t.Errorf("nodes %d, want the default 1", job.Nodes)
			}
		})
	}
}
