package cli

import (
	"encoding/json"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/models"
	"github.com/gpuscout/gpuscout/internal/render"
)

func newModelsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models [NAME]",
		Short: "List the model table advise --model sizes by (parameters, layers, KV heads, head size; cited)",
		Long: `The models advise --model knows: parameters (total, and active per token for
mixtures of experts), layers, hidden size, attention and KV heads, head size,
vocabulary and context, each from the model's published config.json or paper
(the SOURCE column). Parameters of llama-style decoders are derived from the
config (embeddings, attention, MLP, norms). ? = no source gives it.
advise --model also takes a bare size such as 70B, 8b or 1.5e9.`,
		Example: "  gpuscout models\n  gpuscout models llama-3-70b -o json",
		Args:    atMostOne("models", "model name"),
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		t, err := models.Load()
		if err != nil {
			return err
		}
		list := t.Models
		if len(args) == 1 {
			m, err := t.Lookup(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			list = []*models.Model{m}
		}
		return e.writeFitted(format, modelsTable(list), modelsJSON(list), *wide)
	}
	return cmd
}

func modelsTable(list []*models.Model) *render.Table {
	t := &render.Table{Columns: []render.Column{
		{Header: "MODEL"}, {Header: "PARAMS", Right: true}, {Header: "ACTIVE", Right: true}, {Header: "LAYERS", Right: true, Drop: 4},
		{Header: "HIDDEN", Right: true, Drop: 5}, {Header: "HEADS", Right: true, Drop: 3}, {Header: "KV HEADS", Right: true, Short: "KV"},
		{Header: "HEAD DIM", Right: true, Short: "HDIM", Drop: 7}, {Header: "VOCAB", Right: true, Drop: 6}, {Header: "CONTEXT", Right: true},
		{Header: "AS OF", Drop: 8}, {Header: "SOURCE", Drop: 9},
	}}
	for _, m := range list {
		t.Rows = append(t.Rows, []string{m.Name, models.FormatParams(m.Parameters), models.FormatParams(m.ActiveParameters),
			count(m.Layers), count(m.Hidden), count(m.Heads), count(m.KVHeads), count(m.HeadDim), count(m.Vocab), count(m.MaxContext), m.AsOf, m.Source})
	}
	t.Notes = []string{"? = unknown: no source gives it. ACTIVE = parameters per token (mixtures of experts). JSON adds the parameters' source, experts and notes."}
	return t
}

func count(n int) string {
	if n == 0 {
		return render.Unknown
	}
	return strconv.Itoa(n)
}

// modelsJSON writes each model with its KV cache per token; a count no
// source gives is null, never 0.
func modelsJSON(list []*models.Model) []map[string]any {
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		var j map[string]any
		b, _ := json.Marshal(m)
		_ = json.Unmarshal(b, &j)
		for _, k := range []string{"layers", "hidden", "intermediate", "heads", "kv_heads", "head_dim", "kv_elements_per_token_layer", "vocab", "max_context", "experts", "experts_per_token"} {
			if v, ok := j[k].(float64); ok && v == 0 {
				j[k] = nil
			}
		}
		if j["aliases"] == nil {
			j["aliases"] = []string{}
		}
		j["kv_cache_bytes_per_token_bf16"] = nil
		if kv, ok := m.KVBytesPerToken(models.KVBytes); ok {
			j["kv_cache_bytes_per_token_bf16"] = kv
		}
		out = append(out, j)
	}
	return out
}
