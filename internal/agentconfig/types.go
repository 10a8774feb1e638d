package agentconfig

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Duration is a time.Duration written as Go writes durations (90s, 5m, 1h30m).
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String writes d without zero tails: 5m, not 5m0s.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalYAML writes d as a string such as 5m.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a Go duration such as 30s, 5m or 1h30m.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("want a duration such as 30s, 5m or 1h30m, not a list or mapping")
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		return fmt.Errorf("value %q is not a duration; want a number with a unit (ms, s, m, h) such as 30s, 5m or 1h30m", n.Value)
	}
	if v < 0 {
		return fmt.Errorf("value %q is negative; want a duration of 0 or more", n.Value)
	}
	*d = Duration(v)
	return nil
}

// checkDuration bounds d to [min, max].
func checkDuration(field string, d Duration, min, max time.Duration) error {
	if d.D() < min || d.D() > max {
		return fieldErr(field, "value %s is outside the allowed range %s to %s", d, Duration(min), Duration(max))
	}
	return nil
}

// Amount is a money amount in the config's currency, kept as a decimal and
// written as a YAML number.
type Amount struct{ decimal.Decimal }

// PriceOf returns d as a price field, or nil where it is unknown (unknown is
// never zero).
func PriceOf(d decimal.NullDecimal) *Amount {
	if !d.Valid {
		return nil
	}
	return &Amount{d.Decimal}
}

// MarshalYAML writes a as a plain YAML number.
func (a Amount) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: a.String()}, nil
}

// UnmarshalYAML reads a decimal number.
func (a *Amount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("want a number such as 12.5, not a list or mapping")
	}
	d, err := money.ParseDecimal(n.Value)
	if err != nil {
		return fmt.Errorf("value %q is not a number; want an amount such as 12.5", n.Value)
	}
	a.Decimal = d
	return nil
}

// checkURL wants an absolute http or https URL.
func checkURL(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fieldErr(field, "value %q is not a URL; want http://host:port/... or https://...", s)
	}
	return nil
}
