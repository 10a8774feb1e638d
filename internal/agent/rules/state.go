package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/google/renameio/v2"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
)

// savedAlert is one firing alert in the state file.
type savedAlert struct {
	Rule        string            `json:"rule"`
	Labels      map[string]string `json:"labels"`
	StartsAt    time.Time         `json:"startsAt"`
	Value       float64           `json:"value"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Action      string            `json:"action,omitempty"`
}

// Persist keeps the engine's firing alerts in the file at path (rewritten
// atomically when they change) and restores those it holds, so that an
// agent restart neither fires an alert again with a new start (which
// would notify twice) nor forgets to resolve it. A restored alert goes on
// firing with its first start while its condition holds at the first
// evaluation, and resolves otherwise; one whose rule is gone resolves at
// the first evaluation. Call it before the first Eval.
func (e *Engine) Persist(path string) error {
	e.statePath = path
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("rules state: %v", err)
	}
	var saved []savedAlert
	if err := json.Unmarshal(b, &saved); err != nil {
		// A damaged state file is not a reason not to run: start afresh.
		e.stateErr = fmt.Errorf("rules state %s: %v; starting without it", path, err)
		return nil
	}
	index := map[string]int{}
	for i, r := range e.rules {
		index[r.Name] = i
	}
	for _, s := range saved {
		if s.Labels == nil || s.StartsAt.IsZero() {
			continue
		}
		ri, ok := index[s.Rule]
		if !ok {
			e.orphans = append(e.orphans, notify.Alert{Labels: s.Labels, Annotations: s.Annotations, StartsAt: s.StartsAt, GeneratorURL: e.GeneratorURL, Action: s.Action})
			continue
		}
		e.alerts[fmt.Sprintf("%d\x00%s", ri, labelKey(s.Labels))] = &active{rule: ri, labels: s.Labels, since: s.StartsAt, firingAt: s.StartsAt, value: s.Value}
	}
	e.lastSaved = e.stateSignature()
	return nil
}

// StateError is the last failure to read or write the state file, if any.
func (e *Engine) StateError() error { return e.stateErr }

func (e *Engine) stateSignature() string {
	var keys []string
	for k, a := range e.alerts {
		if !a.firingAt.IsZero() {
			keys = append(keys, k+"\x00"+a.firingAt.UTC().Format(time.RFC3339Nano))
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

// saveState writes the firing alerts when they changed since the last write.
func (e *Engine) saveState(out []notify.Alert) {
	if e.statePath == "" {
		return
	}
	sig := e.stateSignature()
	if sig == e.lastSaved {
		return
	}
	saved := []savedAlert{}
	for _, a := range out {
		if a.Status() != notify.StatusFiring {
			continue
		}
		v := 0.0
		for _, x := range e.alerts {
			if x.firingAt.Equal(a.StartsAt) && labelKey(x.labels) == labelKey(a.Labels) {
				v = x.value
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		saved = append(saved, savedAlert{Rule: a.Name(), Labels: a.Labels, StartsAt: a.StartsAt, Value: v, Annotations: a.Annotations, Action: a.Action})
	}
	b, err := json.Marshal(saved)
	if err == nil {
		err = renameio.WriteFile(e.statePath, b, 0o600) // synced temporary file, then a rename
	}
	if err != nil {
		e.stateErr = fmt.Errorf("rules state: %v", err)
		return
	}
	e.stateErr = nil
	e.lastSaved = sig
}
