// Package agentsummary is the schema of an agent's hourly summary: the
// document `gpuscout agent --upload` sends the server each hour (kind
// agent) with the hour's GPU utilisation, egress and spend. The agent
// writes Summary, the server validates an upload with Read and the
// dashboard's agents page reads it with Unmarshal: one declaration.
// Reading is strict (jsonfields: one JSON value, each key once, no field
// the schema does not have, numbers bounded); Validate checks each field's
// range.
package agentsummary

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/jsonfields"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SchemaVersion is the version of the summary this package writes and
// reads; Kind is its kind field.
const (
	SchemaVersion = 1
	Kind          = "agent_hourly"
)

// Summary is one hour of one node. Times are RFC 3339 in UTC; HourEnd is
// the hour's end, or the last sample's time of a partial hour (the agent
// stopped before it ended).
type Summary struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"` // "agent_hourly"
	CreatedAt     string `json:"created_at"`
	HourStart     string `json:"hour_start"`
	HourEnd       string `json:"hour_end"`
	Partial       bool   `json:"partial,omitempty"` // the agent stopped before the hour ended
	Host          string `json:"host"`
	Provider      string `json:"provider,omitempty"`
	InstanceType  string `json:"instance_type,omitempty"`
	Region        string `json:"region,omitempty"`
	GPU           string `json:"gpu,omitempty"`
	Samples       int    `json:"samples"`
	// GPU utilisation: the mean over samples and GPUs, and the largest
	// reading, each a ratio from 0 to 1; null when no GPU reported one.
	GPUUtilizationMean *float64 `json:"gpu_utilization_mean"`
	GPUUtilizationMax  *float64 `json:"gpu_utilization_max"`
	// EgressBytes are the bytes sent on the node's interfaces (not lo)
	// during the hour.
	EgressBytes float64 `json:"egress_bytes"`
	// Spend is the cost meter's spend during the hour; null without a price.
	Spend    *json.Number `json:"spend"`
	Currency string       `json:"currency,omitempty"`
}

// Limits bound a summary as it is read: 64 KiB (one is about 500 bytes),
// numbers up to 1e15 in magnitude.
var Limits = jsonfields.Limits{MaxBytes: 64 << 10, MaxNumber: 1e15}

// Bounds of a summary's fields.
const (
	MaxSamples = 3600 * 1000 // samples in an hour: a thousand a second
	// MaxEgressBytes is an hour at 10 Tbit/s.
	MaxEgressBytes = 10e12 / 8 * 3600
	// MaxTextLen bounds each name (host, provider, instance type, region, GPU).
	MaxTextLen = 256
)

// Unmarshal reads a summary strictly; its ranges are Validate's.
func Unmarshal(b []byte) (*Summary, error) {
	var s Summary
	if err := jsonfields.Unmarshal(b, &s, Limits); err != nil {
		return nil, fmt.Errorf("not an agent summary ('gpuscout agent --upload'): %w", err)
	}
	return &s, nil
}

// Read is Unmarshal and Validate: what the server accepts as a summary.
func Read(b []byte) (*Summary, error) {
	s, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks every field against its range; errors name the field,
// the value and what is allowed.
func (s *Summary) Validate() error {
	if s.SchemaVersion != SchemaVersion {
		return fmt.Errorf("field schema_version = %d: this gpuscout reads version %d", s.SchemaVersion, SchemaVersion)
	}
	if s.Kind != Kind {
		return fmt.Errorf("field kind = %q: want %q", s.Kind, Kind)
	}
	start, err := parseTime("hour_start", s.HourStart, true)
	if err != nil {
		return err
	}
	end, err := parseTime("hour_end", s.HourEnd, true)
	if err != nil {
		return err
	}
	if end.Before(start) || end.Sub(start) > time.Hour {
		return fmt.Errorf("fields hour_start %s and hour_end %s: want an end from the start to an hour after it", s.HourStart, s.HourEnd)
	}
	if _, err := parseTime("created_at", s.CreatedAt, false); err != nil {
		return err
	}
	for _, f := range []struct{ field, v string }{{"host", s.Host}, {"provider", s.Provider}, {"instance_type", s.InstanceType}, {"region", s.Region}, {"gpu", s.GPU}} {
		if len(f.v) > MaxTextLen {
			return fmt.Errorf("field %s is %d bytes long; want at most %d", f.field, len(f.v), MaxTextLen)
		}
	}
	if s.Samples < 0 || s.Samples > MaxSamples {
		return fmt.Errorf("field samples = %d is outside the allowed range: want 0 to %d", s.Samples, MaxSamples)
	}
	for _, u := range []struct {
		field string
		v     *float64
	}{{"gpu_utilization_mean", s.GPUUtilizationMean}, {"gpu_utilization_max", s.GPUUtilizationMax}} {
		if u.v != nil && !(*u.v >= 0 && *u.v <= 1) {
			return fmt.Errorf("field %s = %g is outside the allowed range: want a ratio from 0 to 1", u.field, *u.v)
		}
	}
	if !(s.EgressBytes >= 0 && s.EgressBytes <= MaxEgressBytes) || math.IsInf(s.EgressBytes, 0) {
		return fmt.Errorf("field egress_bytes = %g is outside the allowed range: want 0 to %g (an hour at 10 Tbit/s)", s.EgressBytes, float64(MaxEgressBytes))
	}
	if s.Spend != nil {
		d, err := money.ParseDecimal(s.Spend.String())
		if err != nil || d.IsNegative() || d.GreaterThan(money.MaxAmount) {
			return fmt.Errorf("field spend = %s is outside the allowed range: want an amount from 0 to %s", s.Spend, money.MaxAmount)
		}
		if _, err := money.ParseCurrency(s.Currency); err != nil {
			return fmt.Errorf("field currency (of the spend): %v", err)
		}
	}
	return nil
}

// parseTime reads an RFC 3339 time; "" is an error only when required.
func parseTime(field, v string, required bool) (time.Time, error) {
	if v == "" {
		if required {
			return time.Time{}, fmt.Errorf("field %s is missing: want an RFC 3339 time such as 2026-12-01T10:00:00Z", field)
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("field %s = %q: want an RFC 3339 time such as 2026-12-01T10:00:00Z", field, v)
	}
	return t, nil
}

// Start, End and Created are the summary's times; zero when absent or
// unreadable (Validate refuses those).
func (s *Summary) Start() time.Time   { t, _ := parseTime("", s.HourStart, false); return t }
func (s *Summary) End() time.Time     { t, _ := parseTime("", s.HourEnd, false); return t }
func (s *Summary) Created() time.Time { t, _ := parseTime("", s.CreatedAt, false); return t }

// SpendDecimal is the spend as a decimal; false when there is none (no
// price) or it is not one Validate accepts.
func (s *Summary) SpendDecimal() (decimal.Decimal, bool) {
	if s.Spend == nil {
		return decimal.Decimal{}, false
	}
	d, err := money.ParseDecimal(s.Spend.String())
	if err != nil || d.IsNegative() || d.GreaterThan(money.MaxAmount) {
		return decimal.Decimal{}, false
	}
	return d, true
}
