package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cookie"
	"github.com/burrow-go/burrow/plugins/session"
)

// flow is a log-in in progress, kept in the flow store under the token
// the flow cookie carries: what the callback checks the provider's
// answer against. It never leaves the server.
type flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"` // the PKCE code_verifier
	Expires  int64  `json:"e"` // Unix seconds
}

// random returns 32 bytes from crypto/rand in unpadded base64url: a
// state, a nonce.
func random() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// maxCookieLen is the longest flow cookie looked up.
const maxCookieLen = 512

// errNoFlow is the cause of every refusal of a callback whose browser
// has no log-in of its own in progress: no flow cookie, an unknown,
// expired or used flow, a state that is not the flow's.
var errNoFlow = errors.New("no log-in in progress matches the callback")

// take returns the request's flow and ends it, so that it serves once:
// of two callbacks with one flow cookie, only the first finds it.
func (p *plugin) take(req *httpx.Request) (flow, error) {
	c, err := req.Raw().Cookie(p.flowCookie)
	if err != nil || c.Value == "" || len(c.Value) > maxCookieLen {
		return flow{}, errNoFlow
	}
	ctx := req.Context()
	data, err := p.flows.Load(ctx, c.Value)
	if errors.Is(err, session.ErrNotFound) {
		return flow{}, errNoFlow
	}
	if err != nil {
		return flow{}, err
	}
	lived, err := p.flows.Delete(ctx, c.Value)
	if err != nil {
		return flow{}, err
	}
	var f flow
	if !lived || json.Unmarshal(data, &f) != nil || p.now().Unix() >= f.Expires {
		return flow{}, errNoFlow
	}
	return f, nil
}

// start keeps a new flow and returns the cookie that binds it to the
// browser.
func (p *plugin) start(ctx context.Context) (flow, *http.Cookie, error) {
	f := flow{State: random(), Nonce: random(), Verifier: random(), Expires: p.now().Add(p.ttl).Unix()}
	data, err := json.Marshal(f)
	if err != nil {
		return flow{}, nil, err
	}
	token, err := p.flows.Save(ctx, "", data, p.ttl)
	if err != nil {
		return flow{}, nil, err
	}
	c := p.cookie(token) // #nosec G124 -- made by plugin.cookie
	c.MaxAge = int(p.ttl / time.Second)
	return f, c, nil
}

// cookie is the flow cookie holding value: HttpOnly, Secure unless
// Insecure, SameSite=Lax (a top-level redirect from the provider carries
// it; a cross-site subrequest does not), sent to the callback only.
func (p *plugin) cookie(value string) *http.Cookie {
	c := cookie.New(p.flowCookie, value) // #nosec G124 -- HttpOnly, SameSite Lax; Secure unless Insecure
	c.Path, c.Secure = p.callbackPath, !p.insecure
	return c
}

// same compares two secrets in constant time.
func same(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
