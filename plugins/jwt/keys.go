package jwt

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// minRSABits is the smallest RSA modulus a key may have: shorter keys are
// refused, whether given or fetched.
const minRSABits = 2048

// minSecret is the shortest HMAC secret Secret accepts: RFC 7518 §3.2
// asks for a key at least as long as the hash, 32 bytes for HS256.
const minSecret = 32

// key is one verification key with the algorithms it may verify. The
// list is the allow-list: a token whose header names another algorithm
// is refused, whatever the header says. An asymmetric key never gets an
// HMAC algorithm, so a token "signed" with a public key as an HMAC
// secret finds no key that accepts it.
type key struct {
	kid  string
	raw  any // *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey or []byte
	algs []jwa.SignatureAlgorithm
}

// allows reports whether k verifies alg, and the algorithm value to
// verify with.
func (k *key) allows(alg string) (jwa.SignatureAlgorithm, bool) {
	for _, a := range k.algs {
		if a.String() == alg {
			return a, true
		}
	}
	return jwa.EmptySignatureAlgorithm(), false
}

// publicAlgs is the allow-list of a public key: the algorithms of its
// type (and curve), narrowed to named when the key names one.
func publicAlgs(raw any, named string) ([]jwa.SignatureAlgorithm, error) {
	var algs []jwa.SignatureAlgorithm
	switch k := raw.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("an RSA key of %d bits is too short: at least %d", k.N.BitLen(), minRSABits)
		}
		algs = []jwa.SignatureAlgorithm{jwa.RS256(), jwa.RS384(), jwa.RS512(), jwa.PS256(), jwa.PS384(), jwa.PS512()}
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			algs = []jwa.SignatureAlgorithm{jwa.ES256()}
		case elliptic.P384():
			algs = []jwa.SignatureAlgorithm{jwa.ES384()}
		case elliptic.P521():
			algs = []jwa.SignatureAlgorithm{jwa.ES512()}
		default:
			return nil, errors.New("an EC key on an unsupported curve")
		}
	case ed25519.PublicKey:
		algs = []jwa.SignatureAlgorithm{jwa.EdDSA(), jwa.EdDSAEd25519()}
	default:
		return nil, fmt.Errorf("a key of type %T is not a public key for signatures", raw)
	}
	if named == "" {
		return algs, nil
	}
	i := slices.IndexFunc(algs, func(a jwa.SignatureAlgorithm) bool { return a.String() == named })
	if i < 0 {
		return nil, fmt.Errorf("the key's algorithm %q does not fit its type", named)
	}
	return algs[i : i+1], nil
}

// fromJWK turns one member of a JWK set into a key, or says why it is
// left out: symmetric keys (a JWKS is public), keys for encryption,
// private keys, unknown types.
func fromJWK(k jwk.Key) (*key, error) {
	if use, ok := k.KeyUsage(); ok && use != "sig" {
		return nil, fmt.Errorf("the key is for %q, not signatures", use)
	}
	if k.KeyType() == jwa.OctetSeq() {
		return nil, errors.New("a symmetric key in a key set is never used")
	}
	var raw any
	if err := jwk.Export(k, &raw); err != nil {
		return nil, fmt.Errorf("the key cannot be read: %w", err)
	}
	switch r := raw.(type) {
	case *rsa.PrivateKey:
		raw = &r.PublicKey
	case *ecdsa.PrivateKey:
		raw = &r.PublicKey
	case ed25519.PrivateKey:
		raw = r.Public()
	}
	var named string
	if a, ok := k.Algorithm(); ok {
		named = a.String()
	}
	algs, err := publicAlgs(raw, named)
	if err != nil {
		return nil, err
	}
	kid, _ := k.KeyID()
	return &key{kid: kid, raw: raw, algs: algs}, nil
}

// keySet is the keys a verifier has, as one immutable value: a fetch
// replaces it whole.
type keySet struct {
	byID map[string][]*key
	all  []*key
}

func newKeySet(keys []*key) *keySet {
	s := &keySet{byID: map[string][]*key{}, all: keys}
	for _, k := range keys {
		s.byID[k.kid] = append(s.byID[k.kid], k)
	}
	return s
}

// find returns the keys a token naming kid may be verified with: those
// of that id, or, for a token naming none, every key.
func (s *keySet) find(kid string) []*key {
	if s == nil {
		return nil
	}
	if kid == "" {
		return s.all
	}
	return s.byID[kid]
}

// parseSet reads a JWK set, keeping the keys usable for signatures.
// Each key is parsed on its own, so one the plugin cannot use (a type
// it does not know, a short RSA key) leaves the others usable. A set
// without a usable key is an error: replacing good keys by none would
// refuse every token.
func parseSet(body []byte) (*keySet, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the key set cannot be read: %w", err)
	}
	var keys []*key
	var skipped error
	for _, raw := range set.Keys {
		k, err := jwk.ParseKey(raw)
		if err != nil {
			skipped = err
			continue
		}
		got, err := fromJWK(k)
		if err != nil {
			skipped = err
			continue
		}
		keys = append(keys, got)
	}
	if len(keys) == 0 {
		if skipped != nil {
			return nil, fmt.Errorf("the key set holds no usable signature key: %w", skipped)
		}
		return nil, errors.New("the key set holds no key")
	}
	return newKeySet(keys), nil
}

// hmacAlgs is the allow-list of a secret given with Secret.
var hmacAlgs = []jwa.SignatureAlgorithm{jwa.HS256()}
