package cli

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// cnOfferFile is a China-partition regional EC2 offer file with one
// product, in the layout of the aws partition's files: g4dn.12xlarge in
// cn-north-1 at 38.849 CNY/h, the price the embedded catalog cites for it
// (karpenter-aws-cn@2024-11-06); the publication date is that source's.
const cnOfferFile = `{"formatVersion":"v1.0","offerCode":"AmazonEC2","publicationDate":"2024-11-06T00:00:00Z","products":{"CNGPUSKU00000001":
{"productFamily":"Compute Instance","sku":"CNGPUSKU00000001","attributes":{"instanceType":"g4dn.12xlarge","gpu":"4","operatingSystem":"Linux","tenancy":"Shared",
"preInstalledSw":"NA","capacitystatus":"Used","marketoption":"OnDemand","location":"China (Beijing)","regionCode":"cn-north-1"}}},
"terms":{"OnDemand":{"CNGPUSKU00000001":{"CNGPUSKU00000001.JRTCKXETXF":{"priceDimensions":{"CNGPUSKU00000001.JRTCKXETXF.6YS6EN2CT7":{"unit":"Hrs",
"pricePerUnit":{"CNY":"38.849"}}},"sku":"CNGPUSKU00000001","offerTermCode":"JRTCKXETXF","termAttributes":{}}}}}}`

// TestRefreshAWSChina: `catalog refresh --provider aws --region cn-north-1`
// without credentials reads the China partition's bulk offer file (a
// loopback fake, throttling once), and offers shows the CNY price cited by
// the refreshed offer file.
func TestRefreshAWSChina(t *testing.T) {
	hermetic(t)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "GPUSCOUT_AWS_PRICES"} {
		t.Setenv(k, "")
	}
	advisor := readFile(t, filepath.Join(shareddata.Dir(t), "price-feeds", "aws-spot-advisor-excerpt.json"))
	var paths []string
	srv := newThrottleOnce(t, "none", func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		switch r.URL.Path {
		case "/offers/v1.0/cn/AmazonEC2/current/cn-north-1/index.json":
			fmt.Fprint(w, cnOfferFile)
		case "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json":
			fmt.Fprint(w, `{"regions":[]}`)
		case "/spot-advisor-data.json":
			w.Write(advisor)
		default:
			http.NotFound(w, r)
		}
	})
	out, errOut, code := run(t, "catalog", "refresh", "--provider", "aws", "--region", "cn-north-1", "--endpoint", srv.URL)
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s\n%s (requests %v)", code, errOut, out, paths)
	}
	if !strings.Contains(out, "no documented Savings Plans price file of the China partition") {
		t.Errorf("summary does not say why no Savings Plans rates:\n%s", out)
	}
	row := refreshedRow(t, "aws", "g4dn.12xlarge", "cn-north-1", "--currency", "CNY")
	if row["price_per_hour"] != 38.849 || row["price_source"] != "aws-offer-ec2-cn-north-1@2024-11-06" || row["price_as_of"] != "2024-11-06" {
		t.Errorf("row %v, want 38.849 CNY/h from aws-offer-ec2-cn-north-1@2024-11-06", row)
	}
}
