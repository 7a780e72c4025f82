package cookie

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Signer signs cookie values so that a client cannot change them.
type Signer struct{ keys [][]byte }

// NewSigner returns a Signer that signs with keys[0] and verifies with
// any of keys, each at least MinKeyLen bytes.
func NewSigner(keys ...[]byte) (*Signer, error) {
	k, err := deriveKeys("NewSigner", "sign", keys)
	if err != nil {
		return nil, err
	}
	return &Signer{keys: k}, nil
}

// strict decodes base64url refusing non-zero padding bits, so that no two
// spellings of a value verify: a signed or sealed value is malleable in
// no byte.
var strict = base64.RawURLEncoding.Strict()

// sigLen is the length of a signature as written: 32 bytes in unpadded
// base64url.
var sigLen = base64.RawURLEncoding.EncodedLen(sha256.Size)

// Sign returns value followed by "." and the signature of name and
// value, to be the value of the cookie called name. value is sent as it
// is: it must be a valid cookie value (no space, quote, comma, semicolon
// or backslash; base64url is); a Sealer takes any bytes.
func (s *Signer) Sign(name, value string) string {
	var sum [sha256.Size]byte
	var out strings.Builder
	out.Grow(len(value) + 1 + sigLen)
	out.WriteString(value)
	out.WriteByte('.')
	b := base64.RawURLEncoding.AppendEncode(nil, mac(s.keys[0], name, value, sum[:0]))
	out.Write(b)
	return out.String()
}

// Verify returns the value of signed, a value Sign made for the cookie
// called name with one of the Signer's keys, or ErrInvalid.
func (s *Signer) Verify(name, signed string) (string, error) {
	if len(signed) > maxValueLen || len(signed) < sigLen+1 || signed[len(signed)-sigLen-1] != '.' {
		return "", ErrInvalid
	}
	value := signed[:len(signed)-sigLen-1]
	var got, want [sha256.Size]byte
	n, err := strict.Decode(got[:], []byte(signed[len(signed)-sigLen:]))
	if err != nil || n != sha256.Size {
		return "", ErrInvalid
	}
	ok := 0
	for _, k := range s.keys { // every key, so the time does not tell which one matched
		ok |= boolInt(hmac.Equal(got[:], mac(k, name, value, want[:0])))
	}
	if ok == 0 {
		return "", ErrInvalid
	}
	return value, nil
}

// mac appends to dst the HMAC-SHA256 under key of name and value,
// separated by a byte no cookie name holds, so that ("a", "b=c") and
// ("a=b", "c") differ.
func mac(key []byte, name, value string, dst []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(value))
	return h.Sum(dst)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
