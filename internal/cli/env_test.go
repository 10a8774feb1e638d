package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/cloudmeta"
	"github.com/gpuscout/gpuscout/internal/hostinfo"
)

// fakeEnv makes `env` read the two-socket host fixture and ask clients.
func fakeEnv(t *testing.T, clients ...cloudmeta.Client) {
	t.Helper()
	old := envProbe
	t.Cleanup(func() { envProbe = old })
	envProbe.host = func() *hostinfo.Host {
		h := hostinfo.Read(os.DirFS("../hostinfo/testdata/two-socket"))
		h.Arch = "amd64"
		return h
	}
	envProbe.clients = func() []cloudmeta.Client { return clients }
}

func closedBase(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}

func TestEnvGolden(t *testing.T) {
	for _, tc := range []struct{ name, override string }{
		{"env-override.txt", "aws/p4d.24xlarge/us-east-1/us-east-1a"},
		{"env-override.json", "aws/p4d.24xlarge/us-east-1/us-east-1a"},
		{"env-unmatched.txt", "alibaba/ecs.gn7i-c8g1.2xlarge/cn-shanghai/cn-shanghai-e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeEnv(t, cloudmeta.AWS{BaseURL: closedBase(t)})
			t.Setenv(cloudmeta.EnvOverride, tc.override)
			args := []string{"env"}
			if strings.HasSuffix(tc.name, ".json") {
				args = append(args, "-o", "json")
			}
			out, errOut, code := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// TestEnvNoCloud: every service absent; the answer comes within the timeout
// and says the cloud is unknown (JSON null).
func TestEnvNoCloud(t *testing.T) {
	fakeEnv(t, cloudmeta.AWS{BaseURL: closedBase(t)}, cloudmeta.GCP{BaseURL: closedBase(t)})
	t.Setenv(cloudmeta.EnvOverride, "")
	start := time.Now()
	out, errOut, code := run(t, "env", "-o", "json", "--timeout", "300ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if d := time.Since(start); d > 10*time.Second { // 300 ms and closed ports: milliseconds, unless busy
		t.Errorf("env took %v", d)
	}
	var got struct {
		Cloud  *json.RawMessage    `json:"cloud"`
		Probes []cloudmeta.Attempt `json:"cloud_probes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Cloud != nil || len(got.Probes) != 2 || got.Probes[0].Status != cloudmeta.StatusAbsent || got.Probes[1].Status != cloudmeta.StatusAbsent {
		t.Errorf("cloud %v probes %+v, want null and two absent", got.Cloud, got.Probes)
	}
	out, _, _ = run(t, "env", "--timeout", "300ms")
	if !strings.Contains(out, "unknown: no metadata service identified this machine") || !strings.Contains(out, "aws absent") {
		t.Errorf("table output lacks the unknown cloud and the probes:\n%s", out)
	}
}

// TestEnvFakeTencent: a Tencent metadata service on loopback is identified
// and matched to the catalog's offering.
func TestEnvFakeTencent(t *testing.T) {
	values := map[string]string{
		"/latest/meta-data/instance/instance-type": "GN10X.2XLARGE40",
		"/latest/meta-data/placement/region":       "ap-guangzhou",
		"/latest/meta-data/placement/zone":         "ap-guangzhou-3",
		"/latest/meta-data/instance-id":            "ins-3g445roi",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := values[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(v))
	}))
	defer srv.Close()
	fakeEnv(t, cloudmeta.AWS{BaseURL: closedBase(t)}, cloudmeta.Tencent{BaseURL: srv.URL})
	t.Setenv(cloudmeta.EnvOverride, "")
	out, errOut, code := run(t, "env", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Cloud struct {
			Provider        string  `json:"provider"`
			Zone            string  `json:"zone"`
			MatchedOffering *string `json:"matched_offering"`
		} `json:"cloud"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Cloud.Provider != "tencent" || got.Cloud.Zone != "ap-guangzhou-3" || got.Cloud.MatchedOffering == nil || *got.Cloud.MatchedOffering != "tencent/GN10X.2XLARGE40/ap-guangzhou" {
		t.Errorf("cloud = %+v (offering %v), want tencent in ap-guangzhou-3 matched to tencent/GN10X.2XLARGE40/ap-guangzhou", got.Cloud, got.Cloud.MatchedOffering)
	}
}

func TestEnvBadInput(t *testing.T) {
	fakeEnv(t)
	for _, tc := range []struct {
		name, override string
		args           []string
		want           string
	}{
		{"bad override", "aws/p4d.24xlarge", nil, `GPUSCOUT_CLOUD="aws/p4d.24xlarge": 2 parts; want provider/instance-type/region[/zone]`},
		{"timeout too short", "", []string{"--timeout", "1ms"}, "--timeout 1ms: want 100ms to 30s"},
		{"timeout too long", "", []string{"--timeout", "1h"}, "--timeout 1h0m0s: want 100ms to 30s"},
		{"argument", "", []string{"aws"}, "takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cloudmeta.EnvOverride, tc.override)
			_, errOut, code := run(t, append([]string{"env"}, tc.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}
