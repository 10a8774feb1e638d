package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/collect"
	"github.com/gpuscout/gpuscout/internal/agent/rules"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// agentFlags are the flags that override the config file.
type agentFlags struct {
	config    string
	listen    string
	interval  time.Duration
	fakeGPUs  int
	dcgmNames bool
	upload    uploadFlags
}

// agentTickHandlers make the handlers the loop calls each tick (rules,
// notifiers, autostop) from the config; each part registers itself here.
var agentTickHandlers []func(cfg *agentconfig.Config, log *slog.Logger) (agent.TickHandler, error)

func newAgentCmd(e *env) *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run the node agent: GPU, egress and spend metrics for Prometheus, alert rules, autostop",
		Long: `agent samples this node's GPUs (NVML), network interfaces (/proc/net/dev) and
spend (the node's price × instances × uptime) on its own ticker and serves the
last sample at /metrics in the Prometheus format (names gpuscout_*, per-GPU
series labelled gpu and uuid), with /healthz and a landing page at /.

The config is the file 'gpuscout advise --export agent' writes (format
version 1); flags override it. Without --config every default applies:
listen 127.0.0.1:9836, interval 1s, the built-in rules that need no budget.
--fake-gpus N replaces NVML with N simulated GPUs replaying a recorded H200
trace, labelled fake="true" and model "FAKE NVIDIA H200": for demos and tests.

Egress is counted as every byte sent on the counted interfaces: an upper bound
of billed egress (bytes to private addresses are included).

SIGTERM or SIGINT stops it cleanly. Exit status: 0 after a clean stop, 1 when
it cannot serve, 2 for a bad flag or config.`,
		Example: "  gpuscout agent --config agent.yaml\n  gpuscout agent --fake-gpus 8 --listen 127.0.0.1:9836\n  gpuscout agent check --config agent.yaml",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := agentConfig(cmd, &f)
			if err != nil {
				return err
			}
			up, err := f.upload.client()
			if err != nil {
				return err
			}
			return runAgent(withSummaryUploader(cmd.Context(), up), e, cfg)
		},
	}
	fl := cmd.PersistentFlags()
	fl.StringVar(&f.config, "config", "", "agent config file (format version 1, as advise --export agent writes)")
	fl.StringVar(&f.listen, "listen", "", "address of the Prometheus endpoint, host:port (default 127.0.0.1:9836; overrides agent.listen)")
	fl.DurationVar(&f.interval, "interval", 0, "sampling interval, 100ms to 10m; overrides agent.interval (whose default is 1s)")
	fl.Lookup("interval").DefValue = "" // not set: the config's, not 0s
	fl.IntVar(&f.fakeGPUs, "fake-gpus", 0, "simulate N GPUs (0 to 64) replaying a recorded H200 trace, labelled fake, instead of NVML")
	f.upload.register(cmd, "an hourly summary (GPU utilisation, egress, spend)")
	fl.BoolVar(&f.dcgmNames, "dcgm-names", false, "also export GPU series under dcgm-exporter's names and units (overrides agent.dcgm_names)")
	cmd.AddCommand(newAgentCheckCmd(e, &f))
	return cmd
}

// agentConfig reads the config file (or the defaults) and applies the flags.
func agentConfig(cmd *cobra.Command, f *agentFlags) (*agentconfig.Config, error) {
	var cfg *agentconfig.Config
	if f.config == "" {
		cfg = agentconfig.Default()
	} else {
		var err error
		cfg, err = agentconfig.ReadFile(f.config, agentconfig.Options{Metric: agent.MetricLabels, Annotation: rules.CheckAnnotation})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("--config %s: no such file", f.config)
		}
		if err != nil {
			return nil, asUsage(err)
		}
	}
	fl := cmd.Flags()
	if fl.Changed("listen") {
		if err := agentconfig.CheckListen("--listen", f.listen); err != nil {
			return nil, asUsage(err)
		}
		cfg.Agent.Listen = f.listen
	}
	if fl.Changed("interval") {
		if f.interval < agentconfig.MinInterval || f.interval > agentconfig.MaxInterval {
			return nil, usagef("--interval %s: want %s to %s", f.interval, agentconfig.MinInterval, agentconfig.MaxInterval)
		}
		cfg.Agent.Interval = agentconfig.Duration(f.interval)
	}
	if fl.Changed("fake-gpus") {
		if f.fakeGPUs < 0 || f.fakeGPUs > agentconfig.MaxFakeGPUs {
			return nil, usagef("--fake-gpus %d: want 0 to %d", f.fakeGPUs, agentconfig.MaxFakeGPUs)
		}
		cfg.Agent.FakeGPUs = f.fakeGPUs
	}
	if fl.Changed("dcgm-names") {
		cfg.Agent.DCGMNames = f.dcgmNames
	}
	return cfg, nil
}

// runAgent serves until ctx is done or SIGTERM/SIGINT arrives.
func runAgent(ctx context.Context, e *env, cfg *agentconfig.Config) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	plan, err := buildAgent(ctx, cfg, time.Now())
	if err != nil {
		return err
	}
	defer plan.close()
	for _, c := range plan.collectors {
		switch g := c.(type) {
		case *collect.GPU:
			g.Log = log
		case *collect.NVMLRetry:
			g.Log = log
		}
	}
	var store agent.Store
	interval := cfg.Agent.Interval.D()
	// The parts (rules and notify, autostop) take every sample; a part may
	// also export metrics of its own (a Collector) and work in the
	// background (agent.Runner) until the agent stops.
	var handlers []agent.TickHandler
	var runners []agent.Runner
	collectors := plan.collectors
	for _, mk := range agentTickHandlers {
		h, err := mk(cfg, log)
		if err != nil {
			return err
		}
		if h != nil {
			handlers = append(handlers, h)
		}
		if c, ok := h.(agent.Collector); ok { // a part with metrics of its own (autostop)
			collectors = append(collectors, c)
		}
		if r, ok := h.(agent.Runner); ok { // a part working in the background (notify)
			runners = append(runners, r)
		}
	}
	if up := summaryUploader(ctx); up != nil { // agent --upload
		p := newSummaryPart(up, cfg, log)
		handlers, runners = append(handlers, p), append(runners, p)
	}
	loop := agent.NewLoop(interval, &store, collectors...)
	loop.Log = log
	loop.Handlers = handlers
	info, _ := agent.Lookup(agent.AgentInfo)
	loop.Static = []agent.Series{{Metric: info, Values: []string{Version}, Value: 1}}
	ln, err := net.Listen("tcp", cfg.Agent.Listen)
	if err != nil {
		return fmt.Errorf("agent: listen on %s (agent.listen or --listen): %w", cfg.Agent.Listen, err)
	}
	// The endpoint encodes each sample before the parts see it, so that no
	// scrape waits for the encoding.
	endpoint := agent.NewEndpoint(&store, cfg.Agent.DCGMNames, interval, "gpuscout "+Version+" on "+ln.Addr().String())
	loop.Handlers = append([]agent.TickHandler{endpoint}, loop.Handlers...)
	for _, l := range plan.lines {
		log.Info("watching " + l)
	}
	log.Info("gpuscout agent listening", "addr", ln.Addr().String(), "interval", interval.String(), "rules", len(cfg.Rules))
	if err := agent.Serve(ctx, ln, endpoint, loop, runners...); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	log.Info("gpuscout agent stopped")
	return nil
}
