package cli

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/render"
)

// multiGPUNotes summarise what the rows of the multi-GPU figures do not
// show: the link of each peer pair (grouped by link type) and the
// all-reduce's bus bandwidth at every size.
func multiGPUNotes(doc *benchreport.Document) []string {
	var notes []string
	var links []string
	pairs := map[string][]string{}
	total := 0
	for _, m := range doc.Measurements {
		if m.Name != "p2p" || m.Link == "" {
			continue
		}
		if _, ok := pairs[m.Link]; !ok {
			links = append(links, m.Link)
		}
		pairs[m.Link] = append(pairs[m.Link], m.Device)
		total++
	}
	if len(links) == 1 {
		notes = append(notes, fmt.Sprintf("P2P links (NVML): %s between all %d ordered pairs.", links[0], total))
	} else if len(links) > 1 {
		var parts []string
		for _, l := range links {
			parts = append(parts, l+" "+strings.Join(pairs[l], " "))
		}
		notes = append(notes, "P2P links (NVML): "+strings.Join(parts, "; ")+".")
	}
	if m := doc.Find("nccl_allreduce_busbw", benchreport.DeviceNode); m != nil && len(m.Sweep) > 0 {
		var parts []string
		for _, p := range m.Sweep {
			parts = append(parts, sizeText(p.Bytes)+" "+render.Figure(p.BusBWGBs))
		}
		notes = append(notes, "NCCL all-reduce busbw by message size, GB/s: "+strings.Join(parts, ", ")+".")
	}
	return notes
}

// sizeText writes a message size in B, KiB, MiB or GiB.
func sizeText(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
