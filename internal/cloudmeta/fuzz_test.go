package cloudmeta

import (
	"os"
	"testing"
)

// FuzzParseDocuments feeds anything to the two JSON parsers (AWS's identity
// document, Azure's instance document): no panic, and what they accept has
// well-formed required fields.
func FuzzParseDocuments(f *testing.F) {
	for _, name := range []string{"testdata/aws-identity-document.json", "testdata/azure-instance.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"compute":{"vmSize":"Standard_ND96asr_v4","location":"eastus","zone":"1"}}`))
	f.Add([]byte(`{"instanceType":"p4d.24xlarge","region":"us-east-1","instanceId":"i-0"}`))
	f.Add([]byte(`{"compute":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := ParseAWSIdentityDocument(b); err == nil {
			for _, v := range []string{d.InstanceType, d.Region, d.InstanceID} {
				if checkValue(v) != nil {
					t.Errorf("accepted a document with %q", v)
				}
			}
		}
		if d, err := ParseAzureInstance(b); err == nil {
			for _, v := range []string{d.Compute.VMSize, d.Compute.Location} {
				if checkValue(v) != nil {
					t.Errorf("accepted a document with %q", v)
				}
			}
		}
	})
}
