package collect

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// NVMLRetry is the gpu collector where NVML is required (collect.gpu:
// nvml) but may not load yet, as when the agent starts before the driver:
// until NVML opens it is down with the reason, and it tries again at most
// every Every; once open it is a GPU collector.
type NVMLRetry struct {
	Open  func() (*nvml.NVML, error)
	Every time.Duration
	PCIe  bool
	Log   *slog.Logger

	mu      sync.Mutex
	n       *nvml.NVML
	g       *GPU
	lastTry time.Time
	lastErr error
}

// Name is "gpu".
func (r *NVMLRetry) Name() string { return NameGPU }

// Collect samples the GPUs once NVML is open.
func (r *NVMLRetry) Collect(now time.Time, b *agent.Batch) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.g == nil {
		if !r.lastTry.IsZero() && now.Sub(r.lastTry) < r.Every {
			return fmt.Errorf("NVML: %w (next try within %s)", r.lastErr, r.Every)
		}
		r.lastTry = now
		n, err := r.Open()
		if err == nil {
			var g *GPU
			if g, err = NewGPU(n); err == nil {
				g.PCIe, g.Log = r.PCIe, r.Log
				r.n, r.g = n, g
			} else {
				n.Close()
			}
		}
		if err != nil {
			r.lastErr = err
			return fmt.Errorf("NVML: %w", err)
		}
	}
	return r.g.Collect(now, b)
}

// Close shuts NVML down, if it opened.
func (r *NVMLRetry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		return nil
	}
	r.g.Close()
	return r.n.Close()
}
