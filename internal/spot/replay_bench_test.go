package spot

import (
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// paperReplayConfig is issue 24's replay: 48 h of work due in 52 h,
// continuous checkpoints, a 6-minute changeover (and first launch), spot
// 0.9731 and on-demand 3.06 per hour, the shared trace us-west-2b_v100_1
// (aws-10-26-2022, 600 s ticks) from 300 random start offsets.
func paperReplayConfig(b *testing.B) Config {
	p := filepath.Join(shareddata.Dir(b), "spot-traces", "availability", "1-node", "aws-10-26-2022", "us-west-2b_v100_1.json")
	tr, err := LoadTrace(p)
	if err != nil {
		b.Skip(err)
	}
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Checkpoint: 0, Restart: 0.1, Startup: 0.1, SpotPrice: 0.9731, ODPrice: 3.06}
	return Config{Job: job, Model: NewReplay(tr), Runs: DefaultOffsetRuns, Seed: 1}
}

// BenchmarkPaperReplay is the replay under greedy, Uniform Progress and the
// hindsight optimum, one policy per sub-benchmark: 300 runs an iteration.
func BenchmarkPaperReplay(b *testing.B) {
	cfg := paperReplayConfig(b)
	for _, name := range []string{"greedy", "uniform-progress", "optimal"} {
		pols, err := Policies([]string{name}, ASGMix{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Simulate(cfg, pols); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkShortCheckpoints is a 72 h job checkpointing every 10 s (a
// 0.5 s write) under Poisson interruptions every 20 h on average, spot-only
// and greedy, 100 runs an iteration: 25,920 checkpoints a run.
func BenchmarkShortCheckpoints(b *testing.B) {
	job := Job{Work: 72, Deadline: 90, Nodes: 1, Checkpoint: 10.0 / 3600, CheckpointCost: 0.5 / 3600, Restart: 0.1, SpotPrice: 1, ODPrice: 3}
	cfg := Config{Job: job, Model: Hazard{PerHour: 0.05}, Runs: 100, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Simulate(cfg, []Policy{SpotOnly{}, Greedy{}}); err != nil {
			b.Fatal(err)
		}
	}
}
