package awsprices

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// errNoCredentials says that neither the environment nor the shared
// credentials file gives AWS credentials.
var errNoCredentials = errors.New("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or a [default] profile in ~/.aws/credentials")

// credentials reads the user's AWS credentials as the AWS CLI does, from
// the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN), else from the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, else HOME/.aws/credentials), profile
// AWS_PROFILE or default. Errors name the file and profile, never a key.
func credentials(getenv func(string) string, home string) (aws.Credentials, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if id != "" || secret != "" {
		if id == "" || secret == "" {
			return aws.Credentials{}, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
		}
		return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: getenv("AWS_SESSION_TOKEN"), Source: "environment"}, nil
	}
	path := getenv("AWS_SHARED_CREDENTIALS_FILE")
	if path == "" {
		if home == "" {
			return aws.Credentials{}, errNoCredentials
		}
		path = filepath.Join(home, ".aws", "credentials")
	}
	profile := getenv("AWS_PROFILE")
	if profile == "" {
		profile = "default"
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return aws.Credentials{}, errNoCredentials
	}
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("%s: %w", path, err)
	}
	keys := iniSection(b, profile)
	if keys == nil {
		return aws.Credentials{}, fmt.Errorf("%s: no [%s] profile", path, profile)
	}
	c := aws.Credentials{AccessKeyID: keys["aws_access_key_id"], SecretAccessKey: keys["aws_secret_access_key"],
		SessionToken: keys["aws_session_token"], Source: path}
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return aws.Credentials{}, fmt.Errorf("%s: profile [%s] lacks aws_access_key_id or aws_secret_access_key", path, profile)
	}
	return c, nil
}

// iniSection returns the key = value pairs of [name] in an INI file, or nil.
func iniSection(b []byte, name string) map[string]string {
	var out map[string]string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			in = strings.TrimSpace(line[1:len(line)-1]) == name
			if in && out == nil {
				out = map[string]string{}
			}
		case in:
			if k, v, ok := strings.Cut(line, "="); ok {
				out[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// sign signs r (whose body is body) with AWS Signature Version 4 using the
// AWS SDK's signer.
func sign(ctx context.Context, c aws.Credentials, r *http.Request, body []byte, service, region string, now time.Time) error {
	sum := sha256.Sum256(body)
	return v4.NewSigner().SignHTTP(ctx, c, r, hex.EncodeToString(sum[:]), service, region, now)
}
