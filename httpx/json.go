package httpx

import (
	"strconv"
	"unicode/utf8"
)

// JSONAppender is implemented by a reply type that writes its own JSON:
// Send calls AppendJSON instead of encoding/json, so a type whose shape
// is known (fixed fields, known omissions) is encoded without
// reflection. AppendJSON appends one complete JSON value to dst and
// returns the extended slice. Burrow does not re-check the output, so
// test it against encoding/json; [AppendJSONString] writes strings the
// way Send's encoder does.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, exactly as Send encodes
// strings: quotes, backslashes and control characters escaped, invalid
// UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped (JavaScript reads
// them as line ends), and "<", ">" and "&" left as they are. Send encodes
// with encoding/json, whose bytes for invalid UTF-8 depend on the Go
// toolchain: the escape \ufffd on Go 1.26, the character U+FFFD itself on
// Go 1.27 (encoding/json/v2 underneath); AppendJSONString writes what the
// toolchain it is built with writes.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, replacement...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSON appends b as Send's encoder writes it (Fastify's key order,
// code and validation left out when empty), without reflection: every
// refusal is encoded this way, so a flood of bad requests costs no more
// to answer than good ones. It is not the exported JSONAppender method on
// purpose: a user's type embedding ErrorBody would inherit it and lose
// its own fields.
func (b ErrorBody) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"statusCode":`...)
	dst = strconv.AppendInt(dst, int64(b.StatusCode), 10)
	if b.Code != "" {
		dst = append(dst, `,"code":`...)
		dst = AppendJSONString(dst, b.Code)
	}
	dst = append(dst, `,"error":`...)
	dst = AppendJSONString(dst, b.Error)
	dst = append(dst, `,"message":`...)
	dst = AppendJSONString(dst, b.Message)
	if len(b.Validation) > 0 {
		dst = appendFieldErrors(append(dst, `,"validation":`...), b.Validation)
	}
	return append(dst, '}')
}

// appendFieldErrors appends fs as a JSON array, as Send's encoder writes
// it.
func appendFieldErrors(dst []byte, fs []FieldError) []byte {
	dst = append(dst, '[')
	for i, f := range fs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"path":`...)
		dst = AppendJSONString(dst, f.Path)
		dst = append(dst, `,"rule":`...)
		dst = AppendJSONString(dst, f.Rule)
		dst = append(dst, `,"message":`...)
		dst = AppendJSONString(dst, f.Message)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
