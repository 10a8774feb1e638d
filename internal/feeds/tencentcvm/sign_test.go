package tencentcvm

import "testing"

// TestSignatureDocumentedExamples signs the worked examples of Tencent
// Cloud's "Signature v3" (签名方法 v3) page and wants every intermediate
// value and the Authorization header byte for byte.
//
//   - POST: the current revision of the page (cloud.tencent.com/document/api/213/30654):
//     DescribeInstances with the body below, timestamp 1551113065, the
//     SecretKey exactly as the page prints it (partly masked), content-type,
//     host and x-tc-action signed.
//   - GET: the earlier revision (still on tencentcloud.com's Japanese pages):
//     Limit=10&Offset=0, timestamp 1539084154, SecretKey
//     Gu5t9xGARNpq86cd98joQYCN3EXAMPLE, content-type and host signed.
func TestSignatureDocumentedExamples(t *testing.T) {
	tests := []struct {
		name                        string
		s                           Signing
		canonicalHash, payloadHash  string
		stringToSign, authorization string
	}{
		{
			name: "POST DescribeInstances (x-tc-action signed)",
			s: Signing{
				Method: "POST", Host: "cvm.tencentcloudapi.com", Service: "cvm", Timestamp: 1551113065,
				Headers:  map[string]string{"Content-Type": "application/json; charset=utf-8", "Host": "cvm.tencentcloudapi.com", "X-TC-Action": "DescribeInstances"},
				Payload:  []byte(`{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}`),
				SecretID: "AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******", SecretKey: "Gu5t9xGARNpq86cd98joQYCN3*******",
			},
			payloadHash:   "35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064",
			canonicalHash: "7019a55be8395899b900fb5564e4200d984910f34794a27cb3fb7d10ff6a1e84",
			stringToSign:  "TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n7019a55be8395899b900fb5564e4200d984910f34794a27cb3fb7d10ff6a1e84",
			authorization: "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=be4f67d323c78ab9acb7395e43c0dbcf822a9cfac32fea2449a7bc7726b770a3",
		},
		{
			name: "GET Limit=10&Offset=0",
			s: Signing{
				Method: "GET", Host: "cvm.tencentcloudapi.com", Service: "cvm", Timestamp: 1539084154, Query: "Limit=10&Offset=0",
				Headers:  map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Host": "cvm.tencentcloudapi.com"},
				SecretID: "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE", SecretKey: "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE",
			},
			payloadHash:   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
			canonicalHash: "91c9c192c14460df6c1ffc69e34e6c5e90708de2a6d282cccf957dbf1aa7f3a7",
			stringToSign:  "TC3-HMAC-SHA256\n1539084154\n2018-10-09/cvm/tc3_request\n91c9c192c14460df6c1ffc69e34e6c5e90708de2a6d282cccf957dbf1aa7f3a7",
			authorization: "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2018-10-09/cvm/tc3_request, SignedHeaders=content-type;host, Signature=5da7a33f6993f0614b047e5df4582db9e9bf4672ba50567dba16c6ccf174c474",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sha256Hex(tc.s.Payload); got != tc.payloadHash {
				t.Errorf("payload hash = %s, want %s", got, tc.payloadHash)
			}
			if got := sha256Hex([]byte(tc.s.CanonicalRequest())); got != tc.canonicalHash {
				t.Errorf("canonical request hash = %s, want %s\ncanonical request:\n%s", got, tc.canonicalHash, tc.s.CanonicalRequest())
			}
			if got := tc.s.StringToSign(); got != tc.stringToSign {
				t.Errorf("string to sign = %q, want %q", got, tc.stringToSign)
			}
			if got := tc.s.Authorization(); got != tc.authorization {
				t.Errorf("Authorization =\n%s\nwant\n%s", got, tc.authorization)
			}
		})
	}
}

// TestSignatureDateIsUTC: 00:44 on 2019-02-26 in Beijing is still
// 2019-02-25 in UTC, the date the page says the scope must carry.
func TestSignatureDateIsUTC(t *testing.T) {
	s := Signing{Timestamp: 1551113065}
	if got := s.Date(); got != "2019-02-25" {
		t.Errorf("Date() = %s, want 2019-02-25", got)
	}
}
