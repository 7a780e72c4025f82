// Command oidcop runs the OpenID Provider of github.com/zitadel/oidc,
// with the in-memory storage of its example server, for the tests of
// package jwt: it listens on a free loopback port, prints its issuer URL
// on the first line of its output, and serves until killed.
//
// The example server's clients get opaque access tokens; this one gives
// its client-credentials clients (the example's service user "sid1",
// secret "verysecret") JWT access tokens for the audience given with
// -audience, holding the scopes asked for in their "scope" claim, which
// is what an API's verifier sees of a real provider.
//
// With -web-client ID:SECRET it also has a web client for browser
// log-in (authorization code, with PKCE when the client sends a
// challenge), whose redirect URIs and post-logout redirect URIs are the
// doublestar patterns given with -redirect-uris and -post-logout-uris
// (comma-separated), such as "http://127.0.0.1:*/login/oidc/callback":
// the tests of plugins/oidc start their server on a free port. Its ID
// tokens carry the profile's claims (preferred_username, email). The
// example's users log in on its login page, "test-user2" with the
// password "verysecure".
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

func main() {
	audience := flag.String("audience", "api", "the aud of the access tokens")
	webFlag := flag.String("web-client", "", "ID:SECRET of a web client for browser log-in")
	redirects := flag.String("redirect-uris", "", "the web client's redirect URI patterns, comma-separated")
	logouts := flag.String("post-logout-uris", "", "the web client's post-logout redirect URI patterns, comma-separated")
	flag.Parse()
	var web *webClient
	if *webFlag != "" {
		id, secret, ok := strings.Cut(*webFlag, ":")
		if !ok || id == "" || secret == "" {
			fmt.Fprintln(os.Stderr, "-web-client takes ID:SECRET")
			os.Exit(2)
		}
		c := storage.WebClient(id, secret, "http://localhost/unused")
		storage.RegisterClients(c)
		web = &webClient{Client: c, redirects: split(*redirects), logouts: split(*logouts)}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	issuer := "http://" + ln.Addr().String() + "/"
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store := &jwtStorage{Storage: storage.NewStorage(storage.NewUserStore(issuer)), audience: *audience, web: web}
	router := exampleop.SetupServer(issuer, store, logger, false)
	fmt.Println(issuer)
	srv := &http.Server{Handler: router, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// jwtStorage is the example's storage, with JWT access tokens for its
// client-credentials clients.
type jwtStorage struct {
	*storage.Storage
	audience string
	web      *webClient // nil without -web-client
}

// GetClientByClientID returns the web client with its patterns.
func (s *jwtStorage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	if s.web != nil && clientID == s.web.GetID() {
		return s.web, nil
	}
	return s.Storage.GetClientByClientID(ctx, clientID)
}

// webClient is the example's web client with redirect URI patterns.
type webClient struct {
	*storage.Client
	redirects, logouts []string
}

func (c *webClient) RedirectURIGlobs() []string           { return c.redirects }
func (c *webClient) PostLogoutRedirectURIGlobs() []string { return c.logouts }

// IDTokenUserinfoClaimsAssertion puts the profile's claims
// (preferred_username, email) in the ID token, as many providers do.
func (c *webClient) IDTokenUserinfoClaimsAssertion() bool { return true }

func split(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// ClientCredentials returns the example's client, made to get JWT
// access tokens.
func (s *jwtStorage) ClientCredentials(ctx context.Context, clientID, clientSecret string) (op.Client, error) {
	c, err := s.Storage.ClientCredentials(ctx, clientID, clientSecret)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

// ClientCredentialsTokenRequest names the API as the audience.
func (s *jwtStorage) ClientCredentialsTokenRequest(ctx context.Context, clientID string, scopes []string) (op.TokenRequest, error) {
	if _, err := s.Storage.ClientCredentialsTokenRequest(ctx, clientID, scopes); err != nil {
		return nil, err
	}
	return &oidc.JWTTokenRequest{Subject: clientID, Audience: []string{s.audience}, Scopes: scopes}, nil
}

// GetPrivateClaimsFromScopes puts the scopes granted in the token.
func (s *jwtStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if err != nil {
		return nil, err
	}
	if claims == nil {
		claims = map[string]any{}
	}
	claims["scope"] = strings.Join(scopes, " ")
	return claims, nil
}

type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
