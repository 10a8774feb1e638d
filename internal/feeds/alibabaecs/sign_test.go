package alibabaecs

import (
	"net/url"
	"strings"
	"testing"
)

// The worked examples of Alibaba Cloud's signature documentation, byte for
// byte (testdata/SOURCE.md names the pages).
func TestSignV2DocumentedExamples(t *testing.T) {
	for _, tc := range []struct {
		name          string
		params        url.Values
		stringToSign  string
		wantSignature string
	}{{
		// ECS API reference, "Request signatures": DescribeRegions.
		name: "DescribeRegions",
		params: url.Values{"Timestamp": {"2016-02-23T12:46:24Z"}, "Format": {"XML"}, "AccessKeyId": {"testid"},
			"Action": {"DescribeRegions"}, "SignatureMethod": {"HMAC-SHA1"}, "SignatureNonce": {"3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf"},
			"Version": {"2014-05-26"}, "SignatureVersion": {"1.0"}},
		stringToSign: "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1" +
			"%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26",
		wantSignature: "OLeaidS1JvxuMvnyHOwuJ+uX5qY=",
	}, {
		// SDK reference, "Request syntax and signature method V2 for RPC APIs": DescribeDedicatedHosts.
		name: "DescribeDedicatedHosts",
		params: url.Values{"AccessKeyId": {"testid"}, "Action": {"DescribeDedicatedHosts"}, "Format": {"JSON"}, "RegionId": {"cn-beijing"},
			"SignatureMethod": {"HMAC-SHA1"}, "SignatureNonce": {"edb2b34af0af9a6d14deaf7c1a5315eb"}, "SignatureVersion": {"1.0"},
			"Timestamp": {"2023-03-13T08:34:30Z"}, "Version": {"2014-05-26"}},
		stringToSign: "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeDedicatedHosts%26Format%3DJSON%26RegionId%3Dcn-beijing" +
			"%26SignatureMethod%3DHMAC-SHA1%26SignatureNonce%3Dedb2b34af0af9a6d14deaf7c1a5315eb%26SignatureVersion%3D1.0" +
			"%26Timestamp%3D2023-03-13T08%253A34%253A30Z%26Version%3D2014-05-26",
		wantSignature: "9NaGiOspFP5UPcwX8Iwt2YJXXuk=",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stringToSignV2("GET", tc.params); got != tc.stringToSign {
				t.Errorf("string to sign\n got %s\nwant %s", got, tc.stringToSign)
			}
			if got := SignV2("GET", tc.params, "testsecret"); got != tc.wantSignature {
				t.Errorf("signature = %s, want %s", got, tc.wantSignature)
			}
			// A Signature parameter already present is not signed.
			withSig := url.Values{"Signature": {"x"}}
			for k, v := range tc.params {
				withSig[k] = v
			}
			if got := SignV2("GET", withSig, "testsecret"); got != tc.wantSignature {
				t.Errorf("with a Signature parameter: %s, want %s", got, tc.wantSignature)
			}
		})
	}
}

// SDK reference, "Request syntax and signature method V3": RunInstances on
// ecs.cn-shanghai.aliyuncs.com.
func TestSignV3DocumentedExample(t *testing.T) {
	r := V3Request{
		Method: "POST", Path: "/",
		Query: url.Values{"ImageId": {"win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd"}, "RegionId": {"cn-shanghai"}},
		Headers: map[string]string{
			"host":                  "ecs.cn-shanghai.aliyuncs.com",
			"x-acs-action":          "RunInstances",
			"x-acs-content-sha256":  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
			"x-acs-date":            "2023-10-26T10:22:32Z",
			"x-acs-signature-nonce": "3156853299f313e23d1673dc12e1703d",
			"x-acs-version":         "2014-05-26",
			"User-Agent":            "not signed",
		},
	}
	if got := hexSHA256(nil); got != r.Headers["x-acs-content-sha256"] {
		t.Errorf("empty body hash %s", got)
	}
	canonical, _ := canonicalRequestV3(r)
	if got, want := hexSHA256([]byte(canonical)), "7ea06492da5221eba5297e897ce16e55f964061054b7695beedaac1145b1e259"; got != want {
		t.Errorf("hashed canonical request %s, want %s\ncanonical request:\n%s", got, want, canonical)
	}
	want := "ACS3-HMAC-SHA256 Credential=YourAccessKeyId,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version," +
		"Signature=06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0"
	if got := SignV3(r, "YourAccessKeyId", "YourAccessKeySecret"); got != want {
		t.Errorf("authorization\n got %s\nwant %s", got, want)
	}
}

func TestPercentEncode(t *testing.T) {
	for in, want := range map[string]string{
		"a b":                  "a%20b",
		"a*b":                  "a%2Ab",
		"a~b-_.":               "a~b-_.",
		"/":                    "%2F",
		"+":                    "%2B",
		"2016-02-23T12:46:24Z": "2016-02-23T12%3A46%3A24Z",
		"华东1":                  "%E5%8D%8E%E4%B8%9C1",
	} {
		if got := percentEncode(in); got != want {
			t.Errorf("percentEncode(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(percentEncode(in), "+") {
			t.Errorf("%q encoded with a plus", in)
		}
	}
}
