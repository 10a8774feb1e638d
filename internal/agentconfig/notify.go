package agentconfig

import (
	"fmt"
	"path/filepath"
	"time"
)

// Notify says where alerts go.
type Notify struct {
	// Alertmanager lists Alertmanager base URLs (http://host:9093); alerts
	// are posted to each one's /api/v2/alerts.
	Alertmanager []string `yaml:"alertmanager,omitempty"`
	// Webhooks lists URLs that receive Alertmanager's webhook (version 4) JSON.
	Webhooks []string `yaml:"webhooks,omitempty"`
	// Exec lists commands rules can run with action exec:NAME.
	Exec []ExecAction `yaml:"exec,omitempty"`
	// QueueDir keeps alerts not yet delivered, across restarts (default
	// <agent.state_dir>/queue).
	QueueDir string `yaml:"queue_dir,omitempty"`
}

// ExecAction is a command run when a rule with action exec:Name fires. Argv
// runs without a shell: no label value is ever interpolated into it; the
// alert reaches the command as JSON on its standard input and in
// GPUSCOUT_ALERT_* environment variables.
type ExecAction struct {
	Name    string   `yaml:"name"`
	Argv    []string `yaml:"argv"`
	Timeout Duration `yaml:"timeout,omitempty"` // default 1m, 1s to 1h; killed at the timeout
}

// Bounds of the notify section.
const (
	MaxTargets         = 16
	DefaultExecTimeout = time.Minute
	MaxExecTimeout     = time.Hour
)

func (n *Notify) applyDefaults(stateDir string) {
	if n.QueueDir == "" {
		n.QueueDir = filepath.Join(stateDir, "queue")
	}
	for i := range n.Exec {
		if n.Exec[i].Timeout == 0 {
			n.Exec[i].Timeout = Duration(DefaultExecTimeout)
		}
	}
}

func (n *Notify) validate() error {
	for _, l := range []struct {
		field string
		urls  []string
	}{{"notify.alertmanager", n.Alertmanager}, {"notify.webhooks", n.Webhooks}} {
		if len(l.urls) > MaxTargets {
			return fieldErr(l.field, "%d URLs; at most %d", len(l.urls), MaxTargets)
		}
		for i, u := range l.urls {
			if err := checkURL(fmt.Sprintf("%s[%d]", l.field, i), u); err != nil {
				return err
			}
		}
	}
	if len(n.Exec) > MaxTargets {
		return fieldErr("notify.exec", "%d actions; at most %d", len(n.Exec), MaxTargets)
	}
	seen := map[string]bool{}
	for i, e := range n.Exec {
		f := func(name string) string { return fmt.Sprintf("notify.exec[%d].%s", i, name) }
		if !nameRE().MatchString(e.Name) {
			return fieldErr(f("name"), "value %q: want a name of letters, digits and _, such as scale_out", e.Name)
		}
		if seen[e.Name] {
			return fieldErr(f("name"), "value %q is the name of an earlier action; names are unique", e.Name)
		}
		seen[e.Name] = true
		if len(e.Argv) == 0 || e.Argv[0] == "" {
			return fieldErr(f("argv"), "missing; want the command and its arguments as a list, such as [/usr/local/bin/scale-out, --by, \"1\"]")
		}
		if err := checkDuration(f("timeout"), e.Timeout, time.Second, MaxExecTimeout); err != nil {
			return err
		}
	}
	if n.QueueDir == "" {
		return fieldErr("notify.queue_dir", "is empty; want a directory")
	}
	return nil
}
