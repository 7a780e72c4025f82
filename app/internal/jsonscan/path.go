package jsonscan

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/burrow-go/burrow/internal/echo"
)

// maxPathEcho bounds a path PathAt spells, as a validation failure's path
// is bounded: 49 levels of 64-byte keys would otherwise repeat 3 KiB.
const maxPathEcho = 1 << 10

// PathAt returns the path, from the top, of the value of data (valid
// JSON) whose token holds the byte at offset off: its keys and indexes
// joined by "/" ("items/0/qty"), each key escaped as in a JSON pointer
// (RFC 6901) and cut to maxKeyEcho bytes, as a validation failure spells
// a path. A bracket belongs to the object or array it opens or closes, a
// key to its member. It is Burrow's own path for encoding/json's type
// errors, which name the element ("items.0.qty") on Go 1.27 and only the
// field ("items.qty") on Go 1.26: both report the error's offset alike.
// ok is false when off is outside data or on no token.
func PathAt(data []byte, off int) (path string, ok bool) {
	type frame struct {
		object bool
		key    string
		index  int
	}
	var stack []frame
	spell := func(frames []frame) (string, bool) {
		var b []byte
		for i, f := range frames {
			if i > 0 {
				b = append(b, '/')
			}
			if f.object {
				b = AppendKey(b, f.key)
			} else {
				b = strconv.AppendInt(b, int64(f.index), 10)
			}
		}
		return echo.Cut(b, maxPathEcho), true
	}
	expectKey := false
	for i := 0; i < len(data) && i <= off; i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\n', '\r', ':':
		case '{', '[':
			if i == off {
				return spell(stack)
			}
			stack = append(stack, frame{object: c == '{'})
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if i == off {
				return spell(stack)
			}
			expectKey = false
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				top.index++
				expectKey = top.object
			}
		case '"':
			j, escaped := stringEnd(data, i)
			if expectKey && len(stack) > 0 {
				// The key as the decoder sees it, escapes resolved and
				// invalid UTF-8 replaced, cut as a validation path cuts one.
				key := string(data[i+1 : min(j, len(data))])
				if escaped || !utf8.ValidString(key) {
					_ = json.Unmarshal(data[i:min(j+1, len(data))], &key)
				}
				stack[len(stack)-1].key = echo.Cut(key, maxKeyEcho)
				expectKey = false
			}
			if off <= j {
				return spell(stack)
			}
			i = j
		default: // a number or a literal
			j := i
			for j < len(data) && !isDelim(data[j]) {
				j++
			}
			if off < j {
				return spell(stack)
			}
			i = j - 1
		}
	}
	return "", false
}

// isDelim reports whether c ends a number or a literal.
func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '}', ']':
		return true
	}
	return false
}

// AppendKey appends key to b as a path spells it: escaped as a JSON
// pointer's reference token (RFC 6901), "~" as "~0" and "/" as "~1", so
// that a key holding a "/" cannot pose as two levels.
func AppendKey(b []byte, key string) []byte {
	for i := range len(key) {
		switch c := key[i]; c {
		case '~':
			b = append(b, "~0"...)
		case '/':
			b = append(b, "~1"...)
		default:
			b = append(b, c)
		}
	}
	return b
}
