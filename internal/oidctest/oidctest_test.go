package oidctest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/internal/oidctest"
)

// TestStart: the provider answers its discovery document under the
// issuer Start returns.
func TestStart(t *testing.T) {
	t.Parallel()
	issuer := oidctest.Start(t)
	res, err := http.Get(issuer + ".well-known/openid-configuration")
	require.NoError(t, err)
	defer res.Body.Close()
	var doc struct {
		Issuer     string `json:"issuer"`
		EndSession string `json:"end_session_endpoint"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&doc))
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, issuer, doc.Issuer)
	assert.NotEmpty(t, doc.EndSession)
}
