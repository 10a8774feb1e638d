package feedstest

import (
	"bufio"
	"fmt"
	"io"
)

// BigOfferOptions size a synthetic AWS EC2 regional offer file.
type BigOfferOptions struct {
	// Products is how many products the file lists (a real regional EC2
	// offer file has some 100,000–400,000); every GPUEvery-th is a GPU
	// instance (default 25), the rest CPU instances, with the operating
	// systems, tenancies, capacity statuses and pre-installed software of
	// the real file, so an importer filters as it would there.
	Products int
	GPUEvery int
	// Region and Location name the region ("us-east-1", "US East (N. Virginia)").
	Region, Location string
}

// BigOfferStats says what BigOffer wrote, for a test's expectations.
type BigOfferStats struct {
	Bytes    int64
	Products int
	// GPUOnDemand counts the GPU products an importer following AWS's own
	// filter keeps (Linux, Shared tenancy, capacitystatus Used,
	// preInstalledSw NA): one on-demand price each.
	GPUOnDemand int
	// Reserved counts the Reserved terms written (of those GPU products:
	// 1yr and 3yr, standard and convertible, three purchase options).
	Reserved int
}

var bigOfferGPUTypes = []struct {
	typ, gpu, gpuMem, vcpu, mem string
	count                       int
}{
	{"p4d.24xlarge", "8", "320 GB", "96", "1152 GiB", 8},
	{"p5.48xlarge", "8", "640 GB", "192", "2048 GiB", 8},
	{"g5.xlarge", "1", "24 GB", "4", "16 GiB", 1},
	{"g6.12xlarge", "4", "96 GB", "48", "192 GiB", 4},
	{"g4dn.2xlarge", "1", "16 GB", "8", "32 GiB", 1},
}

var bigOfferCPUTypes = []string{"c5.xlarge", "m5.large", "r6i.2xlarge", "t3.micro", "c7g.4xlarge", "m7i.8xlarge"}

// The real file's variants of one instance type: only the first is the
// on-demand Linux price an importer keeps.
var bigOfferVariants = []struct{ os, tenancy, capacity, sw, operation string }{
	{"Linux", "Shared", "Used", "NA", "RunInstances"},
	{"Windows", "Shared", "Used", "NA", "RunInstances:0002"},
	{"Linux", "Dedicated", "Used", "NA", "RunInstances"},
	{"Linux", "Shared", "UnusedCapacityReservation", "NA", "RunInstances"},
	{"Linux", "Shared", "Used", "SQL Web", "RunInstances:0200"},
	{"RHEL", "Shared", "Used", "NA", "RunInstances:0010"},
	{"Linux", "Host", "Used", "NA", "RunInstances"},
}

// BigOffer writes a synthetic AWS EC2 regional offer file to w: the Price
// List bulk format of ../shared/data/price-feeds/aws-offer-ec2-us-west-2-excerpt.json
// (formatVersion, products keyed by SKU with their attributes, then
// terms.OnDemand and terms.Reserved keyed by SKU and term, with price
// dimensions; Reserved terms with an "Upfront Fee" Quantity dimension and an
// hourly one). It streams, so a file of any size costs no memory, and is
// deterministic. It is a performance fixture for importers' benchmarks
// (MB/s, memory): its SKUs and prices are synthetic and must never reach a
// catalog.
func BigOffer(w io.Writer, o BigOfferOptions) (BigOfferStats, error) {
	if o.GPUEvery <= 0 {
		o.GPUEvery = 25
	}
	if o.Region == "" {
		o.Region, o.Location = "us-east-1", "US East (N. Virginia)"
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	st := BigOfferStats{Products: o.Products}
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p(`{
  "formatVersion" : "v1.0",
  "disclaimer" : "Synthetic offer file written by gpuscout's feedstest.BigOffer for benchmarks; not AWS prices.",
  "offerCode" : "AmazonEC2",
  "version" : "20261130000000",
  "publicationDate" : "2026-11-30T00:00:00Z",
  "products" : {
`)
	isGPU := func(i int) bool { return i%o.GPUEvery == 0 }
	for i := range o.Products {
		sku := bigOfferSKU(i)
		v := bigOfferVariants[(i/o.GPUEvery)%len(bigOfferVariants)]
		if !isGPU(i) {
			v = bigOfferVariants[i%len(bigOfferVariants)]
		}
		if i > 0 {
			p(",\n")
		}
		p(`    "%s" : {
      "sku" : "%s",
      "productFamily" : "Compute Instance",
      "attributes" : {
        "servicecode" : "AmazonEC2",
        "location" : "%s",
        "locationType" : "AWS Region",
        "regionCode" : "%s",
`, sku, sku, o.Location, o.Region)
		if isGPU(i) {
			g := bigOfferGPUTypes[(i/o.GPUEvery)%len(bigOfferGPUTypes)]
			p(`        "instanceType" : "%s",
        "instanceFamily" : "GPU instance",
        "vcpu" : "%s",
        "memory" : "%s",
        "gpu" : "%s",
        "gpuMemory" : "%s",
`, g.typ, g.vcpu, g.mem, g.gpu, g.gpuMem)
			if v.os == "Linux" && v.tenancy == "Shared" && v.capacity == "Used" && v.sw == "NA" {
				st.GPUOnDemand++
			}
		} else {
			p(`        "instanceType" : "%s",
        "instanceFamily" : "General purpose",
        "vcpu" : "4",
        "memory" : "16 GiB",
`, bigOfferCPUTypes[i%len(bigOfferCPUTypes)])
		}
		p(`        "storage" : "EBS only",
        "networkPerformance" : "Up to 10 Gigabit",
        "processorArchitecture" : "64-bit",
        "tenancy" : "%s",
        "operatingSystem" : "%s",
        "licenseModel" : "No License required",
        "usagetype" : "BoxUsage",
        "operation" : "%s",
        "capacitystatus" : "%s",
        "preInstalledSw" : "%s",
        "servicename" : "Amazon Elastic Compute Cloud"
      }
    }`, v.tenancy, v.os, v.operation, v.capacity, v.sw)
	}
	p("\n  },\n  \"terms\" : {\n    \"OnDemand\" : {\n")
	for i := range o.Products {
		sku := bigOfferSKU(i)
		if i > 0 {
			p(",\n")
		}
		p(`      "%s" : {
        "%s.JRTCKXETXF" : {
          "offerTermCode" : "JRTCKXETXF",
          "sku" : "%s",
          "effectiveDate" : "2026-11-01T00:00:00Z",
          "priceDimensions" : {
            "%s.JRTCKXETXF.6YS6EN2CT7" : {
              "rateCode" : "%s.JRTCKXETXF.6YS6EN2CT7",
              "description" : "synthetic per On Demand instance hour",
              "beginRange" : "0",
              "endRange" : "Inf",
              "unit" : "Hrs",
              "pricePerUnit" : {
                "USD" : "%d.%04d000000"
              },
              "appliesTo" : [ ]
            }
          },
          "termAttributes" : { }
        }
      }`, sku, sku, sku, sku, sku, 1+i%40, (i*7919)%10000)
	}
	p("\n    },\n    \"Reserved\" : {\n")
	first := true
	for i := 0; i < o.Products; i += o.GPUEvery {
		sku := bigOfferSKU(i)
		if !first {
			p(",\n")
		}
		first = false
		p("      \"%s\" : {\n", sku)
		n := 0
		for _, lease := range []string{"1yr", "3yr"} {
			for _, class := range []string{"standard", "convertible"} {
				for _, opt := range []string{"No Upfront", "Partial Upfront", "All Upfront"} {
					code := fmt.Sprintf("R%02d%07d", n, i%10000000)
					if n > 0 {
						p(",\n")
					}
					n++
					st.Reserved++
					p(`        "%s.%s" : {
          "offerTermCode" : "%s",
          "sku" : "%s",
          "effectiveDate" : "2026-11-01T00:00:00Z",
          "priceDimensions" : {
            "%s.%s.2TG2D8R56U" : {
              "rateCode" : "%s.%s.2TG2D8R56U",
              "description" : "Upfront Fee",
              "unit" : "Quantity",
              "pricePerUnit" : {
                "USD" : "%d"
              },
              "appliesTo" : [ ]
            },
            "%s.%s.6YS6EN2CT7" : {
              "rateCode" : "%s.%s.6YS6EN2CT7",
              "description" : "synthetic reserved instance applied",
              "beginRange" : "0",
              "endRange" : "Inf",
              "unit" : "Hrs",
              "pricePerUnit" : {
                "USD" : "%d.%04d000000"
              },
              "appliesTo" : [ ]
            }
          },
          "termAttributes" : {
            "LeaseContractLength" : "%s",
            "OfferingClass" : "%s",
            "PurchaseOption" : "%s"
          }
        }`, sku, code, code, sku, sku, code, sku, code, 1000*(n%3), sku, code, sku, code, n%3, (i*31)%10000, lease, class, opt)
				}
			}
		}
		p("\n      }")
	}
	p("\n    }\n  }\n}\n")
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes = cw.n
	return st, cw.err
}

// bigOfferSKU is a 16-character SKU of the real file's alphabet.
func bigOfferSKU(i int) string {
	const alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	b := make([]byte, 16)
	x := uint64(i)*0x9E3779B97F4A7C15 + 0x1234567
	for j := range b {
		b[j] = alphabet[x%uint64(len(alphabet))]
		x = x/uint64(len(alphabet)) ^ uint64(i+j)*0x5851F42D4C957F2D
	}
	// The index in the last characters keeps SKUs unique.
	s := fmt.Sprintf("%s%07d", b[:9], i)
	return s
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
