package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cloudmeta"
	"github.com/gpuscout/gpuscout/internal/hostinfo"
	"github.com/gpuscout/gpuscout/internal/render"
)

// envProbe is how `gpuscout env` reads the host and which metadata
// services it asks; tests replace both.
var envProbe = struct {
	host    func() *hostinfo.Host
	clients func() []cloudmeta.Client
}{hostinfo.Local, cloudmeta.Clients}

func newEnvCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Show this machine's environment: host facts, cloud identity and the catalog offering it is",
		Long: `Show the environment a benchmark would record: the host (CPU, cores, memory,
NUMA nodes, kernel, OS) and the cloud instance it runs on, read from the
instance metadata services of AWS (IMDSv2), Azure, GCP, Alibaba Cloud and
Tencent Cloud, all asked at once within --timeout (1 s by default; a machine on
no cloud says so within it), matched to the catalog offering.

Set GPUSCOUT_CLOUD=provider/instance-type/region[/zone] to name the instance
yourself (no metadata service is asked), e.g. where the service is blocked.`,
		Example: "  gpuscout env\n  gpuscout env -o json\n  GPUSCOUT_CLOUD=aws/p4d.24xlarge/us-east-1 gpuscout env",
		Args:    noArgs,
		Hidden:  true,
	}
	getFormat := outputFlag(cmd)
	timeout := cmd.Flags().Duration("timeout", cloudmeta.DefaultTimeout, fmt.Sprintf("how long to wait for the metadata services, %v to %v", cloudmeta.MinTimeout, cloudmeta.MaxTimeout))
	noCloud := cmd.Flags().Bool("no-cloud", false, "ask no metadata service")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		if *timeout < cloudmeta.MinTimeout || *timeout > cloudmeta.MaxTimeout {
			return usagef("--timeout %v: want %v to %v", *timeout, cloudmeta.MinTimeout, cloudmeta.MaxTimeout)
		}
		clients := envProbe.clients()
		if *noCloud {
			clients = nil
		}
		res, err := cloudmeta.Identify(cmd.Context(), os.Getenv(cloudmeta.EnvOverride), clients, *timeout)
		if err != nil {
			return asUsage(err)
		}
		cat, err := catalog.Default()
		if err != nil {
			return err
		}
		out := envOutput{Host: envProbe.host(), Cloud: cloudmeta.Place(cat, res.Identity), Probes: res.Attempts}
		if out.Probes == nil {
			out.Probes = []cloudmeta.Attempt{}
		}
		return e.write(format, envTable(out, *noCloud), out)
	}
	return cmd
}

// envOutput is `env -o json`: host, cloud (null when unknown) and what each
// metadata service answered.
type envOutput struct {
	Host   *hostinfo.Host      `json:"host"`
	Cloud  *cloudmeta.Placed   `json:"cloud"`
	Probes []cloudmeta.Attempt `json:"cloud_probes"`
}

func envTable(o envOutput, noCloud bool) *render.Table {
	t := &render.Table{Columns: []render.Column{{Header: "FIELD"}, {Header: "VALUE"}}, Wrap: 100}
	add := func(k, v string) {
		if v == "" {
			v = "?"
		}
		t.Rows = append(t.Rows, []string{k, v})
	}
	h := o.Host
	add("hostname", h.Hostname)
	add("cpu", h.CPUModel)
	add("cores", envCores(h))
	add("memory", envGiB(h.MemoryGiB))
	add("numa nodes", envCount(h.NUMANodes))
	add("virtual machine", map[bool]string{true: "yes (the CPU reports a hypervisor)", false: "no hypervisor reported"}[h.Hypervisor])
	add("kernel", h.Kernel)
	add("os", h.OS)
	add("arch", h.Arch)
	for _, m := range h.Missing {
		t.Notes = append(t.Notes, "? "+m)
	}
	switch c := o.Cloud; {
	case c != nil:
		add("cloud", c.Provider)
		add("instance type", c.InstanceType)
		add("region", c.Region)
		zone := c.Zone
		if c.ZoneID != "" {
			zone += " (" + c.ZoneID + ")"
		}
		add("zone", zone)
		if c.InstanceID != "" {
			add("instance id", c.InstanceID)
		}
		add("from", c.Source)
		if c.MatchedOffering != nil {
			add("offering", *c.MatchedOffering)
		} else {
			add("offering", "none: "+c.MatchReason)
		}
	case noCloud:
		add("cloud", "not asked (--no-cloud)")
	default:
		add("cloud", "unknown: no metadata service identified this machine")
		for _, p := range o.Probes {
			t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s", p.Cloud, p.Status, p.Detail))
		}
		t.Notes = append(t.Notes, "Set "+cloudmeta.EnvOverride+"=provider/instance-type/region[/zone] to name the instance.")
	}
	return t
}

func envCores(h *hostinfo.Host) string {
	if h.LogicalCores == 0 {
		return ""
	}
	parts := []string{strconv.Itoa(h.LogicalCores) + " logical"}
	if h.PhysicalCores > 0 {
		parts = append(parts, strconv.Itoa(h.PhysicalCores)+" physical")
	}
	if h.Sockets > 0 {
		parts = append(parts, envPlural(h.Sockets, "socket"))
	}
	return strings.Join(parts, ", ")
}

func envGiB(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " GiB"
}

func envCount(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func envPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
