package oidc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/oidc"
	"github.com/burrow-go/burrow/plugins/session"
)

// Register the log-in and send a browser to the provider. The provider
// here is a stand-in that serves its discovery document only.
func Example() {
	var provider *httptest.Server
	provider = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{
			"issuer":                 provider.URL,
			"authorization_endpoint": provider.URL + "/authorize",
			"token_endpoint":         provider.URL + "/token",
			"jwks_uri":               provider.URL + "/keys",
		})
	}))
	defer provider.Close()

	type user struct{ Name, IDToken string }
	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session.Plugin[user](session.NewMemoryStore(), session.Cookie("sid")))
		s.Register(oidc.Plugin(oidc.Client{
			Issuer:      provider.URL,
			ID:          "todo",
			Secret:      "a client secret",
			RedirectURL: "https://todo.example/login/oidc/callback",
		}, func(_ context.Context, id *oidc.Identity) (user, error) {
			return user{Name: id.PreferredUsername, IDToken: id.IDToken}, nil
		}, oidc.EndSession(func(u user) string { return u.IDToken })))
		return nil
	})
	if err := s.Ready(); err != nil {
		panic(err)
	}
	for _, r := range s.Routes() {
		fmt.Println(r.Method, r.Path)
	}

	res, err := s.Inject(httptest.NewRequest("GET", "/login/oidc", nil))
	if err != nil {
		panic(err)
	}
	to, _ := url.Parse(res.Header.Get("Location"))
	fmt.Println(res.StatusCode, strings.TrimPrefix(to.Path, "/"), slices.Sorted(maps.Keys(to.Query())))
	fmt.Println(strings.Split(res.Header.Get("Set-Cookie"), "=")[0])
	// Output:
	// GET /login/oidc
	// GET /login/oidc/callback
	// POST /logout/oidc
	// 303 authorize [client_id code_challenge code_challenge_method nonce redirect_uri response_type scope state]
	// oidc_flow
}
