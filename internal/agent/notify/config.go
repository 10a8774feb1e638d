package notify

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// FromConfig is the receivers and exec actions of the config's notify
// section: notify.alertmanager[i] becomes receiver alertmanager-<i+1>,
// notify.webhooks[i] webhook-<i+1> (names in the queue's keys: reordering
// the lists re-sends what is queued), notify.exec the exec actions. The
// queue goes in notify.queue_dir.
func FromConfig(n agentconfig.Notify) ([]Receiver, []Exec, Options) {
	var rs []Receiver
	for i, u := range n.Alertmanager {
		rs = append(rs, Receiver{Name: fmt.Sprintf("alertmanager-%d", i+1), Kind: KindAlertmanager, URL: u})
	}
	for i, u := range n.Webhooks {
		rs = append(rs, Receiver{Name: fmt.Sprintf("webhook-%d", i+1), Kind: KindWebhook, URL: u})
	}
	var xs []Exec
	for _, x := range n.Exec {
		xs = append(xs, Exec{Name: x.Name, Argv: append([]string(nil), x.Argv...), Timeout: x.Timeout.D()})
	}
	return rs, xs, Options{Dir: n.QueueDir}
}
