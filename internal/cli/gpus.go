package cli

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
)

func newGPUsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gpus [NAME]",
		Short: "Show the GPU spec table (memory, bandwidth, dense TFLOP/s, links, TDP, sources)",
		Long: `Show the GPU and accelerator spec table. Figures are dense (no sparsity) and
per GPU; every figure cites a source (-o json lists them per figure, 'gpuscout
catalog sources' names each source). "?" means no source gives the figure
(measure it on the node with 'gpuscout bench'); "-" means the hardware lacks it (T4 has no BF16).

NAME may be any spelling clouds and NVML use: "NVIDIA A100-SXM4-80GB",
"a100-80gb", "A100" (the whole family).`,
		Example: "  gpuscout gpus\n  gpuscout gpus H100 -o json\n  gpuscout gpus 'NVIDIA A100-SXM4-80GB'",
		Args:    atMostOne("gpus", "GPU name"),
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		cat, err := catalog.GPUTable() // the GPU table alone: nothing else is read
		if err != nil {
			return err
		}
		gpus := cat.GPUs
		if len(args) == 1 {
			if gpus, err = cat.LookupGPU(args[0]); err != nil {
				return asUsage(err)
			}
		}
		return e.writeFitted(format, gpusTable(gpus), gpusJSON(gpus), *wide)
	}
	return cmd
}

func gpusTable(gpus []*catalog.GPU) *render.Table {
	t := &render.Table{Columns: []render.Column{
		{Header: "GPU"}, {Header: "VENDOR", Drop: 8}, {Header: "FORM", Drop: 3}, {Header: "MEM GiB", Right: true, Short: "GiB"}, {Header: "BW GB/s", Right: true, Short: "GB/s"},
		{Header: "FP32", Right: true, Drop: 2}, {Header: "TF32", Right: true, Drop: 4}, {Header: "BF16", Right: true}, {Header: "FP16", Right: true},
		{Header: "FP8", Right: true}, {Header: "LINK", Prose: true, Drop: 6}, {Header: "LINK GB/s", Right: true, Short: "LINK/s", Drop: 5}, {Header: "TDP W", Right: true, Short: "TDP", Drop: 7},
		{Header: "SOURCES", Drop: 9},
	}}
	for _, g := range gpus {
		form := g.FormFactor
		if g.Generic {
			form = "(any)"
		}
		if form == "" {
			form = render.Unknown
		}
		link := g.Interconnect
		if link == "" {
			link = render.Unknown
		}
		t.Rows = append(t.Rows, []string{g.Name, g.Vendor, form, figureCell(g.MemoryGiB), figureCell(g.MemoryBandwidth),
			figureCell(g.FP32), figureCell(g.TF32), figureCell(g.BF16), figureCell(g.FP16), figureCell(g.FP8), link,
			figureCell(g.InterconnectBW), figureCell(g.TDP), strings.Join(g.SourceIDs(), ",")})
	}
	t.Notes = []string{"TFLOP/s dense per GPU. ? = unknown: no source gives it (measure it: gpuscout bench); - = does not apply: the hardware lacks it (T4 has no BF16). (any) = form factor unknown: only figures common to all variants."}
	return t
}

// figureCell is a spec figure in a text table: its value, render.Unknown
// when no source gives it, render.NotApplied when the hardware lacks it.
func figureCell(f catalog.Figure) string {
	switch {
	case f.Unsupported:
		return render.NotApplied
	case !f.Known:
		return render.Unknown
	}
	return f.String()
}

type gpuJSON struct {
	Name         string                  `json:"name"`
	Vendor       string                  `json:"vendor"`
	Family       string                  `json:"family"`
	FormFactor   string                  `json:"form_factor"`
	Generic      bool                    `json:"generic"`
	Aliases      []string                `json:"aliases"`
	Figures      map[string]*json.Number `json:"figures"`
	Unsupported  []string                `json:"unsupported"`
	Sources      map[string]string       `json:"sources"`
	Interconnect string                  `json:"interconnect"`
	Notes        string                  `json:"notes,omitempty"`
}

func gpusJSON(gpus []*catalog.GPU) []gpuJSON {
	out := make([]gpuJSON, 0, len(gpus))
	for _, g := range gpus {
		j := gpuJSON{Name: g.Name, Vendor: g.Vendor, Family: g.Family, FormFactor: g.FormFactor, Generic: g.Generic,
			Aliases: append([]string{}, g.Aliases...), Figures: map[string]*json.Number{}, Unsupported: []string{},
			Sources: map[string]string{}, Interconnect: g.Interconnect, Notes: g.Notes}
		for _, nf := range g.Figures() {
			switch {
			case nf.Figure.Known:
				n := json.Number(nf.Figure.String())
				j.Figures[nf.Name] = &n
				j.Sources[nf.Name] = nf.Figure.Source
			case nf.Figure.Unsupported:
				j.Figures[nf.Name] = nil
				j.Unsupported = append(j.Unsupported, nf.Name)
			default:
				j.Figures[nf.Name] = nil
			}
		}
		out = append(out, j)
	}
	return out
}
