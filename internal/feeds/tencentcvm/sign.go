package tencentcvm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Signing is what one TC3-HMAC-SHA256 signature covers: Tencent Cloud's
// "Signature v3" (签名方法 v3) for API 3.0 requests.
type Signing struct {
	Method    string            // "POST" or "GET"
	Host      string            // "cvm.tencentcloudapi.com"
	Query     string            // the canonical query string (GET); "" for POST
	Headers   map[string]string // the signed headers; content-type and host are required
	Payload   []byte            // the request body ("" for GET)
	Service   string            // "cvm": the first label of the host
	Timestamp int64             // X-TC-Timestamp, Unix seconds
	SecretID  string
	SecretKey string
}

// signAlgorithm is the only algorithm Signature v3 has.
const signAlgorithm = "TC3-HMAC-SHA256"

// Date is the credential-scope date: the UTC date of the timestamp (a
// request signed after midnight in Beijing but before it in UTC carries the
// UTC date, or the server refuses it).
func (s *Signing) Date() string { return time.Unix(s.Timestamp, 0).UTC().Format("2006-01-02") }

// CanonicalRequest is method, URI "/", query, the signed headers as
// lower-case "key:value" lines in key order, their names, and the
// payload's hex SHA-256.
func (s *Signing) CanonicalRequest() string {
	names := make([]string, 0, len(s.Headers))
	lower := make(map[string]string, len(s.Headers))
	for k, v := range s.Headers {
		lk := strings.ToLower(strings.TrimSpace(k))
		names = append(names, lk)
		lower[lk] = strings.ToLower(strings.TrimSpace(v))
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(s.Method + "\n/\n" + s.Query + "\n")
	for _, n := range names {
		b.WriteString(n + ":" + lower[n] + "\n")
	}
	b.WriteString("\n" + strings.Join(names, ";") + "\n" + sha256Hex(s.Payload))
	return b.String()
}

// SignedHeaders is the ";"-joined lower-case names of the signed headers.
func (s *Signing) SignedHeaders() string {
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, strings.ToLower(strings.TrimSpace(k)))
	}
	sort.Strings(names)
	return strings.Join(names, ";")
}

// StringToSign is the algorithm, the timestamp, the credential scope
// (date/service/tc3_request) and the canonical request's hex SHA-256.
func (s *Signing) StringToSign() string {
	return signAlgorithm + "\n" + strconv.FormatInt(s.Timestamp, 10) + "\n" + s.scope() + "\n" + sha256Hex([]byte(s.CanonicalRequest()))
}

func (s *Signing) scope() string { return s.Date() + "/" + s.Service + "/tc3_request" }

// Signature is the hex HMAC-SHA256 of the string to sign under the key
// derived from "TC3"+SecretKey, the date, the service and "tc3_request".
func (s *Signing) Signature() string {
	k := hmacSHA256([]byte("TC3"+s.SecretKey), s.Date())
	k = hmacSHA256(k, s.Service)
	k = hmacSHA256(k, "tc3_request")
	return hex.EncodeToString(hmacSHA256(k, s.StringToSign()))
}

// Authorization is the Authorization header's value.
func (s *Signing) Authorization() string {
	return signAlgorithm + " Credential=" + s.SecretID + "/" + s.scope() + ", SignedHeaders=" + s.SignedHeaders() + ", Signature=" + s.Signature()
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}
