package agent

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Series is one sampled value of a metric, with its label values in the
// order of the metric's Labels.
type Series struct {
	Metric *Metric
	Values []string // label values
	Value  float64
}

// Label returns the value of the label named name, and whether the metric has it.
func (s *Series) Label(name string) (string, bool) {
	for i, l := range s.Metric.Labels {
		if l == name {
			return s.Values[i], true
		}
	}
	return "", false
}

// Snapshot is one complete sample of every collector: what a scrape serves
// and what the rules read. It is never changed after it is stored.
type Snapshot struct {
	At     time.Time
	Series []Series
}

// Get returns the series of the metric named name.
func (s *Snapshot) Get(name string) []Series {
	var out []Series
	for _, x := range s.Series {
		if x.Metric.Name == name {
			out = append(out, x)
		}
	}
	return out
}

// Store holds the last snapshot; Load and Save are safe from any goroutine
// and Load is O(1).
type Store struct{ p atomic.Pointer[Snapshot] }

// Load returns the last snapshot, or nil before the first sample.
func (s *Store) Load() *Snapshot { return s.p.Load() }

// Save replaces the last snapshot.
func (s *Store) Save(snap *Snapshot) { s.p.Store(snap) }

// Batch collects the series one collector emits in one sample.
type Batch struct {
	series []Series
	err    error
}

// Add records a value of the registered metric name with its label values
// in the metric's label order. An unknown name or a wrong number of values
// is a programming error: it is kept as the batch's error, which marks the
// collector down, and the series is dropped.
//
// A NaN value is a reading that failed: it is left out (unknown stays
// absent, never zero).
func (b *Batch) Add(name string, v float64, values ...string) {
	if v != v {
		return
	}
	m, ok := Lookup(name)
	if !ok {
		b.fail(fmt.Errorf("metric %s is not in the registry (internal/agent/metrics.go)", name))
		return
	}
	if len(values) != len(m.Labels) {
		b.fail(fmt.Errorf("metric %s: %d label values for labels %v", name, len(values), m.Labels))
		return
	}
	b.series = append(b.series, Series{Metric: m, Values: values, Value: v})
}

func (b *Batch) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Series returns what was added.
func (b *Batch) Series() []Series { return b.series }

// Err returns the first registry error, if any.
func (b *Batch) Err() error { return b.err }
