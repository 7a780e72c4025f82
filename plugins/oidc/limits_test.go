package oidc_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
