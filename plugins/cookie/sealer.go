package cookie

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
)

// Sealer encrypts cookie values so that a client can neither read nor
// change them.
type Sealer struct{ aeads []cipher.AEAD }

// NewSealer returns a Sealer that seals with keys[0] and opens with any
// of keys, each at least MinKeyLen bytes.
func NewSealer(keys ...[]byte) (*Sealer, error) {
	k, err := deriveKeys("NewSealer", "seal", keys)
	if err != nil {
		return nil, err
	}
	s := &Sealer{aeads: make([]cipher.AEAD, len(k))}
	for i, key := range k {
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		if s.aeads[i], err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Seal returns plaintext encrypted and authenticated for the cookie called
// name, in unpadded base64url: a random 12-byte nonce, then the
// ciphertext and its 16-byte tag. The name is authenticated with it, so a
// value sealed for one cookie does not open as another.
func (s *Sealer) Seal(name string, plaintext []byte) string {
	a := s.aeads[0]
	buf := make([]byte, a.NonceSize(), a.NonceSize()+len(plaintext)+a.Overhead())
	rand.Read(buf) // never fails (crypto/rand)
	buf = a.Seal(buf, buf, plaintext, []byte(name))
	return base64.RawURLEncoding.EncodeToString(buf)
}

// Open returns the plaintext of sealed, a value Seal made for the cookie
// called name with one of the Sealer's keys, or ErrInvalid.
func (s *Sealer) Open(name, sealed string) ([]byte, error) {
	if len(sealed) > maxValueLen {
		return nil, ErrInvalid
	}
	raw, err := strict.DecodeString(sealed)
	a := s.aeads[0]
	if err != nil || len(raw) < a.NonceSize()+a.Overhead() {
		return nil, ErrInvalid
	}
	nonce, ct := raw[:a.NonceSize()], raw[a.NonceSize():]
	for _, a := range s.aeads {
		if pt, err := a.Open(nil, nonce, ct, []byte(name)); err == nil {
			return pt, nil
		}
	}
	return nil, ErrInvalid
}
