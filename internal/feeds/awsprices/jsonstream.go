package awsprices

import (
	"encoding/json"
	"fmt"
)

// maxDepth bounds the nesting skipValue follows: AWS's bodies nest a few
// levels; a deeper value is not one of them.
const maxDepth = 64

// delim reads the next token, which must be the delimiter want.
func delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", t, want)
	}
	return nil
}

// keyOf reads an object key.
func keyOf(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("got %v, want an object key", t)
	}
	return k, nil
}

// skipValue reads past one value token by token, so that a large value the
// parser does not need is never held in memory.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
				if depth > maxDepth {
					return fmt.Errorf("nested deeper than %d levels", maxDepth)
				}
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
