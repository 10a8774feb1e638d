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
(measure it on the node, e.g. with PyTorch; gpuscout has no bench command
yet); "n/a" means the hardware lacks it (T4 has no BF16).

NAME may be any spelling clouds and NVML use: "NVIDIA A100-SXM4-80GB",
"a100-80gb", "A100" (the whole family).`,
		Example: "  gpuscout gpus\n  gpuscout gpus H100 -o json\n  gpuscout gpus 'NVIDIA A100-SXM4-80GB'",
		Args:    atMostOne("gpus", "GPU name"),
	}
	getFormat := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		cat, err := catalog.Default()
		if err != nil {
			return err
		}
		gpus := cat.GPUs
		if len(args) == 1 {
			if gpus, err = cat.LookupGPU(args[0]); err != nil {
				return asUsage(err)
			}
		}
		return e.write(format, gpusTable(gpus), gpusJSON(gpus))
	}
	return cmd
}

func gpusTable(gpus []*catalog.GPU) *render.Table {
	t := &render.Table{Columns: []render.Column{
		{Header: "GPU"}, {Header: "VENDOR"}, {Header: "FORM"}, {Header: "MEM GiB", Right: true}, {Header: "BW GB/s", Right: true},
		{Header: "FP32", Right: true}, {Header: "TF32", Right: true}, {Header: "BF16", Right: true}, {Header: "FP16", Right: true},
		{Header: "FP8", Right: true}, {Header: "LINK"}, {Header: "LINK GB/s", Right: true}, {Header: "TDP W", Right: true}, {Header: "SOURCES"},
	}}
	for _, g := range gpus {
		form := g.FormFactor
		if g.Generic {
			form = "(any)"
		}
		if form == "" {
			form = "-"
		}
		link := g.Interconnect
		if link == "" {
			link = "-"
		}
		t.Rows = append(t.Rows, []string{g.Name, g.Vendor, form, g.MemoryGiB.String(), g.MemoryBandwidth.String(),
			g.FP32.String(), g.TF32.String(), g.BF16.String(), g.FP16.String(), g.FP8.String(), link,
			g.InterconnectBW.String(), g.TDP.String(), strings.Join(g.SourceIDs(), ",")})
	}
	t.Notes = []string{"TFLOP/s dense per GPU. ? = no source gives it (measure it; gpuscout has no bench command yet); n/a = not supported. (any) = form factor unknown: only figures common to all variants."}
	return t
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
