package notify

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// postableAlert is one element of the body of Alertmanager's
// POST /api/v2/alerts (api/v2/openapi.yaml postableAlert).
type postableAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// alertmanagerBody is the body posted to Alertmanager for a. A firing alert
// ends at sentAt + ttl, so Alertmanager resolves it by itself if the agent
// stops re-sending it; a resolved one ends at its (past) EndsAt.
func alertmanagerBody(a Alert, sentAt time.Time, ttl time.Duration) ([]byte, error) {
	p := postableAlert{Labels: a.Labels, Annotations: a.Annotations, StartsAt: a.StartsAt, EndsAt: a.EndsAt, GeneratorURL: a.GeneratorURL}
	if a.EndsAt.IsZero() {
		p.EndsAt = sentAt.Add(ttl)
	}
	return json.Marshal([]postableAlert{p})
}

// webhookMessage is Alertmanager's webhook payload, version 4
// (notify/webhook/webhook.go Message, template.Data).
type webhookMessage struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Alerts            []webhookAlert    `json:"alerts"`
}

type webhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"` // zero (0001-01-01T00:00:00Z) while firing
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

// webhookBody is one notice of a, a group of one alert grouped by
// alertname: the group key names the group and the alert's fingerprint.
func webhookBody(a Alert, receiver, externalURL string) ([]byte, error) {
	ann := a.Annotations
	if ann == nil {
		ann = map[string]string{}
	}
	m := webhookMessage{
		Version:           "4",
		GroupKey:          fmt.Sprintf("{}:{alertname=%q}/%s", a.Name(), a.Fingerprint()),
		Status:            a.Status(),
		Receiver:          receiver,
		GroupLabels:       map[string]string{"alertname": a.Name()},
		CommonLabels:      a.Labels,
		CommonAnnotations: ann,
		ExternalURL:       externalURL,
		Alerts: []webhookAlert{{
			Status: a.Status(), Labels: a.Labels, Annotations: ann, StartsAt: a.StartsAt, EndsAt: a.EndsAt,
			GeneratorURL: a.GeneratorURL, Fingerprint: a.Fingerprint(),
		}},
	}
	return json.Marshal(m)
}

// execEnv is the environment an exec action gets for a: the alert's name,
// status, fingerprint and start, and every label as GPUSCOUT_LABEL_<NAME>
// (upper case; characters other than letters and digits become _).
func execEnv(a Alert) []string {
	env := []string{
		"GPUSCOUT_ALERT_NAME=" + a.Name(),
		"GPUSCOUT_ALERT_STATUS=" + a.Status(),
		"GPUSCOUT_ALERT_FINGERPRINT=" + a.Fingerprint(),
		"GPUSCOUT_ALERT_STARTS_AT=" + a.StartsAt.UTC().Format(time.RFC3339),
	}
	names := make([]string, 0, len(a.Labels))
	for n := range a.Labels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env = append(env, "GPUSCOUT_LABEL_"+envName(n)+"="+a.Labels[n])
	}
	return env
}

func envName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}
