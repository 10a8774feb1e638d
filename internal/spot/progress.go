package spot

import "time"

// Progress is how far a SimulateMany call has got, for a progress line on
// a terminal.
type Progress struct {
	Runs, Total int           // runs done and asked for, all policies together
	Events      int64         // events processed so far, runs in progress included
	Budget      int64         // the events allowed
	Elapsed     time.Duration // since the runs started
}

// progressEvery is how often SimulateMany reports its progress while the
// runs go on (tests shorten it).
var progressEvery = time.Second
