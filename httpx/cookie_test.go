package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

// TestCookiesFollowTheRequest: the cookie helpers read and write the
// request being served, and panic like every other method once it ended.
func TestCookiesFollowTheRequest(t *testing.T) {
	t.Parallel()
	var x httpx.Exchange
	raw := httptest.NewRequest(http.MethodGet, "/", nil)
	raw.Header.Set("Cookie", "a=1; b=2")
	w := httptest.NewRecorder()
	req, rep := x.Begin(w, raw, nil, nil, 1, "", nil)

	c, err := req.Cookie("b")
	require.NoError(t, err)
	assert.Equal(t, "2", c.Value)
	_, err = req.Cookie("c")
	assert.ErrorIs(t, err, http.ErrNoCookie)
	assert.Len(t, req.Cookies(), 2)
	assert.Same(t, rep, rep.SetCookie(&http.Cookie{Name: "a", Value: "3"}), "SetCookie chains")
	assert.Equal(t, []string{"a=3"}, w.Header().Values("Set-Cookie"))

	d := req.Detached()
	x.End()
	assert.PanicsWithError(t, "httpx.Request used after its handler returned; "+
		"keep the values a goroutine needs (ID, headers, decoded input, context, logger), not the *httpx.Request",
		func() { req.Cookies() })
	assert.Panics(t, func() { _, _ = req.Cookie("a") })
	assert.PanicsWithError(t, "httpx.Reply used after its handler returned; "+
		"a reply is sent before the handler (or the hook) returns",
		func() { rep.SetCookie(&http.Cookie{Name: "a", Value: "4"}) })
	assert.Equal(t, []string{"a=3"}, w.Header().Values("Set-Cookie"), "nothing written after the end")
	c, err = d.Cookie("a")
	require.NoError(t, err, "a detached request keeps its cookies")
	assert.Equal(t, "1", c.Value)
}
