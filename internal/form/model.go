package form

import (
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/models"
)

// modelJob reads --model and its inputs into the request's model job; nil
// without --model. The inputs that size by the model need --model.
func (f *Advise) modelJob() (*advise.ModelJob, error) {
	if f.model == "" {
		for _, name := range []string{"method", "tokens", "context", "concurrency", "lora-rank", "weights", "recompute"} {
			if f.Changed(name) {
				return nil, inputErrorf(name, "--%s needs --model NAME|SIZE (see gpuscout models)", name)
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
		return nil, inputErrorf("model", "--model: %v", err)
	}
	if f.method != "" && !slices.Contains(models.Methods, f.method) {
		return nil, inputErrorf("method", "--method %q: want %s", f.method, strings.Join(models.Methods, ", "))
	}
	if f.weights != "" {
		if _, ok := models.WeightBytes[f.weights]; !ok {
			return nil, inputErrorf("weights", "--weights %q: want bf16, fp16, fp8, int8 or int4", f.weights)
		}
	}
	if f.recompute != "" && f.recompute != models.RecomputeFull && f.recompute != models.RecomputeNone {
		return nil, inputErrorf("recompute", "--recompute %q: want %s (the default: each layer recomputed in the backward pass) or %s (every layer's activations kept)", f.recompute, models.RecomputeFull, models.RecomputeNone)
	}
	return &advise.ModelJob{Job: models.Job{Model: m, Method: f.method, Context: f.context, Concurrency: f.concurrency,
		LoRARank: f.loraRank, Weights: f.weights, Recompute: f.recompute}, Tokens: f.tokens}, nil
}
