// Package spot simulates running a job on spot capacity: interruption models
// (a monthly band or hazard, a two-state up/down model fitted from a trace,
// or replay of a real availability trace), checkpoint/restart, and policies
// from spot-only to deadline-aware ones (Greedy with a safety net, Uniform
// Progress, after Can't Be Late, NSDI '24). It is event-driven: time jumps
// from one availability change or decision point to the next.
package spot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/gpuscout/gpuscout/internal/jsonfields"
)

// Trace is an availability trace in the Can't Be Late format:
// {"metadata": {"gap_seconds": G}, "data": [n, ...], "prices": [p, ...]}
// where data[i] is the number of spot instances available at tick i and
// prices (optional) the spot price per hour at tick i.
type Trace struct {
	Name       string
	GapSeconds float64
	Data       []int
	Prices     []float64
}

// The range of a trace's tick: a second to a day (a gap of 1e300 s printed
// 300-digit hours).
const (
	MinTraceGapSeconds = 1
	MaxTraceGapSeconds = 86400
)

// MaxUp is the most instances the trace has up at any tick.
func (t *Trace) MaxUp() int {
	m := 0
	for _, n := range t.Data {
		m = max(m, n)
	}
	return m
}

// traceShape is the expected file shape, for error messages.
const traceShape = `{"metadata": {"gap_seconds": G}, "data": [n, ...], "prices": [p, ...] (optional)}`

// ParseTrace reads and checks a trace. Errors say what the file holds where
// it differs from the expected shape, never a Go type.
func ParseTrace(r io.Reader) (*Trace, error) {
	br := bufio.NewReader(r)
	if err := expectObject(br); err != nil {
		return nil, err
	}
	// Read whole (at most 256 MiB), decoded for decodeError's words, then
	// checked strictly (jsonfields): one JSON value and nothing after it,
	// each key once, numbers bounded.
	lim := jsonfields.Limits{MaxBytes: 256 << 20}
	b, err := jsonfields.Read(br, lim)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var raw struct {
		Metadata *struct {
			GapSeconds *float64 `json:"gap_seconds"`
		} `json:"metadata"`
		Data   []int     `json:"data"`
		Prices []float64 `json:"prices"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(err)
	}
	if err := jsonfields.Check(b, &raw, lim); err != nil {
		return nil, fmt.Errorf("trace: %v; want the Can't Be Late format %s", err, traceShape)
	}
	switch {
	case raw.Metadata == nil || raw.Metadata.GapSeconds == nil:
		return nil, fmt.Errorf("trace: metadata.gap_seconds is missing")
	case !(*raw.Metadata.GapSeconds >= MinTraceGapSeconds && *raw.Metadata.GapSeconds <= MaxTraceGapSeconds):
		return nil, fmt.Errorf("trace: metadata.gap_seconds %v: want %g to %g seconds between ticks (the published traces tick every 30 to 600 s)",
			*raw.Metadata.GapSeconds, float64(MinTraceGapSeconds), float64(MaxTraceGapSeconds))
	case len(raw.Data) == 0:
		return nil, fmt.Errorf("trace: data is empty; want one count of available instances per tick")
	case raw.Prices != nil && len(raw.Prices) != len(raw.Data):
		return nil, fmt.Errorf("trace: %d prices for %d ticks; want one per tick", len(raw.Prices), len(raw.Data))
	}
	for i, n := range raw.Data {
		if n < 0 {
			return nil, fmt.Errorf("trace: data[%d] = %d is negative; want the number of available instances", i, n)
		}
	}
	for i, p := range raw.Prices {
		if !(p >= 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("trace: prices[%d] = %v; want a price per hour >= 0", i, p)
		}
	}
	return &Trace{GapSeconds: *raw.Metadata.GapSeconds, Data: raw.Data, Prices: raw.Prices}, nil
}

// expectObject checks that the input starts with a JSON object.
func expectObject(br *bufio.Reader) error {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("trace: the file is empty; want the Can't Be Late JSON format %s", traceShape)
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return br.UnreadByte()
		case '[':
			return fmt.Errorf("trace: the file holds a JSON array; want an object in the Can't Be Late format %s", traceShape)
		}
		return fmt.Errorf("trace: the file does not start with a JSON object; want the Can't Be Late format %s", traceShape)
	}
}

// decodeError words a JSON decoding error by the field and what it should hold.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		want := map[string]string{
			"metadata":             `an object {"gap_seconds": G}`,
			"metadata.gap_seconds": "a number of seconds between ticks",
			"data":                 "an array of whole numbers of available instances, one per tick",
			"prices":               "an array of spot prices per hour, one per tick",
		}[te.Field]
		if want == "" {
			want = "the Can't Be Late format " + traceShape
		}
		field := te.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Errorf("trace: %s holds a JSON %s at byte %d; want %s", field, te.Value, te.Offset, want)
	case errors.As(err, &se):
		return fmt.Errorf("trace: not valid JSON at byte %d (%v); want the Can't Be Late format %s", se.Offset, se, traceShape)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("trace: the JSON ends early; want the Can't Be Late format %s", traceShape)
	}
	// Unknown fields ("json: unknown field ...") name the field, no type.
	return fmt.Errorf("trace: %s; want the Can't Be Late format %s", strings.TrimPrefix(err.Error(), "json: "), traceShape)
}

// LoadTrace reads a trace file.
func LoadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ParseTrace(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Name = path
	return t, nil
}

// WriteJSON writes the trace in its file format.
func (t *Trace) WriteJSON(w io.Writer) error {
	out := struct {
		Metadata struct {
			GapSeconds float64 `json:"gap_seconds"`
		} `json:"metadata"`
		Data   []int     `json:"data"`
		Prices []float64 `json:"prices,omitempty"`
	}{Data: t.Data, Prices: t.Prices}
	out.Metadata.GapSeconds = t.GapSeconds
	return json.NewEncoder(w).Encode(out)
}

// Hours is the trace's length in hours.
func (t *Trace) Hours() float64 { return float64(len(t.Data)) * t.GapSeconds / 3600 }

// Runs is the trace as alternating runs of availability for a job that needs
// n instances: spot is up while data >= n.
type Runs struct {
	Up     []bool
	Len    []float64 // hours
	Start  []float64 // hours since the trace start
	Total  float64
	Gap    float64 // hours per tick
	prices *priceCurve
}

// RunsFor run-length encodes the trace for an n-node job.
func (t *Trace) RunsFor(n int) *Runs {
	gap := t.GapSeconds / 3600
	r := &Runs{Total: float64(len(t.Data)) * gap, Gap: gap}
	for i, v := range t.Data {
		up := v >= n
		if len(r.Up) > 0 && r.Up[len(r.Up)-1] == up {
			r.Len[len(r.Len)-1] += gap
			continue
		}
		r.Up = append(r.Up, up)
		r.Len = append(r.Len, gap)
		r.Start = append(r.Start, float64(i)*gap)
	}
	if t.Prices != nil {
		r.prices = newPriceCurve(t.Prices, gap)
	}
	return r
}

// UpFraction is the share of time spot is available.
func (r *Runs) UpFraction() float64 {
	var up float64
	for i, u := range r.Up {
		if u {
			up += r.Len[i]
		}
	}
	return up / r.Total
}

// Fit estimates a two-state model: the mean up-run and down-run (the maximum
// likelihood estimates of exponential holding times).
func (r *Runs) Fit() (meanUp, meanDown float64) {
	var up, down float64
	var nu, nd int
	for i, u := range r.Up {
		if u {
			up += r.Len[i]
			nu++
		} else {
			down += r.Len[i]
			nd++
		}
	}
	if nu > 0 {
		meanUp = up / float64(nu)
	}
	if nd > 0 {
		meanDown = down / float64(nd)
	}
	return meanUp, meanDown
}

// priceCurve integrates a per-tick price series: cost(a, b) = ∫ price dt.
type priceCurve struct {
	gap  float64
	cum  []float64 // cum[i] = cost of ticks [0, i)
	p    []float64
	full float64
}

func newPriceCurve(p []float64, gap float64) *priceCurve {
	c := &priceCurve{gap: gap, p: p, cum: make([]float64, len(p)+1)}
	for i, x := range p {
		c.cum[i+1] = c.cum[i] + x*gap
	}
	c.full = c.cum[len(p)]
	return c
}

// at integrates from the trace start to time x (hours), wrapping around.
func (c *priceCurve) at(x float64) float64 {
	period := float64(len(c.p)) * c.gap
	k := math.Floor(x / period)
	x -= k * period
	i := int(x / c.gap)
	if i >= len(c.p) {
		i = len(c.p) - 1
	}
	return k*c.full + c.cum[i] + (x-float64(i)*c.gap)*c.p[i]
}

// MaxPrice is the highest price in the series.
func (c *priceCurve) max() float64 {
	m := 0.0
	for _, x := range c.p {
		m = math.Max(m, x)
	}
	return m
}

func (c *priceCurve) min() float64 {
	m := math.Inf(1)
	for _, x := range c.p {
		m = math.Min(m, x)
	}
	return m
}
