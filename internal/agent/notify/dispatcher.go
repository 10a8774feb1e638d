package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Receiver kinds.
const (
	KindAlertmanager = "alertmanager"
	KindWebhook      = "webhook"
)

// Receiver is an HTTP destination of notifications.
type Receiver struct {
	// Name identifies the receiver in keys and in webhook bodies; unique.
	Name string
	// Kind is KindAlertmanager (URL is Alertmanager's base URL, the
	// alerts go to URL/api/v2/alerts) or KindWebhook (URL gets the POST).
	Kind string
	URL  string
	// Timeout bounds one request (default 10s).
	Timeout time.Duration
}

// Exec is an action that runs a command for the alerts whose action is
// exec:Name: Argv[0] with Argv[1:], never through a shell, with the alert in
// its environment (GPUSCOUT_ALERT_NAME, _STATUS, _FINGERPRINT, _STARTS_AT
// and GPUSCOUT_LABEL_<NAME> for every label, upper case, other characters
// than letters and digits as _) and as JSON on its standard input. Each
// notice runs it at most once, also across restarts.
type Exec struct {
	Name    string
	Argv    []string
	Timeout time.Duration // default 30s; the process group is killed at it
	// Resolved also runs it when an alert resolves.
	Resolved bool
}

// Options tune a Dispatcher; the zero value of each field has a default.
type Options struct {
	// Dir holds the disk queue (Dir/queue) and the delivered markers (Dir/sent).
	Dir string
	// MaxQueue bounds the queued notifications (default 1000); the oldest
	// are dropped beyond it and counted.
	MaxQueue int
	// Resend is how often a firing alert is re-sent to Alertmanager (default
	// 1m); it is posted to end 4 × Resend after each send.
	Resend time.Duration
	// MinBackoff and MaxBackoff bound the wait before a failed delivery is
	// retried, doubling from min to max (default 1s and 5m).
	MinBackoff, MaxBackoff time.Duration
	// ExternalURL is the agent's address, put in webhook bodies.
	ExternalURL string
	Client      *http.Client
	Now         func() time.Time
	Log         *slog.Logger
}

// Stats counts what a Dispatcher did since it started.
type Stats struct {
	Delivered, Failed, Dropped, ExecRuns, ExecFailures int
}

// Dispatcher queues and delivers notifications. Its methods are safe for
// concurrent use.
type Dispatcher struct {
	receivers []Receiver
	execs     []Exec
	o         Options
	q         *queue

	round      sync.Mutex // one delivery round at a time: never two posts of one notice
	mu         sync.Mutex
	retry      map[string]retryState // by key: attempts and next try
	keepalive  map[string]time.Time  // by receiver and fingerprint: last keep-alive
	stats      Stats
	seq        int64 // the last queued item's Seq
	known      map[string]struct{}
	pending    int       // queued after the last round (-1: not looked yet)
	enqueued   bool      // queued since the last round
	nextDue    time.Time // the earliest retry of what is pending
	keepalives []keepalive
	wake       chan struct{}
	execWG     sync.WaitGroup
	execSem    chan struct{}
}

type retryState struct {
	attempts int
	next     time.Time
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`) })

// New checks the receivers and exec actions and opens the queue in o.Dir.
func New(receivers []Receiver, execs []Exec, o Options) (*Dispatcher, error) {
	if o.Dir == "" {
		return nil, errors.New("notify: a queue directory is required")
	}
	names := map[string]bool{}
	for i, r := range receivers {
		if !namePattern().MatchString(r.Name) || names[r.Name] {
			return nil, fmt.Errorf("notify receiver %d: name %q: want a unique name of letters, digits, _ . -", i, r.Name)
		}
		names[r.Name] = true
		if r.Kind != KindAlertmanager && r.Kind != KindWebhook {
			return nil, fmt.Errorf("notify receiver %s: kind %q: want %s or %s", r.Name, r.Kind, KindAlertmanager, KindWebhook)
		}
		if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("notify receiver %s: url %q: want http://host:port/... or https://...", r.Name, r.URL)
		}
		if receivers[i].Timeout <= 0 {
			receivers[i].Timeout = 10 * time.Second
		}
	}
	for i, x := range execs {
		if !namePattern().MatchString(x.Name) || names[x.Name] {
			return nil, fmt.Errorf("notify exec %d: name %q: want a unique name of letters, digits, _ . -", i, x.Name)
		}
		names[x.Name] = true
		if len(x.Argv) == 0 || x.Argv[0] == "" {
			return nil, fmt.Errorf("notify exec %s: argv is empty; want the command and its arguments, such as [/usr/local/bin/scale-out, --by, \"1\"]", x.Name)
		}
		if x.Timeout <= 0 {
			execs[i].Timeout = 30 * time.Second
		}
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = 1000
	}
	if o.Resend <= 0 {
		o.Resend = time.Minute
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(5*time.Minute, o.MinBackoff)
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	q, err := openQueue(o.Dir, o.MaxQueue, 10*o.MaxQueue)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{
		receivers: append([]Receiver(nil), receivers...), execs: append([]Exec(nil), execs...), o: o, q: q,
		retry: map[string]retryState{}, keepalive: map[string]time.Time{}, execSem: make(chan struct{}, 4),
		known: map[string]struct{}{}, wake: make(chan struct{}, 1), pending: -1,
	}
	items, err := q.list()
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		d.seq = max(d.seq, it.Seq)
	}
	return d, nil
}

// Send is Enqueue and then one delivery round (keep-alives and Retry),
// synchronously: for tests and simple loops. The error is the first
// failure; what failed stays queued.
func (d *Dispatcher) Send(ctx context.Context, alerts []Alert) error {
	err := d.Enqueue(ctx, alerts)
	return errors.Join(err, d.deliver(ctx))
}

// Enqueue takes one evaluation's alerts (firing ones and those just
// resolved) without waiting on the network: it writes every new notice for
// every receiver to the disk queue, starts the exec actions of new notices
// in the background, notes the firing alerts due for an Alertmanager
// keep-alive, and wakes Run. It is what the agent's loop calls each tick.
func (d *Dispatcher) Enqueue(ctx context.Context, alerts []Alert) error {
	now := d.o.Now()
	var errs []error
	for _, a := range alerts {
		execName, isExec := a.execName()
		for _, r := range d.receivers {
			if isExec {
				break
			}
			key := a.key(r.Name)
			if !d.remembered(key) {
				d.mu.Lock()
				d.seq = max(d.seq+1, now.UnixNano())
				it := item{Key: key, Receiver: r.Name, Created: now, Seq: d.seq, Alert: a}
				d.mu.Unlock()
				added, dropped, err := d.q.add(it)
				d.count(func(s *Stats) { s.Dropped += dropped })
				if dropped > 0 {
					d.o.Log.Warn("notify queue full: dropped the oldest notifications", "dropped", dropped, "max", d.o.MaxQueue)
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				d.remember(key)
				if added {
					d.mu.Lock()
					d.enqueued = true
					if a.Status() == StatusResolved {
						delete(d.keepalive, r.Name+"/"+a.Fingerprint())
					}
					d.mu.Unlock()
					continue
				}
			}
			if r.Kind == KindAlertmanager && a.Status() == StatusFiring && d.keepaliveDue(r.Name, a, now) {
				// A keep-alive, not queued: the queued notice carries the alert.
				d.mu.Lock()
				d.keepalives = append(d.keepalives, keepalive{r, a})
				d.mu.Unlock()
			}
		}
		for _, x := range d.execs {
			if !isExec || x.Name != execName || a.Status() == StatusResolved && !x.Resolved {
				continue
			}
			key := a.key(x.Name)
			if d.remembered(key) || d.q.known(key) {
				d.remember(key)
				continue
			}
			// Marked before it runs: an action runs at most once per notice.
			if err := d.q.markSent(key); err != nil {
				errs = append(errs, err)
				continue
			}
			d.remember(key)
			d.startExec(ctx, x, a)
		}
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
	return errors.Join(errs...)
}

// Run delivers in the background until ctx ends: at every Enqueue and at
// least every MinBackoff, it posts the due keep-alives and retries the queue.
func (d *Dispatcher) Run(ctx context.Context) {
	t := time.NewTicker(d.o.MinBackoff)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-t.C:
		}
		if err := d.deliver(ctx); err != nil {
			d.o.Log.Info("notify: delivery incomplete; will retry", "err", err)
		}
	}
}

// Deliver is one delivery round when there is something to do: due
// keep-alives, or queued notifications whose backoff has passed. With
// nothing queued it costs no file system call, so a loop may call it every
// tick.
func (d *Dispatcher) Deliver(ctx context.Context) error {
	d.mu.Lock()
	idle := len(d.keepalives) == 0 && !d.enqueued && (d.pending == 0 || d.pending > 0 && d.o.Now().Before(d.nextDue))
	d.mu.Unlock()
	if idle {
		return nil
	}
	return d.deliver(ctx)
}

// deliver posts the due keep-alives (best effort) and retries the queue.
func (d *Dispatcher) deliver(ctx context.Context) error {
	d.mu.Lock()
	ka := d.keepalives
	d.keepalives = nil
	d.mu.Unlock()
	for _, k := range ka {
		if err := d.post(ctx, k.r, k.a, d.o.Now()); err != nil {
			d.o.Log.Info("alertmanager keep-alive failed", "receiver", k.r.Name, "err", err)
		}
	}
	return d.Retry(ctx)
}

type keepalive struct {
	r Receiver
	a Alert
}

// remembered and remember keep the keys known to be queued or delivered in
// memory, so that a firing alert seen every tick costs no file system call.
func (d *Dispatcher) remembered(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.known[key]
	return ok
}

func (d *Dispatcher) remember(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.known) >= 4*d.o.MaxQueue {
		clear(d.known) // bounded: the disk still knows
	}
	d.known[key] = struct{}{}
}

func (d *Dispatcher) keepaliveDue(receiver string, a Alert, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := receiver + "/" + a.Fingerprint()
	if last, ok := d.keepalive[k]; ok && now.Sub(last) < d.o.Resend {
		return false
	}
	d.keepalive[k] = now
	return true
}

// Retry delivers the queued notifications whose backoff has passed, oldest
// first; after a receiver fails, its later notifications wait (order is
// kept). A 2xx removes a notification; a 4xx other than 408 and 429 drops it
// as undeliverable (logged and counted); anything else is retried with
// backoff.
func (d *Dispatcher) Retry(ctx context.Context) error {
	d.round.Lock()
	defer d.round.Unlock()
	d.mu.Lock()
	d.enqueued = false
	d.mu.Unlock()
	items, err := d.q.list()
	if err != nil {
		return err
	}
	left := len(items)
	var nextDue time.Time
	due := func(t time.Time) {
		if nextDue.IsZero() || t.Before(nextDue) {
			nextDue = t
		}
	}
	defer func() {
		d.mu.Lock()
		d.pending, d.nextDue = left, nextDue
		d.mu.Unlock()
	}()
	now := d.o.Now()
	blocked := map[string]bool{}
	var errs []error
	for _, it := range items {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r, ok := d.receiver(it.Receiver)
		if !ok {
			d.o.Log.Warn("notify: dropping a notification for a receiver no longer configured", "receiver", it.Receiver, "key", it.Key)
			if d.q.done(it) == nil {
				left--
			}
			continue
		}
		if blocked[r.Name] {
			continue
		}
		d.mu.Lock()
		st := d.retry[it.Key]
		d.mu.Unlock()
		if now.Before(st.next) {
			blocked[r.Name] = true
			due(st.next)
			continue
		}
		err := d.post(ctx, r, it.Alert, now)
		var perm *permanentError
		switch {
		case err == nil || errors.As(err, &perm):
			if err != nil {
				d.o.Log.Error("notify: receiver refused a notification; dropped", "receiver", r.Name, "key", it.Key, "err", err)
				d.count(func(s *Stats) { s.Failed++ })
			} else {
				d.count(func(s *Stats) { s.Delivered++ })
			}
			if derr := d.q.done(it); derr != nil {
				errs = append(errs, derr)
			} else {
				left--
			}
			d.mu.Lock()
			delete(d.retry, it.Key)
			if err == nil && it.Alert.Status() == StatusFiring {
				d.keepalive[r.Name+"/"+it.Alert.Fingerprint()] = now
			}
			d.mu.Unlock()
		default:
			blocked[r.Name] = true
			st.attempts++
			st.next = now.Add(d.backoff(st.attempts))
			due(st.next)
			d.mu.Lock()
			d.retry[it.Key] = st
			d.mu.Unlock()
			errs = append(errs, fmt.Errorf("notify %s: %v (attempt %d, next in %s)", r.Name, err, st.attempts, st.next.Sub(now)))
		}
	}
	return errors.Join(errs...)
}

func (d *Dispatcher) backoff(attempts int) time.Duration {
	b := d.o.MinBackoff
	for i := 1; i < attempts && b < d.o.MaxBackoff; i++ {
		b *= 2
	}
	return min(b, d.o.MaxBackoff)
}

func (d *Dispatcher) receiver(name string) (Receiver, bool) {
	for _, r := range d.receivers {
		if r.Name == name {
			return r, true
		}
	}
	return Receiver{}, false
}

type permanentError struct{ error }

// post sends one notice of a to r.
func (d *Dispatcher) post(ctx context.Context, r Receiver, a Alert, now time.Time) error {
	var body []byte
	var err error
	target := r.URL
	if r.Kind == KindAlertmanager {
		body, err = alertmanagerBody(a, now, 4*d.o.Resend)
		target = strings.TrimSuffix(r.URL, "/") + "/api/v2/alerts"
	} else {
		body, err = webhookBody(a, r.Name, d.o.ExternalURL)
	}
	if err != nil {
		return &permanentError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return &permanentError{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "gpuscout-agent")
	req.Header.Set("Idempotency-Key", a.key(r.Name))
	resp, err := d.o.Client.Do(req)
	if err != nil {
		return err
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c >= 400 && c < 500 && c != http.StatusRequestTimeout && c != http.StatusTooManyRequests:
		return &permanentError{fmt.Errorf("%s answered %s: %s", target, resp.Status, strings.TrimSpace(string(msg)))}
	default:
		return fmt.Errorf("%s answered %s", target, resp.Status)
	}
}

// Queued is the number of notifications waiting in the queue.
func (d *Dispatcher) Queued() int {
	items, _ := d.q.list()
	return len(items)
}

// Stats returns the counts so far.
func (d *Dispatcher) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

func (d *Dispatcher) count(f func(*Stats)) {
	d.mu.Lock()
	f(&d.stats)
	d.mu.Unlock()
}

// Wait waits for the exec actions started so far.
func (d *Dispatcher) Wait() { d.execWG.Wait() }
