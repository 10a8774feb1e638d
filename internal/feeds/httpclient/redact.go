package httpclient

import (
	"net/url"
	"strings"
)

// secretParams are query parameters that carry a credential or a signature
// in the providers' APIs: AWS SigV4 presigned URLs, Alibaba RPC
// (AccessKeyId, Signature), GCP API keys (key), tokens.
var secretParams = []string{
	"signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
	"accesskeyid", "securitytoken", "key", "api-key", "apikey", "access_token", "token",
	"secretid", "secret", "password", "sig", "code",
}

// Redact writes u for logs and errors: its user info and the values of
// credential-carrying query parameters replaced by REDACTED.
func Redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	r.User = nil
	if r.RawQuery != "" {
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil {
			r.RawQuery = "REDACTED"
		} else {
			for k, vs := range q {
				if secretParam(k) {
					for i := range vs {
						vs[i] = "REDACTED"
					}
				}
			}
			r.RawQuery = q.Encode()
		}
	}
	return r.String()
}

func secretParam(k string) bool {
	k = strings.ToLower(k)
	for _, s := range secretParams {
		if k == s {
			return true
		}
	}
	return false
}
