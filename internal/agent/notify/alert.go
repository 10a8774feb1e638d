// Package notify delivers the agent's alerts: to Alertmanager's API v2
// (POST /api/v2/alerts), to plain webhooks in Alertmanager's webhook v4
// shape, and to exec actions (a command run with the alert's labels in its
// environment).
//
// The agent's run loop hands every evaluation's alerts to one Dispatcher:
//
//	alerts := engine.Eval(now, series)   // rules.Engine
//	err := dispatcher.Send(ctx, alerts)  // queues, delivers what it can
//
// and calls dispatcher.Retry(ctx) on its ticker to deliver what is still
// queued. A notification (one alert's firing or resolved notice for one
// receiver) is written to the disk queue, one file each and atomically,
// before it is sent, and removed only after a 2xx answer, so a receiver
// outage or an agent restart loses nothing. Every notification has an
// idempotent key (receiver, fingerprint, start time, status); a key already
// queued or delivered is not queued again, so a restart does not send twice.
// Firing alerts are re-sent to Alertmanager as keep-alives (Alertmanager
// resolves an alert it stops hearing about); webhooks and exec actions get
// one notice when an alert fires and one when it resolves.
package notify

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Alert is one alert instance: a rule's alert for one label set.
type Alert struct {
	// Labels identify the alert; they include alertname.
	Labels map[string]string `json:"labels"`
	// Annotations are descriptive text (summary, description).
	Annotations map[string]string `json:"annotations,omitempty"`
	// StartsAt is when the alert started firing.
	StartsAt time.Time `json:"startsAt"`
	// EndsAt is when it resolved; zero while it fires.
	EndsAt time.Time `json:"endsAt"`
	// GeneratorURL links to what made the alert (the agent's page).
	GeneratorURL string `json:"generatorURL,omitempty"`
	// Action routes the alert (the rule's action): "" or notify goes to
	// every receiver; exec:NAME runs the exec action NAME instead; stop goes
	// to every receiver (the run loop hands it to autostop, which stops).
	Action string `json:"action,omitempty"`
}

// Actions an alert can carry.
const (
	ActionNotify = "notify"
	ActionStop   = "stop"
	ActionExec   = "exec:"
)

// execName is the exec action a routes to, if any.
func (a Alert) execName() (string, bool) { return strings.CutPrefix(a.Action, ActionExec) }

// Status values of an alert and of a notification.
const (
	StatusFiring   = "firing"
	StatusResolved = "resolved"
)

// Status is firing while EndsAt is zero, resolved once it is set.
func (a Alert) Status() string {
	if a.EndsAt.IsZero() {
		return StatusFiring
	}
	return StatusResolved
}

// Name is the alertname label.
func (a Alert) Name() string { return a.Labels["alertname"] }

// Fingerprint identifies the label set as 16 hex digits: FNV-1a 64 over the
// sorted label names and values, each followed by the byte 0xff, the scheme
// Prometheus and Alertmanager use, so the IDs match theirs.
func (a Alert) Fingerprint() string { return Fingerprint(a.Labels) }

// Fingerprint is Alert.Fingerprint of a label set.
func Fingerprint(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	h := fnv.New64a()
	sep := []byte{0xff}
	for _, n := range names {
		h.Write([]byte(n))
		h.Write(sep)
		h.Write([]byte(labels[n]))
		h.Write(sep)
	}
	s := strconv.FormatUint(h.Sum64(), 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// key is the idempotent key of one notice of a to receiver.
func (a Alert) key(receiver string) string {
	return receiver + "-" + a.Fingerprint() + "-" + strconv.FormatInt(a.StartsAt.UnixNano(), 10) + "-" + a.Status()
}
