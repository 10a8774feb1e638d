package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/models"
)

// contextValue is a token count such as 4096, 32k or 1m (k = 1024, m = 1024²,
// as context lengths are given: 32k = 32,768 tokens).
type contextValue struct{ n *int }

func (v *contextValue) String() string {
	if v.n == nil || *v.n == 0 {
		return ""
	}
	return strconv.Itoa(*v.n)
}
func (v *contextValue) Type() string { return "tokens" }
func (v *contextValue) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1024, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1024*1024, strings.TrimSuffix(t, "m")
	}
	f, err := strconv.ParseFloat(t, 64)
	n := f * mult
	if err != nil || math.IsNaN(n) || n < 1 || n > advise.MaxContext || n != math.Trunc(n) {
		return fmt.Errorf("want a whole number of tokens from 1 to %d, such as 4096 or 32k (= 32768)", advise.MaxContext)
	}
	*v.n = int(n)
	return nil
}

// modelJobFromFlags reads --model and its flags into the request's model
// job; nil without --model. The flags that size by the model need --model.
func modelJobFromFlags(f *adviseFlags, changed func(string) bool) (*advise.ModelJob, error) {
	if f.model == "" {
		for _, name := range []string{"method", "tokens", "context", "concurrency", "lora-rank", "weights"} {
			if changed(name) {
				return nil, usagef("--%s needs --model NAME|SIZE (see gpuscout models)", name)
			}
		}
		return nil, nil
	}
	t, err := models.Load()
	if err != nil {
		return nil, err
	}
	m, err := t.Lookup(f.model)
	if err != nil {
		return nil, usagef("--model: %v", err)
	}
	if f.method != "" && !slices.Contains(models.Methods, f.method) {
		return nil, usagef("--method %q: want %s", f.method, strings.Join(models.Methods, ", "))
	}
	if f.weights != "" {
		if _, ok := models.WeightBytes[f.weights]; !ok {
			return nil, usagef("--weights %q: want bf16, fp16, fp8, int8 or int4", f.weights)
		}
	}
	return &advise.ModelJob{Job: models.Job{Model: m, Method: f.method, Context: f.context, Concurrency: f.concurrency,
		LoRARank: f.loraRank, Weights: f.weights}, Tokens: f.tokens}, nil
}
