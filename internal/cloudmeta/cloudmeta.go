// Package cloudmeta finds out which cloud instance gpuscout runs on: the
// provider, instance type, region and zone, read from the instance metadata
// service of AWS (IMDSv2), Azure, GCP, Alibaba Cloud and Tencent Cloud, all
// asked at once with short timeouts, so that a machine on no cloud knows it
// within a second. The identity is matched to the catalog offering
// (MatchOffering), so a benchmark report says which offering it measured.
// GPUSCOUT_CLOUD overrides the probe for users and tests.
package cloudmeta

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Identity is what a metadata service says about the instance it serves.
type Identity struct {
	// Provider is the catalog's provider id: aws, azure, gcp, alibaba, tencent.
	Provider     string `json:"provider"`
	InstanceType string `json:"instance_type"`
	// Region and Zone are spelled as the provider spells them, which is
	// how the catalog spells them (us-east-1, eastus, cn-hangzhou).
	Region string `json:"region"`
	Zone   string `json:"zone,omitempty"`
	// ZoneID is AWS's account-independent zone id (use1-az4); zone names
	// map to different zones in different AWS accounts.
	ZoneID     string `json:"zone_id,omitempty"`
	InstanceID string `json:"instance_id,omitempty"`
	// Source says where the identity came from: the metadata service's
	// base URL, or GPUSCOUT_CLOUD.
	Source string `json:"source"`
	// Raw maps each metadata path read to the value used from it (no
	// account, subscription or project ids).
	Raw map[string]string `json:"raw,omitempty"`
}

// Client asks one cloud's metadata service who this instance is.
type Client interface {
	// Name is the catalog provider id of the cloud.
	Name() string
	// Identify returns the instance's identity, or an *Error naming the
	// cloud, the request and what went wrong.
	Identify(ctx context.Context) (*Identity, error)
}

// Error is a failed metadata request.
type Error struct {
	Cloud  string // provider id
	Method string
	URL    string
	// Status is the HTTP status the service answered, 0 when none came.
	Status int
	// Absent is true when nothing answered at all (connection refused,
	// timeout, unknown host): the machine is not on that cloud.
	Absent bool
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s %s: %v", e.Cloud, e.Method, e.URL, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// DefaultTimeout bounds the whole probe of every cloud on a machine that is
// on none of them.
const DefaultTimeout = time.Second

// MinTimeout and MaxTimeout bound what a user may ask for.
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 30 * time.Second
)

// Attempt is one client's outcome in Detect.
type Attempt struct {
	Cloud string `json:"cloud"`
	// Status is "identified", "absent" (nothing answered) or "error" (a
	// service answered, but not as that cloud's does).
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Attempt statuses.
const (
	StatusIdentified = "identified"
	StatusAbsent     = "absent"
	StatusError      = "error"
	StatusSkipped    = "skipped" // an override was given; nothing was asked
)

// Result is the outcome of Detect.
type Result struct {
	// Identity is nil when no cloud identified the instance.
	Identity *Identity
	Attempts []Attempt
}

// Detect asks every client at once, each within timeout (DefaultTimeout
// when 0), and returns the first identity in client order with every
// client's outcome. It returns when all clients have answered or the
// timeout has passed, whichever is first.
func Detect(ctx context.Context, clients []Client, timeout time.Duration) Result {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		id  *Identity
		err error
	}
	answers := make([]chan answer, len(clients))
	for i, c := range clients {
		answers[i] = make(chan answer, 1)
		go func() {
			id, err := c.Identify(ctx)
			answers[i] <- answer{id, err}
		}()
	}
	var r Result
	for i, c := range clients {
		a := <-answers[i]
		at := Attempt{Cloud: c.Name()}
		var me *Error
		switch {
		case a.err == nil && a.id != nil:
			at.Status = StatusIdentified
			at.Detail = a.id.Provider + "/" + a.id.InstanceType + "/" + a.id.Region
			if r.Identity == nil {
				r.Identity = a.id
			}
		case a.err == nil:
			at.Status, at.Detail = StatusError, "no identity and no error"
		case errors.As(a.err, &me) && me.Absent:
			at.Status, at.Detail = StatusAbsent, a.err.Error()
		default:
			at.Status, at.Detail = StatusError, a.err.Error()
		}
		r.Attempts = append(r.Attempts, at)
	}
	return r
}

// EnvOverride names the environment variable that replaces the probe:
// provider/instance-type/region[/zone].
const EnvOverride = "GPUSCOUT_CLOUD"

// ParseOverride reads GPUSCOUT_CLOUD's value, provider/instance-type/region[/zone]
// (aws/p4d.24xlarge/us-east-1/us-east-1a). The provider is lower-cased; the
// catalog match resolves aliases (aliyun, 华东1) later.
func ParseOverride(s string) (*Identity, error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	bad := func(why string) error {
		return fmt.Errorf("%s=%q: %s; want provider/instance-type/region[/zone], e.g. aws/p4d.24xlarge/us-east-1/us-east-1a", EnvOverride, s, why)
	}
	if len(parts) < 3 || len(parts) > 4 {
		return nil, bad(fmt.Sprintf("%d parts", len(parts)))
	}
	names := []string{"provider", "instance-type", "region", "zone"}
	for i, p := range parts {
		if err := checkName(p); err != nil {
			return nil, bad(fmt.Sprintf("%s %q: %v", names[i], p, err))
		}
	}
	id := &Identity{Provider: strings.ToLower(parts[0]), InstanceType: parts[1], Region: parts[2], Source: EnvOverride,
		Raw: map[string]string{EnvOverride: strings.TrimSpace(s)}}
	if len(parts) == 4 {
		id.Zone = parts[3]
	}
	return id, nil
}

// Identify returns the override's identity when override (GPUSCOUT_CLOUD's
// value) is set, else detects it with the clients. An override that does
// not parse is an error; nothing else is.
func Identify(ctx context.Context, override string, clients []Client, timeout time.Duration) (Result, error) {
	if strings.TrimSpace(override) != "" {
		id, err := ParseOverride(override)
		if err != nil {
			return Result{}, err
		}
		r := Result{Identity: id}
		for _, c := range clients {
			r.Attempts = append(r.Attempts, Attempt{Cloud: c.Name(), Status: StatusSkipped, Detail: EnvOverride + " is set"})
		}
		return r, nil
	}
	return Detect(ctx, clients, timeout), nil
}

// checkName accepts what a user may write for a provider, instance type,
// region or zone: letters (华东1 included), digits, '.', '-', '_', at most
// 128 characters.
func checkName(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	if n := utf8.RuneCountInString(v); n > 128 {
		return fmt.Errorf("%d characters; at most 128", n)
	}
	for _, r := range v {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '_' {
			return fmt.Errorf("character %q; allowed: letters, digits, '.', '-', '_'", r)
		}
	}
	return nil
}
