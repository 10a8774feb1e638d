package awsprices

// locations maps the Price List's location names to region codes, for
// files older than the regionCode attribute (the 2018 offer file excerpt in
// shared/data has none). Newer files carry regionCode, which wins; a
// regional offer file's region is also known from its URL (ListOptions.Region).
var locations = map[string]string{
	"US East (N. Virginia)":   "us-east-1",
	"US East (Ohio)":          "us-east-2",
	"US West (N. California)": "us-west-1",
	"US West (Oregon)":        "us-west-2",
	"EU (Ireland)":            "eu-west-1",
	"Europe (Ireland)":        "eu-west-1",
}
