package catalog

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/money"
)

// FindOffering is the one lookup of --offering: in the region given, else
// in the region where the instance is cheapest on demand; every error says
// what is wrong.
func TestFindOffering(t *testing.T) {
	c := mustDefault(t)
	fx := money.DefaultFX()
	o, err := c.FindOffering("aws/p4d.24xlarge/us-east-1", fx, money.USD)
	if err != nil || o.Region != "us-east-1" || o.InstanceType != "p4d.24xlarge" {
		t.Fatalf("in a region: %v, %v", o, err)
	}
	// No region: the cheapest on demand of all the instance's regions
	// (prices equal to the sources' rounding, 1e-6, tie: spot decides).
	cheapest, err := c.FindOffering("AWS/p4d.24xlarge", fx, money.USD)
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Offerings {
		x := &c.Offerings[i]
		if x.Provider == "aws" && x.InstanceType == "p4d.24xlarge" && x.OnDemand.Known && !x.RetiredOn(time.Now().UTC().Format(time.DateOnly)) && x.OnDemand.Value.InexactFloat64() < cheapest.OnDemand.Value.InexactFloat64()*(1-1e-6) {
			t.Errorf("no region chose %s at %s; %s is cheaper at %s", cheapest.Region, cheapest.OnDemand.Value, x.Region, x.OnDemand.Value)
		}
	}
	for spec, want := range map[string]string{
		"aws":                           "want provider/instance[/region]",
		"nimbus/p4d.24xlarge":           "nimbus",
		"aws/p4d.24xlarg":               "closest: p4d.24xlarge",
		"aws/p4d.24xlarge/mars-1":       `unknown region "mars-1"`,
		"aws/p4d.24xlarge/cn-hangzhou":  "aws lists p4d.24xlarge in 12 region(s), not in cn-hangzhou: ap-northeast-1, ap-northeast-2, ap-south-1,",
		"aws/p4d.24xlarge/us-east-1/x/": "want provider/instance[/region]",
	} {
		_, err := c.FindOffering(spec, fx, money.USD)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %q", spec, err, want)
		}
		var ns *NotOnSaleError
		if errors.As(err, &ns) {
			t.Errorf("%s: %v: a reference the catalog can say is wrong is not NotOnSaleError", spec, err)
		}
	}
}
