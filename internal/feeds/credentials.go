package feeds

import "errors"

// CredentialHelper is implemented by an importer whose live fetch needs the
// user's credentials: CredentialHelp says, in one line, which environment
// variables or config file it reads them from
// ("ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, or
// ~/.aliyun/config.json"). It never contains a credential.
type CredentialHelper interface {
	CredentialHelp() string
}

// ErrNoCredentials is what Fetch wraps when it finds no credentials: the
// refresh then stops with a usage error naming where they are read from
// (CredentialHelp).
var ErrNoCredentials = errors.New("no credentials found")
