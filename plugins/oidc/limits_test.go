package oidc_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

// countingStore counts the flow store's loads.
type countingStore struct {
	session.Store
	loads atomic.Int32
}

func (c *countingStore) Load(ctx context.Context, token string) ([]byte, error) {
	c.loads.Add(1)
	return c.Store.Load(ctx, token)
}

// TestOversizedFlowCookie: a flow cookie longer than any the plugin
// sets is refused without asking the store.
func TestOversizedFlowCookie(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	store := &countingStore{Store: session.NewMemoryStore()}
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret", oidc.FlowStore(store))
	b := newBrowser(t)
	res := b.step(t, "GET", base+"/login/oidc/callback?code=x&state=y", nil)
	assert.Equal(t, 403, res.StatusCode)
	assert.Equal(t, int32(0), store.loads.Load(), "no cookie, no load")

	req := httptest.NewRequest("GET", base+"/login/oidc/callback?code=x&state=y", nil)
	req.RequestURI = "" // a client's request
	req.Header.Set("Cookie", "oidc_flow="+strings.Repeat("a", 513))
	r, err := b.Do(req)
	require.NoError(t, err)
	_ = r.Body.Close()
	assert.Equal(t, 403, r.StatusCode)
	assert.Equal(t, int32(0), store.loads.Load(), "an oversized cookie is not looked up")

	req.Header.Set("Cookie", "oidc_flow="+strings.Repeat("a", 512))
	r, err = b.Do(req)
	require.NoError(t, err)
	_ = r.Body.Close()
	assert.Equal(t, 403, r.StatusCode)
	assert.Equal(t, int32(1), store.loads.Load(), "the longest accepted cookie is looked up")
}

// TestFlowCapacity: the default flow store keeps MaxFlows log-ins in
// progress; past it, the oldest is forgotten and its callback refused.
func TestFlowCapacity(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	ln, base := listen(t)
	serveRP(t, ln, base, op.URL, "web-secret")
	first := newBrowser(t)
	cb := begin(t, first, base)
	// More log-ins started than the store keeps: the first is the
	// oldest. The store is sharded, each shard keeping its part of the
	// capacity, so half as many again make sure the first's overflows.
	other := newBrowser(t)
	for range oidc.MaxFlows + oidc.MaxFlows/2 {
		res := other.step(t, "GET", base+"/login/oidc", nil)
		require.Equal(t, 303, res.StatusCode)
	}
	refused(t, first, base, first.step(t, "GET", cb, nil), 403, "FST_OIDC_STATE")
}

// TestRefusalLogIsBounded: the reason a refusal logs is cut, however
// long the provider's (or an attacker's) text.
func TestRefusalLogIsBounded(t *testing.T) {
	t.Parallel()
	op := newFakeOP(t)
	core, logs := observer.New(zapcore.InfoLevel)
	s := apptest.New(t, app.WithLogger(zap.New(core)))
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[account](session.NewMemoryStore(), session.Cookie("sid")))
		return s.Register(oidc.Plugin(oidc.Client{Issuer: op.URL, ID: "todo-web", Secret: "web-secret", RedirectURL: "http://placeholder/login/oidc/callback"},
			func(context.Context, *oidc.Identity) (account, error) { return account{}, nil }))
	})
	base := apptest.Serve(t, s)
	b := newBrowser(t)
	res := b.step(t, "GET", base+"/login/oidc", nil)
	require.Equal(t, 303, res.StatusCode)
	res = b.step(t, "GET", res.Header.Get("Location"), nil)
	cb := mustURL(t, res.Header.Get("Location"))
	q := cb.Query()
	q.Del("code")
	q.Set("error", strings.Repeat("x", 4000))
	res = b.step(t, "GET", base+cb.Path+"?"+q.Encode(), nil)
	require.Equal(t, 403, res.StatusCode, res.Body)
	assert.NotContains(t, res.Body, "xxx")
	refusals := logs.FilterMessage("oidc log-in refused").All()
	require.Len(t, refusals, 1)
	reason, _ := refusals[0].ContextMap()["reason"].(string)
	assert.Equal(t, strings.Repeat("x", 256)+"…", reason)
}
