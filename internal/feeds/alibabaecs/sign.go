package alibabaecs

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
)

// percentEncode encodes s as Alibaba Cloud's signatures require (RFC 3986):
// letters, digits, '-', '_', '.' and '~' stay; every other byte of its UTF-8
// form is %XY in upper-case hex, so a space is %20 (never '+') and '*' is %2A.
func percentEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// canonicalQuery sorts the parameters by name and joins the encoded pairs
// with '&' (the canonicalized query string of both signature versions).
// A parameter given twice keeps its values in order.
func canonicalQuery(params url.Values) string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		for _, v := range params[k] {
			parts = append(parts, percentEncode(k)+"="+percentEncode(v))
		}
	}
	return strings.Join(parts, "&")
}

// stringToSignV2 is the RPC signature's (SignatureVersion 1.0) string to
// sign: HTTPMethod & percentEncode("/") & percentEncode(canonical query),
// the parameters without Signature.
func stringToSignV2(method string, params url.Values) string {
	q := make(url.Values, len(params))
	for k, v := range params {
		if k != "Signature" {
			q[k] = v
		}
	}
	return method + "&" + percentEncode("/") + "&" + percentEncode(canonicalQuery(q))
}

// SignV2 returns the RPC request signature (SignatureMethod HMAC-SHA1,
// SignatureVersion 1.0): Base64(HMAC-SHA1(secret + "&", StringToSign)).
// params are all the request's parameters, common ones included.
func SignV2(method string, params url.Values, secret string) string {
	mac := hmac.New(sha1.New, []byte(secret+"&"))
	mac.Write([]byte(stringToSignV2(method, params)))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// V3Request is what the V3 signature (ACS3-HMAC-SHA256) covers.
type V3Request struct {
	Method string
	Path   string // "/" for RPC-style APIs
	Query  url.Values
	// Headers are signed: host, the x-acs-* headers and content-type, as
	// sent (names any case).
	Headers map[string]string
	Body    []byte
}

const v3Algorithm = "ACS3-HMAC-SHA256"

// hexSHA256 is the lower-case hex SHA-256 of b.
func hexSHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// canonicalRequestV3 returns the V3 canonical request and the signed
// header names.
func canonicalRequestV3(r V3Request) (canonical, signed string) {
	hdr := map[string]string{}
	var names []string
	for k, v := range r.Headers {
		lk := strings.ToLower(k)
		if lk == "host" || lk == "content-type" || strings.HasPrefix(lk, "x-acs-") {
			if _, dup := hdr[lk]; !dup {
				names = append(names, lk)
			}
			hdr[lk] = strings.TrimSpace(v)
		}
	}
	sort.Strings(names)
	var ch strings.Builder
	for _, n := range names {
		ch.WriteString(n + ":" + hdr[n] + "\n")
	}
	signed = strings.Join(names, ";")
	path := r.Path
	if path == "" {
		path = "/"
	}
	canonical = strings.Join([]string{r.Method, path, canonicalQuery(r.Query), ch.String(), signed, hexSHA256(r.Body)}, "\n")
	return canonical, signed
}

// SignV3 returns the Authorization header value of the V3 signature:
// "ACS3-HMAC-SHA256 Credential=<id>,SignedHeaders=<names>,Signature=<hex>",
// the signature being HMAC-SHA256(secret, "ACS3-HMAC-SHA256\n" +
// hex(SHA-256(canonical request))). The headers must already carry
// x-acs-content-sha256 (the body's hex SHA-256), x-acs-date and the nonce.
func SignV3(r V3Request, keyID, secret string) string {
	canonical, signed := canonicalRequestV3(r)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(v3Algorithm + "\n" + hexSHA256([]byte(canonical))))
	return v3Algorithm + " Credential=" + keyID + ",SignedHeaders=" + signed + ",Signature=" + hex.EncodeToString(mac.Sum(nil))
}
