package cloudmeta

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cloudCase is one client of the conformance suite: a fake of its cloud's
// service answering with documented examples, the identity the client must
// read from it, and the path whose breakage must fail the client.
type cloudCase struct {
	name    string
	client  func(base string) Client
	fake    func(t *testing.T) *fakeCloud
	want    func(base string) *Identity
	keyPath string // a request URI the identity needs
	// badValue is a 200 answer at keyPath that must be refused (not a
	// value, not a document).
	badValue string
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cloudCases() []cloudCase {
	return []cloudCase{
		{
			name:   "aws",
			client: func(base string) Client { return AWS{BaseURL: base} },
			fake: func(t *testing.T) *fakeCloud {
				return &fakeCloud{tokenPath: "/latest/api/token", ttlHeader: "X-aws-ec2-metadata-token-ttl-seconds", tokenHeader: "X-aws-ec2-metadata-token",
					contentType: "text/plain", values: map[string]string{
						"/latest/meta-data/instance-type":                  "t2.micro",
						"/latest/meta-data/placement/region":               "us-west-2",
						"/latest/meta-data/placement/availability-zone":    "us-west-2b",
						"/latest/meta-data/placement/availability-zone-id": "usw2-az1",
						"/latest/dynamic/instance-identity/document":       readTestdata(t, "aws-identity-document.json"),
					}}
			},
			want: func(base string) *Identity {
				return &Identity{Provider: "aws", InstanceType: "t2.micro", Region: "us-west-2", Zone: "us-west-2b", ZoneID: "usw2-az1",
					InstanceID: "i-1234567890abcdef0", Source: base, Raw: map[string]string{
						"/latest/meta-data/instance-type":                       "t2.micro",
						"/latest/meta-data/placement/region":                    "us-west-2",
						"/latest/meta-data/placement/availability-zone":         "us-west-2b",
						"/latest/meta-data/placement/availability-zone-id":      "usw2-az1",
						"/latest/dynamic/instance-identity/document#instanceId": "i-1234567890abcdef0",
					}}
			},
			keyPath:  "/latest/meta-data/instance-type",
			badValue: "p4d.24xlarge\n<b>stale</b>",
		},
		{
			name:   "azure",
			client: func(base string) Client { return Azure{BaseURL: base} },
			fake: func(t *testing.T) *fakeCloud {
				return &fakeCloud{needKey: "Metadata", needValue: "true", contentType: "application/json; charset=utf-8",
					values: map[string]string{azurePath: readTestdata(t, "azure-instance.json")}}
			},
			want: func(base string) *Identity {
				return &Identity{Provider: "azure", InstanceType: "Standard_A3", Region: "westus", InstanceID: "02aab8a4-74ef-476e-8182-f6d2ba4166a6",
					Source: base, Raw: map[string]string{"compute.vmSize": "Standard_A3", "compute.location": "westus", "compute.zone": "",
						"compute.vmId": "02aab8a4-74ef-476e-8182-f6d2ba4166a6", "compute.azEnvironment": "AZUREPUBLICCLOUD"}}
			},
			keyPath:  azurePath,
			badValue: `{"compute":{"vmSize":"","location":"westus"}}`,
		},
		{
			name:   "gcp",
			client: func(base string) Client { return GCP{BaseURL: base} },
			fake: func(*testing.T) *fakeCloud {
				return &fakeCloud{needKey: "Metadata-Flavor", needValue: "Google", answerKey: "Metadata-Flavor", answerValue: "Google",
					contentType: "application/text", values: map[string]string{
						"/computeMetadata/v1/instance/machine-type": "projects/123/machineTypes/a2-highgpu-8g",
						"/computeMetadata/v1/instance/zone":         "projects/123/zones/us-central1-a",
						"/computeMetadata/v1/instance/id":           "4520031799277581759",
					}}
			},
			want: func(base string) *Identity {
				return &Identity{Provider: "gcp", InstanceType: "a2-highgpu-8g", Region: "us-central1", Zone: "us-central1-a", InstanceID: "4520031799277581759",
					Source: base, Raw: map[string]string{
						"/computeMetadata/v1/instance/machine-type": "a2-highgpu-8g",
						"/computeMetadata/v1/instance/zone":         "us-central1-a",
						"/computeMetadata/v1/instance/id":           "4520031799277581759",
					}}
			},
			keyPath:  "/computeMetadata/v1/instance/machine-type",
			badValue: "a2-highgpu-8g", // a bare name: GCP answers with a path
		},
		{
			name:   "alibaba",
			client: func(base string) Client { return Alibaba{BaseURL: base} },
			fake: func(*testing.T) *fakeCloud {
				return &fakeCloud{tokenPath: "/latest/api/token", ttlHeader: "X-aliyun-ecs-metadata-token-ttl-seconds", tokenHeader: "X-aliyun-ecs-metadata-token",
					values: map[string]string{
						"/latest/meta-data/instance/instance-type": "ecs.gn7i-c8g1.2xlarge",
						"/latest/meta-data/region-id":              "cn-shanghai",
						"/latest/meta-data/zone-id":                "cn-shanghai-e",
						"/latest/meta-data/instance-id":            "i-bp13znx0m0me8cquu0001",
					}}
			},
			want: func(base string) *Identity {
				return &Identity{Provider: "alibaba", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "cn-shanghai", Zone: "cn-shanghai-e",
					InstanceID: "i-bp13znx0m0me8cquu0001", Source: base, Raw: map[string]string{
						"/latest/meta-data/instance/instance-type": "ecs.gn7i-c8g1.2xlarge",
						"/latest/meta-data/region-id":              "cn-shanghai",
						"/latest/meta-data/zone-id":                "cn-shanghai-e",
						"/latest/meta-data/instance-id":            "i-bp13znx0m0me8cquu0001",
					}}
			},
			keyPath:  "/latest/meta-data/instance/instance-type",
			badValue: "",
		},
		{
			name:   "tencent",
			client: func(base string) Client { return Tencent{BaseURL: base} },
			fake: func(*testing.T) *fakeCloud {
				return &fakeCloud{values: map[string]string{
					"/latest/meta-data/instance/instance-type": "GN10X.2XLARGE40",
					"/latest/meta-data/placement/region":       "ap-guangzhou",
					"/latest/meta-data/placement/zone":         "ap-guangzhou-3",
					"/latest/meta-data/instance-id":            "ins-3g445roi",
				}}
			},
			want: func(base string) *Identity {
				return &Identity{Provider: "tencent", InstanceType: "GN10X.2XLARGE40", Region: "ap-guangzhou", Zone: "ap-guangzhou-3",
					InstanceID: "ins-3g445roi", Source: base, Raw: map[string]string{
						"/latest/meta-data/instance/instance-type": "GN10X.2XLARGE40",
						"/latest/meta-data/placement/region":       "ap-guangzhou",
						"/latest/meta-data/placement/zone":         "ap-guangzhou-3",
						"/latest/meta-data/instance-id":            "ins-3g445roi",
					}}
			},
			keyPath:  "/latest/meta-data/instance/instance-type",
			badValue: "GN10X 2XLARGE40",
		},
	}
}

// TestConformance runs every client against its fake cloud: it reads the
// documented answers into the right identity; every breakage of a needed
// answer (404, 500, an HTML page, a giant body, a malformed value) is an
// error naming the cloud and the URL, not "absent"; a closed port and a
// service that never answers are "absent" within the deadline.
func TestConformance(t *testing.T) {
	cases := cloudCases()
	if got, want := len(cases), len(Clients()); got != want {
		t.Fatalf("the suite covers %d clouds, Clients() has %d", got, want)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if got := tc.client("").Name(); got != tc.name {
				t.Errorf("Name() = %q, want %q", got, tc.name)
			}
			t.Run("identifies", func(t *testing.T) {
				base := serve(t, tc.fake(t))
				got, err := tc.client(base).Identify(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.want(base); !reflect.DeepEqual(got, want) {
					t.Errorf("Identify() =\n%+v\nwant\n%+v", got, want)
				}
			})
			breakages := []struct {
				name, wantMsg string
				h             http.HandlerFunc
			}{
				{"404", "HTTP 404", http.NotFound},
				{"500", "HTTP 500", func(w http.ResponseWriter, _ *http.Request) {
					http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
				}},
				{"html", "HTML page", htmlPage},
				{"giant", "exceeds", giantBody},
				{"malformed", "", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(tc.badValue)) }},
				{"redirect", "HTTP 302", func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "http://portal.example/login", http.StatusFound)
				}},
			}
			for _, b := range breakages {
				t.Run(b.name, func(t *testing.T) {
					f := tc.fake(t)
					f.broken, f.brokenWith = tc.keyPath, b.h
					base := serve(t, f)
					id, err := tc.client(base).Identify(ctx)
					if err == nil {
						t.Fatalf("Identify() = %+v, want an error", id)
					}
					var me *Error
					if !errors.As(err, &me) {
						t.Fatalf("error %T %v, want *Error", err, err)
					}
					if me.Cloud != tc.name || me.URL != base+tc.keyPath || me.Absent {
						t.Errorf("error = {Cloud %q URL %q Absent %v}, want {%q %q false}", me.Cloud, me.URL, me.Absent, tc.name, base+tc.keyPath)
					}
					msg := err.Error()
					if !strings.Contains(msg, tc.name+":") || !strings.Contains(msg, tc.keyPath) || !strings.Contains(msg, b.wantMsg) {
						t.Errorf("error %q: want the cloud, the path %s and %q", msg, tc.keyPath, b.wantMsg)
					}
				})
			}
			t.Run("closed-port", func(t *testing.T) {
				start := time.Now()
				_, err := tc.client(closedURL(t)).Identify(ctx)
				var me *Error
				if !errors.As(err, &me) || !me.Absent || me.Cloud != tc.name {
					t.Fatalf("error %v, want an absent *Error of %s", err, tc.name)
				}
				// A refused connection answers at once; retrying or waiting
				// out a timeout would take the client's whole budget.
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("took %v on a closed port", d)
				}
			})
			t.Run("never-answers", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
				defer cancel()
				start := time.Now()
				_, err := tc.client(hangingURL(t)).Identify(ctx)
				var me *Error
				if !errors.As(err, &me) || !me.Absent {
					t.Fatalf("error %v, want an absent *Error", err)
				}
				// The server never answers: without the deadline this would
				// hang until the test's own timeout.
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("took %v past a 150 ms deadline", d)
				}
			})
		})
	}
}

// TestNoCloudIsQuick probes every cloud where nothing listens (and one that
// never answers): Detect gives up within its timeout and says each is absent.
func TestNoCloudIsQuick(t *testing.T) {
	clients := []Client{AWS{BaseURL: closedURL(t)}, Azure{BaseURL: closedURL(t)}, GCP{BaseURL: hangingURL(t)},
		Alibaba{BaseURL: closedURL(t)}, Tencent{BaseURL: closedURL(t)}}
	start := time.Now()
	r := Detect(context.Background(), clients, 300*time.Millisecond)
	if d := time.Since(start); d > 10*time.Second { // GCP's server never answers: unbounded without the timeout
		t.Errorf("Detect took %v with a 300 ms timeout", d)
	}
	if r.Identity != nil {
		t.Errorf("Identity = %+v, want nil", r.Identity)
	}
	if len(r.Attempts) != len(clients) {
		t.Fatalf("%d attempts, want %d", len(r.Attempts), len(clients))
	}
	for i, a := range r.Attempts {
		if a.Cloud != clients[i].Name() || a.Status != StatusAbsent {
			t.Errorf("attempt %d = %+v, want %s absent", i, a, clients[i].Name())
		}
	}
}

// TestDetectPicksTheCloudThatAnswers: one fake cloud among absent ones, and a
// service at the shared link-local address answering 404 for the others.
func TestDetectPicksTheCloudThatAnswers(t *testing.T) {
	cases := cloudCases()
	gcp := cases[2]
	gcpBase := serve(t, gcp.fake(t))
	// AWS and Azure share GCP's address, as they share 169.254.169.254.
	clients := []Client{AWS{BaseURL: gcpBase}, Azure{BaseURL: gcpBase}, GCP{BaseURL: gcpBase}, Alibaba{BaseURL: closedURL(t)}, Tencent{BaseURL: closedURL(t)}}
	r := Detect(context.Background(), clients, time.Second)
	if want := gcp.want(gcpBase); !reflect.DeepEqual(r.Identity, want) {
		t.Fatalf("Identity = %+v, want %+v", r.Identity, want)
	}
	want := []string{StatusError, StatusError, StatusIdentified, StatusAbsent, StatusAbsent}
	for i, a := range r.Attempts {
		if a.Status != want[i] {
			t.Errorf("attempt %s: status %q (%s), want %q", a.Cloud, a.Status, a.Detail, want[i])
		}
	}
}

// TestAWSWithoutZoneID: an instance whose service has no zone id is still
// identified; one whose document disagrees with the meta-data paths is not.
func TestAWSVariants(t *testing.T) {
	aws := cloudCases()[0]
	f := aws.fake(t)
	delete(f.values, "/latest/meta-data/placement/availability-zone-id")
	base := serve(t, f)
	id, err := AWS{BaseURL: base}.Identify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if id.ZoneID != "" || id.Zone != "us-west-2b" {
		t.Errorf("zone %q id %q, want us-west-2b and no id", id.Zone, id.ZoneID)
	}
	f = aws.fake(t)
	f.values["/latest/meta-data/instance-type"] = "p4d.24xlarge"
	base = serve(t, f)
	_, err = AWS{BaseURL: base}.Identify(context.Background())
	if err == nil || !strings.Contains(err.Error(), "instance-identity/document") || !strings.Contains(err.Error(), "t2.micro") {
		t.Errorf("error %v, want the document's disagreement named", err)
	}
}

// TestAlibabaNormalMode: a service that refuses the token PUT is read without
// a token (normal mode).
func TestAlibabaNormalMode(t *testing.T) {
	ali := cloudCases()[3]
	f := ali.fake(t)
	f.tokenRefused = true
	base := serve(t, f)
	got, err := Alibaba{BaseURL: base}.Identify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := ali.want(base); !reflect.DeepEqual(got, want) {
		t.Errorf("Identify() = %+v, want %+v", got, want)
	}
}

// TestGCPNeedsItsAnswerHeader: a service answering GCP's paths without
// Metadata-Flavor: Google is not GCP's metadata server.
func TestGCPNeedsItsAnswerHeader(t *testing.T) {
	f := cloudCases()[2].fake(t)
	f.answerKey = ""
	base := serve(t, f)
	_, err := GCP{BaseURL: base}.Identify(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Metadata-Flavor") {
		t.Errorf("error %v, want the missing Metadata-Flavor header named", err)
	}
}
