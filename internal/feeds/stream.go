package feeds

import (
	"encoding/json"
	"fmt"
	"io"
)

// StreamPages reads a paged JSON API response, or a file of several such
// responses one after another: top-level objects whose array field named
// itemsKey holds the records. Each record is decoded into a fresh T and
// handed to each as it is read, so a page of thousands is never held at
// once; every other field goes to field (nil: skipped), which must consume
// the field's value from dec. It returns how many records it read. Errors
// name what (the format, "gcp-skus") and the field or record.
func StreamPages[T any](r io.Reader, what, itemsKey string, each func(*T) error, field func(key string, dec *json.Decoder) error) (int, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	objects, items := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF && objects > 0 {
			return items, nil
		}
		if err != nil {
			return items, fmt.Errorf("%s: %w", what, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return items, fmt.Errorf("%s: the body is not a JSON object (an API response)", what)
		}
		objects++
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return items, fmt.Errorf("%s: %w", what, err)
			}
			key, _ := kt.(string)
			switch {
			case key == itemsKey:
				if err := ExpectDelim(dec, '['); err != nil {
					return items, fmt.Errorf("%s: %s: %w", what, key, err)
				}
				for dec.More() {
					var v T
					if err := dec.Decode(&v); err != nil {
						return items, fmt.Errorf("%s: %s[%d]: %w", what, key, items, err)
					}
					items++
					if err := each(&v); err != nil {
						return items, err
					}
				}
				if err := ExpectDelim(dec, ']'); err != nil {
					return items, fmt.Errorf("%s: %s: %w", what, key, err)
				}
			case field != nil:
				if err := field(key, dec); err != nil {
					return items, fmt.Errorf("%s: %s: %w", what, key, err)
				}
			default:
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return items, fmt.Errorf("%s: %s: %w", what, key, err)
				}
			}
		}
		if err := ExpectDelim(dec, '}'); err != nil {
			return items, fmt.Errorf("%s: %w", what, err)
		}
	}
}

// ExpectDelim reads the next token and fails unless it is the delimiter want.
func ExpectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}
