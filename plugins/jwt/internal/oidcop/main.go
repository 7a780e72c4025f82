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
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	issuer := "http://" + ln.Addr().String() + "/"
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store := &jwtStorage{Storage: storage.NewStorage(storage.NewUserStore(issuer)), audience: *audience}
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
